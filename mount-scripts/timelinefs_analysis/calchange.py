# SPDX-License-Identifier: MIT
"""The change in a step's MB/s that the storage's own change predicts, for
timelinefs-report --compare: from each label's --calibrate-work rows (fio's
readers each reading what a stream read from the storage, a step's own
work) of as many readers as the step has workstations.

A step's wall time is the storage's time for the step's work plus time
that is not the storage's (readers starting, their opens, the last frames
through the mount): 0.20-0.24 s of a 2.6 s step on a slower host, the same
at 20 and 18.8 MiB/s (docs/lab.md, ground truth 4).  A storage change adds
its seconds to the storage's part only, so the steps' change is A's mean
step, w_A, against w_A plus the seconds the calibrations say the same
bytes take more at B:

    w_A / (w_A + bytes_A * (1 / B_cal(b) - 1 / B_cal(a))) - 1

where the calibrations' own ratio, B_cal(b) / B_cal(a) - 1, holds for a
step with nothing but the storage in it.  Only for unpaced steps (every
run's -o pace=off): a paced step's time is the timeline's, whatever the
storage's."""
import types

from . import db as dbm

# a calibration of a fixed amount of work (--calibrate-work): fio's
# --io_size, beside --calibrate's --runtime
WORK = "%--io_size=%"


def _cal(con, label, ws):
    """(mean bytes/s, rows) of label's --calibrate-work rows of ws readers."""
    return con.execute("select avg(bytes_per_s), count(*) from calibration where label = ? "
                       "and readers = ? and tool like ?", (label, ws, WORK)).fetchone()


def _steps(con, label, ws):
    """(mean wall s, mean bytes, steps, unpaced steps) of label's counted
    steps of ws workstations."""
    return con.execute(
        "select avg(s.wall_s), avg(s.bytes), count(*), "
        "sum(exists (select 1 from run_env e where e.run_id = s.run_id "
        "and e.key = 'opt.pace' and e.value = 'off')) "
        "from bench_step_summary s where s.label = ? and s.workstations = ? "
        "and s.repetition > 0", (label, ws)).fetchone()


def predict(con, la, lb, ws):
    """None where neither label has --calibrate-work rows of ws readers;
    else a namespace: pct (the predicted change of the MB/s, % of A's;
    None with why), ratio_pct (the calibrations' own), step_s (A's mean
    step), other_a and other_b (the steps' seconds not the storage's),
    cal_a and cal_b (bytes/s), n_a and n_b (calibration rows)."""
    # a database from before the calibration table (schema version 13)
    # or run_env has no calibrations and no recorded pace
    if not dbm.has_object(con, "calibration") or not dbm.has_object(con, "run_env"):
        return None
    (ca, na), (cb, nb) = _cal(con, la, ws), _cal(con, lb, ws)
    if not na and not nb:
        return None
    p = types.SimpleNamespace(pct=None, why=None, ratio_pct=None, step_s=None, other_a=None,
                              other_b=None, cal_a=ca, cal_b=cb, n_a=na, n_b=nb)
    if not na or not nb:
        p.why = "only %s has --calibrate-work rows of %d readers" % ("A" if na else "B", ws)
        return p
    p.ratio_pct = 100.0 * cb / ca - 100
    (wa, ba, sa, oa), (wb, bb, sb, ob) = _steps(con, la, ws), _steps(con, lb, ws)
    if not sa or not sb:
        p.why = "no counted step of %s" % ("A" if not sa else "B")
        return p
    if oa < sa or ob < sb:
        p.why = "paced steps (a paced step's time is the timeline's, not the storage's work)"
        return p
    p.step_s = wa
    p.other_a, p.other_b = wa - ba / ca, wb - bb / cb
    p.pct = 100.0 * wa / (wa + ba * (1.0 / cb - 1.0 / ca)) - 100
    return p
