# SPDX-License-Identifier: MIT
"""Headroom: how early each frame was ready (due - done of its last read,
the view frame_headroom; below 0 it was late).  Across a benchmark's
steps, the headroom against the workstations: how the margin shrinks as
workstations are added, before any frame is late.  And its plot: each
stream's headroom over time, late frames below zero, and that curve."""
from . import db as dbm
from . import fmt

# the table's columns: per label and workstation count, over its
# repetitions (warm-ups, repetition 0, left out)
COLUMNS = ("label", "workstations", "steps", "frames", "late_frames",
           "min_ms", "p1_ms", "p5_ms", "p50_ms")


def by_workstations(con, run_ids):
    """Rows (as COLUMNS) of the runs' bench steps, per label and
    workstation count: steps, frames and late frames summed, the least
    headroom of any step (min_ms), and the means over the steps of their
    p1, p5 and median (p1_ms, p5_ms, p50_ms), in ms; [] for a database
    without headroom (before schema version 16) or runs without steps."""
    if not run_ids or not dbm.has_column(con, "bench_step_summary", "headroom_p1_us"):
        return []
    rows = con.execute(
        """select label, workstations, count(*), sum(frames), sum(late_frames),
                  min(headroom_min_us) / 1e3, avg(headroom_p1_us) / 1e3,
                  avg(headroom_p5_us) / 1e3, avg(headroom_p50_us) / 1e3
           from bench_step_summary
           where run_id in (%s) and repetition > 0
           group by label, workstations
           order by label, workstations""" % dbm.in_list(len(run_ids)),
        list(run_ids)).fetchall()
    return [tuple(r) for r in rows]


def write(rows, form, out):
    """The table in form text, csv or json to out."""
    if form == "csv":
        out.write(",".join(COLUMNS) + "\n")
        for r in rows:
            out.write(",".join(fmt.csv_quoted(r[0] or "") if i == 0 else fmt.num(v)
                               for i, v in enumerate(r)) + "\n")
        return
    if form == "json":
        out.write("[" + ",\n".join(
            "{" + ", ".join("%s: %s" % (fmt.jstr(c), fmt.jstr(v or "") if i == 0 else fmt.jnum(v))
                            for i, (c, v) in enumerate(zip(COLUMNS, r))) + "}"
            for r in rows) + "]")
        return
    if not rows:
        return
    out.write("headroom against workstations (due - done of each frame's last read, ms: "
              "min the least of any step, p1 p5 p50 the means of the steps' percentiles; "
              "below 0: late)\n")
    cells = [COLUMNS] + [(r[0] or "", str(r[1]), str(r[2]), str(r[3] or 0), str(r[4] or 0))
                         + tuple(fmt.fix(v, 1) for v in r[5:]) for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(COLUMNS))]
    for c in cells:
        out.write("  ".join(v.ljust(widths[i]) if i == 0 else v.rjust(widths[i])
                            for i, v in enumerate(c)).rstrip() + "\n")
    out.write("\n")


def series(con, run_id, step=None):
    """{stream_id: (name, [(t_s, headroom_ms, late)])} of the run's play
    streams (a bench step's only, for step), t the frame's due time."""
    where, args = "f.run_id = ?", [run_id]
    if step is not None:
        where += " and f.stream_id in (select stream_id from bench_stream where step_id = ?)"
        args.append(step)
    out = {}
    for sid, name, t, h, late in con.execute(
            """select f.stream_id, coalesce(t.name, s.file, '?'), f.due_ns / 1e9,
                      f.headroom_ns / 1e6, f.late
               from frame_headroom f join stream s on s.id = f.stream_id
               left join timeline t on t.id = s.timeline_id
               where %s order by f.stream_id, f.due_ns""" % where, args):
        out.setdefault(sid, (name, []))[1].append((t, h, late))
    return out
