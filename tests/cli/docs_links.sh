#!/usr/bin/env bash
# Every documentation pointer resolves: `docs/NAME.md` named in src/ (help
# texts, comments), README.md, BENCHMARKS.md, CHANGELOG.md and docs/*.md, and
# every relative Markdown link of those pages (with its #anchor, if any), names
# an existing file and heading; and every source file named as MODULE/NAME.hpp
# or .cpp (MODULE a folder of src/) outside an #include, in src/ and those pages
# but CHANGELOG.md (which tells the past), exists in src/ or tests/, so a
# comment or page cannot go on naming a file that moved. docs/pending/ is not
# checked. The checker also runs on small broken trees, to show that it fails
# when a pointer dangles.
source "$(dirname "$0")/lib.sh"

# check_links ROOT: prints one line per broken pointer, exits 1 if any.
check_links() {
  python3 - "$1" <<'EOF'
import os, re, sys
root = sys.argv[1]

def slug(heading):
    # GitHub's anchor rule: lower case, drop punctuation but - and _, spaces to -.
    s = heading.strip().lower().replace("`", "")
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")

def anchors(path):
    out, fence = set(), False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fence = not fence
        elif not fence and re.match(r"#{1,6} ", line):
            base, n = slug(line.lstrip("#")), 0
            while (base if n == 0 else f"{base}-{n}") in out:
                n += 1
            out.add(base if n == 0 else f"{base}-{n}")
    return out

bad = []
def check(src, target, base):
    path, _, frag = target.partition("#")
    full = os.path.normpath(os.path.join(base, path)) if path else src
    if not os.path.exists(full):
        bad.append(f"{src}: {target}: no such file")
    elif frag and full.endswith(".md") and frag not in anchors(full):
        bad.append(f"{src}: {target}: no heading '#{frag}'")

# docs/NAME.md named in text (not inside a URL such as .../ggml/blob/master/docs/gguf.md).
mention = re.compile(r"(?<![\w./-])(docs/[\w./-]+\.md(?:#[\w-]+)?)")
link = re.compile(r"\]\(([^)\s]+)\)")
sources = []
for d, _, files in os.walk(os.path.join(root, "src")):
    sources += [os.path.join(d, f) for f in files]
docs = [os.path.join(root, f) for f in ("README.md", "BENCHMARKS.md", "CHANGELOG.md")
        if os.path.exists(os.path.join(root, f))]
ddir = os.path.join(root, "docs")
if os.path.isdir(ddir):
    docs += [os.path.join(ddir, f) for f in sorted(os.listdir(ddir)) if f.endswith(".md")]
# MODULE/NAME.hpp or .cpp, optionally under src/ or tests/ (not a longer path's
# tail, not core/build_info.hpp.in).
modules = sorted(d for d in os.listdir(os.path.join(root, "src"))
                 if os.path.isdir(os.path.join(root, "src", d))) if os.path.isdir(os.path.join(root, "src")) else []
source_ref = re.compile(r"(?<![\w./-])((?:src/|tests/)?(?:%s)/\w+\.(?:hpp|cpp))(?![\w]|\.\w)" % "|".join(modules))
include = re.compile(r"^\s*#\s*include")
for f in sources + docs:
    if not modules or f.endswith("CHANGELOG.md"):
        continue
    for n, line in enumerate(open(f, encoding="utf-8", errors="replace"), 1):
        if include.match(line):
            continue
        for m in source_ref.finditer(line):
            t = m.group(1)
            if not any(os.path.exists(os.path.join(root, d, t)) for d in ("", "src", "tests")):
                bad.append(f"{f}:{n}: {t}: no such source file")
for f in sources + docs:
    text = open(f, encoding="utf-8", errors="replace").read()
    for m in mention.finditer(text):
        check(f, m.group(1), root)
    if f in docs:
        for m in link.finditer(text):
            t = m.group(1)
            if not re.match(r"[a-z]+:", t):
                check(f, t, os.path.dirname(f))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
EOF
}

out=$(check_links "$TOK_ROOT") || fail "broken documentation pointers:
$out"
[ -f "$TOK_ROOT/docs/cost.md" ] || fail "docs/cost.md is missing"

# The checker fails on a dangling pointer in a source comment,
mkdir -p "$T/r/src/x" "$T/r/docs"
printf '# A\n\n## Two words\n' >"$T/r/docs/a.md"
printf '# tok\n[a](docs/a.md#two-words)\n' >"$T/r/README.md"
printf '// see docs/a.md and https://x.org/blob/docs/none.md\n' >"$T/r/src/x/f.cpp"
check_links "$T/r" >"$T/o" || fail "a correct tree was refused: $(cat "$T/o")"
printf '// schema in docs/missing.md\n' >"$T/r/src/x/g.cpp"
check_links "$T/r" >"$T/o" && fail "a missing page named in src/ was accepted"
grep -q 'docs/missing.md' "$T/o" || fail "the missing page is not named: $(cat "$T/o")"
rm "$T/r/src/x/g.cpp"
# on a source file named in a comment or a page that is not in the tree,
printf '// cut by x/f.cpp and tests/x/f_test.cpp\n#include "x/gone.hpp"\n' >"$T/r/src/x/h.cpp"
mkdir -p "$T/r/tests/x" && : >"$T/r/tests/x/f_test.cpp"
check_links "$T/r" >"$T/o" || fail "named source files that exist were refused: $(cat "$T/o")"
printf '// see x/moved.hpp\n' >>"$T/r/src/x/h.cpp"
printf '# A\n\n## Two words\n\n`src/x/gone.cpp` holds it.\n' >"$T/r/docs/a.md"
check_links "$T/r" >"$T/o" && fail "a source file that is not there was accepted"
grep -q 'src/x/h.cpp:3: x/moved.hpp' "$T/o" || fail "the moved header is not named: $(cat "$T/o")"
grep -q 'docs/a.md:5: src/x/gone.cpp' "$T/o" || fail "the page's missing file is not named: $(cat "$T/o")"
[ "$(wc -l <"$T/o")" == 2 ] || fail "expected two dangling source names: $(cat "$T/o")"
rm "$T/r/src/x/h.cpp"
printf '# A\n\n## Two words\n' >"$T/r/docs/a.md"
# on a link to a missing heading,
printf '# tok\n[a](docs/a.md#three-words)\n' >"$T/r/README.md"
check_links "$T/r" >"$T/o" && fail "a link to a missing heading was accepted"
# and on a relative link between pages that resolves to nothing.
printf '# tok\n' >"$T/r/README.md"
printf '# A\nsee [b](b.md)\n' >"$T/r/docs/a.md"
check_links "$T/r" >"$T/o" && fail "a link to a missing page was accepted"
exit 0
