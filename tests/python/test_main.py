# SPDX-License-Identifier: MIT
# The entry: a Python without the libraries a command draws with or
# computes on is told so by name, exit 1, nothing else printed.
import sqlite3
import sys

import timelinefs_analysis
from timelinefs_analysis import __main__ as entry


def without(monkeypatch, *mods):
    """mods unimportable (None in sys.modules), and the package's modules
    that import them forgotten so that they are imported again."""
    for m in list(sys.modules):
        if m.startswith("timelinefs_analysis.") and m != "timelinefs_analysis.__main__" \
                and m != "timelinefs_analysis.db":
            monkeypatch.delitem(sys.modules, m)
            # "from . import x" takes the package's attribute first
            monkeypatch.delattr(timelinefs_analysis, m.split(".")[1], raising=False)
    for m in mods:
        monkeypatch.setitem(sys.modules, m, None)


def test_no_scipy(tmp_path, monkeypatch, capsys):
    path = str(tmp_path / "t.db")
    sqlite3.connect(path).execute("create table run (id integer primary key)")
    without(monkeypatch, "scipy", "numpy")
    for argv in (["spread", path, "text"], ["compare", path, "text", "a", "b", "6"]):
        assert entry.main(argv) == 1
        out, err = capsys.readouterr()
        assert out == ""
        assert err == ("timelinefs-report: %s with SciPy and NumPy is needed for --spread "
                       "and --compare (apt-get install python3-scipy python3-numpy)\n"
                       % sys.executable)


def test_no_matplotlib(tmp_path, monkeypatch, capsys):
    without(monkeypatch, "matplotlib")
    argv = ["plot", str(tmp_path / "t.db"), "1", str(tmp_path / "o.png"), "", "10x10", "", ""]
    assert entry.main(argv) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == ("timelinefs-plot: %s with matplotlib is needed "
                   "(apt-get install python3-matplotlib)\n" % sys.executable)
