# SPDX-License-Identifier: MIT
"""The probe's analysis (bench_probe_summary, timelinefs_analysis.probe and
its rows of --compare) against values worked out by hand, on a database
of the real schema (schema/*.sql)."""
import glob
import io
import json
import os
import sqlite3

import pytest

from timelinefs_analysis import compare, db, probe

SCHEMA = os.path.join(os.path.dirname(__file__), "..", "..", "schema")
MS = 10**6


def make_db(p, steps):
    """steps: (run, label, workstations, repetition, {kind: [(latency_us,
    ok)]}); each kind's samples start 100 ms apart from 0."""
    con = sqlite3.connect(p)
    for f in sorted(glob.glob(os.path.join(SCHEMA, "*.sql"))):
        with open(f) as s:
            con.executescript(s.read())
    for run in sorted({s[0] for s in steps}):
        con.execute("insert into run (id, label, started_at) values (?, ?, 'x')",
                    (run, next(s[1] for s in steps if s[0] == run)))
    for sid, (run, label, ws, rep, kinds) in enumerate(steps, 1):
        con.execute("insert into bench_step (id, run_id, label, workstations, repetition, wall_s) "
                    "values (?, ?, ?, ?, ?, 1.0)", (sid, run, label, ws, rep))
        for kind, samples in kinds.items():
            for k, (us, ok) in enumerate(samples):
                con.execute("insert into bench_probe (step_id, kind, start_ns, latency_ns, items, ok) "
                            "values (?, ?, ?, ?, ?, ?)",
                            (sid, kind, k * 100 * MS, us * 1000, 300 if kind == "walk" else 1, ok))
    con.commit()
    con.close()
    return p


OK = lambda *us: [(u, 1) for u in us]

# run 1, label a, one workstation: a warm-up, then two repetitions; the
# second with a spawn that failed (5000 us, left out of the percentiles)
STEPS = [(1, "a", 1, 0, {"spawn": OK(9000), "walk": OK(9000)}),
         (1, "a", 1, 1, {"spawn": OK(100, 200, 300, 400), "walk": OK(50, 60)}),
         (1, "a", 1, 2, {"spawn": OK(500, 600, 700) + [(5000, 0)] + OK(800, 900),
                         "walk": OK(70, 80)})]


@pytest.fixture
def path(tmp_path):
    return make_db(str(tmp_path / "t.db"), STEPS)


def test_step_summary(path):
    con = db.open_ro(path)
    rows = con.execute("select step_id, kind, samples, failed, per_s, items, p50_us, p99_us, "
                       "max_us from bench_probe_summary order by step_id, kind").fetchall()
    # step 2 spawn, n = 4: p50 rank (4 * 50 + 99) / 100 = 2 -> 200, p99
    # rank 4 -> 400; 4 samples over 0.3 s: 3 / 0.3 = 10 a second.  walk
    # n = 2: p50 rank 1 -> 50, p99 rank 2 -> 60.  Step 3 spawn: 6
    # samples, 1 failed, 5 ok: p50 rank 3 -> 700, p99 rank 5 -> 900;
    # 6 samples over 0.5 s: 10 a second
    assert rows == [(1, "spawn", 1, 0, None, 1.0, 9000.0, 9000.0, 9000.0),
                    (1, "walk", 1, 0, None, 300.0, 9000.0, 9000.0, 9000.0),
                    (2, "spawn", 4, 0, 10.0, 1.0, 200.0, 400.0, 400.0),
                    (2, "walk", 2, 0, 10.0, 300.0, 50.0, 60.0, 60.0),
                    (3, "spawn", 6, 1, 10.0, 1.0, 700.0, 900.0, 900.0),
                    (3, "walk", 2, 0, 10.0, 300.0, 70.0, 80.0, 80.0)]


def test_by_workstations(path):
    rows = probe.by_workstations(db.open_ro(path), [1])
    # the warm-up left out; spawn over the 9 samples that did not fail,
    # 100 .. 900: p50 rank (9 * 50 + 99) / 100 = 5 -> 500, p99 rank 9 ->
    # 900; walk 50 60 70 80: p50 rank 2 -> 60, p99 rank 4 -> 80
    assert rows == [("a", 1, "spawn", 2, 10, 1, 10.0, 1.0, 500.0, 900.0, 900.0),
                    ("a", 1, "walk", 2, 4, 0, 10.0, 300.0, 60.0, 80.0, 80.0)]
    assert probe.by_workstations(db.open_ro(path), [2]) == []
    assert probe.by_workstations(db.open_ro(path), []) == []


def test_nearest_rank():
    assert probe.nearest_rank([], 50) is None
    # n = 10: p50 rank 5, p99 rank 10
    assert probe.nearest_rank(list(range(10, 0, -1)), 50) == 5
    assert probe.nearest_rank(list(range(1, 11)), 99) == 10


def test_formats(path):
    rows = probe.by_workstations(db.open_ro(path), [1])
    out = io.StringIO()
    probe.write(rows, "csv", out)
    assert out.getvalue().splitlines() == [
        "label,workstations,kind,steps,samples,failed,per_s,items,p50_us,p99_us,max_us",
        '"a",1,"spawn",2,10,1,10,1,500,900,900', '"a",1,"walk",2,4,0,10,300,60,80,80']
    out = io.StringIO()
    probe.write(rows, "json", out)
    assert json.loads(out.getvalue())[1] == {
        "label": "a", "workstations": 1, "kind": "walk", "steps": 2, "samples": 4, "failed": 0,
        "per_s": 10, "items": 300, "p50_us": 60, "p99_us": 80, "max_us": 80}
    out = io.StringIO()
    probe.write(rows, "text", out)
    lines = out.getvalue().splitlines()
    assert lines[1].split() == list(probe.COLUMNS)
    assert lines[2].split() == ["a", "1", "spawn", "2", "10", "1", "10.0", "1", "500.0",
                                "900.0", "900.0"]


def ab(spawn_a, spawn_b):
    """Two sessions (runs) a label, one step each, one sample a kind:
    the step's p50, p99 and max are that sample; walk 100 us throughout."""
    steps = []
    for run, (label, us) in enumerate([("a", spawn_a[0]), ("a", spawn_a[1]),
                                       ("b", spawn_b[0]), ("b", spawn_b[1])], 1):
        kinds = {"spawn": OK(us), "walk": OK(100)} if us is not None else {}
        steps.append((run, label, 2, 1, kinds))
    return steps


def compare_json(p):
    buf = io.StringIO()
    compare.compare(db.open_ro(p), "a", "b", "6", "json", buf, io.StringIO())
    return json.loads(buf.getvalue())


def test_compare_probe(tmp_path):
    p = make_db(str(tmp_path / "c.db"), ab((1000, 1200), (2000, 2200)))
    rows = {r["metric"]: r for r in compare_json(p)["comparisons"]}
    # the session means: A 1000, 1200 (mean 1100, sd 141.42), B 2000,
    # 2200 (2100, 141.42).  se = sqrt(141.42^2 / 2 * 2) = 141.42, Welch's
    # df = 141.42^4 / (2 * (141.42^2 / 2)^2) = 2, t(0.975, 2) = 4.3027:
    # 1000 +/- 608.5 = [391.5, 1608.5], all above 0: B higher, worse
    r = rows["spawn_p50_us"]
    assert (r["n_a"], r["n_b"], r["unit"]) == (2, 2, "session")
    assert (r["mean_a"], r["mean_b"], r["diff"]) == (1100, 2100, 1000)
    assert r["diff_pct"] == pytest.approx(90.909, abs=1e-3)
    assert r["ci_low"] == pytest.approx(391.5, abs=0.1)
    assert r["ci_high"] == pytest.approx(1608.5, abs=0.1)
    assert r["verdict"] == "significant: B higher (worse)"
    assert rows["spawn_max_us"]["ci_low"] == pytest.approx(391.5, abs=0.1)
    # walk the same on both sides: identical
    assert rows["walk_p50_us"]["verdict"] == "not significant (identical)"
    buf = io.StringIO()
    compare.compare(db.open_ro(p), "a", "b", "6", "text", buf, io.StringIO())
    text = buf.getvalue()
    assert "interactive work beside the streams (the probe" in text
    line = next(x for x in text.splitlines() if x.startswith("  spawn p50 "))
    assert line.split()[2:5] == ["1100.0", "2100.0", "1000.0"]
    assert "[391.5, 1608.5]" in line and line.endswith("significant: B higher (worse)")
    buf = io.StringIO()
    compare.compare(db.open_ro(p), "a", "b", "6", "csv", buf, io.StringIO())
    assert sum(x.startswith("2,spawn_") or x.startswith("2,walk_")
               for x in buf.getvalue().splitlines()) == 6


def test_compare_one_side_without_probe(tmp_path):
    # B's steps ran with --probe off: nothing of the probe to compare
    p = make_db(str(tmp_path / "c.db"), ab((1000, 1200), (None, None)))
    assert not [r for r in compare_json(p)["comparisons"] if "spawn" in r["metric"]]
    buf = io.StringIO()
    compare.compare(db.open_ro(p), "a", "b", "6", "text", buf, io.StringIO())
    assert "interactive work (the probe): only a has its samples: nothing to compare" \
        in buf.getvalue()
