# SPDX-License-Identifier: MIT
"""timelinefs-report --compare LABEL_A LABEL_B: what differs between the
environments of A and B, then per workstation count and metric Welch's
95 % interval of mean B - mean A, the smallest difference it tells from
0 and the repetitions that would resolve --effect, and a bootstrap of the
means of many reads per repetition; where both labels' steps have the
probe's samples, its p50, p99 and max per kind by the same Welch."""
import sys
import types

from . import calchange
from . import db as dbm
from . import probe as pr
from . import stats as st
from .fmt import fix, jnum, jstr, num, pct
from .spread import hosts_db, play_conditions, reps_sql

METRICS = ["wall_s", "mb_s", "late_frames", "p50_us", "p99_us", "max_us"]
TITLES = ["wall s", "MB/s", "late frames", "p50 us", "p99 us", "max us"]
# +1: higher is better, -1: lower is better
BETTER = [-1, 1, -1, -1, -1, -1]
DIGITS = [3, 2, 1, 1, 1, 1]
BMETRICS = ["stream_s", "read_us"]
BTITLES = ["stream s", "read us"]
BDIGITS = [3, 1]


class Group:
    """One comparison: a workstation count (and, many hosts, its scope:
    0 the totals over the hosts, R + 1 rank R's steps); per side the
    Welch metrics' rows and the bootstrap metrics' rows."""

    def __init__(self, scope, ws):
        self.scope, self.ws = scope, ws
        self.rows = {"a": [], "b": []}
        self.boot = {"a": [], "b": []}
        # the run (session) of each row, where sessions count (one host)
        self.runs = {"a": [], "b": []}
        self.bruns = {"a": [], "b": []}
        # the probe's metrics of the steps that have them, and their runs
        self.probe = {"a": [], "b": []}
        self.pruns = {"a": [], "b": []}


def side_of(label, la):
    return "a" if label == la else "b"


# ------------------------------------------------------------ environment

def env_values(e, s, k):
    """[(value, [runs])] of key k among side s's runs of the environment
    e (env_diff), in run order, "(none)" for a run without k."""
    out_ = []
    for r in e.runs[s]:
        x = e.vals.get((s, r, k), "(none)")
        for v in out_:
            if v[0] == x:
                v[1].append(r)
                break
        else:
            out_.append((x, [r]))
    return out_


def env_show(vs):
    """A key's values as the text says them: the one value, or each
    value with its runs."""
    if len(vs) == 1:
        return vs[0][0]
    return ", ".join("%s (run%s %s)" % (v, "s" if len(r) > 1 else "", ", ".join(map(str, r)))
                     for v, r in vs)


def env_diff(con, la, lb, scoped_labels):
    """The run_env rows of A and B: e.keys (in order of first
    appearance), e.runs per side, e.diffs [(key, values A, values B)]
    where the sides' values differ, e.warns [(side, key, values)] where
    one label's runs differ among themselves, and e.missing_a,
    e.missing_b: runs with no environment recorded."""
    # the label differs by definition, and the boot is a session's, not
    # an environment's (counted with the sessions)
    notkeys = ["opt.label", "boot_id"]
    if scoped_labels:
        # the hosts of an experiment differ in these by definition
        notkeys += ["opt.experiment", "opt.rank", "opt.db"]
    rows = []
    if dbm.has_object(con, "run_env"):
        rows = con.execute(
            """select r.label, e.run_id, e.key, e.value
               from run_env e join run r on r.id = e.run_id
               where r.label in (?, ?) and e.key not in (%s)
               order by e.run_id, e.rowid""" % dbm.in_list(len(notkeys)),
            [la, lb] + notkeys).fetchall()
    same = la == lb
    e = types.SimpleNamespace(runs={"a": [], "b": []}, vals={}, keys=[])
    for label, run, key, value in rows:
        value = (value or "").replace("\t", " ").replace("\n", " ") if value is not None else ""
        sides = ["a", "b"] if same else [side_of(label, la)]
        for s in sides:
            if run not in e.runs[s]:
                e.runs[s].append(run)
            e.vals[(s, run, key)] = value
        if key not in e.keys:
            e.keys.append(key)
    e.diffs, e.warns = [], []
    for k in e.keys:
        va, vb = env_values(e, "a", k), env_values(e, "b", k)
        if len(va) > 1:
            e.warns.append(("a", k, va))
        if len(vb) > 1 and not same:
            e.warns.append(("b", k, vb))
        if e.runs["a"] and e.runs["b"] and {v for v, _ in va} != {v for v, _ in vb}:
            e.diffs.append((k, va, vb))
    na = con.execute("select count(*) from run where label = ?", (la,)).fetchone()[0]
    nb = con.execute("select count(*) from run where label = ?", (lb,)).fetchone()[0]
    e.missing_a = na - len(e.runs["a"])
    e.missing_b = 0 if same else nb - len(e.runs["b"])
    return e


def env_notes(e, la, lb, pre=""):
    """The lines that warn of a label whose runs differ among
    themselves and note the runs without an environment."""
    lines = []
    for s, k, v in e.warns:
        lines.append("%swarning: the runs of %s (%s) differ among themselves in %s: %s" % (
            pre, "A" if s == "a" else "B", la if s == "a" else lb, k, env_show(v)))
    for side, n, lab in (("A", e.missing_a, la), ("B", e.missing_b, lb)):
        if n > 0:
            lines.append("%snote: %d run%s of %s (%s) ha%s no environment recorded (made before run_env)" % (
                pre, n, "" if n == 1 else "s", side, lab, "s" if n == 1 else "ve"))
    return lines


def environment(con, la, lb, scoped_labels, fmt, out, err):
    """The run_env keys whose values differ between A and B, and the keys
    whose values differ among one label's runs (a warning)."""
    e = env_diff(con, la, lb, scoped_labels)

    def jvals(vs):
        return "[" + ", ".join('{"value": %s, "runs": [%s]}' % (jstr(v), ", ".join(map(str, r)))
                               for v, r in vs) + "]"

    if fmt == "json":
        out.write('"environment": {"differences": [')
        out.write(",".join('\n    {"key": %s, "a": %s, "b": %s}' % (jstr(k), jvals(a), jvals(b))
                           for k, a, b in e.diffs))
        out.write('], "warnings": [')
        out.write(",".join('\n    {"label": %s, "key": %s, "values": %s}' % (
            jstr(la if s == "a" else lb), jstr(k), jvals(v)) for s, k, v in e.warns))
        out.write('], "runs_without_environment": {"a": %d, "b": %d}}' % (e.missing_a, e.missing_b))
        return
    lines = []
    if fmt == "text":
        lines.append("environment (run_env): what differs between A (%s) and B (%s)" % (la, lb))
        if not e.runs["a"] or not e.runs["b"]:
            lines.append("  nothing to compare: %s has no environment recorded"
                         % ("A" if not e.runs["a"] else "B"))
        elif not e.diffs:
            lines.append("  nothing: the same %d keys in every run of both" % len(e.keys))
        for k, a, b in e.diffs:
            lines.append("  %-22s %s | %s" % (k, env_show(a), env_show(b)))
    else:
        for k, a, b in e.diffs:
            lines.append("timelinefs-report: environment differs: %s  %s | %s"
                         % (k, env_show(a), env_show(b)))
    lines += env_notes(e, la, lb, "" if fmt == "text" else "timelinefs-report: ")
    if fmt == "text":
        out.write("\n".join(lines) + "\n\n")
    elif lines:
        err.write("\n".join(lines) + "\n")


# ------------------------------------------------------------ sessions

def session_runs(label):
    """The SQL of a label's sessions: its runs with repetitions (one
    parameter, the label)."""
    return """select r.id from run r where r.label = ? and (
                exists (select 1 from bench_step b where b.run_id = r.id and b.repetition > 0)
                or (exists (select 1 from stream s where s.run_id = r.id)
                    and not exists (select 1 from bench_step b where b.run_id = r.id)))"""


# the order of sessions that keeps drift off the difference: A B B A,
# again and again (a linear drift falls on both alike)
ABBA = "abba"


def next_session(con, la, lb):
    """"a" or "b": the label whose session should come next, so that the
    sessions so far (in run order) go on as A B B A A B B A ..."""
    n = con.execute("select count(*) from (%s union all %s)" % (
        session_runs(la), session_runs(lb)), (la, lb)).fetchone()[0]
    return ABBA[n % 4]


def session_counts(con, label):
    """(sessions, boots) of a label: its runs that have repetitions (a
    bench step past the warm-up, or streams of a run without bench
    steps) -- each a mount, one timelinefs-bench invocation's (a leg of
    --ab's) -- and the distinct boot ids among them (run_env's boot_id; 0
    where none was recorded)."""
    runs = session_runs(label)
    n = con.execute("select count(*) from (%s)" % runs, (label,)).fetchone()[0]
    boots = 0
    if dbm.has_object(con, "run_env"):
        boots = con.execute("""select count(distinct value) from run_env
                               where key = 'boot_id' and run_id in (%s)""" % runs,
                            (label,)).fetchone()[0]
    return n, boots


def session_lines(con, la, lb):
    """The text's words on the sessions: how many each label has (and on
    how many boots), with one what its interval does not cover, and
    which label the next session should bench."""
    na, ba = session_counts(con, la)
    nb, bb = session_counts(con, lb)
    word = lambda n: "1 session" if n == 1 else "%d sessions" % n
    boot = lambda n: "" if not n else " (%d boot%s)" % (n, "" if n == 1 else "s")
    lines = ["sessions (each run a mount of its own): A (%s) %s%s, B (%s) %s%s"
             % (la, word(na), boot(ba), lb, word(nb), boot(bb))]
    if min(na, nb) == 1:
        lines.append("one session a label: the intervals below cover the noise within one session, "
                     "not the drift between sessions (docs/resolution.md)")
    if la != lb:
        nxt = next_session(con, la, lb)
        lines.append("next session: %s %s (the order A B B A A B B A ...; 2 sessions a label "
                     "at least for Welch on their means)" % ("A" if nxt == "a" else "B",
                                                             la if nxt == "a" else lb))
    return lines


def sessions(con, la, lb, scoped, fmt, out, err):
    """How many sessions each label has, and with one what its interval
    does not cover: the repetitions of one session share its boot, its
    caches and the machine's state of that hour, and the drift between
    sessions is in none of them."""
    if scoped:
        return
    if fmt == "json":
        na, ba = session_counts(con, la)
        nb, bb = session_counts(con, lb)
        nxt = next_session(con, la, lb) if la != lb else "a"
        out.write(',\n"sessions": {"a": %d, "b": %d, "boots_a": %d, "boots_b": %d, "next": %s}'
                  % (na, nb, ba, bb, jstr(la if nxt == "a" else lb)))
        return
    pre = "" if fmt == "text" else "timelinefs-report: "
    (out if fmt == "text" else err).write("".join(pre + l + "\n" for l in session_lines(con, la, lb))
                                          + ("\n" if fmt == "text" else ""))


# ------------------------------------------------------------ the data

def gather(con, la, lb):
    """The groups to compare, keyed (scope, ws), and whether they are
    scoped (many hosts) and whether a label recorded (dropped frames a
    metric)."""
    play, wait = play_conditions(con)
    labs = (la, lb)
    rec = play != "1" and con.execute(
        """select exists (select 1 from stream s join run r on r.id = s.run_id
           where s.kind = 'record' and r.label in (?, ?))""", labs).fetchone()[0] == 1
    drop = ", dropped_frames" if rec else ""
    scoped = hosts_db(con) and con.execute(
        """select exists (select 1 from bench_step where experiment_id is not null
           and label in (?, ?))""", labs).fetchone()[0] == 1
    groups = {}

    def add(side, scope, ws, vals, boot=False, run=None):
        g = groups.get((scope, ws))
        if g is None:
            g = groups[(scope, ws)] = Group(scope, ws)
        sides = ["a", "b"] if la == lb else [side]
        for s in sides:
            (g.boot if boot else g.rows)[s].append(vals)
            (g.bruns if boot else g.runs)[s].append(run)

    if not scoped:
        # a repetition per bench step; runs without bench steps count as
        # one repetition each, grouped by their number of streams
        for r in con.execute(
                """select label, workstations, run_id, wall_s, mb_s, late_frames, p50_us, p99_us, max_us%s
                   from bench_step_summary where label in (?, ?) and repetition > 0
                   union all
                   select label, streams, id, duration_s, mb_s, late_frames, p50_us, p99_us, max_us%s
                   from run_summary r where label in (?, ?) and streams > 0
                     and not exists (select 1 from bench_step b where b.run_id = r.id)""" % (drop, drop),
                labs + labs):
            add(side_of(r[0], la), -1, r[1], r[3:], run=r[2])
        for r in con.execute(reps_sql(con, "b.label in (?, ?)"), labs):
            add(side_of(r[0], la), -1, r[1], r[6:8], boot=True, run=r[8])
        for label, ws, run, vals in pr.step_rows(con, "b.label in (?, ?)", labs).values():
            g = groups.get((-1, ws))
            for s in (["a", "b"] if la == lb else [side_of(label, la)]) if g else []:
                g.probe[s].append(vals)
                g.pruns[s].append(run)
        return groups, scoped, rec, {}
    # Many hosts: in total (scope 0) each complete experiment step's
    # totals over its hosts (a step a host missed is left out) and a
    # single host's bench steps; rank R's steps of those (scope R + 1);
    # grouped by the step's total workstations
    cs = """with cs as (select experiment_id, step_no from experiment_step_summary
            where label in (?, ?) and repetition > 0 and complete)"""
    for r in con.execute(
            cs + """
            select e.label, 0, e.total_workstations, e.wall_s, e.mb_s, e.late_frames,
                   l.p50_us, l.p99_us, l.max_us%s
            from experiment_step_summary e
            left join experiment_step_latency l on l.experiment_id = e.experiment_id
             and l.step_no = e.step_no
            where (e.experiment_id, e.step_no) in (select * from cs)
            union all
            select b.label, case when x.experiment_id is null then 0 else h.rank + 1 end,
                   case when x.experiment_id is null then b.workstations else x.total_workstations end,
                   b.wall_s, b.mb_s, b.late_frames, b.p50_us, b.p99_us, b.max_us%s
            from bench_step_summary b join bench_step x on x.id = b.step_id
            left join run r on r.id = b.run_id left join host h on h.id = r.host_id
            where b.label in (?, ?) and b.repetition > 0
              and (x.experiment_id is null
                   or (x.experiment_id, x.step_no) in (select * from cs))
            union all
            select label, 0, streams, duration_s, mb_s, late_frames, p50_us, p99_us, max_us%s
            from run_summary r
            where label in (?, ?) and streams > 0
              and not exists (select 1 from bench_step b where b.run_id = r.id)""" % (
                ", e.dropped_frames" if rec else "", drop, drop), labs * 3):
        add(side_of(r[0], la), r[1], r[2], r[3:])
    for r in con.execute(
            cs + """
            select max(b.label), max(b.total_workstations),
                   (select avg(s.closed_ns - s.opened_ns) / 1e9 from bench_step y
                    join bench_stream bs on bs.step_id = y.id
                    join stream s on s.id = bs.stream_id
                    where y.experiment_id = c.experiment_id and y.step_no = c.step_no
                      and %s),
                   (select avg(a.done_ns - a.issued_ns) / 1e3 from bench_step y
                    join bench_stream bs on bs.step_id = y.id
                    join access a on a.stream_id = bs.stream_id
                    join stream s on s.id = bs.stream_id
                    where y.experiment_id = c.experiment_id and y.step_no = c.step_no
                      and %s and not %s)
            from cs c join bench_step b on b.experiment_id = c.experiment_id
             and b.step_no = c.step_no
            group by c.experiment_id, c.step_no""" % (play, play, wait), labs):
        add(side_of(r[0], la), 0, r[1], r[2:4], boot=True)
    for r in con.execute(reps_sql(con, """b.label in (?, ?) and b.step_id in (select id from bench_step
            where experiment_id is null or (experiment_id, step_no) in (select * from cs))""",
                                  extra=True, with_cte=cs), labs + labs):
        add(side_of(r[0], la), r[9], r[8], r[6:8], boot=True)
    names = {rank: n for rank, n in con.execute(
        """select h.rank, group_concat(distinct h.name) from host h join run r on r.host_id = h.id
           where r.label in (?, ?) and h.rank is not null group by h.rank order by h.rank""", labs)}
    return groups, scoped, rec, names


# ------------------------------------------------------------ drift

def session_means(rows, runs):
    """One row per session (run, in order of first appearance): the mean
    of its repetitions' values, metric by metric."""
    by = {}
    for vals, run in zip(rows, runs):
        by.setdefault(run, []).append(vals)
    out = []
    for reps in by.values():
        out.append(tuple(sum(float(v[m] or 0) for v in reps) / len(reps)
                         for m in range(len(reps[0]))))
    return out


def drift(con, nmetrics):
    """The drift between sessions this database has shown, per metric in
    % of the mean: over every label and workstation count benched in two
    sessions or more (A/A sessions: the same label), the largest spread
    of its session means, (max - min) / |their mean| * 100; None for a
    metric no label measured so.  The Welch metrics' and the bootstrap's
    (stream s, read us) apart."""
    rows = {}
    solo = "1"
    if dbm.has_column(con, "bench_step", "experiment_id"):
        solo = "b.step_id in (select id from bench_step where experiment_id is null)"
    for r in con.execute(
            """select label, workstations, run_id, wall_s, mb_s, late_frames, p50_us, p99_us, max_us%s
               from bench_step_summary b where repetition > 0 and %s""" % (
                ", dropped_frames" if nmetrics > 6 else "", solo)):
        rows.setdefault((r[0], r[1]), ([], []))
        rows[(r[0], r[1])][0].append(r[3:])
        rows[(r[0], r[1])][1].append(r[2])
    brows = {}
    for r in con.execute(reps_sql(con, solo)):
        brows.setdefault((r[0], r[1]), ([], []))
        brows[(r[0], r[1])][0].append(r[6:8])
        brows[(r[0], r[1])][1].append(r[8])
    return widest(rows, nmetrics), widest(brows, 2)


def widest(groups, n):
    """Per metric of n, the widest spread of the session means of a
    group (label and workstation count: ([values], [runs])) benched in
    two sessions or more, in % of their mean; None where none was."""
    d = [None] * n
    for vals, runs in groups.values():
        if len(set(runs)) < 2:
            continue
        means = session_means(vals, runs)
        for m in range(n):
            x = [v[m] for v in means]
            mid = sum(x) / len(x)
            if mid != 0:
                p = (max(x) - min(x)) / abs(mid) * 100
                d[m] = p if d[m] is None else max(d[m], p)
    return d


def probe_drift(con):
    """drift()'s of the probe's metrics: over every label and
    workstation count whose steps have its samples."""
    solo = "1"
    if dbm.has_column(con, "bench_step", "experiment_id"):
        solo = "b.experiment_id is null"
    rows = {}
    for label, ws, run, vals in pr.step_rows(con, solo, []).values():
        g = rows.setdefault((label, ws), ([], []))
        g[0].append(vals)
        g[1].append(run)
    return widest(rows, len(pr.METRICS))


def drift_verdict(verdict, lop, hip, d):
    """With one session a label, a difference is not called significant
    unless its whole interval lies beyond the drift between sessions.
    (No comma: the CSV prints the verdict as it is.)"""
    if not verdict.startswith("significant"):
        return verdict
    if d is None:
        return "not resolved: one session a label and no drift between sessions measured"
    if lop is not None and (lop > d or hip < -d):
        return verdict
    return "not resolved: within the drift between sessions (+/-%.2f %%)" % d


def session_verdict(verdict, hwp, effect, effect_text, rp):
    """With the sessions the samples, an interval that holds 0 and is
    wider than +/-effect % has not resolved the question (a difference
    of effect would not have been told from 0): it says so, and how many
    sessions of each label would at the variance of the session means
    (rp; none: more than can be counted).  (No comma: the CSV prints the
    verdict as it is.)"""
    if not verdict.startswith("not significant") or hwp is None or hwp <= effect:
        return verdict
    if rp is None:
        return "not resolved: the session means vary too much to resolve %s %%" % effect_text
    return "not resolved: about %d sessions a label would resolve %s %%" % (rp, effect_text)


# ------------------------------------------------------------ the tables

def onebox_lines(con, la, lb):
    """The experiments of A and B that ran on one machine, each said as
    every report of them says it."""
    return [r for r, in con.execute(
        """select 'experiment ' || e.id || ' (' || group_concat(distinct b.label) || '): '
                  || e.ranks || ' rank' || case e.ranks when 1 then '' else 's' end
                  || ' on 1 machine: one physical host, not a scale-out measurement'
           from experiment e join bench_step b on b.experiment_id = e.id
           where e.machines = 1 and b.label in (?, ?)
           group by e.id order by e.id""", (la, lb))]


def unit_words(unit):
    """What a count's samples are and so what decides its verdicts."""
    return ("Welch on the session means" if unit == "session"
            else "the repetitions, within the drift not resolved")


def welch_verdict(r, better, none="no interval: one repetition"):
    """The verdict on the interval [r["lo"], r["hi"]] of the difference
    r["diff"] (B - A), better the sign of a better B; none: the verdict
    without an interval (Welch's and the bootstrap's say why)."""
    if r["lo"] is None:
        return none
    if r["lo"] <= 0 <= r["hi"]:
        if r["diff"] == 0 and r["lo"] == r["hi"]:
            return "not significant (identical)"
        return "not significant"
    return "significant: B %s (%s)" % ("higher" if r["diff"] > 0 else "lower",
                                       "better" if r["diff"] * better > 0 else "worse")


def column(rows, m):
    # a value the database has not (NULL) counts as 0, as the report
    # always has
    return [float(r[m] or 0) for r in rows]


def compare(con, la, lb, effect_text, fmt, out, err=sys.stderr):
    """effect_text: --effect as given (the text repeats it as given)."""
    effect = float(effect_text)
    for label in (la, lb):
        if con.execute("select count(*) from run where label = ?", (label,)).fetchone()[0] == 0:
            labels = con.execute("select group_concat(quote(label), ', ') from "
                                 "(select distinct label from run)").fetchone()[0]
            raise LookupError("no run labelled '%s'" % label, " (labels: %s)" % (labels or ""))
    groups, scoped, rec, hname = gather(con, la, lb)
    w = out.write
    if fmt == "json":
        w('{"label_a": %s, "label_b": %s, "effect_pct": %s,\n' % (jstr(la), jstr(lb), jnum(effect)))
    environment(con, la, lb, scoped, fmt, out, err)
    sessions(con, la, lb, scoped, fmt, out, err)
    if scoped and fmt == "text":
        # the experiments compared that ran on one machine: said, as
        # every report of them says it
        onebox = onebox_lines(con, la, lb)
        if onebox:
            w("\n".join(onebox) + "\n\n")
    if fmt == "json":
        w(',\n"comparisons": ')
    metrics, titles, better, digits = METRICS[:], TITLES[:], BETTER[:], DIGITS[:]
    if rec:
        metrics.append("dropped_frames")
        titles.append("dropped")
        better.append(-1)
        digits.append(1)

    def stitle(g):
        if not scoped:
            return ""
        if g.scope == 0:
            return "in total"
        r = g.scope - 1
        return "rank %d%s" % (r, " (%s)" % hname[r] if r in hname else "")

    if fmt == "text":
        if scoped:
            w("compare %s (A) with %s (B), per workstation count in total, then per host\n" % (la, lb))
            w("in total: per experiment step its totals over the hosts, on rank 0's axis (a step\n")
            w("a host missed is left out); per host (MPI rank): its own steps of each total.\n")
        else:
            w("compare %s (A) with %s (B), per workstation count\n" % (la, lb))
        w("diff % = (mean B - mean A) / mean A * 100; 95 % CI of mean B - mean A by\n")
        w("Welch's t (unequal variances, Welch-Satterthwaite df) over the repetitions;\n")
        w("an interval containing 0 is not significant.\n")
        if not scoped:
            w("With 2 sessions a label or more, the sessions are the samples (Welch on\n")
            w("their means), and an interval holding 0 but wider than --effect is not\n")
            w("resolved; with one, a difference whose interval reaches into the drift\n")
            w("between sessions this database has shown is not resolved.\n")
    elif fmt == "csv":
        w("workstations,metric,n_a,mean_a,sd_a,n_b,mean_b,sd_b,diff,diff_pct,df,t,ci_low,ci_high,"
          "ci_low_pct,ci_high_pct,verdict,half_width,half_width_pct,effect_pct,reps_for_effect,method"
          + (",scope" if scoped else "") + "\n")
    else:
        w("[")
    nout = 0
    bjson, cjson = [], []
    # the drift between sessions (one host only: an experiment is a
    # session of its own)
    dr, bdr = drift(con, len(metrics)) if not scoped else ([None] * len(metrics), [None, None])
    c = types.SimpleNamespace(w=w, fmt=fmt, la=la, lb=lb, effect=effect, effect_text=effect_text,
                              metrics=metrics, titles=titles, better=better, digits=digits,
                              dr=dr, scoped=scoped, ci_pct={})
    pc = None
    # groups: a workstation count's rows only where a bench row made it
    order = sorted((g for g in groups.values() if g.rows["a"] or g.rows["b"]),
                   key=lambda g: (g.scope, g.ws))
    for g in order:
        na, nb = len(g.rows["a"]), len(g.rows["b"])
        sa, sb = len(set(g.runs["a"])), len(set(g.runs["b"]))
        # the samples: the sessions' means where each label has two or
        # more, else the repetitions (of one session, on one side at least)
        unit = "session" if not scoped and sa >= 2 and sb >= 2 else "repetition"
        ra, rb = g.rows["a"], g.rows["b"]
        if unit == "session":
            ra, rb = session_means(ra, g.runs["a"]), session_means(rb, g.runs["b"])
        st_ = stitle(g)
        csc = ',"%s"' % st_ if scoped else ""
        jsc = '"scope": %s, ' % jstr(st_) if scoped else ""
        if fmt == "text":
            w("\n%s%d workstation%s%s: A %s, B %s%s\n" % (
                st_ + ", " if scoped else "", g.ws, "" if g.ws == 1 else "s",
                " in total" if scoped and g.scope > 0 else "",
                "1 repetition" if na == 1 else "%d repetitions" % na,
                "1 repetition" if nb == 1 else "%d repetitions" % nb,
                "" if scoped or not (na and nb) else "; sessions A %d, B %d: %s" % (
                    sa, sb, unit_words(unit))))
            if not na or not nb:
                w("  only %s has this count: nothing to compare\n" % (la if na else lb))
                continue
            w("  %-11s %10s %10s %10s %10s  %-24s %-24s %s\n" % (
                "metric", "mean A", "mean B", "B - A", "diff %", "95 % CI of B - A",
                "95 % CI in % of A", "verdict"))
        if not na or not nb:
            continue
        res, nout = welch_rows(c, g, ra, rb, unit, sa, sb, csc, jsc, nout)
        rtitles = titles
        if not scoped and (g.probe["a"] or g.probe["b"]):
            if pc is None:
                pc = probe_constants(con, c)
            pres, nout = probe_rows(pc, g, csc, jsc, nout)
            res, rtitles = res + pres, titles + (pc.titles if pres else [])
        if fmt == "text":
            w("  resolution (95 %% interval; %ss of each label for 80 %% power at the\n" % unit)
            w("  variances seen, Welch by the noncentral t; see --help):\n")
            for m in range(len(res)):
                w("  %-11s %s\n" % (rtitles[m], res[m]))
            w("  per repetition, the mean of its reads (bootstrap over the repetitions, %d\n"
              % st.BOOT_RESAMPLES)
            w("  resamples, percentile 95 % interval; a repetition is the unit, not a read):\n")
        boot_rows(g, la, lb, fmt, w, bjson, csc, jsc, unit, min(sa, sb) == 1 and not scoped, bdr)
        if not scoped:
            calibrated(con, c, g.ws, cjson)
    if fmt == "json":
        w(("\n" if nout else "") + "],\n\"bootstrap\": [" + ",".join(bjson)
          + ("\n" if bjson else "") + "],\n\"calibrated\": [" + ",".join(cjson)
          + ("\n" if cjson else "") + "]}\n")
    elif fmt == "text" and not order:
        w("\nno benchmark steps or streams to compare\n")


def side(x, lop, hip):
    """Where x lies against the interval [lop, hip]: above, below or
    within; None without an interval."""
    if lop is None:
        return None
    return "above" if x > hip else "below" if x < lop else "within"


def held(x, lop, hip):
    """Where the predicted change x % lies against the MB/s interval."""
    where = side(x, lop, hip)
    if where is None:
        return "no interval to hold it against"
    ci = "the 95 %% interval of B - A [%s, %s]" % (pct(lop), pct(hip))
    if where == "within":
        return "within %s: the storage's change explains it" % ci
    return ("%s %s: B's steps %s than the storage's change alone explains (or the 1 "
            "time in 20 a 95 %% interval misses)"
            % (where, ci, "slower" if where == "above" else "faster"))


def calibrated(con, c, ws, cjson):
    """The MB/s change the storage's calibrations predict for ws
    workstations (calchange), against the MB/s interval welch_rows just
    gave: text lines, a CSV row, or a JSON row into cjson; nothing where
    neither label has --calibrate-work rows of ws readers."""
    p = calchange.predict(con, c.la, c.lb, ws)
    if p is None:
        return
    lop, hip = c.ci_pct["mb_s"]
    where = None if p.pct is None else side(p.pct, lop, hip)
    within = None if where is None else where == "within"
    if c.fmt == "json":
        cjson.append('\n  {"workstations": %d, "predicted_pct": %s, "why_none": %s, '
                     '"calibration_ratio_pct": %s, "step_s_a": %s, "not_storage_s_a": %s, '
                     '"not_storage_s_b": %s, "bytes_per_s_a": %s, "bytes_per_s_b": %s, '
                     '"calibrations_a": %d, "calibrations_b": %d, "mb_s_ci_low_pct": %s, '
                     '"mb_s_ci_high_pct": %s, "within": %s}' % (
                         ws, jnum(p.pct), jstr(p.why), jnum(p.ratio_pct), jnum(p.step_s),
                         jnum(p.other_a), jnum(p.other_b), jnum(p.cal_a), jnum(p.cal_b), p.n_a,
                         p.n_b, jnum(lop), jnum(hip),
                         "null" if within is None else str(within).lower()))
        return
    if c.fmt == "text":
        c.w("".join("  " + line + "\n" for line in calibrated_lines(
            ws, p.pct, p.why, lop, hip, p.ratio_pct, p.step_s, p.other_a, p.other_b)))
        return
    # the table's columns (compare's header): n the calibrations,
    # diff_pct the predicted change, the MB/s interval it is held
    # against, a verdict of one word or two (no comma: the text and JSON
    # say why where it is none)
    verdict = "none" if p.pct is None else where or "no interval"
    c.w(",".join([str(ws), "mb_s", str(p.n_a), "", "", str(p.n_b), "", "", "", num(p.pct),
                  "", "", "", "", num(lop), num(hip), verdict, "", "", "", "", "calibrated"])
        + "\n")


def calibrated_lines(ws, pc, why, lop, hip, ratio, step_s, other_a, other_b):
    """The words of a predicted change (calibrated's, or a JSON row of
    it for the HTML page): the first line, then its figures."""
    head = "the storage's own change, by --calibrate-work (%d readers): " % ws
    if pc is None:
        return [head + "none (%s)" % why]
    return [head + "MB/s %s," % pct(pc), "  " + held(pc, lop, hip),
            "  (the calibrations alone %s; A's mean step %.3f s, of it not the storage's %.3f s,"
            % (pct(ratio), step_s, other_a), "  B's %.3f s)" % other_b]


def welch_rows(c, g, ra, rb, unit, sa, sb, csc, jsc, nout):
    """Welch's rows of one group, ra and rb its samples (the repetitions
    or the sessions' means, unit), printed in c.fmt; c: the comparison's
    constants (compare).  Returns the resolution lines of the text and
    nout, the JSON rows written so far."""
    res = []
    for m, metric in enumerate(c.metrics):
        r = st.welch(column(ra, m), column(rb, m))
        ma, diff = r["mean_a"], r["diff"]
        dp = diff / ma * 100 if ma != 0 else None
        lop = hip = hw = hwp = rp = None
        if r["lo"] is not None:
            if ma != 0:
                lop, hip = r["lo"] / ma * 100, r["hi"] / ma * 100
            # the smallest difference this interval tells from 0
            hw = (r["hi"] - r["lo"]) / 2
            if ma != 0:
                hwp = hw / abs(ma) * 100
                rp = st.reps_for_effect(r["sd_a"] ** 2, r["sd_b"] ** 2, c.effect / 100 * abs(ma))
        c.ci_pct[metric] = (lop, hip)
        verdict = welch_verdict(r, c.better[m])
        if unit == "repetition" and not c.scoped and min(sa, sb) == 1:
            verdict = drift_verdict(verdict, lop, hip, c.dr[m])
        if unit == "session":
            verdict = session_verdict(verdict, hwp, c.effect, c.effect_text, rp)
        if c.fmt == "text":
            d = c.digits[m]
            ci = "-" if r["lo"] is None else "[%s, %s]" % (fix(r["lo"], d), fix(r["hi"], d))
            cip = ("-" if r["lo"] is None else "n/a") if lop is None else "[%s, %s]" % (pct(lop), pct(hip))
            c.w("  %-11s %10s %10s %10s %10s  %-24s %-24s %s\n" % (
                c.titles[m], fix(ma, d), fix(r["mean_b"], d), fix(diff, d), pct(dp), ci, cip, verdict))
            if hw is None:
                res.append("no estimate: one repetition")
            elif hwp is None:
                res.append("no estimate: mean A is 0")
            else:
                res.append("could detect +/-%.2f %%; to resolve %s %% on %s: about %s %s%s"
                           % (hwp, c.effect_text, c.titles[m], rp, unit, "" if rp == 1 else "s"))
        elif c.fmt == "csv":
            c.w("%d,%s,%d,%s,%s,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,welch%s\n" % (
                g.ws, metric, len(ra), num(ma), num(r["sd_a"]), len(rb), num(r["mean_b"]), num(r["sd_b"]),
                num(diff), num(dp), num(r["df"]), num(r["t"]), num(r["lo"]), num(r["hi"]),
                num(lop), num(hip), verdict, num(hw), num(hwp), num(c.effect),
                "" if rp is None else "%d" % rp, csc))
        else:
            c.w('%s\n  {%s"workstations": %d, "metric": %s, "label_a": %s, "label_b": %s, "n_a": %d, "mean_a": %s, "sd_a": %s, "n_b": %d, "mean_b": %s, "sd_b": %s, "diff": %s, "diff_pct": %s, "df": %s, "t": %s, "ci_low": %s, "ci_high": %s, "ci_low_pct": %s, "ci_high_pct": %s, "verdict": %s, "half_width": %s, "half_width_pct": %s, "effect_pct": %s, "reps_for_effect": %s, "unit": %s, "sessions_a": %d, "sessions_b": %d, "drift_pct": %s}' % (
                "," if nout else "", jsc, g.ws, jstr(metric), jstr(c.la), jstr(c.lb), len(ra),
                jnum(ma), jnum(r["sd_a"]), len(rb), jnum(r["mean_b"]), jnum(r["sd_b"]),
                jnum(diff), jnum(dp), jnum(r["df"]), jnum(r["t"]), jnum(r["lo"]),
                jnum(r["hi"]), jnum(lop), jnum(hip), jstr(verdict), jnum(hw), jnum(hwp),
                jnum(c.effect), jnum(rp), jstr(unit), sa, sb, jnum(c.dr[m])))
            nout += 1
    return res, nout


def probe_constants(con, c):
    """compare()'s constants c with the probe's metrics (lower is
    better) and their drift between sessions."""
    pc = types.SimpleNamespace(**vars(c))
    pc.metrics = [m for m, _, _ in pr.METRICS]
    pc.titles = [t for _, t, _ in pr.METRICS]
    pc.digits = [d for _, _, d in pr.METRICS]
    pc.better = [-1] * len(pr.METRICS)
    pc.dr = probe_drift(con)
    return pc


def probe_rows(pc, g, csc, jsc, nout):
    """The probe's Welch rows of group g, after its playback metrics,
    their samples chosen as theirs are (the sessions' means with two
    sessions a label, else the steps); ([], nout) with a line saying so
    where one label has none of its samples."""
    pa, pb = g.probe["a"], g.probe["b"]
    sa, sb = len(set(g.pruns["a"])), len(set(g.pruns["b"]))
    unit = "session" if sa >= 2 and sb >= 2 else "repetition"
    if pc.fmt == "text":
        if not pa or not pb:
            pc.w("  interactive work (the probe): only %s has its samples: nothing to compare\n"
                 % (pc.la if pa else pc.lb))
        else:
            pc.w("  interactive work beside the streams (the probe: per step the p50, p99 and\n"
                 "  max of spawn, a program started, and walk, a folder stat'ed, us; A %d, B %d\n"
                 "  steps%s):\n" % (len(pa), len(pb), "; Welch on the session means" if
                                      unit == "session" else ""))
    if not pa or not pb:
        return [], nout
    if unit == "session":
        pa, pb = session_means(pa, g.pruns["a"]), session_means(pb, g.pruns["b"])
    return welch_rows(pc, g, pa, pb, unit, sa, sb, csc, jsc, nout)


def boot_rows(g, la, lb, fmt, w, bjson, csc, jsc, unit, one_session, bdr):
    """The second statistic: per repetition the mean of many reads,
    compared by a percentile bootstrap over the repetitions (the
    repetition is the unit resampled: the reads of one step share its
    host and its cache and are not independent)."""
    for m, metric in enumerate(BMETRICS):
        ba, bb = g.boot["a"], g.boot["b"]
        if unit == "session":
            ba, bb = session_means(ba, g.bruns["a"]), session_means(bb, g.bruns["b"])
        a, b = column(ba, m), column(bb, m)
        ma = sum(a) / len(a) if a else None
        mb = sum(b) / len(b) if b else None
        diff = None if ma is None or mb is None else mb - ma
        dp = diff / ma * 100 if diff is not None and ma != 0 else None
        ci = st.bootstrap_diff(a, b)
        lop = hip = None
        if ci is not None and ma != 0:
            lop, hip = ci[0] / ma * 100, ci[1] / ma * 100
        lo, hi = ci if ci else (None, None)
        # lower is better for both (seconds, microseconds)
        verdict = welch_verdict({"lo": lo, "hi": hi, "diff": diff}, -1,
                                "no interval: fewer than 3 %ss" % unit)
        if one_session:
            verdict = drift_verdict(verdict, lop, hip, bdr[m])
        if fmt == "text":
            d = BDIGITS[m]
            cis = "-" if ci is None else "[%s, %s]" % (fix(lo, d), fix(hi, d))
            cip = ("-" if ci is None else "n/a") if lop is None else "[%s, %s]" % (pct(lop), pct(hip))
            w("  %-11s %10s %10s %10s %10s  %-24s %-24s %s\n" % (
                BTITLES[m], fix(ma, d), fix(mb, d), fix(diff, d), pct(dp), cis, cip, verdict))
        elif fmt == "csv":
            hw = None if ci is None else (hi - lo) / 2
            w("%d,%s,%d,%s,,%d,%s,,%s,%s,,,%s,%s,%s,%s,%s,%s,%s,,,bootstrap%s\n" % (
                g.ws, metric, len(a), num(ma), len(b), num(mb), num(diff), num(dp), num(lo),
                num(hi), num(lop), num(hip), verdict, num(hw),
                num(None if hw is None or not ma else hw / abs(ma) * 100), csc))
        else:
            bjson.append('\n  {%s"workstations": %d, "metric": %s, "n_a": %d, "mean_a": %s, "n_b": %d, "mean_b": %s, "diff": %s, "diff_pct": %s, "ci_low": %s, "ci_high": %s, "ci_low_pct": %s, "ci_high_pct": %s, "verdict": %s, "resamples": %d}' % (
                jsc, g.ws, jstr(metric), len(a), jnum(ma), len(b), jnum(mb), jnum(diff),
                jnum(dp), jnum(lo), jnum(hi), jnum(lop), jnum(hip), jstr(verdict),
                st.BOOT_RESAMPLES))
