#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mdcmds.py TOP FILE.md: the commands of FILE's ```sh blocks work here.

Each command line (continuations joined, comments and shell keywords
dropped) is checked by what it runs:
- timelinefs and timelinefs-* ($TLFS_BUILD, TOP/build, else mount-scripts/): every
  `--option` it gives is in the program's --help, every `-o NAME=` of
  timelinefs in `timelinefs -h`;
- make TARGET: TARGET is a target of TOP's Makefile;
- anything else: a program on PATH.
Fenced blocks without `sh` (output, usage texts) are not commands.
Prints FILE:LINE: reason for each command that would not work; exit 1
if any, 0 if none; exit 2 if FILE has no ```sh block (nothing checked).
"""
import os
import re
import shlex
import subprocess
import sys

KEYWORDS = {"for", "do", "done", "while", "if", "then", "fi", "wait",
            "in", "else", "elif", "case", "esac", "!"}


def blocks(path):
    """(line, text) of each command of the ```sh blocks."""
    out, cmd, start, inside = [], "", 0, False
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            s = line.rstrip("\n")
            if s.startswith("```"):
                inside = not inside and s[3:].strip() == "sh"
                continue
            if not inside:
                continue
            if not cmd:
                start = n
            cmd += s.rstrip("\\") + " "
            if not s.endswith("\\"):
                out.append((start, cmd.strip()))
                cmd = ""
    return out


def simple_commands(text):
    """The argv of each simple command of one line (;, &, &&, |)."""
    try:
        lex = shlex.shlex(text, posix=True, punctuation_chars=";&|")
        lex.whitespace_split = True
        lex.commenters = "#"
        words = list(lex)
    except ValueError:
        return [shlex.split(text, comments=True)]
    cmds, cur = [], []
    for w in words:
        if w and set(w) <= set(";&|"):
            cmds.append(cur)
            cur = []
        else:
            cur.append(w)
    cmds.append(cur)
    out = []
    for c in cmds:
        while c and (c[0] in KEYWORDS or re.match(r"^\w+=", c[0])):
            # "for i in 01 02; do ...": the loop's words are not a command
            if c[0] == "for":
                c = []
                break
            c = c[1:]
        if c:
            out.append(c)
    return out


def program(top, name):
    """TLFS_BUILD's (the build under test), else build/, else the script."""
    dirs = [os.environ.get("TLFS_BUILD", ""), os.path.join(top, "build"),
            os.path.join(top, "mount-scripts")]
    for d in dirs:
        p = os.path.join(d, name) if d else ""
        if p and os.access(p, os.X_OK):
            return p
    return None


_help = {}


def help_of(path):
    if path not in _help:
        opt = "-h" if os.path.basename(path) == "timelinefs" else "--help"
        r = subprocess.run([path, opt], capture_output=True, text=True,
                           timeout=60, check=False)
        _help[path] = r.stdout + r.stderr
    return _help[path]


def make_targets(top):
    with open(os.path.join(top, "Makefile"), encoding="utf-8") as f:
        return set(re.findall(r"^([a-z][\w.-]*):", f.read(), re.M))


def check(top, argv):
    """Why argv would not work here, or None."""
    name = argv[0]
    if name == "make":
        targets = make_targets(top)
        bad = [t for t in argv[1:] if not t.startswith("-") and
               "=" not in t and t not in targets]
        return f"make has no target {', '.join(bad)}" if bad else None
    if name == "timelinefs-hosts-run" and "--" in argv:
        # mpirun's options, then timelinefs-hosts' after --
        argv = ["timelinefs-hosts"] + argv[argv.index("--") + 1:]
        name = argv[0]
    if name.startswith("timelinefs"):
        path = program(top, name)
        if not path:
            return f"{name}: no such program in build/ or mount-scripts/"
        text = help_of(path)
        for a in argv[1:]:
            m = re.match(r"^(--[a-z][\w-]*)", a)
            if m and not re.search(re.escape(m.group(1)) + r"\b", text):
                return f"{name}: {m.group(1)} is not in its --help"
        if name == "timelinefs":
            for i, a in enumerate(argv[:-1]):
                if a != "-o":
                    continue
                for o in argv[i + 1].split(","):
                    key = o.split("=")[0]
                    if not re.search(r"-o " + re.escape(key) + r"\b", text):
                        return f"timelinefs: -o {key} is not in its -h"
        return None
    if subprocess.run(["sh", "-c", 'command -v "$1"', "sh", name],
                      capture_output=True, check=False).returncode:
        return f"{name}: not a program on PATH"
    return None


def main():
    top, path = sys.argv[1], sys.argv[2]
    cmds = blocks(path)
    if not cmds:
        print(f"{path}: no ```sh block: nothing checked")
        return 2
    bad = 0
    for line, text in cmds:
        for argv in simple_commands(text):
            why = check(top, argv)
            if why:
                print(f"{path}:{line}: {why}")
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
