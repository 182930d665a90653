# SPDX-License-Identifier: MIT
"""timelinefs_analysis.headroom against values worked out by hand, on a
database of the real schema (schema/*.sql)."""
import glob
import io
import json
import os
import sqlite3

import pytest

from timelinefs_analysis import db, headroom

SCHEMA = os.path.join(os.path.dirname(__file__), "..", "..", "schema")

# (workstations, repetition, headroom of each frame in ms): one stream a step
STEPS = [(1, 0, [-5, 100]), (1, 1, [10, 20, 30, 40]), (1, 2, [6, 8, 30, 50]),
         (2, 1, [-2, 4, 12])]


@pytest.fixture
def path(tmp_path):
    p = str(tmp_path / "t.db")
    con = sqlite3.connect(p)
    for f in sorted(glob.glob(os.path.join(SCHEMA, "*.sql"))):
        with open(f) as s:
            con.executescript(s.read())
    con.execute("insert into run (id, label, started_at) values (1, 'a', 'x'), (2, 'b', 'x')")
    sid = 0
    for step, (ws, rep, hs) in enumerate(STEPS, 1):
        sid += 1
        late = sum(h < 0 for h in hs)
        con.execute("insert into stream (id, run_id, opened_ns, closed_ns, frames, late_frames, "
                    "failed_frames, bytes) values (?, 1, 0, 1, ?, ?, 0, 0)", (sid, len(hs), late))
        con.execute("insert into bench_step (id, run_id, label, workstations, repetition, wall_s) "
                    "values (?, 1, 'a', ?, ?, 1.0)", (step, ws, rep))
        con.execute("insert into bench_stream (step_id, stream_id) values (?, ?)", (step, sid))
        for k, h in enumerate(hs):
            due = 10**9 + k * 40 * 10**6
            done = due - h * 10**6
            # two tracks: the frame's last read decides (A1 done earlier)
            for track, d in (("V", done), ("A1", done - 10**6)):
                con.execute("insert into access (stream_id, frame, track, sched_ns, due_ns, "
                            "issued_ns, done_ns, played) values (?, ?, ?, ?, ?, ?, ?, 1)",
                            (sid, k, track, due - 80 * 10**6, due, d - 10**5, d))
    con.commit()
    con.close()
    return p


def test_by_workstations(path):
    rows = headroom.by_workstations(db.open_ro(path), [1])
    # ws 1: steps 2 and 3 (the warm-up left out): min of 10 and 6; p1 and
    # p5 (rank 1 of 4) 10 and 6, mean 8; p50 (rank 2 of 4) 20 and 8,
    # mean 14.  ws 2: n = 3, p50 rank 2 = 4 ms; one late frame
    assert rows == [("a", 1, 2, 8, 0, 6.0, 8.0, 8.0, 14.0),
                    ("a", 2, 1, 3, 1, -2.0, -2.0, -2.0, 4.0)]
    assert headroom.by_workstations(db.open_ro(path), [2]) == []
    assert headroom.by_workstations(db.open_ro(path), []) == []


def test_summaries(path):
    con = db.open_ro(path)
    # stream 2 (step 2): 10 20 30 40; the run over all 13 frames: p1 rank
    # 1 = -5, p5 rank 1, p50 rank 7 of the sorted -5 -2 4 6 8 10 12 ...
    assert con.execute("select headroom_min_us, headroom_p1_us, headroom_p5_us, "
                       "headroom_p50_us from stream_summary where stream_id = 2"
                       ).fetchone() == (10000.0, 10000.0, 10000.0, 20000.0)
    assert con.execute("select headroom_min_us, headroom_p50_us from run_summary "
                       "where id = 1").fetchone() == (-5000.0, 12000.0)


def test_formats(path):
    rows = headroom.by_workstations(db.open_ro(path), [1])
    out = io.StringIO()
    headroom.write(rows, "csv", out)
    assert out.getvalue().splitlines() == [
        "label,workstations,steps,frames,late_frames,min_ms,p1_ms,p5_ms,p50_ms",
        '"a",1,2,8,0,6,8,8,14', '"a",2,1,3,1,-2,-2,-2,4']
    out = io.StringIO()
    headroom.write(rows, "json", out)
    assert json.loads(out.getvalue())[1] == {
        "label": "a", "workstations": 2, "steps": 1, "frames": 3, "late_frames": 1,
        "min_ms": -2, "p1_ms": -2, "p5_ms": -2, "p50_ms": 4}
    out = io.StringIO()
    headroom.write(rows, "text", out)
    lines = out.getvalue().splitlines()
    assert lines[1].split() == list(headroom.COLUMNS)
    assert lines[3].split() == ["a", "2", "1", "3", "1", "-2.0", "-2.0", "-2.0", "4.0"]


def test_series(path):
    s = headroom.series(db.open_ro(path), 1, 4)
    assert list(s) == [4]
    assert s[4][1] == [(1.0, -2.0, 1), (1.04, 4.0, 0), (1.08, 12.0, 0)]
