# SPDX-License-Identifier: MIT
"""Numbers and strings as timelinefs-report prints them: the text tables
(fixed decimals, signed percentages), CSV (6 significant digits) and JSON
(10 significant digits, json.dumps for strings)."""
import json


def num(x):
    """A CSV number: 6 significant digits, empty for none."""
    return "" if x is None else "%.6g" % x


def jnum(x):
    """A JSON number: 10 significant digits, null for none."""
    return "null" if x is None else "%.10g" % x


def jstr(s):
    return json.dumps(s, ensure_ascii=False)


def fix(x, d):
    """x with d decimals, "-" for none."""
    return "-" if x is None else "%.*f" % (d, x)


def pct(x):
    """A signed percentage with 2 decimals, "n/a" for none."""
    return "n/a" if x is None else "%+.2f%%" % x


def csv_quoted(s):
    """One CSV field, always quoted, its quotes doubled."""
    return '"' + s.replace('"', '""') + '"'
