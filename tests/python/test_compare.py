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


def calibrate(path, rows, pace="off"):
    """Add (label, readers, bytes/s, tool) calibration rows and every
    run's opt.pace (None: no row) to a make_db database."""
    con = sqlite3.connect(path)
    for label, readers, bps, tool in rows:
        con.execute("""insert into calibration (run_id, label, readers, block_bytes, seconds,
                       read_bytes, bytes_per_s, reads_per_s, tool)
                       values (1, ?, ?, 524288, 2.0, 1, ?, 1.0, ?)""", (label, readers, bps, tool))
    if pace is not None:
        con.execute("insert into run_env (run_id, key, value) select id, 'opt.pace', ? from run",
                    (pace,))
    con.commit()
    con.close()


WORK = "fio --direct=1 --rw=read --io_size=100000000 --name=r1"
# A at 50 MB/s, B at 47 (-6 %), each calibration 2 readers of a stream's
# bytes, the steps 1e8 bytes of 2 workstations: A's storage part 2.0 s of
# its mean step 2.2 s (0.2 s not the storage's), B's 1e8 / 47e6 =
# 2.127659574 s.  Predicted: 2.2 / (2.2 + 2.127659574 - 2.0) - 1 =
# 2.2 / 2.327659574 - 1 = -5.484460695 %.
CAL = [("a", 2, 50e6, WORK), ("b", 2, 47e6, WORK)]
STEADY_A = [("a", 2.19), ("a", 2.2), ("a", 2.21)]


def calibrated(path):
    return json.loads(run(path, "json"))["calibrated"]


def test_calibrated_change_within_the_interval(tmp_path):
    p = str(tmp_path / "c.db")
    # B's steps 2.33 s on average: 0.2023404 s not the storage's
    make_db(p, STEADY_A + [("b", 2.32), ("b", 2.33), ("b", 2.34)])
    calibrate(p, CAL)
    (r,) = calibrated(p)
    assert r["workstations"] == 2 and r["why_none"] is None
    assert r["predicted_pct"] == pytest.approx(-5.484460695, abs=1e-8)
    assert r["calibration_ratio_pct"] == pytest.approx(-6.0, abs=1e-9)
    assert r["step_s_a"] == pytest.approx(2.2, abs=1e-9)
    assert r["not_storage_s_a"] == pytest.approx(0.2, abs=1e-9)
    assert r["not_storage_s_b"] == pytest.approx(0.2023404255, abs=1e-9)
    assert (r["calibrations_a"], r["calibrations_b"]) == (1, 1)
    mb = next(c for c in json.loads(run(p, "json"))["comparisons"] if c["metric"] == "mb_s")
    assert (r["mb_s_ci_low_pct"], r["mb_s_ci_high_pct"]) == (mb["ci_low_pct"], mb["ci_high_pct"])
    assert r["within"] is True
    text = run(p, "text")
    assert "  the storage's own change, by --calibrate-work (2 readers): MB/s -5.48%,\n    within the 95 % interval of B - A [" in text
    assert "the storage's change explains it\n" in text
    assert "    (the calibrations alone -6.00%; A's mean step 2.200 s, of it not the storage's 0.200 s,\n    B's 0.202 s)\n" in text


def calibrated_csv(path):
    """The CSV rows of method calibrated, split on commas (none has one
    in a field)."""
    rows = [l.split(",") for l in run(path, "csv").splitlines()[1:]]
    assert all(len(r) == 22 for r in rows)
    return [r for r in rows if r[21] == "calibrated"]


def test_calibrated_change_in_the_csv(tmp_path):
    p = str(tmp_path / "c.db")
    make_db(p, STEADY_A + [("b", 2.32), ("b", 2.33), ("b", 2.34)])
    calibrate(p, CAL)
    (r,) = calibrated(p)
    (row,) = calibrated_csv(p)
    # workstations, metric, n_a, n_b; diff_pct the predicted change (6
    # significant digits), the MB/s interval, the verdict
    assert (row[0], row[1], row[2], row[5]) == ("2", "mb_s", "1", "1")
    assert row[9] == "-5.48446"
    assert (row[14], row[15]) == ("%.6g" % r["mb_s_ci_low_pct"], "%.6g" % r["mb_s_ci_high_pct"])
    assert row[16] == "within"
    assert [row[i] for i in (3, 4, 6, 7, 8, 10, 11, 12, 13, 17, 18, 19, 20)] == [""] * 13
    p2 = str(tmp_path / "above.db")
    make_db(p2, STEADY_A + [("b", 2.6), ("b", 2.61), ("b", 2.62)])
    calibrate(p2, CAL)
    assert calibrated_csv(p2)[0][16] == "above"
    p3 = str(tmp_path / "paced.db")
    make_db(p3, STEADY_A + [("b", 2.32), ("b", 2.33), ("b", 2.34)])
    calibrate(p3, CAL, "realtime")
    (row,) = calibrated_csv(p3)
    assert (row[9], row[16]) == ("", "none")


def test_calibrated_change_above_the_interval(tmp_path):
    p = str(tmp_path / "c.db")
    # B's steps 2.61 s: 0.48 s not the storage's, far more than A's
    make_db(p, STEADY_A + [("b", 2.6), ("b", 2.61), ("b", 2.62)])
    calibrate(p, CAL)
    (r,) = calibrated(p)
    assert r["predicted_pct"] == pytest.approx(-5.484460695, abs=1e-8)
    assert r["not_storage_s_b"] == pytest.approx(0.4823404255, abs=1e-9)
    assert r["mb_s_ci_high_pct"] < r["predicted_pct"] and r["within"] is False
    assert "MB/s -5.48%,\n    above the 95 % interval of B - A [" in run(p, "text")


def test_calibrated_change_needs_both_labels_unpaced_steps_and_work_rows(tmp_path):
    walls = STEADY_A + [("b", 2.32), ("b", 2.33), ("b", 2.34)]
    cases = [
        # (calibrations, pace, want): a paced step's time is the timeline's
        (CAL, "realtime", "paced steps (a paced step's time is the timeline's, not the storage's work)"),
        # a database from before opt.pace was recorded: not known unpaced
        (CAL, None, "paced steps (a paced step's time is the timeline's, not the storage's work)"),
        (CAL[:1], "off", "only A has --calibrate-work rows of 2 readers"),
        # of another count of readers, or --calibrate's time-based rows: none
        ([("a", 6, 50e6, WORK), ("b", 6, 47e6, WORK)], "off", None),
        ([("a", 2, 50e6, "fio --time_based --runtime=5"), ("b", 2, 47e6, "fio --runtime=5")], "off", None),
    ]
    for i, (cal, pace, want) in enumerate(cases):
        p = str(tmp_path / ("n%d.db" % i))
        make_db(p, walls)
        calibrate(p, cal, pace)
        rows = calibrated(p)
        text = run(p, "text")
        if want is None:
            assert rows == [] and "calibrate-work" not in text, i
            continue
        (r,) = rows
        assert (r["predicted_pct"], r["within"], r["why_none"]) == (None, None, want), i
        assert "(2 readers): none (%s)\n" % want in text, i
