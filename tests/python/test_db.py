# SPDX-License-Identifier: MIT
"""timelinefs_analysis.db: runs chosen by bound parameters, read-only."""
import sqlite3

import pytest

from timelinefs_analysis import db


@pytest.fixture
def path(tmp_path):
    p = str(tmp_path / "t.db")
    con = sqlite3.connect(p)
    con.executescript("""create table run (id integer primary key, label text);
        insert into run values (1, 'a'), (2, 'it''s a,b'), (3, '7x'), (4, 'a');""")
    con.commit()
    con.close()
    return p


def ids(con, runs):
    cond, args = db.run_condition(con, runs)
    return [r for r, in con.execute("select id from run where %s order by id" % cond, args)]


def test_labels_and_ids(path):
    con = db.open_ro(path)
    assert ids(con, ["a"]) == [1, 4]
    assert ids(con, ["it's a,b", "3"]) == [2, 3]
    assert ids(con, ["7x"]) == [3]
    assert ids(con, []) == [1, 2, 3, 4]
    assert ids(con, [""]) == [1, 2, 3, 4]  # an empty argument is none


def test_a_label_is_never_sql(path):
    con = db.open_ro(path)
    with pytest.raises(LookupError):
        ids(con, ["x' or '1'='1"])


def test_read_only(path):
    con = db.open_ro(path)
    with pytest.raises(sqlite3.OperationalError):
        con.execute("delete from run")


def test_uri_characters_in_the_name(path, tmp_path):
    # the path goes into a file: URI: %, ? and # in a name are the file's
    # (%41 is no "A", ? no query, # no fragment)
    for name in ("p%41.db", "50%.db", "q?mode=rw.db", "h#1.db"):
        other = str(tmp_path / name)
        with open(path, "rb") as f, open(other, "wb") as g:
            g.write(f.read())
        assert ids(db.open_ro(other), ["a"]) == [1, 4]
