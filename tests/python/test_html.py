# SPDX-License-Identifier: MIT
"""timelinefs-report --html (htmlreport.py) on a crafted database: the
sections, the verdicts in the text report's words, nothing referenced
outside the page, the images inline, an older database, and OUT written
whole or not at all."""
import base64
import glob
import io
import os
import re
import sqlite3
import struct
from html.parser import HTMLParser

import pytest

from timelinefs_analysis import __main__ as entry
from timelinefs_analysis import compare, db, htmlreport

TOP = os.path.join(os.path.dirname(__file__), "..", "..")
B = "b<i>&'s"  # label B: markup and quotes, escaped on the page

# label ws session rep wall_s latencies (us) of the step's 4 reads: A
# benched in two sessions (runs 1 and 2, the drift between them 1 % in
# wall time, 2 % in latency), B in one (run 3): 12 % slower, its latency
# 2.6 % higher: within the drift
STEPS = [("a", 1, 1, 10.0, 100), ("a", 1, 2, 10.2, 101), ("a", 1, 3, 10.1, 100),
         ("a", 2, 1, 10.1, 102), ("a", 2, 2, 10.3, 103), ("a", 2, 3, 10.2, 102),
         (B, 3, 1, 11.3, 104), (B, 3, 2, 11.5, 104), (B, 3, 3, 11.4, 104)]


def craft(path, calibration=True):
    con = sqlite3.connect(path)
    for f in sorted(glob.glob(os.path.join(TOP, "schema", "*.sql"))):
        con.executescript(open(f).read())
    for run, label, kernel, disk in ((1, "a", "6.1.0", "sda"), (2, "a", "6.1.0", "sdb"),
                                     (3, B, "6.2.0", "sda")):
        con.execute("insert into run (id, label, started_at, ended_at, kernel, config_hz, host, "
                    "options) values (?, ?, ?, ?, ?, 250, 'box', 'pace=off')",
                    (run, label, "2026-12-0%dT10:00:00Z" % run, "2026-12-0%dT10:05:00Z" % run,
                     kernel))
        for k, v in (("kernel", kernel), ("disk", disk), ("boot_id", "boot%d-0000-1111" % run),
                     ("opt.label", label)):
            con.execute("insert into run_env values (?, ?, ?)", (run, k, v))
    con.execute("insert into timeline (id, run_id, name) values (1, 1, 'tl')")
    for i, (label, run, rep, wall, lat) in enumerate(STEPS, 1):
        op = i * 10**11
        cl = op + int(wall * 1e9)
        con.execute("insert into stream (id, run_id, timeline_id, pid, opened_ns, closed_ns, bytes, "
                    "frames, late_frames, failed_frames) values (?, ?, 1, ?, ?, ?, 100000000, 100, "
                    "0, 0)", (i, run, i, op, cl))
        con.execute("insert into bench_step (id, run_id, label, workstations, repetition, "
                    "started_ns, ended_ns, wall_s, reader) values (?, ?, ?, 2, ?, ?, ?, ?, 'dd')",
                    (i, run, label, rep, op, cl, wall))
        con.execute("insert into bench_stream values (?, ?)", (i, i))
        for f in range(4):
            con.execute("insert into access (stream_id, frame, track, clip, file_offset, length, "
                        "due_ns, issued_ns, done_ns) values (?, ?, 'V', 'c', 0, 1, ?, ?, ?)",
                        (i, f, op + 10**12, op + f * 10**8, op + f * 10**8 + (lat + f) * 1000))
    if calibration:
        con.execute("insert into calibration (run_id, label, readers, block_bytes, seconds, "
                    "read_bytes, bytes_per_s, reads_per_s, tool) values (1, 'a', 2, 8192, 5, "
                    "104857600, 20971520, 2560, 'fio --name=cal')")
    else:
        con.execute("drop table calibration")
    con.commit()
    con.close()


@pytest.fixture
def path(tmp_path):
    p = str(tmp_path / "t.db")
    craft(p)
    return p


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """(database, page) of the comparisons the runs make by default
    (A against B): drawn once for the tests that only read it."""
    d = tmp_path_factory.mktemp("html")
    p = str(d / "t.db")
    craft(p)
    return p, html_of(p, str(d / "r.html"))


class Page(HTMLParser):
    """What the tests look at: section ids, every attribute, the images,
    the tags seen, the verdict cells and the text of each paragraph."""

    def __init__(self, text):
        super().__init__()
        self.ids, self.attrs, self.imgs, self.tags = [], [], [], []
        self.verdicts, self.paras = {}, []
        self.metric = None
        self.cell = self.para = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        self.attrs += [(tag, k, v or "") for k, v in attrs]
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "img":
            self.imgs.append(a.get("src", ""))
        if tag == "span" and "data-metric" in a:
            self.metric = (int(a["data-ws"]), a["data-metric"])
        if tag == "td" and "verdict" in (a.get("class") or "").split():
            self.cell = []
        if tag == "p":
            self.para = []

    def handle_data(self, data):
        for x in (self.cell, self.para):
            if x is not None:
                x.append(data)

    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.verdicts[self.metric] = "".join(self.cell)
            self.cell = None
        if tag == "p" and self.para is not None:
            self.paras.append("".join(self.para))
            self.para = None


def html_of(path, out, *args):
    assert entry.main(["html", path, out, "6"] + list(args)) == 0
    with open(out, encoding="utf-8") as f:
        return f.read()


def text_verdicts(con, la, lb):
    """The text report's verdict per (workstations, metric title) and
    its lines."""
    buf = io.StringIO()
    compare.compare(con, la, lb, "6", "text", buf)
    got, ws = {}, None
    row = re.compile(r"^  (.{11}) +(-?[\d.]+|-) +(-?[\d.]+|-) +(-?[\d.]+|-) +\S+  "
                     r"(\[[^]]*\]|-) +(\[[^]]*\]|-|n/a) +(.+)$")
    for line in buf.getvalue().splitlines():
        m = re.match(r"^(\d+) workstations?:", line)
        if m:
            ws = int(m.group(1))
        m = row.match(line)
        if m:
            got[(ws, m.group(1).strip())] = m.group(7)
    return got, buf.getvalue().splitlines()


def test_sections(made):
    p = Page(made[1])
    for s in ("runs", "comparisons", "compare-1", "environment-1", "plots", "calibration"):
        assert s in p.ids, s
    assert "plot-run-1" in p.ids and "plot-run-3" in p.ids
    # the environment's difference and the warning, in compare's words
    assert "warning: the runs of A (a) differ among themselves in disk: sda (run 1), sdb (run 2)" \
        in p.paras


def test_verdicts_are_the_text_reports(made):
    p = Page(made[1])
    want, lines = text_verdicts(db.open_ro(made[0]), "a", B)
    assert len(want) == 8  # six Welch metrics and two bootstrap ones
    assert p.verdicts == want
    # the case is worth having: a verdict of each kind the drift makes
    assert want[(2, "wall s")] == "significant: B higher (worse)"
    assert want[(2, "p50 us")].startswith("not resolved: within the drift")
    # the sessions counted and the next one named, as the text says
    said = [l for l in lines if l.startswith(("sessions (", "one session a label", "next session"))]
    assert len(said) == 3
    for line in said:
        assert line in p.paras
    assert ("3 significant and worse: wall s at 2 workstations (+12.32% [+10.40%, +14.23%]); "
            "MB/s at 2 workstations (-10.97% [-12.52%, -9.41%]); stream s at 2 workstations "
            "(+12.32% [+11.00%, +13.46%])") in p.paras
    assert ("4 not resolved: p50 us at 2 workstations (+2.61% [+1.36%, +3.85%]); p99 us at 2 "
            "workstations (+2.56% [+1.34%, +3.77%]); max us at 2 workstations (+2.56% [+1.34%, "
            "+3.77%]); read us at 2 workstations (+2.59% [+1.78%, +3.40%])") in p.paras


def test_compare_given(path, tmp_path):
    # --compare A B: that comparison (here B against A) and their runs
    p = Page(html_of(path, str(tmp_path / "r.html"), B, "a"))
    assert p.verdicts == text_verdicts(db.open_ro(path), B, "a")[0]
    assert p.verdicts[(2, "wall s")] == "significant: B lower (better)"


def test_self_contained(made):
    text = made[1]
    p = Page(text)
    assert "script" not in p.tags and "link" not in p.tags and "iframe" not in p.tags
    for tag, k, v in p.attrs:
        if k in ("src", "href"):
            assert v.startswith(("data:", "#")), (tag, k, v[:60])
        assert "http://" not in v and "https://" not in v, (tag, k, v[:60])
    assert "url(" not in text and "@import" not in text
    # one inline PNG per run, as timelinefs-plot draws it (1400x900)
    assert len(p.imgs) == 3
    for src in p.imgs:
        assert src.startswith("data:image/png;base64,")
        png = base64.b64decode(src.split(",", 1)[1], validate=True)
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        assert struct.unpack(">II", png[16:24]) == (1400, 900)


def test_escaped(made):
    text = made[1]
    p = Page(text)
    assert "i" not in p.tags  # the label's <i> is text, not markup
    assert "b&lt;i&gt;&amp;&#x27;s (B)" in text


def test_older_database(tmp_path):
    # no calibration table (before schema version 13), no run_env rows
    path = str(tmp_path / "old.db")
    craft(path, calibration=False)
    con = sqlite3.connect(path)
    con.execute("drop table run_env")
    con.commit()
    con.close()
    p = Page(html_of(path, str(tmp_path / "r.html")))
    assert "calibration" not in p.ids and "runs" in p.ids
    assert "nothing to compare: A has no environment recorded" in p.paras


def test_no_runs(tmp_path):
    # a database no run has been recorded in yet: a page that says so,
    # as the text report prints its empty tables
    path = str(tmp_path / "e.db")
    con = sqlite3.connect(path)
    for f in sorted(glob.glob(os.path.join(TOP, "schema", "*.sql"))):
        con.executescript(open(f).read())
    con.close()
    text = html_of(path, str(tmp_path / "r.html"))
    p = Page(text)
    assert ", 0 runs; written " in text and not p.imgs and "compare-1" not in p.ids
    assert "fewer than two labels in these runs: nothing to compare (give --compare A B, or runs " \
        "of two labels)" in p.paras


def test_a_failure_leaves_out_as_it_was(path, tmp_path, monkeypatch, capsys):
    out = tmp_path / "r.html"
    out.write_text("old")

    def broken(*_):
        raise sqlite3.OperationalError("disk I/O error")
    monkeypatch.setattr(htmlreport, "plots_section", broken)
    assert entry.main(["html", path, str(out), "6", "--"]) == 1
    assert capsys.readouterr().err == "timelinefs-report: %s: disk I/O error\n" % path
    assert out.read_text() == "old"
    assert sorted(os.listdir(tmp_path)) == ["r.html", "t.db"]  # no temporary file left


def test_out_unwritable(path, tmp_path, capsys):
    for out, why in ((tmp_path / "no" / "r.html", "No such file or directory"),
                     (tmp_path, "a directory"), (path, "it is the database")):
        assert entry.main(["html", path, str(out), "6", "--"]) == 1
        assert capsys.readouterr().err == "timelinefs-report: cannot write %s: %s\n" % (out, why)
    assert sorted(os.listdir(tmp_path)) == ["t.db"]
    assert db.open_ro(path).execute("select count(*) from run").fetchone()[0] == 3


def test_bad_database(tmp_path, capsys):
    other = str(tmp_path / "x.db")
    sqlite3.connect(other).execute("create table t (x)")
    assert entry.main(["html", other, str(tmp_path / "r.html"), "6", "--"]) == 1
    assert capsys.readouterr().err == "timelinefs-report: %s: no such table: run\n" % other
    assert not os.path.exists(tmp_path / "r.html")


def test_calibrated_change_in_the_text_reports_words(tmp_path):
    # both labels calibrated by a step's work (2 readers, fio --io_size),
    # every run unpaced: the page says the text report's lines
    p = str(tmp_path / "c.db")
    craft(p)
    con = sqlite3.connect(p)
    con.execute("delete from calibration")
    for label, bps in (("a", 50e6), (B, 47e6)):
        con.execute("insert into calibration (run_id, label, readers, block_bytes, seconds, "
                    "read_bytes, bytes_per_s, reads_per_s, tool) values (1, ?, 2, 8192, 2, "
                    "100000000, ?, 100, 'fio --io_size=100000000 --name=r1')", (label, bps))
    con.execute("insert into run_env (run_id, key, value) select id, 'opt.pace', 'off' from run")
    con.commit()
    con.close()
    page = Page(html_of(p, str(tmp_path / "r.html"), "a", B))
    _, lines = text_verdicts(db.open_ro(p), "a", B)
    i = next(k for k, x in enumerate(lines) if x.startswith("  the storage's own change"))
    want = "".join(x.strip() for x in lines[i:i + 4])
    # A's mean step 10.15 s, 2.0 s of it the storage's: 10.15 / (10.15 +
    # 1e8 / 47e6 - 2.0) - 1 = -1.24 %
    assert lines[i] == "  the storage's own change, by --calibrate-work (2 readers): MB/s -1.24%,"
    assert [x for x in page.paras if x.startswith("the storage's own change")] == [
        want]
