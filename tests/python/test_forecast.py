# SPDX-License-Identifier: MIT
"""timelinefs_analysis.forecast against values worked out by hand, on a
database of the real schema (schema/*.sql)."""
import glob
import io
import json
import os
import sqlite3

import pytest

from timelinefs_analysis import db, forecast

SCHEMA = os.path.join(os.path.dirname(__file__), "..", "..", "schema")

# (workstations, repetition, headroom of each frame in ms): one stream a
# step, every frame due 80 ms after its schedule (the lead).  Below the
# first late step (5) the least headroom (p1 of 3 frames is the least) is
# 70, 67.5, 60, 55 ms: response times R = 80 - h of 10, 12.5, 20, 25 ms,
# 1 / R = 0.1, 0.08, 0.05, 0.04 per ms.  The warm-up (repetition 0) and
# the step above the first late one are left out.
STEPS = [(1, 0, [1, 2, 3]), (1, 1, [70, 75, 80]), (2, 1, [67.5, 70, 75]),
         (3, 1, [60, 65, 70]), (4, 1, [55, 60, 65]), (5, 1, [-3, 10, 20]),
         (6, 1, [50, 60, 70])]
FPS = (30, 1)


def make(path, steps, label="a", calibrations=()):
    con = sqlite3.connect(path)
    for f in sorted(glob.glob(os.path.join(SCHEMA, "*.sql"))):
        with open(f) as s:
            con.executescript(s.read())
    con.execute("insert into run (id, label, started_at) values (1, ?, 'x')", (label,))
    # a timeline of 3 frames at 30 fps (0.1 s) read whole: 1.5 MB/s, and
    # 2 backing reads a frame, 60 reads/s
    con.execute("insert into timeline (id, run_id, name, fps_num, fps_den, frames, bytes) "
                "values (1, 1, 't', ?, ?, 3, 150000)", FPS)
    for step, (ws, rep, hs) in enumerate(steps, 1):
        sid = step
        late = sum(h < 0 for h in hs)
        con.execute("insert into stream (id, run_id, timeline_id, opened_ns, closed_ns, frames, "
                    "late_frames, failed_frames, bytes) values (?, 1, 1, 0, 1, ?, ?, 0, 150000)",
                    (sid, len(hs), late))
        con.execute("insert into bench_step (id, run_id, label, workstations, repetition, wall_s) "
                    "values (?, 1, ?, ?, ?, 1.0)", (step, label, ws, rep))
        con.execute("insert into bench_stream (step_id, stream_id) values (?, ?)", (step, sid))
        for k, h in enumerate(hs):
            due = 10**9 + k * 33 * 10**6
            done = due - int(h * 10**6)
            for track, d in (("V", done), ("A1", done - 10**6)):
                con.execute("insert into access (stream_id, frame, track, sched_ns, due_ns, "
                            "issued_ns, done_ns, played) values (?, ?, ?, ?, ?, ?, ?, 1)",
                            (sid, k, track, due - 80 * 10**6, due, d - 10**5, d))
    for bps, rps in calibrations:
        con.execute("insert into calibration (run_id, label, readers, block_bytes, seconds, "
                    "read_bytes, bytes_per_s, reads_per_s) values (1, ?, 4, 4096, 2, 1, ?, ?)",
                    (label, bps, rps))
    con.commit()
    con.close()
    return path


def test_points(tmp_path):
    p = make(str(tmp_path / "t.db"), STEPS)
    pts = forecast.points(db.open_ro(p), [1])
    assert [(w, late, h, lead) for w, late, h, lead in pts["a"]] == [
        (1, 0, 70.0, 80.0), (2, 0, 67.5, 80.0), (3, 0, 60.0, 80.0), (4, 0, 55.0, 80.0),
        (5, 1, -3.0, 80.0), (6, 0, 50.0, 80.0)]


def test_estimate_by_hand(tmp_path):
    p = make(str(tmp_path / "t.db"), STEPS, calibrations=[(15e6, 400.0), (13e6, 500.0)])
    f, = forecast.forecast(db.open_ro(p), [1])
    # 1 / R on x 1..4: mean 0.0675, Sxy -0.105, Sxx 5, slope -0.021;
    # R = 80 ms (the lead, 1 / R = 0.0125) at 2.5 + 0.055 / 0.021 =
    # 5.119048.  Residuals 0.001 0.002 -0.007 0.004: s2 = 70e-6 / 2;
    # Fieller, t(0.975, 2) = 4.302653: 0.00031141 u^2 - 0.00231 u +
    # 0.00286301 <= 0: disc 1.769814e-6, root 1.3303436e-3, u in
    # [1.572936, 5.844933]
    assert f["label"] == "a" and f["steps"] == 4 and f["counts"] == [1, 2, 3, 4]
    assert f["first_late"] == 5 and f["reason"] is None
    assert f["estimate"] == pytest.approx(5.119048, abs=1e-5)
    assert f["lo"] == pytest.approx(4.072936, abs=1e-5)
    assert f["hi"] == pytest.approx(8.344933, abs=1e-5)
    # a stream: 150000 bytes and 6 reads in 0.1 s (at every step, late or
    # not), 1.5 MB/s and 60 reads/s; calibration 1: 10 by bytes, 6.667 by
    # reads; 2: 8.667 and 8.333; the smaller of each: mean 7.5, sd
    # 1.178511, t(0.975, 1) = 12.706205: +/- 12.706205 * 1.178511 / sqrt(2)
    # = 10.588504
    assert f["stream_mb_s"] == pytest.approx(1.5) and f["stream_reads_s"] == pytest.approx(60)
    assert f["cal_n"] == 2 and f["by_calibration"] == pytest.approx(7.5)
    assert f["cal_lo"] == pytest.approx(7.5 - 10.588504, abs=1e-5)
    assert f["cal_hi"] == pytest.approx(7.5 + 10.588504, abs=1e-5)
    out = io.StringIO()
    forecast.write([f], "text", out)
    assert out.getvalue().splitlines()[0] == (
        "forecast for a (an estimate, from 4 steps at 1, 2, 3, 4 workstations, below 5, "
        "the first with late frames): headroom reaches zero near 5.1 workstations "
        "[4.1, 8.3] (95 %)")
    assert out.getvalue().splitlines()[1] == (
        "  by the calibration (measured, not extrapolated: fio's 14.00 MB/s, 450.0 reads/s, "
        "the mean of 2; a stream asks 1.500 MB/s, 60.00 reads/s): the storage feeds about "
        "7.5 workstations [-3.1, 18.1] (95 %)")
    out = io.StringIO()
    forecast.write([f], "json", out)
    j = json.loads(out.getvalue())[0]
    assert j["estimate"] == pytest.approx(5.119048, abs=1e-5) and j["counts"] == [1, 2, 3, 4]
    assert j["by_calibration"] == 7.5 and j["reason"] is None


def test_none_said(tmp_path):
    # two steps below the first late one: too few
    p = make(str(tmp_path / "few.db"), [STEPS[1], STEPS[2], STEPS[5]])
    f, = forecast.forecast(db.open_ro(p), [1])
    assert f["estimate"] is None and f["reason"].startswith("too few steps")
    assert f["by_calibration"] is None
    out = io.StringIO()
    forecast.write([f], "text", out)
    assert out.getvalue().startswith("forecast for a: none (too few steps below the first "
                                     "with late frames (2 at 2 counts; 3 steps at 2 counts")
    # a flat headroom (R 10, 11, 10, 11 ms: the slope -0.0045 is not told
    # from 0): no trend, no number
    flat = [(1, 1, [70]), (2, 1, [69]), (3, 1, [70]), (4, 1, [69])]
    p = make(str(tmp_path / "flat.db"), flat)
    f, = forecast.forecast(db.open_ro(p), [1])
    assert f["estimate"] is None and f["first_late"] is None
    assert f["reason"] == ("no trend: the headroom does not fall significantly across "
                           "the steps at 1, 2, 3, 4 workstations")
    # no steps: no forecast
    assert forecast.forecast(db.open_ro(p), []) == []


def test_past_the_storage(tmp_path):
    # the steps' estimate 5.119048 [4.072936, 8.344933] (as worked out by
    # hand above); one calibration of 6 MB/s and 400 reads/s feeds
    # min(6 / 1.5, 400 / 60) = 4.0 workstations, below the interval's
    # whole: no number, said why
    p = make(str(tmp_path / "past.db"), STEPS, calibrations=[(6e6, 400.0)])
    f, = forecast.forecast(db.open_ro(p), [1])
    assert f["by_calibration"] == pytest.approx(4.0) and f["cal_lo"] is None
    assert f["estimate"] is None and f["lo"] is None and f["hi"] is None
    assert f["reason"] == (
        "past the storage: the headroom's trend reaches zero near 5.1 workstations "
        "[4.1, 8.3] (95 %), all past the 4.0 the storage's calibration feeds; the trend "
        "is another resource's, not the storage's queue")
    out = io.StringIO()
    forecast.write([f], "text", out)
    assert out.getvalue().splitlines()[0] == "forecast for a: none (" + f["reason"] + ")"
    # 6.2 MB/s: 4.133 workstations, inside the interval: the estimate stands
    p = make(str(tmp_path / "in.db"), STEPS, calibrations=[(6.2e6, 400.0)])
    f, = forecast.forecast(db.open_ro(p), [1])
    assert f["by_calibration"] == pytest.approx(4.133333, abs=1e-5)
    assert f["estimate"] == pytest.approx(5.119048, abs=1e-5) and f["reason"] is None
    # two calibrations: the top of their interval is the bound (7.5 +
    # 10.588504 above the interval's low end): the estimate stands
    p = make(str(tmp_path / "two.db"), STEPS, calibrations=[(15e6, 400.0), (13e6, 500.0)])
    f, = forecast.forecast(db.open_ro(p), [1])
    assert f["estimate"] == pytest.approx(5.119048, abs=1e-5)
