#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""shellopts.py HELP PAGE SCRIPT: what the options of a shell command say
in its -h (HELP, the text), its man page (PAGE, rendered by groff -Tascii)
and its parser (SCRIPT, the case patterns) that the others do not, one a
line, and last "checked N defaults" (tests/integration/test_man.sh).

-h is the short form and the page the long one, so their words differ;
what must not: the options (each item of the page is an option of -h;
test_man holds the other way), each item of -h a case of the parser and each case
an option of -h, and the default -h gives an option (its item's last
"(DEFAULT": a group without spaces, or a quoted one) in the page's item of
the same option too, where the page has one (some pages tell options in
prose)."""
import re
import sys

LONG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
# "(3)" ending the item or a sentence, "(3); with ..." or "(on; with ...)"
DEFAULT = re.compile(r"\(('[^']*'|[^\s();]+)(?:\)(?=\s*(?:$|[;.]))|;)")


def items(text, indents, body_from):
    """{long option: its item's text}: an item is a line at one of the
    indents whose term (up to two spaces) names long options, and the
    lines after it indented body_from or more (blank lines inside)."""
    out, names = {}, []
    for line in text.splitlines():
        ind = len(line) - len(line.lstrip(" "))
        if line.strip() and ind in indents:
            names = LONG.findall(line.strip().split("  ")[0])
            for n in names:
                out.setdefault(n, "")
                out[n] += " " + line.strip()
        elif names and (ind >= body_from or not line.strip()):
            for n in names:
                out[n] += " " + line.strip()
        else:
            names = []
    return {k: " ".join(v.split()) for k, v in out.items()}


def parser_options(script):
    """the long options of the script's case patterns (--name) or --name |
    or --name=*), its comments and here-documents left out"""
    text, end = [], None
    for line in script.splitlines():
        if end:
            end = None if line.strip() == end else end
            continue
        m = re.search(r"<<-?\s*'?(\w+)'?", line)
        end = m.group(1) if m else None
        text.append(re.sub(r"(^|\s)#.*", "", line))
    pat = r"(--[a-z][a-z0-9-]*)(?:=\*)?['\"]?\s*[|)]"
    return set(re.findall(pat, "\n".join(text)))


def options_section(page):
    """the rendered page's OPTIONS section"""
    m = re.search(r"^OPTIONS\n(.*?)(?=^[A-Z])", page, re.M | re.S)
    return m.group(1) if m else ""


def main(help_path, page_path, script_path):
    help_text = open(help_path, encoding="utf-8").read()
    page_text = open(page_path, encoding="utf-8").read()
    help_ = items(help_text, (2, 4), 6)
    page = items(options_section(page_text), (7,), 8)
    script = parser_options(open(script_path, encoding="utf-8").read())
    out, checked = [], 0
    for name, body in sorted(help_.items()):
        defaults = DEFAULT.findall(body)
        if defaults and name in page:
            checked += 1
            if "(" + defaults[-1] not in page[name]:
                out.append(f"{name}: -h says ({defaults[-1]}, its page item not: {page[name]}")
        if name not in script:
            out.append(f"{name}: an item of -h, not a case of the script")
    help_opts = set(LONG.findall(help_text))
    for name in sorted(set(page) - help_opts):
        out.append(f"{name}: an item of the page, not in -h")
    for name in sorted(script - help_opts):
        out.append(f"{name}: a case of the script, not in -h")
    out.append(f"checked {checked} defaults")
    print("\n".join(out))


if __name__ == "__main__":
    main(*sys.argv[1:4])
