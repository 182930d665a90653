# SPDX-License-Identifier: MIT
"""timelinefs_analysis.compare: with two sessions a label or more the
sessions are the samples (Welch on their means), and a comparison that
has not resolved --effect says so with the sessions it would need."""
import glob
import io
import json
import os
import sqlite3

import pytest

from timelinefs_analysis import compare, db

SCHEMA = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "..", "..", "schema", "*.sql")))


def make_db(path, sessions):
    """A database of the daemon's schema with one run (a session) per
    (label, wall s) of sessions: one bench step of 2 workstations, one
    counted repetition, one stream of 4 reads."""
    con = sqlite3.connect(path)
    for f in SCHEMA:
        con.executescript(open(f).read())
    for i, (label, wall) in enumerate(sessions, 1):
        t0 = i * 10 ** 12
        con.execute("insert into run (id, label, started_at) values (?, ?, ?)", (i, label, "t%d" % i))
        con.execute("""insert into stream (id, run_id, pid, opened_ns, closed_ns, bytes, frames,
                       late_frames, failed_frames) values (?, ?, ?, ?, ?, 100000000, 100, 0, 0)""",
                    (i, i, i, t0, t0 + wall * 1e9))
        con.execute("""insert into bench_step (id, run_id, label, workstations, repetition, started_ns,
                       ended_ns, wall_s, reader) values (?, ?, ?, 2, 1, ?, ?, ?, 'dd')""",
                    (i, i, label, t0, t0 + wall * 1e9, wall))
        con.execute("insert into bench_stream values (?, ?)", (i, i))
        for k in range(1, 5):
            con.execute("""insert into access (stream_id, frame, track, clip, file_offset, length, due_ns,
                           issued_ns, done_ns) values (?, ?, 'V', 'c', 0, 1, ?, ?, ?)""",
                        (i, k, t0 + 10 ** 12, t0, t0 + k * 100000))
    con.commit()
    con.close()


def run(path, fmt, effect="5"):
    out = io.StringIO()
    compare.compare(db.open_ro(path), "a", "b", effect, fmt, out, io.StringIO())
    return out.getvalue()


def wall(path):
    return next(r for r in json.loads(run(path, "json"))["comparisons"] if r["metric"] == "wall_s")


# Session means of sd 0.5 exactly on both sides (9.5, 10, 10.5 and 9.6,
# 10.1, 10.6), --effect 5 % of mean A 10: a difference of 0.5, one sd.
# Welch's interval: 0.1 +/- t(0.975, 4) sqrt(0.25 / 3 + 0.25 / 3), equal
# variances and n giving Welch-Satterthwaite's df 2 (n - 1) = 4, t =
# 2.776445 (NIST/SEMATECH e-Handbook 1.3.6.7.2, the t table): +/-1.133479.
# The sessions a label for 80 % power against one sd: R's
#   power.t.test(delta = 1, sd = 1, power = 0.8)   n = 16.71477
# (two samples, two-sided, 0.05): 17 whole sessions.
WIDE = [("a", 9.5), ("b", 9.6), ("b", 10.1), ("a", 10.0), ("a", 10.5), ("b", 10.6)]


def test_sessions_wider_than_the_effect_are_not_resolved(tmp_path):
    p = str(tmp_path / "w.db")
    make_db(p, WIDE)
    r = wall(p)
    assert (r["unit"], r["n_a"], r["n_b"]) == ("session", 3, 3)
    assert r["df"] == pytest.approx(4.0)
    assert r["t"] == pytest.approx(2.776445, abs=5e-7)
    assert r["ci_low"] == pytest.approx(0.1 - 1.133479, abs=5e-6)
    assert r["ci_high"] == pytest.approx(0.1 + 1.133479, abs=5e-6)
    assert r["reps_for_effect"] == 17
    assert r["verdict"] == "not resolved: about 17 sessions a label would resolve 5 %"
    text = run(p, "text")
    assert "their means), and an interval holding 0 but wider than --effect is not\nresolved;" in text
    assert "  resolution (95 % interval; sessions of each label for 80 % power at the\n" in text
    assert "to resolve 5 % on wall s: about 17 sessions\n" in text


def test_sessions_within_the_effect_stay_not_significant(tmp_path):
    # sd 0.05: +/-0.113348, 1.13 % of A, narrower than 5 %: the question
    # is answered (no difference of 5 %)
    p = str(tmp_path / "n.db")
    make_db(p, [("a", 9.95), ("b", 9.96), ("b", 10.01), ("a", 10.0), ("a", 10.05), ("b", 10.06)])
    r = wall(p)
    assert r["half_width"] == pytest.approx(0.1133479, abs=5e-7)
    assert r["verdict"] == "not significant"


def test_sessions_beyond_the_interval_are_significant(tmp_path):
    # B 2 s slower: 2 +/- 1.133479 holds no 0
    p = str(tmp_path / "s.db")
    make_db(p, [("a", 9.5), ("b", 11.5), ("b", 12.0), ("a", 10.0), ("a", 10.5), ("b", 12.5)])
    assert wall(p)["verdict"] == "significant: B higher (worse)"


def test_csv_verdict_has_no_comma(tmp_path):
    p = str(tmp_path / "w.db")
    make_db(p, WIDE)
    rows = [l.split(",") for l in run(p, "csv").splitlines()[1:]]
    assert all(len(r) == 22 for r in rows)
    assert [r[16] for r in rows if r[1] == "wall_s"] == [
        "not resolved: about 17 sessions a label would resolve 5 %"]


def test_bootstrap_of_two_sessions_says_sessions(tmp_path):
    # the bootstrap resamples the samples too: with the sessions the
    # samples, 2 a side are too few, and the words count sessions
    p = str(tmp_path / "two.db")
    make_db(p, [("a", 9.5), ("b", 9.6), ("b", 10.1), ("a", 10.0)])
    boot = json.loads(run(p, "json"))["bootstrap"]
    assert {b["verdict"] for b in boot} == {"no interval: fewer than 3 sessions"}
