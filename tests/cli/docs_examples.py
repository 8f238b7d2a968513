#!/usr/bin/env python3
"""Runs the command examples of README.md and docs/*.md (tests/README.md has
the conventions): every ```sh, ```bash and ```console block, one command at a
time, in a fresh copy of a fixture folder whose files have the names the
examples use, with `tok` and `scripts/tok` running the binary under test.

  docs_examples.py --mode fast|full --tok TOK --root ROOT --work DIR

fast runs the blocks with no marker; full runs the blocks marked
`<!-- example: full -->`. A block marked `<!-- example: skip: REASON -->` is
never run (the reason is printed); one marked `<!-- example: fails: REASON -->`
must fail: the day it passes, the marker is reported for removal. Each failure
prints FILE:LINE, the command, the exit status and the output (expected and
actual output for console blocks). Exit 1 if any failed.
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys

RUN_FENCES = {"sh", "bash", "console"}
MARKER = re.compile(r"^<!-- example: (full|skip|fails)(?::\s*(.*?))?\s*-->$")
# A line of an unlabelled block that reads as a command: such blocks must say
# what they are (```sh runs, ```text does not), so no example hides from the test.
COMMAND_LINE = re.compile(r"^(\$ )?(tok|scripts/\w\S*|(/usr/bin/)?python3|parallel|export|echo|cat|ls|"
                          r"zcat|mkdir|cmake|hadoop)( |$)")
TIMEOUT = {"fast": 60, "full": 600}


class Block:
    def __init__(self, path, line, fence, marker, reason):
        self.path, self.line, self.fence = path, line, fence
        self.marker, self.reason = marker, reason
        self.commands = []  # (line, command text, expected output lines or None)


def parse(path, rel):
    """The runnable blocks of one Markdown file, and problems found on the way."""
    blocks, problems = [], []
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^```(\S*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        fence, start = m.group(1), i
        end = start + 1
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        body = lines[start + 1:end]
        prev = start - 1
        while prev >= 0 and not lines[prev].strip():
            prev -= 1
        mk = MARKER.match(lines[prev].strip()) if prev >= 0 else None
        if lines[prev].strip().startswith("<!-- example") and not mk:
            problems.append(f"{rel}:{prev + 1}: malformed marker {lines[prev].strip()!r} "
                            "(<!-- example: full -->, <!-- example: skip: REASON --> or "
                            "<!-- example: fails: REASON -->)")
        if fence in RUN_FENCES:
            b = Block(rel, start + 1, fence, mk.group(1) if mk else None, mk.group(2) if mk else None)
            if b.marker in ("skip", "fails") and not b.reason:
                problems.append(f"{rel}:{prev + 1}: '{b.marker}' needs a reason")
            (console if fence == "console" else shell)(b, body, start + 2)
            blocks.append(b)
        elif fence == "" and any(COMMAND_LINE.match(l) for l in body):
            problems.append(f"{rel}:{start + 1}: an unlabelled block holds commands: fence it "
                            "```sh to run it, or ```text if it is a synopsis or an output")
        i = end + 1
    return blocks, problems


def shell(b, body, first):
    """```sh: each line is a command (comments and blank lines skipped; a
    trailing backslash continues it)."""
    cmd, at = "", None
    for n, line in enumerate(body, first):
        if at is None:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            at = n
        cmd += line + "\n"
        if not line.endswith("\\"):
            b.commands.append((at, cmd.rstrip("\n"), None))
            cmd, at = "", None
    if at is not None:
        b.commands.append((at, cmd.rstrip("\n"), None))


def console(b, body, first):
    """```console: `$ ` starts a command; the lines up to the next one are
    its expected output (stdout and stderr)."""
    for n, line in enumerate(body, first):
        if line.startswith("$ "):
            b.commands.append((n, line[2:], []))
        elif b.commands:
            b.commands[-1][2].append(line)


def output_matches(expected, actual):
    """Exact, line by line, trailing blanks ignored; a line `...` stands for any
    number of lines, a line ending in `...` for any line starting with the rest."""
    parts = []
    for line in expected:
        line = line.rstrip()
        if line == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        elif line.endswith("..."):
            parts.append(re.escape(line[:-3]) + r"[^\n]*\n")
        else:
            parts.append(re.escape(line) + r"\n")
    want = "".join(parts)
    got = "".join(l.rstrip() + "\n" for l in actual.rstrip("\n").split("\n")) if actual else ""
    return re.fullmatch(want, got) is not None


def run_block(b, args, fixture, env):
    """Runs the block's commands in a fresh copy of the fixture; returns the
    failures (strings), empty when every command did what the docs say."""
    work = os.path.join(args.work, f"{b.path.replace('/', '_')}_{b.line}")
    shutil.copytree(fixture, work, symlinks=True)
    failures = []
    # Standard input open for writing only: an example that reads stdin
    # without piping into it (an option that swallowed its argument) fails
    # instead of reading nothing or waiting.
    unreadable = open(os.devnull, "wb")
    # The commands of a block run as typed into one shell: what one exports
    # or where it cd's carries to the next (kept in two files between them).
    state, pwd_file = os.path.join(args.work, "env"), os.path.join(args.work, "pwd")
    with open(pwd_file, "w") as f:
        f.write(work + "\n")
    if os.path.exists(state):
        os.remove(state)
    for line, cmd, expected in b.commands:
        script = (f"[ -f {shlex.quote(state)} ] && . {shlex.quote(state)}\n"
                  f"cd \"$(cat {shlex.quote(pwd_file)})\"\n{cmd}\n"
                  f"rc=$?; export -p >{shlex.quote(state)}; pwd >{shlex.quote(pwd_file)}; exit $rc\n")
        try:
            p = subprocess.run(["bash", "-o", "pipefail", "-c", script], cwd=work, env=env,
                               stdin=unreadable, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=TIMEOUT[args.mode])
            out, rc = p.stdout.decode("utf-8", "replace"), p.returncode
        except subprocess.TimeoutExpired as e:
            out = (e.stdout or b"").decode("utf-8", "replace")
            rc = f"none: still running after {TIMEOUT[args.mode]} s, killed"
        where = f"{b.path}:{line}"
        if rc != 0:
            failures.append(f"{where}: exit status {rc}\n  $ {cmd}\n{indent(out)}")
        elif expected is not None and not output_matches(expected, out):
            failures.append(f"{where}: output differs\n  $ {cmd}\n  expected:\n{indent(chr(10).join(expected))}"
                            f"\n  actual:\n{indent(out)}")
        if failures:
            break  # later commands of the block may depend on this one
    unreadable.close()
    shutil.rmtree(work, ignore_errors=True)
    return failures


def indent(text, limit=40):
    lines = text.rstrip("\n").split("\n")
    if len(lines) > limit:
        lines = lines[:limit] + [f"... ({len(lines) - limit} more lines)"]
    return "\n".join("    | " + l for l in lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=["fast", "full"], required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--fixture", required=True, help="folder copied for each block")
    ap.add_argument("--work", required=True)
    ap.add_argument("--only", help="run only blocks whose FILE:LINE contains this")
    args = ap.parse_args()

    files = ["README.md"] + sorted("docs/" + f for f in os.listdir(os.path.join(args.root, "docs"))
                                   if f.endswith(".md"))
    blocks, problems = [], []
    for rel in files:
        bs, ps = parse(os.path.join(args.root, rel), rel)
        blocks += bs
        problems += ps
    env = dict(os.environ)
    env["PATH"] = os.path.join(args.fixture, "bin") + ":" + env["PATH"]

    failed, counts = list(problems), {"ran": 0, "skipped": 0, "known failures": 0, "other suite": 0}
    for b in blocks:
        where = f"{b.path}:{b.line}"
        if args.only and args.only not in where:
            continue
        if b.marker == "skip":
            print(f"skip {where}: {b.reason}")
            counts["skipped"] += 1
            continue
        if (b.marker == "full") != (args.mode == "full"):
            counts["other suite"] += 1
            continue
        if not b.commands:
            failed.append(f"{where}: a ```{b.fence} block with no command")
            continue
        f = run_block(b, args, args.fixture, env)
        if b.marker == "fails":
            counts["known failures"] += 1
            if f:
                print(f"known failure {where} ({b.reason}):\n" + "\n".join(f))
            else:
                failed.append(f"{where}: marked `<!-- example: fails: {b.reason} -->` but every "
                              "command now succeeds: remove the marker")
            continue
        counts["ran"] += 1
        print(f"{'FAIL' if f else 'ok'} {where} ({len(b.commands)} commands)")
        failed += f
    print(", ".join(f"{v} {k}" for k, v in counts.items()))
    for f in failed:
        print("FAIL: " + f, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
