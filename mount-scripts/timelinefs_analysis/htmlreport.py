# SPDX-License-Identifier: MIT
"""timelinefs-report DB --html OUT.html: one self-contained page of the
runs, each comparison's environment difference and verdicts in words,
the plots and the lab's calibration rows.

Self-contained: the style is inline, the plots are PNGs in data: URIs,
and nothing else is referenced (no script, no font, no link): the page
opens the same without a network, mailed or archived.  The words are the
text report's own (compare.py's verdicts, sessions and environment
lines); the plots are timelinefs-plot's (plot.py)."""
import base64
import datetime
import html
import io
import json
import os
import tempfile

from . import compare as cmp
from . import db as dbm
from . import plot as pl
from . import probe as pr
from .fmt import fix, pct
from .spread import hosts_db

# the verdicts' classes (a colour each) in the summary's order
KINDS = [("worse", "significant and worse"), ("better", "significant and better"),
         ("unresolved", "not resolved"), ("ns", "not significant"), ("none", "no interval")]

STYLE = """
body { font: 15px/1.4 sans-serif; margin: 1.5em auto; max-width: 1500px; padding: 0 1em;
       color: #1a1a1a; background: #fff; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { border-bottom: 2px solid #345; padding-bottom: 0.15em; margin-top: 1.6em; }
h3 { margin-top: 1.4em; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; }
th, td { border: 1px solid #bbb; padding: 0.2em 0.5em; text-align: left; vertical-align: top; }
th { background: #e8edf2; white-space: nowrap; }
td.t { white-space: nowrap; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.opts { max-width: 34em; word-break: break-all; font-family: monospace; font-size: 0.9em; }
.meta, .note { color: #555; }
.words { background: #f4f6f8; border-left: 4px solid #345; padding: 0.4em 0.8em; }
.words p { margin: 0.2em 0; padding: 0 0.3em; }
td.verdict { font-weight: bold; }
.worse { background: #f8d0cc; }
.better { background: #cdeccf; }
.unresolved { background: #fbe7b5; }
.ns { background: #e3e7ea; }
td.none { color: #777; font-weight: normal; }
figure { margin: 1em 0 2em; }
figure img { width: 100%; height: auto; border: 1px solid #ccc; }
figcaption { color: #444; }
nav a { margin-right: 1em; }
"""


class HtmlError(Exception):
    """A failure said to the user (exit 1)."""


def esc(x):
    return html.escape("" if x is None else str(x), quote=True)


def table(head, rows, classes):
    """An HTML table: head the column titles (text), rows their cells
    (HTML, escaped already), classes a class per column (None: none)."""
    out = ["<table><tr>" + "".join("<th>%s</th>" % esc(h) for h in head) + "</tr>"]
    for r in rows:
        out.append("<tr>" + "".join(
            "<td%s>%s</td>" % (' class="%s"' % c if c else "", v) for v, c in zip(r, classes))
            + "</tr>")
    return "\n".join(out) + "</table>\n"


def kind_of(verdict):
    """The class of a verdict's words (KINDS)."""
    if verdict.startswith("significant"):
        return "worse" if verdict.endswith("(worse)") else "better"
    if verdict.startswith("not resolved"):
        return "unresolved"
    if verdict.startswith("not significant"):
        return "ns"
    return "none"


# ------------------------------------------------------------ the runs

def selection(con, runs, la, lb):
    """(ids, pairs): the runs the page shows, in order, and the
    comparisons (label A, label B): --compare's, else the first label of
    the runs against each later one.  Raises LookupError as --compare
    and the run arguments do."""
    if la is not None:
        for label in (la, lb):
            if con.execute("select count(*) from run where label = ?", (label,)).fetchone()[0] == 0:
                labels = con.execute("select group_concat(quote(label), ', ') from "
                                     "(select distinct label from run)").fetchone()[0]
                raise LookupError("no run labelled '%s'" % label, " (labels: %s)" % (labels or ""))
        ids = [r for r, in con.execute("select id from run where label in (?, ?) order by id",
                                       (la, lb))]
        return ids, [(la, lb)]
    cond, args = dbm.run_condition(con, runs)
    ids = [r for r, in con.execute("select id from run where %s order by id" % cond, args)]
    labels = []
    for label, in con.execute("select label from run where (%s) and label is not null "
                              "order by id" % cond, args):
        if label not in labels:
            labels.append(label)
    return ids, [(labels[0], b) for b in labels[1:]]


def runs_section(con, ids):
    """The runs: label, session (its number among its label's sessions,
    and its boot), times, host and options."""
    want = ["label", "started_at", "ended_at", "host", "kernel", "config_hz", "options"]
    cols = [c for c in want if dbm.has_column(con, "run", c)]
    inl = dbm.in_list(len(ids))
    boots = {}
    if dbm.has_object(con, "run_env"):
        boots = dict(con.execute("select run_id, value from run_env where key = 'boot_id' "
                                 "and run_id in (%s)" % inl, ids))
    sessions = {}
    rows = []
    for r in con.execute("select id, %s from run where id in (%s) order by id"
                         % (", ".join(cols), inl), ids):
        v = dict(zip(["id"] + cols, r))
        label = v.get("label")
        if label is not None and label not in sessions:
            sessions[label] = [x for x, in con.execute(cmp.session_runs(label) + " order by r.id",
                                                       (label,))]
        runs = sessions.get(label, [])
        ses = ("%d of %d" % (runs.index(v["id"]) + 1, len(runs))) if v["id"] in runs else "-"
        boot = boots.get(v["id"])
        rows.append([esc(v["id"]), esc(label), esc(ses), esc(boot[:8] if boot else "-"),
                     esc(v.get("started_at")), esc(v.get("ended_at") or "-"), esc(v.get("host")),
                     esc(v.get("kernel")), esc(v.get("config_hz")), esc(v.get("options"))])
    head = ["run", "label", "session", "boot", "started", "ended", "host", "kernel", "CONFIG_HZ",
            "options"]
    return ('<section id="runs">\n<h2>Runs</h2>\n<p class="meta">A session is a run with '
            "repetitions (a mount of its own: one timelinefs-bench invocation), numbered among "
            "its label's sessions; boot: the start of its boot id (run_env).</p>\n"
            + table(head, rows, ["n", None, "t", None, "t", "t", None, None, "n", "opts"])
            + "</section>\n")


# ------------------------------------------------------------ a comparison

def titles():
    """metric -> (title, decimals), Welch's and the bootstrap's, as the
    text report prints them."""
    t = {m: (cmp.TITLES[i], cmp.DIGITS[i]) for i, m in enumerate(cmp.METRICS)}
    t["dropped_frames"] = ("dropped", 1)
    t.update({m: (title, d) for m, title, d in pr.METRICS})
    t.update({m: (cmp.BTITLES[i], cmp.BDIGITS[i]) for i, m in enumerate(cmp.BMETRICS)})
    return t


def row_cells(r, boot, effect_text, tt):
    """The cells of one metric's row (HTML) and its verdict's class."""
    title, d = tt.get(r["metric"], (r["metric"], 2))
    if r["ci_low"] is None:
        ci = cip = "-"
    else:
        ci = "[%s, %s]" % (fix(r["ci_low"], d), fix(r["ci_high"], d))
        cip = "n/a" if r["ci_low_pct"] is None else "[%s, %s]" % (pct(r["ci_low_pct"]),
                                                                   pct(r["ci_high_pct"]))
    if boot:
        res = "bootstrap, %d resamples" % r["resamples"]
    elif r["half_width_pct"] is None:
        res = "-"
    else:
        reps = r["reps_for_effect"]
        res = "could detect +/-%.2f %%; to resolve %s %%: about %s repetition%s" % (
            r["half_width_pct"], effect_text, "-" if reps is None else "%d" % reps,
            "" if reps == 1 else "s")
    cells = ['<span data-ws="%d" data-metric="%s">%s</span>' % (r["workstations"], esc(title),
                                                               esc(title)),
             esc(fix(r["mean_a"], d)), esc(fix(r["mean_b"], d)), esc(fix(r["diff"], d)),
             esc(pct(r["diff_pct"])), esc(ci), esc(cip), esc(r["verdict"]), esc(res)]
    return cells, kind_of(r["verdict"])


def summary(data, tt):
    """The verdicts in words: how many of each kind, naming the
    significant and the unresolved ones with their difference and
    interval."""
    kinds = {k: [] for k, _ in KINDS}
    for r in data["comparisons"] + data["bootstrap"]:
        ws = r["workstations"]
        where = "%s at %d workstation%s%s" % (tt.get(r["metric"], (r["metric"],))[0], ws,
                                              "" if ws == 1 else "s",
                                              ", " + r["scope"] if r.get("scope") else "")
        if r["ci_low_pct"] is not None:
            where += " (%s [%s, %s])" % (pct(r["diff_pct"]), pct(r["ci_low_pct"]),
                                         pct(r["ci_high_pct"]))
        kinds[kind_of(r["verdict"])].append(where)
    lines = []
    for k, words in KINDS:
        if kinds[k]:
            named = ": " + "; ".join(kinds[k]) if k != "ns" and k != "none" else ""
            lines.append('<p class="%s">%d %s%s</p>' % (k, len(kinds[k]), esc(words), esc(named)))
    return lines or ["<p>no benchmark steps or streams to compare</p>"]


def environment_html(con, n, la, lb, scoped):
    """What differs between the environments of A and B, and the
    warnings, in compare.py's words."""
    e = cmp.env_diff(con, la, lb, scoped)
    h = ['<h4 id="environment-%d">Environment (run_env): what differs</h4>' % n]
    if not e.runs["a"] or not e.runs["b"]:
        h.append("<p>nothing to compare: %s has no environment recorded</p>"
                 % ("A" if not e.runs["a"] else "B"))
    elif not e.diffs:
        h.append("<p>nothing: the same %d keys in every run of both</p>" % len(e.keys))
    else:
        h.append(table(["key", "A (%s)" % la, "B (%s)" % lb],
                       [[esc(k), esc(cmp.env_show(a)), esc(cmp.env_show(b))]
                        for k, a, b in e.diffs], [None, "opts", "opts"]))
    h += ['<p class="note">%s</p>' % esc(line) for line in cmp.env_notes(e, la, lb)]
    return h


def group_title(scope, ws, first):
    """A workstation count's heading: its samples and what decides."""
    if first.get("unit") == "session":
        how = "%s: A %d sessions, B %d sessions" % (cmp.unit_words("session"),
                                                  first["sessions_a"], first["sessions_b"])
    else:
        how = "A %d repetition%s, B %d repetition%s" % (
            first["n_a"], "" if first["n_a"] == 1 else "s", first["n_b"],
            "" if first["n_b"] == 1 else "s")
        if "sessions_a" in first and not scope:
            how += "; sessions A %d, B %d: %s" % (first["sessions_a"], first["sessions_b"],
                                                 cmp.unit_words("repetition"))
    # a host's groups are of the step's workstations over all hosts, as
    # the text says
    return "<h4>%s%d workstation%s%s: %s</h4>" % (
        esc(scope + ", " if scope else ""), ws, "" if ws == 1 else "s",
        " in total" if scope and scope != "in total" else "", esc(how))


def calibrated_html(data, scope, ws):
    """The change the storage's calibrations predict for a count, in
    compare.py's words, where the comparison has one."""
    if scope:
        return []
    return ['<p class="note">%s</p>' % "<br>".join(esc(x.strip()) for x in cmp.calibrated_lines(
        ws, r["predicted_pct"], r["why_none"], r["mb_s_ci_low_pct"], r["mb_s_ci_high_pct"],
        r["calibration_ratio_pct"], r["step_s_a"], r["not_storage_s_a"], r["not_storage_s_b"]))
        for r in data["calibrated"] if r["workstations"] == ws]


def comparison_section(con, n, la, lb, effect_text):
    """Comparison n: compare.py's verdicts (its JSON), its words on the
    sessions and the environment, a table per workstation count."""
    buf = io.StringIO()
    cmp.compare(con, la, lb, effect_text, "json", buf, io.StringIO())
    data = json.loads(buf.getvalue())
    scoped = any("scope" in r for r in data["comparisons"])
    tt = titles()
    words = cmp.onebox_lines(con, la, lb) if scoped else cmp.session_lines(con, la, lb)
    h = ['<section class="comparison" id="compare-%d">' % n,
         "<h3>%s (A) against %s (B)</h3>" % (esc(la), esc(lb)), '<div class="words">']
    h += summary(data, tt)
    h += ['<p class="session">%s</p>' % esc(line) for line in words]
    h.append("</div>")
    h += environment_html(con, n, la, lb, scoped)
    groups = {}
    for key in ("comparisons", "bootstrap"):
        for r in data[key]:
            g = groups.setdefault((r.get("scope", ""), r["workstations"]), ([], []))
            g[key == "bootstrap"].append(r)
    h.append('<p class="meta">diff % = (mean B - mean A) / mean A * 100; the 95 % interval of '
             "mean B - mean A by Welch's t (over the sessions' means with 2 sessions a label or "
             "more, else over the repetitions); an interval containing 0 is not significant.  "
             "Resolution: the difference the interval tells from 0 and the repetitions of each "
             "label that would resolve --effect at 80 % power.  stream s and read us: per "
             "repetition the mean of its reads, a bootstrap over the repetitions.</p>")
    head = ["metric", "mean A", "mean B", "B - A", "diff %", "95 % CI of B - A",
            "95 % CI in % of A", "verdict", "resolution"]
    for (scope, ws), (rows, boot) in sorted(groups.items()):
        h.append(group_title(scope, ws, (rows or boot)[0]))
        trs = ["<table><tr>" + "".join("<th>%s</th>" % esc(x) for x in head) + "</tr>"]
        for r, is_boot in [(r, False) for r in rows] + [(r, True) for r in boot]:
            cells, k = row_cells(r, is_boot, effect_text, tt)
            cls = ["t", "n", "n", "n", "n", "n", "n", "verdict " + k, None]
            trs.append("<tr>" + "".join("<td%s>%s</td>" % (' class="%s"' % x if x else "", v)
                                        for v, x in zip(cells, cls)) + "</tr>")
        h.append("\n".join(trs) + "</table>")
        h += calibrated_html(data, scope, ws)
    h.append("</section>")
    return "\n".join(h) + "\n"


# ------------------------------------------------------------ plots, calibration

def plots_section(con, ids, path):
    """timelinefs-plot's picture of each run, and of each experiment once
    for its hosts' runs, as PNGs in data: URIs."""
    exps = {}
    if hosts_db(con):
        exps = dict(con.execute(
            """select r.id, h.experiment_id from run r join host h on h.id = r.host_id
               where h.experiment_id is not null and r.id in (%s)""" % dbm.in_list(len(ids)), ids))
    h = ['<section id="plots">', "<h2>Plots</h2>",
         '<p class="meta">As timelinefs-plot draws them: top, the latency of every backing read '
         "against the time it was issued, one colour per stream, late reads as red crosses; "
         "bottom, a latency histogram per track (10 bins per decade).</p>"]
    done = set()
    for run in ids:
        exp = exps.get(run)
        if exp is not None and exp in done:
            continue
        done.add(exp)
        name = "experiment %d" % exp if exp is not None else "run %d" % run
        buf = io.BytesIO()
        try:
            what = pl.plot(con, str(run), buf, exp=exp)
        except pl.PlotError as e:
            h.append('<p class="note">%s: no plot: %s</p>'
                     % (esc(name), esc(str(e).replace("%s", path))))
            continue
        uri = "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")
        h.append('<figure id="plot-%s"><img alt="%s" src="%s"><figcaption>%s</figcaption>'
                 "</figure>" % (name.replace(" ", "-"), esc("latency plot of " + name), uri,
                                esc(what)))
    h.append("</section>")
    return "\n".join(h) + "\n"


def calibration_section(con, ids):
    """The lab's calibration rows of the runs (schema version 13: an
    older database has no such table); empty for none."""
    if not dbm.has_object(con, "calibration"):
        return ""
    want = ["run_id", "label", "readers", "block_bytes", "seconds", "bytes_per_s",
            "reads_per_s", "tool"]
    cols = [c for c in want if dbm.has_column(con, "calibration", c)]
    if "run_id" not in cols:
        return ""

    def number(x, scale, d):
        return esc(fix(x / scale, d)) if isinstance(x, (int, float)) else esc(x or "-")

    rows = []
    for r in con.execute("select %s from calibration where run_id in (%s) order by rowid"
                         % (", ".join(cols), dbm.in_list(len(ids))), ids):
        v = dict(zip(cols, r))
        rows.append([esc(v["run_id"]), esc(v.get("label", "-")), esc(v.get("readers", "-")),
                     esc(v.get("block_bytes", "-")), number(v.get("seconds"), 1, 1),
                     number(v.get("bytes_per_s"), 1e6, 2), number(v.get("reads_per_s"), 1, 1),
                     esc(v.get("tool", "-"))])
    if not rows:
        return ""
    return ('<section id="calibration">\n<h2>Calibration: what the storage gave</h2>\n'
            '<p class="meta">timelinefs-bench --calibrate: fio with parallel O_DIRECT sequential '
            "readers of the media's files, each read the run's mean backing read rounded up to "
            "4 KiB (docs/lab.md).</p>\n"
            + table(["run", "label", "readers", "block bytes", "seconds", "MB/s", "reads/s",
                     "tool"], rows, ["n", None, "n", "n", "n", "n", "n", "opts"])
            + "</section>\n")


# ------------------------------------------------------------ the page

def page(con, path, runs, la, lb, effect_text):
    """The whole page, as text."""
    ids, pairs = selection(con, runs, la, lb)
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    cal = calibration_section(con, ids)
    nav = ['<a href="#runs">runs</a>', '<a href="#comparisons">comparisons</a>',
           '<a href="#plots">plots</a>'] + (['<a href="#calibration">calibration</a>'] if cal else [])
    h = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
         '<meta name="viewport" content="width=device-width, initial-scale=1">',
         "<title>timelinefs report: %s</title>" % esc(os.path.basename(path)),
         "<style>%s</style></head><body>" % STYLE,
         "<h1>timelinefs report</h1>",
         '<p class="meta">database %s, %d run%s; written %s by timelinefs-report</p>' % (
             esc(path), len(ids), "" if len(ids) == 1 else "s", esc(when)),
         "<nav>%s</nav>" % "".join(nav), runs_section(con, ids),
         '<section id="comparisons">', "<h2>Comparisons</h2>"]
    if not pairs:
        h.append("<p>fewer than two labels in these runs: nothing to compare (give --compare "
                 "A B, or runs of two labels)</p>")
    for n, (a, b) in enumerate(pairs, 1):
        h.append(comparison_section(con, n, a, b, effect_text))
    h += ["</section>", plots_section(con, ids, path), cal, "</body></html>\n"]
    return "\n".join(h)


def write(con, path, out, runs, la, lb, effect_text):
    """Write the page to out atomically: a temporary file beside it,
    renamed over it once whole, so that a failure (or a signal) leaves
    out as it was.  The temporary file is made first: an out that cannot
    be written fails before the work.  Raises HtmlError for out,
    LookupError and sqlite3.Error for the database."""
    if os.path.isdir(out):
        raise HtmlError("cannot write %s: a directory" % out)
    if os.path.exists(out) and os.path.samefile(out, path):
        raise HtmlError("cannot write %s: it is the database" % out)
    try:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(out)),
                                   prefix="." + os.path.basename(out) + ".", suffix=".tmp")
    except OSError as e:
        raise HtmlError("cannot write %s: %s" % (out, e.strerror or e))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            text = page(con, path, runs, la, lb, effect_text)
            try:
                f.write(text)
                f.flush()
                # mkstemp's 0600 made the file a plain open would have made
                mask = os.umask(0)
                os.umask(mask)
                os.fchmod(f.fileno(), 0o666 & ~mask)
            except OSError as e:
                raise HtmlError("cannot write %s: %s" % (out, e.strerror or e))
        try:
            os.replace(tmp, out)
        except OSError as e:
            raise HtmlError("cannot write %s: %s" % (out, e.strerror or e))
        tmp = None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
