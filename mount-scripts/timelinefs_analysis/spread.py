# SPDX-License-Identifier: MIT
"""timelinefs-report --spread: how much the repetitions of each benchmark
step agree, per label and workstation count (timelinefs-bench --resolve
reads its CSV)."""
from . import db as dbm
from . import stats as st
from .fmt import fix, jnum, jstr, num, csv_quoted

METRICS = ("wall_s", "mb_s", "stream_s", "read_us")
TITLES = ("wall s", "MB/s", "stream s", "read us")
DIGITS = (3, 2, 3, 1)


def play_conditions(con):
    """(play, wait): the SQL conditions on stream s that keep the play
    streams and on access a that keep the storage's operations (schema
    version 11, ingest; before it every stream played and no access
    waited)."""
    if dbm.has_column(con, "stream", "kind"):
        return "s.kind = 'play'", "a.op in (9, 10)"
    return "1", "0"


def hosts_db(con):
    """A database with experiments (many hosts, schema version 12)."""
    return (dbm.has_column(con, "run", "host_id")
            and dbm.has_object(con, "experiment_step_summary")
            and con.execute("select exists (select 1 from experiment)").fetchone()[0] == 1)


def reps_sql(con, where, label="b.label", extra=False, with_cte=""):
    """Per bench step (one repetition, warm-ups left out): label,
    workstations, step, repetition, wall s, MB/s, a stream's mean play
    time and the mean read latency of the play streams (means of
    thousands of reads rather than one wall-clock span); extra adds the
    step's total workstations and its host's rank + 1 (0: one host);
    the run (the session) last."""
    play, wait = play_conditions(con)
    more = ""
    if extra:
        more = """,
               coalesce((select x.total_workstations from bench_step x
                         where x.id = b.step_id and x.experiment_id is not null), b.workstations),
               coalesce((select h.rank + 1 from run r join host h on h.id = r.host_id
                         join bench_step x on x.id = b.step_id and x.experiment_id is not null
                         where r.id = b.run_id), 0)"""
    return """%s
        select %s, b.workstations, b.step_id, b.repetition, b.wall_s, b.mb_s,
               (select avg(s.closed_ns - s.opened_ns) / 1e9
                from bench_stream bs join stream s on s.id = bs.stream_id
                where bs.step_id = b.step_id and %s),
               (select avg(a.done_ns - a.issued_ns) / 1e3
                from bench_stream bs join access a on a.stream_id = bs.stream_id
                join stream s on s.id = bs.stream_id
                where bs.step_id = b.step_id and %s and not %s)%s, b.run_id
        from bench_step_summary b where (%s) and b.repetition > 0
        order by b.label, b.workstations, b.step_id""" % (
        with_cte, label, play, play, wait, more, where)


def spread(con, runs, fmt, out):
    cond, args = dbm.run_condition(con, runs)
    ids = "select id from run where " + cond
    label = "b.label"
    if hosts_db(con) and con.execute(
            """select exists (select 1 from run r join host h on h.id = r.host_id
               where r.id in (%s) and h.experiment_id is not null)""" % ids, args).fetchone()[0]:
        # many hosts: each host's steps are its own group (label, rank and
        # name), not repetitions of the other hosts' steps
        label = """b.label || coalesce((select ' rank ' || h.rank || ' (' || h.name || ')'
                   from run r join host h on h.id = r.host_id where r.id = b.run_id
                   and h.rank is not null), '')"""
    groups = {}
    for row in con.execute(reps_sql(con, "b.run_id in (%s)" % ids, label), args):
        groups.setdefault((row[0], row[1]), []).append(row)
    w = out.write
    if fmt == "csv":
        w("label,workstations,metric,n,mean,sd,cv_pct,t,half_width,half_width_pct,outliers\n")
    elif fmt == "json":
        w("[")
    else:
        w("spread of the repetitions (95 % interval of the mean by Student's t; outliers: robust z > 3.5, kept)\n")
    nout = 0
    for (glabel, gws), rows in groups.items():
        if fmt == "text":
            w("\n%s, %d workstation%s: %d repetition%s\n" % (
                glabel, gws, "" if gws == 1 else "s", len(rows), "" if len(rows) == 1 else "s"))
            w("  %-9s %12s %12s %8s %14s %10s  %s\n" % (
                "metric", "mean", "sd", "cv %", "95 % +/-", "+/- %", "outliers"))
        for m, metric in enumerate(METRICS):
            kept = [r for r in rows if r[4 + m] is not None]
            x = [float(r[4 + m]) for r in kept]
            mean, sd, t, hw = st.mean_interval(x)
            cv = hwp = None
            outs = []
            if len(x) > 1:
                if mean != 0:
                    cv = sd / abs(mean) * 100
                    hwp = hw / abs(mean) * 100
                outs = [(kept[i][2], kept[i][3], x[i]) for i in st.outliers(x)]
            if fmt == "csv":
                w("%s,%d,%s,%d,%s,%s,%s,%s,%s,%s,%s\n" % (
                    csv_quoted(glabel), gws, metric, len(x), num(mean), num(sd), num(cv),
                    num(t), num(hw), num(hwp),
                    csv_quoted("; ".join("step %d (rep %d) %s" % (s, r, num(v)) for s, r, v in outs))))
            elif fmt == "json":
                w('%s\n  {"label": %s, "workstations": %d, "metric": %s, "n": %d, "mean": %s, "sd": %s, "cv_pct": %s, "t": %s, "half_width": %s, "half_width_pct": %s, "outliers": [%s]}' % (
                    "," if nout else "", jstr(glabel), gws, jstr(metric), len(x), jnum(mean),
                    jnum(sd), jnum(cv), jnum(t), jnum(hw), jnum(hwp),
                    ", ".join('{"step": %d, "repetition": %d, "value": %s}' % (s, r, jnum(v))
                              for s, r, v in outs)))
                nout += 1
            else:
                d = DIGITS[m]
                note = "(one repetition)" if len(x) < 2 else (
                    "; ".join("step %d (rep %d) %s" % (s, r, num(v)) for s, r, v in outs) or "none")
                w("  %-9s %12s %12s %8s %14s %10s  %s\n" % (
                    TITLES[m], fix(mean, d), fix(sd, d + 1), fix(cv, 2),
                    fix(hw, d + 1), "-" if hwp is None else "%.2f %%" % hwp, note))
    if fmt == "json":
        w(("\n" if nout else "") + "]\n")
    elif fmt == "text" and not groups:
        w("\nno benchmark steps in these runs\n")
