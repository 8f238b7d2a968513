# Sourced by scripts/tok and scripts/test: install missing Debian packages,
# configure build/ (Release) once, rebuild when sources changed, showing how
# far the build is. Quiet when there is nothing to do; on a build failure it
# prints the build log's errors.
TOK_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOK_PACKAGES=(cmake ninja-build g++ pkg-config libcli11-dev libicu-dev libfmt-dev
  libutf8proc-dev doctest-dev nlohmann-json3-dev libpcre2-dev libxml2-utils groff-base)

# Node.js and npm may come from outside Debian's packages (as on the build
# machines): only ask apt for them when the commands are missing.
tok_node_packages() {
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || echo "nodejs npm"
}

tok_install_packages() {
  local missing=() p
  for p in "${TOK_PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" != 0 ]; then
    echo "tok: error: missing packages; run: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  echo "tok: installing ${missing[*]}" >&2
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"; } \
    >/tmp/tok-apt.$$.log 2>&1 || {
    cat /tmp/tok-apt.$$.log >&2
    echo "tok: error: apt-get install ${missing[*]} failed" >&2
    exit 1
  }
  rm -f /tmp/tok-apt.$$.log
}

# tok_add_foreign_arch ARCH: let dpkg install ARCH's builds of libraries
# (multiarch: libicu-dev:arm64 beside libicu-dev), for cross-compiling.
tok_add_foreign_arch() {
  dpkg --print-foreign-architectures | grep -qx "$1" && return 0
  if [ "$(id -u)" != 0 ]; then
    echo "tok: error: $1 packages are needed; run: sudo dpkg --add-architecture $1" >&2
    exit 1
  fi
  dpkg --add-architecture "$1"
}

# tok_build_progress tty|lines NAME: reads ninja's output on stdin and shows on
# stderr how far the build of NAME is, from ninja's "[done/total]" prefixes: on
# a terminal (tty) one line rewritten in place and erased at the end, otherwise
# (lines) a line at each further tenth, for logs. The other lines (commands,
# warnings, errors) are left to the build log. A build with nothing to do
# prints nothing.
tok_build_progress() {
  local mode=$1 name=$2 line finished total pct tenth=0 drawn=0
  while IFS= read -r line; do
    [[ $line =~ ^\[([0-9]+)/([0-9]+)\]\  ]] || continue
    # CMake's own steps (globs re-checked, CMake re-run) come before the build
    # and have a count of their own.
    [[ $line == *"Re-checking globbed directories"* || $line == *"Re-running CMake"* ]] && continue
    finished=${BASH_REMATCH[1]} total=${BASH_REMATCH[2]}
    [ "$total" -gt 0 ] || continue
    pct=$((100 * finished / total))
    if [ "$mode" = tty ]; then
      printf '\rtok: building %s %d/%d (%d%%)\033[K' "$name" "$finished" "$total" "$pct" >&2
      drawn=1
    elif [ $((pct / 10)) -gt "$tenth" ]; then
      tenth=$((pct / 10))
      printf 'tok: building %s %d/%d (%d%%)\n' "$name" "$finished" "$total" "$pct" >&2
    fi
  done
  [ $drawn = 0 ] || printf '\r\033[K' >&2
}

# tok_configured DIR [cmake args...]: whether DIR's CMake cache already holds
# every tok option of the args (-DTOK_NAME=VALUE), so that a build configured
# without one (-DTOK_WERROR=ON, say) is configured again. Only tok's own
# options: CMake rewrites others in its cache (the compiler's full path), and
# a changed compiler would wipe the cache.
tok_configured() {
  local cache="$1/CMakeCache.txt" a name value; shift
  [ -f "$cache" ] || return 1
  for a in "$@"; do
    [[ $a == -DTOK_*=* ]] || continue
    a=${a#-D}; name=${a%%=*}; value=${a#*=}; name=${name%%:*}
    grep -qxF -- "$value" < <(sed -n "s/^$name:[A-Z]*=//p" "$cache") || return 1
  done
}

# tok_build DIR [cmake args...]: configure (if needed, or if the args are not
# what DIR was configured with) and build DIR, showing progress
# (tok_build_progress) while it builds; only the targets in
# $TOK_BUILD_TARGETS when set (scripts/tok, scripts/python). The whole output
# goes to DIR.log, whose errors are printed if the build fails.
tok_build() {
  local dir="$1"; shift
  local log="$dir.log" name="${dir#"$TOK_ROOT"/}/"
  if [ -f "$dir/build.ninja" ] && ! tok_configured "$dir" "$@"; then
    cmake -S "$TOK_ROOT" -B "$dir" "$@" >"$log" 2>&1 || {
      cat "$log" >&2; echo "tok: error: cmake configure failed ($dir)" >&2; exit 1; }
  elif [ ! -f "$dir/build.ninja" ]; then
    echo "tok: first build of $name: this takes a few minutes" >&2
    # ccache, where installed, makes rebuilds in fresh clones and worktrees cheap.
    local launcher=()
    command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    cmake -S "$TOK_ROOT" -B "$dir" -G Ninja "${launcher[@]}" "$@" >"$log" 2>&1 || {
      cat "$log" >&2; echo "tok: error: cmake configure failed ($dir)" >&2; exit 1; }
  fi
  local jobs; jobs=$(nproc 2>/dev/null || echo 2)
  # Paths under the tree reach ccache relative to it, so that two folders
  # built with the same flags (build-python/ and pip's build-pip/ in a copy)
  # share their objects.
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$TOK_ROOT}"
  local targets=()
  [ -n "${TOK_BUILD_TARGETS:-}" ] && targets=(--target $TOK_BUILD_TARGETS)
  local mode=lines
  [ -t 2 ] && mode="tty"
  # pipefail, for this function only: the build's status, not the filter's.
  local -
  set -o pipefail
  cmake --build "$dir" -j "$jobs" "${targets[@]}" 2>&1 | tee "$log" | tok_build_progress "$mode" "$name" || {
    grep -v '^\[' "$log" | head -100 >&2; echo "tok: error: build failed ($dir; full log: $log)" >&2; exit 1; }
}

# tok_build_python DIR PYTHON: the extension module tok._tok for the
# interpreter PYTHON, built in DIR (target _tok; the module lands in
# DIR/python/tok beside python/tok's files). The one build of the module:
# scripts/python runs it for build-python/, pip's build (setup.py) for
# build-pip/. Only the module and the libraries it links: the CLI and the
# model are not needed, and every object here is built position-independent.
tok_build_python() {
  local dir=$1 python=$2
  # One build at a time: two ninjas in one build directory corrupt it (the
  # two Python tests of `scripts/test --full` may call scripts/python at once).
  mkdir -p "$dir"
  exec 9>"$dir/.build-python.lock"
  flock 9
  tok_install_packages pybind11-dev python3-dev
  TOK_BUILD_TARGETS=_tok tok_build "$dir" -DCMAKE_BUILD_TYPE=Release \
    -DTOK_PYTHON=ON -DTOK_TESTS=OFF -DPython3_EXECUTABLE="$python"
  exec 9>&-
}
