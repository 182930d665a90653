# SPDX-License-Identifier: MIT
"""The forecast: from a label's benchmark steps below the first with late
frames, about how many workstations bring the headroom to zero, with a
95 % interval.  An estimate, said as one: it extrapolates a trend beyond
the steps measured.

The model is a queue's: a frame's response time R, from the time its
player meant to issue its reads (sched) to the end of its last read, is
what the lead L (due - sched: the ring's frames ahead of the clock) must
cover, and headroom = L - R.  In a queue the response time grows as
1 / (1 - load), so 1 / R falls on a line in the workstations and reaches
0 at the storage's capacity; the headroom reaches zero earlier, where R
= L, that is where the line reaches 1 / L.  R is the steps' p99 response
(L minus the p1 headroom: the frames a user first sees late); the line is
fitted by least squares over the steps, one point a step, and the
interval is Fieller's for where a fitted line crosses a level.  Where the
line does not fall significantly (the steps show no trend), or fewer
than 3 steps at 2 counts lie below the first late one, or the whole
interval lies past what the label's calibration says the storage feeds,
there is no forecast, and the reason is said."""
from . import db as dbm
from . import fmt


def _stats():
    # SciPy only where a fit or an interval is made: a bench's report of
    # one or two steps, every step of timelinefs-hosts among them, says
    # "too few steps" without the half second SciPy's import costs
    from . import stats
    return stats

COLUMNS = ("label", "steps", "counts", "first_late", "estimate", "lo", "hi", "reason",
           "stream_mb_s", "stream_reads_s", "cal_mb_s", "cal_reads_s", "cal_n",
           "by_calibration", "cal_lo", "cal_hi")
# steps and distinct workstation counts a forecast needs
MIN_STEPS = 3
MIN_COUNTS = 2


def points(con, run_ids):
    """{label: [(workstations, late_frames, p1 headroom ms, lead ms)]} of
    the runs' bench steps (warm-ups, repetition 0, left out), one a step;
    the lead the median of its frames' due - sched."""
    if not run_ids or not dbm.has_column(con, "bench_step_summary", "headroom_p1_us"):
        return {}
    out = {}
    for label, ws, late, p1, lead in con.execute(
            """with f as (
                 select bs.step_id, h.due_ns - h.sched_ns as lead,
                        row_number() over (partition by bs.step_id
                                           order by h.due_ns - h.sched_ns) as rn,
                        count(*) over (partition by bs.step_id) as n
                 from bench_stream bs join frame_headroom h on h.stream_id = bs.stream_id
                 join bench_step b on b.id = bs.step_id
                 where b.run_id in (%s) and b.repetition > 0),
               m as (select step_id, lead from f where rn = (n + 1) / 2)
               select b.label, b.workstations, b.late_frames, b.headroom_p1_us / 1e3,
                      m.lead / 1e6
               from bench_step_summary b left join m on m.step_id = b.step_id
               where b.run_id in (%s) and b.repetition > 0
               order by b.label, b.workstations, b.step_id"""
            % (dbm.in_list(len(run_ids)), dbm.in_list(len(run_ids))),
            list(run_ids) * 2):
        out.setdefault(label or "", []).append((ws, late, p1, lead))
    return out


def estimate(pts):
    """The forecast of one label's points (as points()): a dict of
    COLUMNS but label; estimate, lo and hi None with the reason where
    there is none."""
    late_counts = sorted(ws for ws, late, _, _ in pts if late)
    first = late_counts[0] if late_counts else None
    below = [(ws, p1, lead) for ws, late, p1, lead in pts
             if (first is None or ws < first) and p1 is not None and lead]
    counts = sorted(set(ws for ws, _, _ in below))
    out = {"steps": len(below), "counts": counts, "first_late": first,
           "estimate": None, "lo": None, "hi": None, "reason": None}
    if len(below) < MIN_STEPS or len(counts) < MIN_COUNTS:
        out["reason"] = ("too few steps below the first with late frames (%d at %d "
                         "count%s; %d steps at %d counts needed)"
                         % (len(below), len(counts), "" if len(counts) == 1 else "s",
                            MIN_STEPS, MIN_COUNTS))
        return out
    lead = sorted(ld for _, _, ld in below)[len(below) // 2]
    # 1 / R, R = lead - p1 headroom: the frames' p99 response time (a
    # frame is done after its schedule, so R > 0 but for the clock's
    # grain)
    fit = _stats().line_crossing([ws for ws, _, _ in below],
                              [1.0 / max(ld - h, 1e-3) for _, h, ld in below], 1.0 / lead)
    if fit["slope"] is None or fit["slope"] >= 0 or fit["lo"] is None:
        out["reason"] = ("no trend: the headroom does not fall significantly across "
                         "the steps at %s workstations" % ", ".join(str(c) for c in counts))
        return out
    out.update(estimate=fit["x0"], lo=fit["lo"], hi=fit["hi"])
    return out


def demand(con, run_ids, label):
    """(MB/s, reads/s) a stream of label's steps asks: the means over
    their streams of its bytes and backing reads over its timeline's play
    time (as much at any load: a late stream reads the same frames);
    (None, None) for none."""
    return con.execute(
        """select avg(s.bytes * t.fps_num / (1e6 * t.frames * t.fps_den)),
                  avg((select count(*) from access a where a.stream_id = s.id and a.op = 0)
                      * 1.0 * t.fps_num / (t.frames * t.fps_den))
           from bench_step b join bench_stream bs on bs.step_id = b.id
           join stream s on s.id = bs.stream_id join timeline t on t.id = s.timeline_id
           where b.run_id in (%s) and b.label is ? and b.repetition > 0
             and t.frames > 0 and t.fps_num > 0""" % dbm.in_list(len(run_ids)),
        list(run_ids) + [label or None]).fetchone()


def by_calibration(con, f, run_ids):
    """Add to forecast f (a label's) what the label's calibrations (fio,
    timelinefs-bench --calibrate, in any run of the label) say: the
    workstations the storage's measured bytes/s and reads/s feed at a
    stream's demand, each calibration's count the smaller of the two
    (fio reads at the run's mean read rounded up to 4 KiB: its reads/s
    understate what smaller reads would get, its bytes/s overstate what
    many small reads would), and over 2 calibrations or more Student's
    95 % interval of their mean."""
    f.update(stream_mb_s=None, stream_reads_s=None, cal_mb_s=None, cal_reads_s=None,
             cal_n=0, by_calibration=None, cal_lo=None, cal_hi=None)
    mb, reads = demand(con, run_ids, f["label"])
    f["stream_mb_s"], f["stream_reads_s"] = mb, reads
    if not mb or not reads or not dbm.has_object(con, "calibration"):
        return f
    rows = con.execute("select bytes_per_s / 1e6, reads_per_s from calibration "
                       "where label is ? order by id", (f["label"] or None,)).fetchall()
    counts = [min(b / mb, r / reads) for b, r in rows if b and r]
    if not counts:
        return f
    f["cal_n"] = len(counts)
    f["cal_mb_s"] = sum(b for b, _ in rows) / len(rows)
    f["cal_reads_s"] = sum(r for _, r in rows) / len(rows)
    mean, _, _, hw = _stats().mean_interval(counts)
    f["by_calibration"] = mean
    if hw is not None:
        f["cal_lo"], f["cal_hi"] = mean - hw, mean + hw
    return f


def against_calibration(f):
    """Forecast f without its headroom estimate, said why, where the
    whole 95 % interval of that estimate lies past the workstations the
    label's calibration says the storage feeds (the top of the
    calibration's interval, or its one count): in the queue's model the
    headroom reaches zero before the storage's capacity, never after, so
    such a trend is another resource's (the host's CPU slowing as the
    streams grow, seen on a 2-core host in a lab of 200 reads/s: 16.3
    [10.2, 60.7] where 6 played and 7 did not, the calibration 6.7), and
    a number from it would promise workstations the storage cannot
    feed."""
    cap = f["cal_hi"] if f["cal_hi"] is not None else f["by_calibration"]
    if f["estimate"] is None or cap is None or f["lo"] <= cap:
        return f
    f["reason"] = ("past the storage: the headroom's trend reaches zero near %.1f "
                   "workstations [%.1f, %.1f] (95 %%), all past the %.1f the storage's "
                   "calibration feeds; the trend is another resource's, not the "
                   "storage's queue" % (f["estimate"], f["lo"], f["hi"], cap))
    f["estimate"] = f["lo"] = f["hi"] = None
    return f


def forecast(con, run_ids):
    """[dict of COLUMNS] of the runs' labels with bench steps."""
    return [against_calibration(by_calibration(con, dict(label=label, **estimate(pts)),
                                               run_ids))
            for label, pts in sorted(points(con, run_ids).items())]


def line(f):
    """The report's lines for one forecast."""
    head = "forecast for %s" % (f["label"] or "(no label)")
    src = "from %d step%s at %s workstations%s" % (
        f["steps"], "" if f["steps"] == 1 else "s",
        ", ".join(str(c) for c in f["counts"]) or "no",
        ", below %d, the first with late frames" % f["first_late"]
        if f["first_late"] is not None else ", none with late frames")
    if f["estimate"] is None:
        text = "%s: none (%s)\n" % (head, f["reason"])
    else:
        text = ("%s (an estimate, %s): headroom reaches zero near %.1f workstations "
                "[%.1f, %.1f] (95 %%)\n" % (head, src, f["estimate"], f["lo"], f["hi"]))
    if f.get("by_calibration") is not None:
        text += ("  by the calibration (measured, not extrapolated: fio's %.2f MB/s, %.1f "
                 "reads/s%s; a stream asks %.3f MB/s, %.2f reads/s): the storage feeds "
                 "about %.1f workstations %s\n"
                 % (f["cal_mb_s"], f["cal_reads_s"],
                    "" if f["cal_n"] == 1 else ", the mean of %d" % f["cal_n"],
                    f["stream_mb_s"], f["stream_reads_s"], f["by_calibration"],
                    "(one calibration: no interval)" if f["cal_lo"] is None else
                    "[%.1f, %.1f] (95 %%)" % (f["cal_lo"], f["cal_hi"])))
    return text


def write(results, form, out):
    """The forecasts in form text or json to out."""
    if form == "json":
        out.write("[" + ",\n".join(
            "{" + ", ".join("%s: %s" % (fmt.jstr(c), jval(f[c])) for c in COLUMNS) + "}"
            for f in results) + "]")
        return
    for f in results:
        out.write(line(f))
    if results:
        out.write("\n")


def jval(v):
    if isinstance(v, list):
        return "[" + ", ".join(fmt.jnum(x) for x in v) + "]"
    if isinstance(v, str):
        return fmt.jstr(v)
    return fmt.jnum(v)
