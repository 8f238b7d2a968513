#!/usr/bin/env bash
# `cpack -G DEB` of the build tok was built in: tok_VERSION_ARCH.deb with the
# package fields, every shared library the binary links declared in Depends
# (computed by dpkg-shlibdeps), the CLI's files and none of the C++ library's;
# apt accepts it on this machine. Unpacked into a temporary root (dpkg-deb -x),
# the installed tok counts with the vocabularies of that root (found relative
# to itself), `man tok` finds its page, and the bash completion completes.
source "$TOK_ROOT/tests/cli/lib.sh"
build=$(dirname "$TOK")
for c in cpack dpkg-deb dpkg-shlibdeps dpkg-architecture man readelf; do
  command -v $c >/dev/null || fail "$c is missing (scripts/test --full installs dpkg-dev, man-db and binutils)"
done
(cd "$T" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$T/pkg") >"$T/cpack.log" 2>&1 ||
  fail "cpack -G DEB: $(tail -20 "$T/cpack.log")"
version=$("$TOK" --version | awk '{print $2; exit}')
arch=$(dpkg --print-architecture)
deb="$T/pkg/tok_${version}_${arch}.deb"
[ -s "$deb" ] || fail "cpack made no $deb: $(ls "$T/pkg")"

field() { dpkg-deb -f "$deb" "$1"; }
expect_eq "Package" tok "$(field Package)"
expect_eq "Version" "$version" "$(field Version)"
expect_eq "Architecture" "$arch" "$(field Architecture)"
expect_eq "Section" utils "$(field Section)"
[ -n "$(field Maintainer)" ] || fail "no Maintainer field"
field Description | head -1 | grep -q 'tokens' || fail "Description: $(field Description)"

# Depends names the package of every library bin/tok needs (libicu72,
# libfmt9, libpcre2-8-0, libutf8proc2, libstdc++6, libc6 ... on Debian 12),
# as dpkg itself says which package holds each one.
depends=$(field Depends)
for lib in icu fmt pcre2-8 utf8proc; do
  grep -qE "(^|, )lib$lib[-0-9.a-z]* " <<<"$depends, " || fail "Depends lacks lib$lib: $depends"
done
dpkg-deb -x "$deb" "$T/root" || fail "dpkg-deb -x failed"
tok_bin="$T/root/usr/bin/tok"
needed=$(readelf -d "$tok_bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
[ -n "$needed" ] || fail "readelf found no NEEDED libraries in bin/tok"
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)  # x86_64-linux-gnu: not lib32's copies
re() { sed 's/[.+]/\\&/g' <<<"$1"; }  # a library or package name as a literal in a regex
for so in $needed; do
  pkg=$(dpkg -S "$so" 2>/dev/null | grep -E "^[^:]+(:$arch)?: .*/$multiarch/$(re "$so")\$" | head -1 |
    sed 's/[:,].*//')
  [ -n "$pkg" ] || fail "no installed package holds $so"
  grep -qE "(^|, )$(re "$pkg")( |,|$)" <<<"$depends" || fail "Depends lacks $pkg (for $so): $depends"
done

# The CLI's files, and none of the library's (those are cmake --install's dev component).
dpkg-deb -c "$deb" | awk '{print $NF}' | sed 's,^\./,/,' >"$T/files"
for f in /usr/bin/tok /usr/share/tok/vocab/o200k_base.tiktoken /usr/share/tok/vocab/models.json \
  /usr/share/man/man1/tok.1 /usr/share/bash-completion/completions/tok \
  /usr/share/zsh/vendor-completions/_tok /usr/share/fish/vendor_completions.d/tok.fish; do
  grep -qx "$f" "$T/files" || fail "the package lacks $f"
done
# Debian's zsh does not search share/zsh/site-functions (only /usr/local's).
grep -q /site-functions/ "$T/files" && fail "the package puts the zsh completion in site-functions"
grep -E '^/usr/(include|lib)/' "$T/files" && fail "the package holds the C++ library's files"
apt-get install --simulate "$deb" >"$T/apt.log" 2>&1 || fail "apt-get install --simulate: $(cat "$T/apt.log")"
grep -q '^Inst tok ' "$T/apt.log" || fail "apt-get would not install tok: $(cat "$T/apt.log")"

# The unpacked binary reads the vocabularies of its own root, not the checkout's.
printf 'hello world\n' >"$T/h.txt"
expect_status 0 env -u TOK_VOCAB_DIR "$tok_bin" count "$T/h.txt"
grep -qE '^ +3 +12 ' "$T/out" || fail "installed tok count: $(cat "$T/out")"
expect_status 0 env -u TOK_VOCAB_DIR "$tok_bin" encode -e cl100k_base -t 'hello world'
expect_eq "installed tok encode" "15339 1917" "$(cat "$T/out")"
mv "$T/root/usr/share/tok/vocab/o200k_base.tiktoken" "$T/o200k.saved"
expect_error 1 "$T/root/usr/share/tok/vocab/o200k_base.tiktoken: no such file" \
  env -u TOK_VOCAB_DIR "$tok_bin" count -e o200k_base "$T/h.txt"
mv "$T/o200k.saved" "$T/root/usr/share/tok/vocab/o200k_base.tiktoken"

# man tok: by name through MANPATH (as /usr/share/man is searched once
# installed), and the file itself.
MANPATH="$T/root/usr/share/man" MANWIDTH=80 man tok 2>"$T/man.err" | head -3 | grep -q '^TOK(1)' ||
  fail "man tok: $(cat "$T/man.err")"
MANWIDTH=80 man -l "$T/root/usr/share/man/man1/tok.1" 2>"$T/man.err" | grep -q 'tok count' ||
  fail "man -l: $(cat "$T/man.err")"

# bash completion, as bash-completion loads it: the function the file defines.
complete_words() {  # complete_words WORD...: COMPREPLY for the last word
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _tok; echo "${COMPREPLY[*]}"' \
    _ "$T/root/usr/share/bash-completion/completions/tok" "$@"
}
expect_eq "tok cou<TAB>" "count" "$(complete_words tok cou)"
expect_eq "tok count -e o200<TAB>" "o200k_base o200k" "$(complete_words tok count -e o200)"
echo "deb_package_full.sh: $(basename "$deb"), Depends: $depends"
