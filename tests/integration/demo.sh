#!/bin/sh
# demo.sh -- make demo: quad on a private socket, a graph built with qua, callbacks reaching clients.
#
# Usage: tests/integration/demo.sh BUILD_DIR
set -eu

build=${1:?usage: demo.sh BUILD_DIR}
quad="$build/daemon/quad"
qua="$build/client/qua"
[ -x "$quad" ] && [ -x "$qua" ] || { echo "demo: build first (no $quad or $qua)" >&2; exit 2; }

dir=$(mktemp -d /tmp/qua-demo-XXXXXX)
sock="$dir/quad.sock"
quad_pid=
watch_pid=
cleanup() {
  [ -n "$watch_pid" ] && kill "$watch_pid" 2>/dev/null || true
  [ -n "$quad_pid" ] && kill "$quad_pid" 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT INT TERM

say() { printf '\n== %s\n' "$*"; }
run() { printf '$ qua %s\n' "$*"; "$qua" --socket "$sock" "$@" 2>&1; }
# expect WANT ARGS...: runs qua ARGS like run, and fails the demo unless
# what it printed (stdout and stderr) is exactly WANT.
failed=0
expect() {
  want=$1
  shift
  printf '$ qua %s\n' "$*"
  got=$("$qua" --socket "$sock" "$@" 2>&1) || true
  printf '%s\n' "$got"
  if [ "$got" != "$want" ]; then
    printf 'demo: qua %s printed the above; it must print:\n%s\n' "$*" "$want" >&2
    failed=1
  fi
}

say "Starting quad on a private socket ($sock)"
"$quad" --socket "$sock" --log-level warn 2>"$dir/quad.log" &
quad_pid=$!
i=0
until "$qua" --socket "$sock" ping >/dev/null 2>&1; do
  i=$((i + 1))
  [ $i -lt 200 ] || { echo "demo: quad did not start" >&2; cat "$dir/quad.log" >&2; exit 1; }
  sleep 0.05
done
run ping

say "Creating a queue of 4 slots, published as 'mid', and a counter 'src' wired into it"
run create queue mid capacity=4
run create counter src
run wire src.out mid.put
run show mid

say "A second client watches mid's callbacks in the background (qua watch mid)"
"$qua" --socket "$sock" watch mid >"$dir/watch.out" 2>"$dir/watch.err" &
watch_pid=$!
i=0
until grep -q watching "$dir/watch.err" 2>/dev/null; do
  i=$((i + 1)); [ $i -lt 200 ] || { echo "demo: watcher did not start" >&2; exit 1; }
  sleep 0.05
done
cat "$dir/watch.err"

say "Putting 1..6 into mid: the fifth and sixth find it full, and 'full' reaches this client"
expect "$(printf 'stored 1\nstored 2\nstored 3\nstored 4\nfull 5\nfull 6')" put mid 1 2 3 4 5 6

say "Passing 7 through src.out into the full queue: 'full' goes to src's handler, the call is diverted"
expect "diverted (downstream)" call src pass 7

say "Draining mid's consumer side with credits (qua drain mid --count 4)"
expect "$(printf 'qua: draining mid\n1\n2\n3\n4')" drain mid --count 4

say "One more put: the empty->not-empty transition fires 'notempty' again"
expect "stored 8" put mid 8
expect "$(printf '8\n(empty)')" get mid 2

# Every callback, in the order quad's loop fired it: notempty for 1; full
# for 5 and 6 (this client's puts) and 7 (src's pass); notfull when the
# drain took the first item; notempty for 8; empty for the second get.
want_events='mid notempty 0 seq=1
mid full 5 seq=2
mid full 6 seq=3
mid full 7 seq=4
mid notfull 0 seq=5
mid notempty 0 seq=6
mid empty 0 seq=7'
i=0
until [ "$(wc -l <"$dir/watch.out")" -ge 7 ] || [ $i -ge 200 ]; do
  i=$((i + 1))
  sleep 0.05
done
say "What the watching client printed, one line per callback event"
kill "$watch_pid" 2>/dev/null || true
wait "$watch_pid" 2>/dev/null || true
watch_pid=
cat "$dir/watch.out"
if [ "$(cat "$dir/watch.out")" != "$want_events" ]; then
  printf 'demo: the watcher printed the above; it must print:\n%s\n' "$want_events" >&2
  failed=1
fi

say "Daemon counters, then stopping quad with SIGTERM"
run stats
kill -TERM "$quad_pid"
status=0
wait "$quad_pid" || status=$?
quad_pid=
echo "quad exited with status $status"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]
