# SPDX-License-Identifier: MIT
"""The probe: interactive work timed beside a benchmark's streams
(timelinefs-probe, table bench_probe: every 100 ms a program started and
waited for, kind spawn, and a stat of every file of a project folder,
kind walk).  Per label, workstation count and kind: how many samples, how
many failed, and the p50, p99 and max of their latencies; and per step
the same, the repetitions --compare holds against each other."""
from . import db as dbm
from . import fmt

KINDS = ("spawn", "walk")
# the table's columns: per label, workstation count and kind, over its
# repetitions (warm-ups, repetition 0, left out)
COLUMNS = ("label", "workstations", "kind", "steps", "samples", "failed", "per_s",
           "items", "p50_us", "p99_us", "max_us")
# --compare's metrics per step, each kind's (title, decimals)
METRICS = [(k + "_" + m, "%s %s" % (k, t), 1) for k in KINDS
           for m, t in (("p50_us", "p50"), ("p99_us", "p99"), ("max_us", "max"))]


def nearest_rank(xs, p):
    """The p-th percentile of xs by nearest rank (the one at 1-based rank
    ceil(n * p / 100), as the schema's views), None for no xs."""
    if not xs:
        return None
    xs = sorted(xs)
    return xs[(len(xs) * p + 99) // 100 - 1]


def has_probe(con):
    return dbm.has_object(con, "bench_probe")


def by_workstations(con, run_ids):
    """Rows (as COLUMNS) of the runs' bench steps with probe samples, per
    label, workstation count and kind: steps and samples counted, failed
    samples, the mean of the steps' samples a second, the mean files a
    walk stat'ed, and the nearest-rank p50, p99 and max over all their
    samples that did not fail, in us; [] for a database without the probe
    (before schema version 17) or runs without its samples."""
    if not run_ids or not has_probe(con):
        return []
    out = []
    keys = con.execute(
        """select label, workstations, kind, count(*), sum(samples), sum(failed),
                  avg(per_s), avg(items)
           from bench_probe_summary
           where run_id in (%s) and repetition > 0
           group by label, workstations, kind
           order by label, workstations, kind""" % dbm.in_list(len(run_ids)),
        list(run_ids)).fetchall()
    for label, ws, kind, steps, samples, failed, per_s, items in keys:
        lat = [r for r, in con.execute(
            """select p.latency_ns / 1e3 from bench_probe p join bench_step b on b.id = p.step_id
               where b.run_id in (%s) and b.repetition > 0 and b.label is ? and b.workstations = ?
                 and p.kind = ? and p.ok""" % dbm.in_list(len(run_ids)),
            list(run_ids) + [label, ws, kind])]
        out.append((label, ws, kind, steps, samples, failed, per_s, items,
                    nearest_rank(lat, 50), nearest_rank(lat, 99), max(lat) if lat else None))
    return out


def step_rows(con, cond, args):
    """{step_id: (label, workstations, run_id, [the METRICS' values])} of
    the bench steps past their warm-up matching cond (SQL on bench_step
    b) that have samples of both kinds."""
    if not has_probe(con):
        return {}
    steps = {}
    for sid, label, ws, run, kind, p50, p99, pmax in con.execute(
            """select s.step_id, s.label, s.workstations, s.run_id, s.kind,
                      s.p50_us, s.p99_us, s.max_us
               from bench_probe_summary s join bench_step b on b.id = s.step_id
               where s.repetition > 0 and (%s)""" % cond, args):
        if kind in KINDS:
            steps.setdefault(sid, [label, ws, run, {}])[3][kind] = (p50, p99, pmax)
    return {sid: (label, ws, run, [v for k in KINDS for v in by[k]])
            for sid, (label, ws, run, by) in steps.items()
            if all(k in by and None not in by[k] for k in KINDS)}


def write(rows, form, out):
    """The table in form text, csv or json to out."""
    if form == "csv":
        out.write(",".join(COLUMNS) + "\n")
        for r in rows:
            out.write(",".join(fmt.csv_quoted(v or "") if i in (0, 2) else fmt.num(v)
                               for i, v in enumerate(r)) + "\n")
        return
    if form == "json":
        out.write("[" + ",\n".join(
            "{" + ", ".join("%s: %s" % (fmt.jstr(c), fmt.jstr(v or "") if i in (0, 2)
                                        else fmt.jnum(v))
                            for i, (c, v) in enumerate(zip(COLUMNS, r))) + "}"
            for r in rows) + "]")
        return
    if not rows:
        return
    out.write("interactive work beside the streams (timelinefs-probe every 100 ms: spawn a "
              "program started and waited for, walk a stat of every file of a folder; "
              "latency in us over the samples of the steps; per_s: samples a second)\n")
    cells = [COLUMNS] + [(r[0] or "", str(r[1]), r[2], str(r[3]), str(r[4]), str(r[5] or 0),
                          fmt.fix(r[6], 1), fmt.fix(r[7], 0))
                         + tuple(fmt.fix(v, 1) for v in r[8:]) for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(COLUMNS))]
    for c in cells:
        out.write("  ".join(v.ljust(widths[i]) if i in (0, 2) else v.rjust(widths[i])
                            for i, v in enumerate(c)).rstrip() + "\n")
    out.write("\n")
