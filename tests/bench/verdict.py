# SPDX-License-Identifier: MIT
"""make bench-verdict, last step: the verdicts of timelinefs-report
--compare on the sessions tests/bench/verdict.sh benched.

usage: verdict.py REPORT DB WORK EFFECT P
       verdict.py --injected DB LABEL_A LABEL_B   (prints injected()'s
       three figures for the runs of two labels)

A/A sessions (labels aa01, aa02, ... in bench order) are exchangeable:
the labels a comparison needs are given to them in a copy of the
database (WORK/analysis.db; every run not in the comparison gets a label
of its own, one session, so that it adds to no label and to no drift).
Writes each comparison's --json under WORK/comparisons and prints:

 (a) 20 A/A comparisons, two sessions a label: sessions i, i+1, i+2,
     i+3 (i = 1, 3, 5, ...) as A B B A; per metric how many are called
     significant, and what Welch over the pooled repetitions (the
     interval of one session's noise) would have called;
 (b) base against slow (sessions A, B, A, B): the verdicts and what
     would resolve them; and the first base against the first slow
     session, one session a label;
 (c) one session a label: the A/A sessions in pairs (1 2, 3 4, ...),
     the drift measured from the other A/A sessions (paired the same
     way, two sessions a label), against the drift rule.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "mount-scripts"))
from timelinefs_analysis import stats as st  # noqa: E402

METRICS = ["wall_s", "mb_s", "late_frames", "p50_us", "p99_us", "max_us"]


class Lab:
    def __init__(self, report, db, work, effect):
        self.report, self.work, self.effect = report, work, effect
        self.db = os.path.join(work, "analysis.db")
        src = sqlite3.connect(db)
        dst = sqlite3.connect(self.db)
        src.backup(dst)
        src.close()
        self.con = dst
        # The summary views rank every read of the database on each
        # query (no label reaches inside their window functions): a
        # report on a database of 50 sessions takes minutes on a loaded
        # machine.  Here they are tables of the same rows, made once;
        # relabel keeps their label columns.  No number changes
        # (checked: --json of one comparison identical either way).
        for v in ("bench_step_summary", "run_summary"):
            dst.execute("create table m_%s as select * from %s" % (v, v))
            dst.execute("drop view %s" % v)
            dst.execute("create table %s as select * from m_%s" % (v, v))
            dst.execute("drop table m_%s" % v)
        # and the mean read latency of each repetition (read us) is read
        # from this index alone, not from the rows of a table of millions
        dst.execute("create index verdict_access on access(stream_id, op, issued_ns, done_ns)")
        dst.commit()
        os.makedirs(os.path.join(work, "comparisons"), exist_ok=True)
        self.aa = [r for r, in self.con.execute(
            "select id from run where label glob 'aa[0-9]*' order by id")]
        self.runs_of = lambda lab: [r for r, in self.con.execute(
            "select id from run where label = ? order by id", (lab,))]
        self.base, self.slow = self.runs_of("base"), self.runs_of("slow")
        self.orig = dict(self.con.execute("select id, label from run"))

    def relabel(self, assign):
        """Each run of assign (run id -> label) gets its label, every
        other run one of its own (x<id>)."""
        c = self.con
        c.execute("update run set label = 'x' || id")
        c.executemany("update run set label = ? where id = ?", [(l, r) for r, l in assign.items()])
        for t in ("bench_step", "bench_step_summary"):
            c.execute("update %s set label = (select label from run where run.id = %s.run_id)" % (t, t))
        c.execute("update run_summary set label = (select label from run where run.id = run_summary.id)")
        c.execute("""update run_env set value = (select label from run where run.id = run_env.run_id)
                     where key = 'opt.label'""")
        c.commit()

    def compare(self, name, la, lb, text=False):
        """timelinefs-report --compare la lb --json (kept as
        comparisons/NAME.json) and, text, its text (NAME.txt)."""
        base = os.path.join(self.work, "comparisons", name)
        out = {"text": ""}
        for fmt in ("json", "text") if text else ("json",):
            args = [self.report, self.db, "--compare", la, lb, "--effect", str(self.effect)]
            if fmt == "json":
                args.append("--json")
            p = subprocess.run(args, capture_output=True, text=True, check=True)
            with open(base + "." + ("json" if fmt == "json" else "txt"), "w") as f:
                f.write(p.stdout)
            out[fmt] = p.stdout
        d = json.loads(out["json"])
        d["text"] = out["text"]
        return d

    def reps(self, runs, metric="wall_s"):
        return [v for v, in self.con.execute(
            "select %s from bench_step_summary where repetition > 0 and run_id in (%s) order by step_id"
            % (metric, ",".join("?" * len(runs))), runs)]


def injected(con, ra, rb):
    """What the delays of B's sessions (runs rb) added to a stream, as
    recorded, against A's (ra) mean stream: (delayed reads a stream, the
    seconds they took beyond a read that was not delayed, that in % of
    A's play time).  Every delay paid in full: the read-ahead hides some,
    the wall clock shows the rest."""
    step = """join bench_stream bs on bs.stream_id = s.id join bench_step b on b.id = bs.step_id
              where b.repetition > 0 and s.run_id in (%s)"""
    q = lambda runs: step % ",".join("%d" % r for r in runs)
    base = con.execute("select avg(a.done_ns - a.issued_ns) / 1e9 from access a join stream s "
                       "on s.id = a.stream_id " + q(rb) + " and a.injected & 1 = 0").fetchone()[0]
    n, t = con.execute("""select avg(n), avg(t) from (select sum(a.injected & 1) n,
                          sum(case when a.injected & 1 then a.done_ns - a.issued_ns end) / 1e9 t
                          from access a join stream s on s.id = a.stream_id %s
                          group by a.stream_id)""" % q(rb)).fetchone()
    play = con.execute("select avg(s.closed_ns - s.opened_ns) / 1e9 from stream s " + q(ra)).fetchone()[0]
    added = (t or 0) - (n or 0) * base
    return n, added, added / play * 100


def row(d, metric):
    return next(r for r in d["comparisons"] if r["metric"] == metric)


def pct(x):
    return "-" if x is None else "%+.2f %%" % x


def ci(r):
    return "[%s, %s]" % (pct(r["ci_low_pct"]), pct(r["ci_high_pct"]))


def significant(v):
    return v.startswith("significant")


def pooled(lab, ra, rb, metric="wall_s"):
    """Welch over the repetitions of ra's and rb's sessions pooled: the
    interval that covers one session's noise only."""
    a, b = lab.reps(ra, metric), lab.reps(rb, metric)
    w = st.welch(a, b)
    return w["lo"] is not None and not (w["lo"] <= 0 <= w["hi"])


def part_a(lab):
    aa = lab.aa
    n = (len(aa) - 2) // 2
    print("(a) A/A, two sessions a label: %d comparisons of sessions i, i+1, i+2, i+3 as A B B A "
          "(i = 1, 3, 5, ...; neighbouring comparisons share two sessions)" % n)
    sig = {m: 0 for m in METRICS}
    old = 0
    print("  %-14s %9s %-24s %s" % ("sessions", "wall s", "95 % CI in % of A", "verdict"))
    for k in range(n):
        s = aa[2 * k:2 * k + 4]
        lab.relabel({s[0]: "A", s[3]: "A", s[1]: "B", s[2]: "B"})
        d = lab.compare("a%02d" % (k + 1), "A", "B")
        for m in METRICS:
            if significant(row(d, m)["verdict"]):
                sig[m] += 1
        r = row(d, "wall_s")
        assert r["unit"] == "session" and r["n_a"] == 2 and r["n_b"] == 2, r
        old += pooled(lab, [s[0], s[3]], [s[1], s[2]])
        print("  %-14s %9s %-24s %s" % ("%d %d %d %d" % tuple(aa.index(x) + 1 for x in s),
                                        pct(r["diff_pct"]), ci(r), r["verdict"]))
    print("  called significant (of %d): %s" % (n, ", ".join("%s %d" % (m, sig[m]) for m in METRICS)))
    print("  Welch over the pooled repetitions (one session's noise), wall s: %d of %d significant"
          % (old, n))
    # the sessions' own spread: what a session mean varies by
    means = [sum(lab.reps([r])) / len(lab.reps([r])) for r in aa]
    n_, m_, sd_ = st.mean_sd(means)
    print("  A/A session means, wall s: n %d, mean %.3f s, sd %.3f s (CV %.2f %%), range %.3f-%.3f s"
          % (n_, m_, sd_, sd_ / m_ * 100, min(means), max(means)))
    return sig["wall_s"], n


def part_b(lab):
    print("\n(b) the slowdown: sessions base, slow, base, slow (%d and %d)" % (len(lab.base), len(lab.slow)))
    if not lab.base or not lab.slow:
        print("  no base or slow sessions")
        return None
    lab.relabel({**{r: "base" for r in lab.base}, **{r: "slow" for r in lab.slow}})
    d = lab.compare("b-sessions", "base", "slow", text=True)
    for m in ("wall_s", "mb_s"):
        r = row(d, m)
        print("  %-7s %s %s %s (unit %s, n %d/%d); would resolve %s %% with about %s a label"
              % (m, pct(r["diff_pct"]), ci(r), r["verdict"], r["unit"], r["n_a"], r["n_b"],
                 d["effect_pct"], r["reps_for_effect"]))
    for line in d["text"].splitlines():
        if line.startswith(("  wall s", "  MB/s", "  stream s", "  read us", "next session")):
            print("  | " + line)
    n, added, share = injected(lab.con, lab.base, lab.slow)
    print("  recorded: %.0f delayed reads a stream, %.3f s beyond undelayed reads: %.2f %% of base's "
          "play time (every delay paid in full)" % (n, added, share))
    cal = sorted({l[:-2] for l in lab.orig.values() if l.startswith("cal") and l[-2:] in (":A", ":B")})
    for c in cal:
        ra = [r for r, l in lab.orig.items() if l == c + ":A"]
        rb = [r for r, l in lab.orig.items() if l == c + ":B"]
        n, added, share = injected(lab.con, ra, rb)
        print("  %s (--ab, %d legs a side): recorded %.0f delayed reads a stream, %.3f s: %.2f %% of "
              "A's play time" % (c, len(ra), n, added, share))
    per = [sum(lab.reps([r])) / len(lab.reps([r])) for r in lab.base + lab.slow]
    print("  session means, wall s (base, base, slow, slow): %s"
          % ", ".join("%.3f" % x for x in per))
    verdict = row(d, "wall_s")["verdict"]
    # one session a label, the drift from the A/A sessions in pairs
    assign = {lab.base[0]: "base", lab.slow[0]: "slow"}
    for j in range(len(lab.aa) // 2):
        assign[lab.aa[2 * j]] = assign[lab.aa[2 * j + 1]] = "d%02d" % j
    lab.relabel(assign)
    d1 = lab.compare("b-one-session", "base", "slow", text=True)
    r = row(d1, "wall_s")
    print("  one session a label (the first of each), drift from the A/A sessions in pairs: wall s "
          "%s %s, drift +/-%.2f %%: %s" % (pct(r["diff_pct"]), ci(r), r["drift_pct"], r["verdict"]))
    return verdict


def part_c(lab):
    aa = lab.aa
    n = len(aa) // 2
    print("\n(c) one session a label: %d A/A pairs (sessions 1 2, 3 4, ...), the drift measured "
          "from the other %d A/A sessions (two a label)" % (n, 2 * (n - 1)))
    print("  %-8s %9s %-24s %9s  %-14s %s" % ("sessions", "wall s", "95 % CI in % of A",
                                               "drift", "without drift", "verdict"))
    bad = naive = called = 0
    drifts = []
    for i in range(n):
        assign = {aa[2 * i]: "A", aa[2 * i + 1]: "B"}
        for j in range(n):
            if j != i:
                assign[aa[2 * j]] = assign[aa[2 * j + 1]] = "d%02d" % j
        lab.relabel(assign)
        d = lab.compare("c%02d" % (i + 1), "A", "B")
        for r in d["comparisons"]:
            assert r["unit"] == "repetition", r
            lo, hi, dr = r["ci_low_pct"], r["ci_high_pct"], r["drift_pct"]
            if significant(r["verdict"]):
                called += 1
                # the rule: the whole interval beyond the drift
                if dr is None or lo is None or not (lo > dr or hi < -dr):
                    bad += 1
        r = row(d, "wall_s")
        drifts.append(r["drift_pct"])
        would = r["ci_low_pct"] is not None and not (r["ci_low_pct"] <= 0 <= r["ci_high_pct"])
        naive += would
        print("  %-8s %9s %-24s %9s  %-14s %s" % (
            "%d %d" % (2 * i + 1, 2 * i + 2), pct(r["diff_pct"]), ci(r), "+/-%.2f %%" % r["drift_pct"],
            "significant" if would else "not", r["verdict"]))
    print("  wall s: %d of %d pairs significant by the repetitions alone; with the drift rule %d"
          % (naive, n, sum(1 for i in range(n)
                           if significant(row(json.load(open(os.path.join(
                               lab.work, "comparisons", "c%02d.json" % (i + 1)))), "wall_s")["verdict"]))))
    print("  drift measured (wall s): %.2f-%.2f %% over the %d leave-a-pair-out databases"
          % (min(drifts), max(drifts), n))
    print("  every metric, every pair: %d called significant, %d of them with an interval "
          "reaching into the drift (must be 0)" % (called, bad))
    return bad


def main():
    if sys.argv[1] == "--injected":
        con = sqlite3.connect("file:%s?mode=ro" % sys.argv[2], uri=True)
        runs = lambda l: [r for r, in con.execute("select id from run where label = ?", (l,))]
        print("%.1f %.4f %.3f" % injected(con, runs(sys.argv[3]), runs(sys.argv[4])))
        return 0
    report, db, work, effect, p = sys.argv[1:6]
    lab = Lab(report, db, work, effect)
    print("\nverdicts (%d A/A sessions; slowdown delay=1ms@%s)\n" % (len(lab.aa), p))
    sig, n = part_a(lab)
    vb = part_b(lab)
    bad = part_c(lab)
    lab.relabel({r: l for r, l in lab.orig.items()})
    ok_a = sig <= 2
    ok_b = vb is not None and "better" not in vb
    print("\nDone when: (a) %d of %d A/A called significant (wall s; at most 2): %s; "
          "(b) the slowdown: %s: %s; (c) one session a label, nothing within the drift "
          "called significant: %s" % (sig, n, "ok" if ok_a else "FAILED", vb,
                                      "ok" if ok_b else "FAILED", "ok" if bad == 0 else "FAILED"))
    return 0 if ok_a and ok_b and bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
