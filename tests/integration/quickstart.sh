#!/bin/bash
# quickstart.sh -- runs README.md's quick start and libquaclient example, as written, against a private quad.
#
# Usage: tests/integration/quickstart.sh README.md BUILD_DIR [SANITIZE]
#
# The lines are taken from README.md at every run (the indented block under
# "## Quick start: quad and qua", then the C block and the indented block
# under "## Programs: libquaclient"), so the test breaks when the README
# drifts. They run in one bash, in a fresh folder where `build` is the build
# folder and TMPDIR is that folder, so QUA_SOCKET=${TMPDIR:-/tmp}/... is
# private. A line ending in '&' is waited for as a person would: until it
# says it is ready ("ready" from quad, "watching" from qua watch).
# SANITIZE is meson's b_sanitize: in a sanitizer build the example is not
# built (a program compiled as the README says, without the sanitizer,
# cannot load the instrumented libquaclient.so), and the test says so.
set -u

readme=${1:?usage: quickstart.sh README.md BUILD_DIR}
build=$(cd "${2:?usage: quickstart.sh README.md BUILD_DIR}" && pwd)
sanitize=${3:-none}
dir=$(mktemp -d /tmp/qua-quickstart-XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  rm -rf "$dir"
}
trap cleanup EXIT

failures=0
fail() { echo "quickstart: FAIL: $*" >&2; failures=$((failures + 1)); }

# Exits: 1 with the transcript and output after a failure, else 0 saying $1.
finish() {
  if [ $failures -ne 0 ]; then
    echo "--- transcript"; cat "$dir/transcript"
    echo "--- stdout"; cat "$dir/out"
    echo "--- stderr"; cat "$dir/err"
    exit 1
  fi
  echo "$1"
  exit 0
}

# The indented lines (without their 4 spaces) of the first indented block
# after the heading $1 (outside ``` fences); with $2 = c, the first ```c
# block instead.
extract() {
  awk -v head="$1" -v kind="${2:-}" '
    $0 == head { inside = 1; next }
    inside && /^## / { exit }
    inside && kind == "c" && /^```c$/ { code = 1; next }
    inside && code && /^```$/ { exit }
    inside && code { print; next }
    inside && /^```/ { fence = !fence; next }
    fence { next }
    inside && kind != "c" && /^    / { print substr($0, 5); started = 1; next }
    inside && started { exit }' "$readme"
}

# Runs lines (an array) in this shell, one by one, output to $dir/out and
# $dir/err; a background line must say $ready_re on stderr within 20 s.
run_lines() {
  local line before n
  for line in "$@"; do
    printf '$ %s\n' "$line" >>"$dir/transcript"
    if [[ "${line%%#*}" =~ \&[[:space:]]*$ ]]; then
      before=$(grep -c -E 'ready|watching' "$dir/err")
      eval "$line" >>"$dir/out" 2>>"$dir/err"
      pids+=("$!")
      n=0
      until [ "$(grep -c -E 'ready|watching' "$dir/err")" -gt "$before" ]; do
        n=$((n + 1))
        [ $n -gt 2000 ] && { fail "'$line' did not get ready"; return 1; }
        sleep 0.01
      done
    else
      eval "$line" >>"$dir/out" 2>>"$dir/err" || fail "'$line' exited $?"
    fi
  done
}

ln -s "$build" "$dir/build"
cd "$dir" || exit 1
export TMPDIR=$dir
unset QUA_SOCKET PKG_CONFIG_PATH
: >"$dir/out"
: >"$dir/err"

mapfile -t quick < <(extract "## Quick start: quad and qua")
[ ${#quick[@]} -ge 8 ] || { echo "quickstart: no quick start block in $readme" >&2; exit 1; }
run_lines "${quick[@]}"

# quad (the first background line) stopped on the README's kill with 0;
# the watch (the second) ended by itself when mid was destroyed, with 4.
wait "${pids[0]}"; st=$?
[ $st -eq 0 ] || fail "quad exited $st, not 0"
wait "${pids[1]}"; st=$?
[ $st -eq 4 ] || fail "the watch exited $st, not 4"
pids=()

# What the watch printed (lines "mid ..."), and what the other lines did.
grep '^mid ' "$dir/out" >"$dir/watch"
grep -v '^mid ' "$dir/out" | grep -v '^impl:' | grep -v '^bound:' >"$dir/rest"
cat >"$dir/watch.want" <<'EOF'
mid notempty 0 seq=1
mid full 5 seq=2
mid notfull 0 seq=3
mid closed 0 seq=4
EOF
cat >"$dir/rest.want" <<'EOF'
created mid (queue, id 1)
stored 1
stored 2
stored 3
stored 4
full 5
1
2
3
4
name:    mid
id:      1
type:    queue
state:   count=0 capacity=4 variant=spsc tracked synth=stencil
param:   capacity=4
param:   notify=1
param:   synth=stencil
closed mid
removed mid
EOF
diff -u "$dir/watch.want" "$dir/watch" || fail "the watch printed something else"
diff -u "$dir/rest.want" "$dir/rest" || fail "the quick start printed something else"
[ "$(grep -c '^impl:    ' "$dir/out")" -eq 5 ] || fail "show did not list the queue's 5 callentries"
[ "$(grep -c '^bound:   [a-z]* -> conn [0-9]* (unix pid=' "$dir/out")" -eq 5 ] ||
  fail "show did not list the watch's 5 bound callbacks"
grep -q '^qua: watch: mid was destroyed$' "$dir/err" || fail "the watch did not say mid was destroyed"
[ -S "$dir/qua/quad.sock" ] && fail "quad left its socket behind"
[ "$(stat -c %a "$dir/qua")" = 750 ] || fail "the socket's folder is not mode 0750"

# The libquaclient example, built and run as the README says, against a new quad.
[ "$sanitize" = none ] || finish "quickstart: README.md's quick start ran as written; its \
example is not built with b_sanitize=$sanitize"
extract "## Programs: libquaclient" c >example.c
mapfile -t build_lines < <(extract "## Programs: libquaclient")
[ -s example.c ] && [ ${#build_lines[@]} -ge 2 ] || { echo "quickstart: no example in $readme" >&2; exit 1; }
: >"$dir/out"
export QUA_SOCKET=$dir/qua/quad.sock
run_lines "build/daemon/quad &" "${build_lines[@]}"
grep -q '^counter 1: 5$' "$dir/out" || fail "the example printed '$(cat "$dir/out")'"
build/client/qua call example read >"$dir/read" || fail "qua cannot read the example's counter"
[ "$(cat "$dir/read")" = 5 ] || fail "the example's counter holds $(cat "$dir/read")"
kill "${pids[0]}"
wait "${pids[0]}" || fail "the second quad did not exit 0"
pids=()

finish "quickstart: README.md's quick start and example ran as written"
