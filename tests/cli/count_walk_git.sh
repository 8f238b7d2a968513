#!/usr/bin/env bash
# Directory walks inside a git repository ignore what git ignores: every
# .gitignore from the repository root down and .git/info/exclude, also for a
# subdirectory or `.` counted on its own (compared with `git check-ignore`);
# --exclude/--include have gitignore syntax; chunk and train walk the same way.
source "$(dirname "$0")/lib.sh"
command -v git >/dev/null || fail "git is not installed"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null HOME="$T"
R="$T/repo"
mkdir -p "$R"
git -C "$R" init -q || fail "git init"
f() { mkdir -p "$(dirname "$R/$1")"; printf '%s\n' "${2:-text of $1}" >"$R/$1"; }
printf 'node_modules\n*.log\n/src/gen/out.py\n' >"$R/.gitignore"
printf 'secret.txt\n' >>"$R/.git/info/exclude"
f sub/a.txt; f sub/b.log; f sub/node_modules/x/i.js; f sub/secret.txt; f sub/deeper/c.txt
f sub/deeper/skip.md; printf 'deeper/skip.md\n' >"$R/sub/.gitignore"
f src/main.py; f src/gen/out.py; f src/gen/keep.py
f logs/a.log; f logs/readme.md
f packages/foo/index.js; f packages/foo/node_modules/dep/index.js
f top.txt; f debug.log

# The files tok counts in DIR (relative to the repository root), run from $2.
counted() {
  (cd "$R/${2:-.}" && "$TOK" count --json "$1") |
    node -e 'const p=require("path"); const j=JSON.parse(require("fs").readFileSync(0));
      console.log(j.files.map(f=>p.relative(process.argv[1], p.resolve(process.argv[2], f.path))).sort().join(" "))' \
      "$R" "$R/${2:-.}"
}
# The files under DIR that git does not ignore.
expected() {
  (cd "$R" && find "$1" -type f -not -path '*/.git/*' | sed 's|^\./||' | sort >"$T/all"
   git check-ignore --stdin <"$T/all" | sort >"$T/ign"
   comm -23 "$T/all" "$T/ign" | xargs)
}
for d in sub src src/gen logs packages/foo packages .; do
  expect_eq "tok count $d = git" "$(expected "$d")" "$(counted "$d")"
done
expect_eq "cd logs && tok count ." "$(expected logs)" "$(counted . logs)"
expect_eq "cd sub && tok count deeper" "$(expected sub/deeper)" "$(counted deeper sub)"
# The cases by name, so a regression says which rule broke.
expect_eq "sub" "sub/.gitignore sub/a.txt sub/deeper/c.txt" "$(counted sub)"
expect_eq "anchored /src/gen/out.py" "src/gen/keep.py src/main.py" "$(counted src)"
expect_eq "logs" "logs/readme.md" "$(counted . logs)"
# --no-ignore: everything but .git.
n=$("$TOK" count --json --no-ignore "$R/sub" | node -e 'console.log(JSON.parse(require("fs").readFileSync(0)).files.length)')
expect_eq "--no-ignore" 7 "$n"

# --exclude and --include: gitignore patterns relative to the directory named.
x() { "$TOK" count --json "$@" | node -e 'const j=JSON.parse(require("fs").readFileSync(0));
  console.log(j.files.map(f=>f.path.slice(process.argv[1].length+1)).join(" "))' "${@: -1}"; }
for pat in deeper deeper/ 'deeper/**' '/deeper' 'deep*'; do
  expect_eq "--exclude $pat" ".gitignore a.txt" "$(x --exclude "$pat" "$R/sub")"
done
expect_eq "--exclude name at any depth" "main.py" "$(x --exclude keep.py "$R/src")"
expect_eq "--exclude with !" "gen/keep.py" "$(x --exclude '*.py' --exclude '!keep.py' "$R/src")"
expect_eq "--include a directory" "deeper/c.txt" "$(x --include deeper "$R/sub")"
expect_eq "--include deeper/" "deeper/c.txt" "$(x --include deeper/ "$R/sub")"
expect_eq "--include a name" "a.txt deeper/c.txt" "$(x --include '*.txt' "$R/sub")"

# chunk walks the same way.
got=$("$TOK" chunk -n 100 --no-text "$R/sub" | node -e 'const l=require("fs").readFileSync(0,"utf8").trim().split("\n");
  console.log([...new Set(l.map(s=>JSON.parse(s).path.split("/repo/")[1]))].join(" "))')
expect_eq "chunk" "sub/.gitignore sub/a.txt sub/deeper/c.txt" "$got"

# train: the same walk (no .git, no ignored files), so a directory trains
# exactly as the files git keeps in it.
yes 'the cat sat on the mat' | head -200 >"$R/sub/deeper/c.txt"
yes 'zqxj node modules noise' | head -400 >"$R/sub/node_modules/x/i.js"
yes 'zqxj git object noise' | head -400 >"$R/.git/noise"
"$TOK" train -q --vocab-size 300 -o "$T/dir" "$R/sub" || fail "train dir"
"$TOK" train -q --vocab-size 300 -o "$T/files" $(cd "$R" && expected sub | tr ' ' '\n' | sed "s|^|$R/|") ||
  fail "train files"
cmp -s "$T/dir.tiktoken" "$T/files.tiktoken" || fail "train on a directory used files git ignores"
"$TOK" train -q --vocab-size 300 --exclude deeper -o "$T/ex" "$R/sub" || fail "train --exclude"
cmp -s "$T/dir.tiktoken" "$T/ex.tiktoken" && fail "train --exclude changed nothing"
# A binary file found by the walk is skipped with a note; one named is read.
printf 'bin\0ary the cat\n' >"$R/sub/blob.dat"
"$TOK" train --vocab-size 260 -o "$T/b" "$R/sub" 2>"$T/err" >/dev/null || fail "train with a binary file"
grep -q "skipping binary file .*blob.dat" "$T/err" || fail "no binary note: $(cat "$T/err")"
"$TOK" train --vocab-size 260 -o "$T/b" "$R/sub/blob.dat" 2>"$T/err" >/dev/null || fail "train a named binary file"
grep -q "skipping" "$T/err" && fail "a named binary file was skipped: $(cat "$T/err")"
echo ok
