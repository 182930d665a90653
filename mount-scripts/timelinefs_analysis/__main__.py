# SPDX-License-Identifier: MIT
"""The entry of timelinefs-report's statistics (the script parses the
command line and calls this with it checked):

  python3 -m timelinefs_analysis runs DB RUN...
  python3 -m timelinefs_analysis spread DB FMT [RUN...]
  python3 -m timelinefs_analysis compare DB FMT LABEL_A LABEL_B EFFECT
  python3 -m timelinefs_analysis plot DB RUN OUT STEP WxH EXPERIMENT EXP_STEP
  python3 -m timelinefs_analysis headroom-plot DB RUN OUT STEP WxH
  python3 -m timelinefs_analysis headroom DB FMT RUN...
  python3 -m timelinefs_analysis probe DB FMT RUN...
  python3 -m timelinefs_analysis forecast DB FMT RUN...
  python3 -m timelinefs_analysis fio-iolog DB STREAM [OUT]
  python3 -m timelinefs_analysis fio-iolog-served DB STREAM [OUT]
  python3 -m timelinefs_analysis html DB OUT EFFECT [LABEL_A LABEL_B | -- RUN...]

runs prints the ids of the runs RUN (ids or labels) as "1,2,3": the
summaries' SQL then holds numbers only, never a label.  headroom prints
the headroom against workstations of the runs' bench steps (all runs for
none), and in text the forecast under it; forecast prints the forecast
alone (text or json): per label, where the headroom reaches zero, an
estimate from the steps below the first with late frames; probe the
interactive work timed beside them (timelinefs-probe).

html writes the page OUT atomically (nothing written on a failure): of
the runs RUN (all by default), or of those of LABEL_A and LABEL_B and
their comparison.

FMT is text, csv or json; plot's STEP, EXPERIMENT and EXP_STEP are
numbers or empty (timelinefs-plot checked them).  Exit status 0 done, 1
error (no such label or run, a database it cannot read, a library a
command needs missing: said by name)."""
import signal
import sqlite3
import sys

from . import db

PROG = "timelinefs-report"


def main(argv):
    # a reader that has read enough (grep -q, head) ends us quietly, as
    # it would sqlite3 or awk
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    need = {"runs": 2, "spread": 3, "compare": 6, "plot": 8, "fio-iolog": 3,
            "fio-iolog-served": 3, "html": 4,
            "headroom": 3, "headroom-plot": 6, "probe": 3, "forecast": 3}
    if not argv or argv[0] not in need or len(argv) < need[argv[0]] or \
            (argv[0] in ("compare", "plot", "headroom-plot") and len(argv) != need[argv[0]]):
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    what, path = argv[:2]
    if what in ("spread", "compare"):
        # SciPy only where a statistic needs it: said before any output
        try:
            from . import compare, spread
        except ImportError:
            return missing(PROG, "SciPy and NumPy", " for --spread and --compare",
                           "python3-scipy python3-numpy")
    if what in ("plot", "headroom-plot"):
        return plot_main(path, argv[2:], what == "headroom-plot")
    if what == "html":
        return html_main(path, argv[2:])
    if what in ("fio-iolog", "fio-iolog-served"):
        return export_main(path, argv[2:], what == "fio-iolog-served")
    def work():
        con = db.open_ro(path)
        if what == "runs":
            cond, args = db.run_condition(con, argv[2:])
            print(",".join(str(r) for r, in con.execute(
                "select id from run where %s order by id" % cond, args)))
        elif what == "headroom":
            from . import headroom
            cond, args = db.run_condition(con, argv[3:])
            ids = [r for r, in con.execute(
                "select id from run where %s order by id" % cond, args)]
            headroom.write(headroom.by_workstations(con, ids), argv[2], sys.stdout)
            if argv[2] == "text":
                forecast_write(con, ids, "text")
        elif what == "probe":
            from . import probe
            cond, args = db.run_condition(con, argv[3:])
            ids = [r for r, in con.execute(
                "select id from run where %s order by id" % cond, args)]
            probe.write(probe.by_workstations(con, ids), argv[2], sys.stdout)
        elif what == "forecast":
            cond, args = db.run_condition(con, argv[3:])
            forecast_write(con, [r for r, in con.execute(
                "select id from run where %s order by id" % cond, args)], argv[2])
        elif what == "spread":
            spread.spread(con, argv[3:], argv[2], sys.stdout)
        else:
            compare.compare(con, argv[3], argv[4], argv[5], argv[2], sys.stdout)
    return reported(path, work)


def forecast_write(con, ids, form):
    # SciPy's t quantile: without it the forecast says so and the rest
    # of the report stands
    from . import forecast
    try:
        results = forecast.forecast(con, ids)
    except ImportError:
        sys.stderr.write("%s: no forecast: %s with SciPy and NumPy is needed "
                         "(apt-get install python3-scipy python3-numpy)\n"
                         % (PROG, sys.executable))
        if form == "json":
            sys.stdout.write("[]")
        return
    forecast.write(results, form, sys.stdout)


def reported(path, work):
    """work() with the database's failures said as the report says
    them: 0 done, 1 error."""
    try:
        work()
    except LookupError as e:
        # (what, after): "no run labelled 'x'" in DB " (labels: ...)"
        sys.stderr.write("%s: %s in %s%s\n" % (PROG, e.args[0], path, "".join(e.args[1:])))
        return 1
    except sqlite3.Error as e:
        sys.stderr.write("%s: %s: %s\n" % (PROG, path, e))
        return 1
    return 0


def missing(prog, libs, what, packages):
    """The message for a Python without the libraries libs; exit 1."""
    sys.stderr.write("%s: %s with %s is needed%s (apt-get install %s)\n"
                     % (prog, sys.executable, libs, what, packages))
    return 1


def export_main(path, argv, served):
    from . import export
    try:
        con = db.open_ro(path)
        text = export.fio_iolog(con, path, int(argv[0]), served)
        # written whole, after every file was found: a failure leaves no OUT
        if len(argv) > 1:
            with open(argv[1], "w") as f:
                f.write(text)
        else:
            sys.stdout.write(text)
    except export.ExportError as e:
        sys.stderr.write("timelinefs-export: %s\n" % e)
        return 1
    except sqlite3.Error as e:
        sys.stderr.write("timelinefs-export: %s: %s\n" % (path, e))
        return 1
    except OSError as e:
        sys.stderr.write("timelinefs-export: %s\n" % e)
        return 1
    return 0


def html_main(path, argv):
    try:
        from . import htmlreport
    except ImportError:
        return missing(PROG, "SciPy, NumPy and matplotlib", " for --html",
                       "python3-scipy python3-numpy python3-matplotlib")
    out, effect = argv[:2]
    la = lb = None
    runs = argv[2:]
    if runs[:1] == ["--"]:
        runs = runs[1:]
    elif len(runs) == 2:
        la, lb = runs
        runs = []
    elif runs:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    # TERM ends us through the finally that removes the temporary file
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    def work():
        htmlreport.write(db.open_ro(path), path, out, runs, la, lb, effect)
        print("wrote %s" % out)
    try:
        return reported(path, work)
    except htmlreport.HtmlError as e:
        sys.stderr.write("%s: %s\n" % (PROG, e))
        return 1
    except KeyboardInterrupt:
        return 130


def plot_main(path, argv, headroom=False):
    try:
        from . import plot
    except ImportError:
        return missing("timelinefs-plot", "matplotlib", "", "python3-matplotlib")
    run, out, step, size = argv[:4]
    exp, exp_step = argv[4:] if not headroom else ("", "")
    num = lambda x: int(x) if x else None
    w, h = (int(v) for v in size.split("x"))
    try:
        con = db.open_ro(path)
        if headroom:
            drew = plot.headroom(con, run, out, num(step), (w, h))
        else:
            drew = plot.plot(con, run, out, num(step), (w, h), num(exp), num(exp_step))
        print("wrote %s: %s" % (out, drew))
    except plot.PlotError as e:
        sys.stderr.write("timelinefs-plot: %s\n" % str(e).replace("%s", path))
        return 1
    except sqlite3.Error as e:
        sys.stderr.write("timelinefs-plot: %s is not a timelinefs database (%s)\n" % (path, e))
        return 1
    except OSError as e:
        sys.stderr.write("timelinefs-plot: cannot write %s: %s\n" % (out, e.strerror or e))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
