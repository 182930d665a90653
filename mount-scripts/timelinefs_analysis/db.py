# SPDX-License-Identifier: MIT
"""The database as timelinefs-report reads it: read-only, waiting for a
running daemon's write lock, every value a bound parameter."""
import sqlite3
import urllib.parse


def open_ro(path):
    """The database at path, read-only (mode=ro: nothing written, no
    journal made), waiting up to 5 s for a daemon's write lock."""
    # a URI: the name's %, ? and # (any but / and the unreserved) escaped
    con = sqlite3.connect("file:%s?mode=ro" % urllib.parse.quote(path),
                          uri=True, timeout=5.0)
    return con


def has_column(con, table, column):
    return con.execute("select count(*) from pragma_table_info(?) where name = ?",
                       (table, column)).fetchone()[0] == 1


def has_object(con, name):
    return con.execute("select count(*) from sqlite_master where name = ?",
                       (name,)).fetchone()[0] == 1


def in_list(n):
    """The placeholders of an SQL list of n values: "?, ?, ?"."""
    return ", ".join("?" * n)


def run_condition(con, runs):
    """The SQL condition on run r and its parameters for the runs given
    (ids, or labels: a word with a non-digit), all runs for none; raises
    LookupError naming a run the database lacks."""
    parts, args = [], []
    for r in runs:
        if not r:
            continue
        if r.isdigit() and r.isascii():
            c, a = "id = ?", int(r)
        else:
            c, a = "label = ?", r
        if con.execute("select count(*) from run where " + c, (a,)).fetchone()[0] == 0:
            raise LookupError("no run %s" % r)
        parts.append(c)
        args.append(a)
    return (" or ".join(parts) or "1"), args
