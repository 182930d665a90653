# SPDX-License-Identifier: MIT
"""timelinefs-plot: a PNG of one run (or an experiment of many hosts)
drawn with matplotlib: top, the latency of every backing read against
the time it was issued, one colour per stream (per timeline past 16
streams, per host for an experiment), late reads as red crosses, the
writes of dropped frames as magenta circles; bottom, a latency histogram
per track (per host), 10 bins per decade."""
import math
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

from . import db as dbm  # noqa: E402

# 16 distinguishable colours, then the cycle repeats
COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
          "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#c5b0d5", "#c49c94",
          "#f7b6d2", "#dbdb8d"]


class PlotError(Exception):
    """A failure said to the user (exit 1)."""


def select(con, run, step, exp, exp_step):
    """(where, args, x, key, hist, axis join, what, info) of the reads to
    draw; raises PlotError for a run, step or experiment the database
    lacks."""
    if exp is not None:
        if not dbm.has_object(con, "run_axis") or \
                con.execute("select count(*) from experiment where id = ?", (exp,)).fetchone()[0] != 1:
            raise PlotError("no experiment %d in %%s (timelinefs-report %%s --experiments lists them)" % exp)
        where = """s.run_id in (select r.id from run r join host h on h.id = r.host_id
                   where h.experiment_id = ?)"""
        args = [exp]
        if exp_step is not None:
            if con.execute("select count(*) from bench_step where experiment_id = ? and step_no = ?",
                           (exp, exp_step)).fetchone()[0] == 0:
                raise PlotError("experiment %d has no step %d" % (exp, exp_step))
            where += """ and s.id in (select x.stream_id from bench_stream x join bench_step b
                        on b.id = x.step_id where b.experiment_id = ? and b.step_no = ?)"""
            args += [exp, exp_step]
        axis = "join run_axis x on x.run_id = s.run_id"
        # the origin: the selection's first issue on rank 0's axis
        base = con.execute("select min(x.t0_axis_ns + a.issued_ns) from access a join stream s "
                           "on s.id = a.stream_id %s where %s" % (axis, where), args).fetchone()[0]
        what = "experiment %d%s" % (exp, "" if exp_step is None else " step %d" % exp_step)
        if base is None:
            raise PlotError("%s has no recorded reads on the time axis" % what)
        hist = "'rank ' || coalesce(x.rank, '?') || ' (' || coalesce(x.host, '?') || ')'"
        return (where, args, "(x.t0_axis_ns + a.issued_ns - %d) / 1e9" % base,
                "coalesce(x.rank, -1)", hist, axis, what, None)
    if run.isdigit() and run.isascii():
        r = con.execute("select id from run where id = ?", (int(run),)).fetchone()
    else:
        r = con.execute("select max(id) from run where label = ?", (run,)).fetchone()
    if r is None or r[0] is None:
        raise PlotError("no run '%s' in %%s" % run)
    run_id = r[0]
    where, args = "s.run_id = ?", [run_id]
    if step is not None:
        if con.execute("select count(*) from bench_step where id = ? and run_id = ?",
                       (step, run_id)).fetchone()[0] != 1:
            raise PlotError("run %d has no bench step %d" % (run_id, step))
        where += " and s.id in (select stream_id from bench_stream where step_id = ?)"
        args.append(step)
    what = "run %d%s" % (run_id, "" if step is None else " step %d" % step)
    return where, args, "a.issued_ns / 1e9", "s.id", "a.track", "", what, run_id


def bin_of(us):
    """The histogram bin of a latency: [10^(b/10), 10^((b+1)/10)) us."""
    v = math.log10(max(us, 0.1)) * 10
    b = int(math.floor(v + 1e-9))
    return b


def plot(con, run, out, step=None, size=(1400, 900), exp=None, exp_step=None):
    """Draw and save into out (a file name or a binary file); returns
    what was drawn, in words (timelinefs-plot prints "wrote OUT: " and
    them)."""
    where, args, xs, key, hist, axis, what, run_id = select(con, run, step, exp, exp_step)
    hosts = exp is not None
    # Record streams (schema version 11, ingest): drawn beside the reads, a
    # write of a dropped frame (done after the frame was due) marked as a
    # late read is; a late fsync or close drops no frame, nor does a last
    # partial frame (played 0).  Receive and await rows are waits, not the
    # storage's: not drawn.
    kind, name, late = "'play'", "t.name", "a.done_ns > a.due_ns"
    if dbm.has_column(con, "stream", "kind"):
        kind, name = "s.kind", "coalesce(t.name, s.file)"
        late = "a.done_ns > a.due_ns and (s.kind = 'play' or (a.op = 5 and coalesce(a.played, 1)))"
        where += " and a.op not in (9, 10)"
    if hosts:
        name = hist
    rows = con.execute(
        """select %s, coalesce(%s, '?'), %s, (a.done_ns - a.issued_ns) / 1e3, %s, %s, %s
           from access a join stream s on s.id = a.stream_id %s
           left join timeline t on t.id = s.timeline_id
           where %s and a.done_ns is not null
           order by %s, a.issued_ns""" % (key, name, xs, late, hist, kind, axis, where, key),
        args).fetchall()
    if not rows:
        raise PlotError("%s has no recorded reads to plot" % what)
    if hosts:
        info = con.execute(
            """select coalesce((select group_concat(distinct r.label) from run r join host h
                      on h.id = r.host_id where h.experiment_id = e.id), ''), e.uuid,
                      coalesce(m.machines, '?'), e.started_at, m.hosts
               from experiment e join experiment_summary m on m.experiment_id = e.id
               where e.id = ?""", (exp,)).fetchone()
    else:
        info = con.execute("select coalesce(label, ''), coalesce(kernel, '?'), "
                           "coalesce(config_hz, '?'), coalesce(started_at, '') from run where id = ?",
                           (run_id,)).fetchone()

    # the series: one per stream (or host), in order of first appearance
    streams = {}
    tl_streams = {}
    for k, nm, x, us, lt, trk, knd in rows:
        if k not in streams:
            streams[k] = (nm, knd == "record")
            tl_streams[nm] = tl_streams.get(nm, 0) + 1
    by_tl = len(streams) > 16 and not hosts
    if by_tl:
        names = sorted(tl_streams)
        series = {nm: i for i, nm in enumerate(names)}
        titles = ["%s (%d streams)" % (nm, tl_streams[nm]) for nm in names]
    else:
        series = {k: i for i, k in enumerate(streams)}
        titles = [streams[k][0] if hosts else "%s %s (%s)" % (
            "record" if streams[k][1] else "stream", k, streams[k][0]) for k in streams]
    pts = [([], []) for _ in titles]
    late_pts, drop_pts = ([], []), ([], [])
    hists = {}
    n_rec = n_drop = n_late = 0
    for k, nm, x, us, lt, trk, knd in rows:
        rec = knd == "record"
        ms = max(us, 0.1) / 1000
        if lt == 1:
            dest = drop_pts if rec else late_pts
        else:
            dest = pts[series[nm if by_tl else k]]
        dest[0].append(x)
        dest[1].append(ms)
        h = hists.setdefault(trk + " written" if rec else trk, [rec, {}])
        b = bin_of(us)
        h[1][b] = h[1].get(b, 0) + 1
        if rec:
            n_rec += 1
            n_drop += lt == 1
        else:
            n_late += lt == 1
    n_acc = len(rows) - n_rec
    n_rs = sum(1 for v in streams.values() if v[1])
    n_streams = len(streams) - n_rs

    w, h_px = size
    fig = plt.figure(figsize=(w / 100, h_px / 100), dpi=100)
    top = fig.add_axes([0.08, 0.47, 0.72, 0.45])
    bottom = fig.add_axes([0.08, 0.07, 0.72, 0.28])
    per = "host" if hosts else ("timeline" if by_tl else "stream")
    if hosts:
        label, _uuid, machines, started, nhosts = info
        one = ": one physical host, not a scale-out measurement" if str(machines) == "1" else ""
        title1 = "timelinefs experiment %d%s (%s): label '%s', %s hosts on %s machine(s)%s, started %s" % (
            exp, "" if exp_step is None else ", step %d" % exp_step, _uuid, label, nhosts,
            machines, one, started)
    else:
        label, kernel, hz, started = info
        title1 = "timelinefs run %d%s: label '%s', kernel %s, CONFIG_HZ %s, mounted %s" % (
            run_id, "" if step is None else ", bench step %d" % step, label, kernel, hz, started)
    title2 = "latency of each backing read, one colour per %s; %d of %d reads late" % (per, n_late, n_acc)
    recorded = ""
    if n_rs:
        title2 = ("latency of each backing read and write, one colour per %s; %d of %d reads late; "
                  "%d writes of dropped frames in %d operations of record streams"
                  % (per, n_late, n_acc, n_drop, n_rec))
        recorded = "; %d operations of %d record streams, %d writes of dropped frames" % (
            n_rec, n_rs, n_drop)
    # the title within the image, however narrow (about 7 px a character)
    cols = max(40, int(w / 7.2))
    top.set_title(textwrap.fill(title1, cols) + "\n" + textwrap.fill(title2, cols), fontsize=10)
    for i, (xs_, ys_) in enumerate(pts):
        top.scatter(xs_, ys_, s=5, color=COLORS[i % 16], label=titles[i], linewidths=0)
    if n_rs:
        top.scatter(drop_pts[0], drop_pts[1], s=60, facecolors="none", edgecolors="magenta",
                    linewidths=1.5, label="write of a dropped frame (%d)" % n_drop)
    top.scatter(late_pts[0], late_pts[1], s=40, marker="x", color="red", linewidths=1.5,
                label="late read (%d)" % n_late)
    top.set_yscale("log")
    top.set_xlabel("time on rank 0's clock since the first read (s)" if hosts
                   else "time since the mount (s)")
    top.set_ylabel("latency (ms, log scale)")
    top.grid(True, which="major", alpha=0.4)
    nleg = len(titles) + 1 + (1 if n_rs else 0)
    top.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8,
               ncol=1 if nleg <= 20 else 2, frameon=False, borderaxespad=0)
    # bottom: a histogram per track; a bin plotted at its geometric centre
    for i, (k, (rec, bins)) in enumerate(hists.items()):
        lo, hi = min(bins), max(bins)
        edges = [10 ** (b / 10) for b in range(lo, hi + 2)]
        counts = [bins.get(b, 0) for b in range(lo, hi + 1)]
        # an empty bin drawn at 0.8, below the axis: the steps fall back
        bottom.stairs([c if c else 0.8 for c in counts], edges, baseline=0.8,
                      color=COLORS[i % 16], linewidth=2,
                      label="%s (%d %s)" % (k, sum(counts), "operations" if rec else "reads"))
    bottom.set_xscale("log")
    bottom.set_yscale("log")
    bottom.set_ylim(bottom=0.8)
    bottom.set_title("latency histogram per %s (10 bins per decade)" % ("host" if hosts else "track"),
                     fontsize=10)
    bottom.set_xlabel("latency (us, log scale)" if n_rs else "read latency (us, log scale)")
    bottom.set_ylabel("reads per bin (log)")
    bottom.grid(True, which="major", alpha=0.4)
    bottom.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False,
                  borderaxespad=0)
    # log axes labelled 0.01, 1, 100 (gnuplot's '%g'), not 10^-2
    plain = FuncFormatter(lambda v, _pos: "%g" % v)
    for ax in (top.yaxis, bottom.xaxis, bottom.yaxis):
        ax.set_major_formatter(plain)
    fig.savefig(out, dpi=100, format="png")
    plt.close(fig)
    if hosts:
        return "%s, %d reads of %d hosts, %d late%s (matplotlib)" % (
            what, n_acc, len(titles), n_late, recorded)
    return "%s, %d reads of %d streams, %d late%s (matplotlib)" % (
        what, n_acc, n_streams, n_late, recorded)


def headroom(con, run, out, step=None, size=(1400, 900)):
    """timelinefs-plot --headroom: top, each play stream's headroom (due -
    done of each frame's last read, ms) against the frame's due time, one
    colour per stream, the late frames (below zero) as red crosses; bottom,
    where the run has bench steps of two workstation counts or more, the
    headroom against the workstations (the steps' least, and the means of
    their p1, p5 and median).  Returns the line that says what was drawn."""
    from . import headroom as hr
    where, args, _x, _k, _h, _a, what, run_id = select(con, run, step, None, None)
    if not dbm.has_object(con, "frame_headroom"):
        raise PlotError("%%s has no headroom (schema version 16): mount it once with this "
                        "version of timelinefs")
    streams = hr.series(con, run_id, step)
    if not streams:
        raise PlotError("%s has no played frames to plot" % what)
    curve = [r for r in hr.by_workstations(con, [run_id]) if step is None]
    w, h_px = size
    fig = plt.figure(figsize=(w / 100, h_px / 100), dpi=100)
    two = len({r[1] for r in curve}) >= 2
    top = fig.add_axes([0.08, 0.47 if two else 0.1, 0.72, 0.45 if two else 0.8])
    n_frames = n_late = 0
    lx, ly = [], []
    for i, (sid, (name, pts)) in enumerate(streams.items()):
        top.plot([p[0] for p in pts], [p[1] for p in pts], ".", markersize=2,
                 color=COLORS[i % 16], label="stream %d (%s)" % (sid, name) if i < 40 else None)
        n_frames += len(pts)
        for t, v, late in pts:
            if late:
                lx.append(t)
                ly.append(v)
    n_late = len(lx)
    top.scatter(lx, ly, s=40, marker="x", color="red", linewidths=1.5,
                label="late frame (%d)" % n_late)
    top.axhline(0, color="black", linewidth=1)
    top.set_xlabel("due time since the mount (s)")
    top.set_ylabel("headroom: due - done (ms); below 0 late")
    top.grid(True, alpha=0.4)
    cols = max(40, int(w / 7.2))
    top.set_title(textwrap.fill("timelinefs %s: headroom of each frame, one colour per stream; "
                                "%d of %d frames late" % (what, n_late, n_frames), cols),
                  fontsize=10)
    top.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False,
               borderaxespad=0)
    if two:
        bottom = fig.add_axes([0.08, 0.07, 0.72, 0.28])
        for lab in sorted({r[0] or "" for r in curve}):
            rows = [r for r in curve if (r[0] or "") == lab]
            ws = [r[1] for r in rows]
            for col, name, style in ((5, "min", "v:"), (6, "p1", "o-"), (7, "p5", "s-"),
                                     (8, "p50", "^-")):
                bottom.plot(ws, [r[col] for r in rows], style,
                            label="%s%s" % (lab + " " if len(curve) > len(ws) else "", name))
        bottom.axhline(0, color="black", linewidth=1)
        bottom.set_xlabel("workstations")
        bottom.set_ylabel("headroom (ms)")
        bottom.set_title("headroom against workstations (the steps' least; the means of "
                         "their p1, p5, median)", fontsize=10)
        bottom.grid(True, alpha=0.4)
        bottom.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False,
                      borderaxespad=0)
    fig.savefig(out, dpi=100, format="png")
    plt.close(fig)
    return "%s, headroom of %d frames of %d streams, %d late%s (matplotlib)" % (
        what, n_frames, len(streams), n_late,
        ", against %d workstation counts" % len({r[1] for r in curve}) if two else "")
