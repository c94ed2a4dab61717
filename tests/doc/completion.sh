#!/bin/bash
# completion.sh BUILD -- the bash completions of qua and quamachine answer as a
# user pressing TAB would see them: verbs, types, parameters, the names
# published in a running quad (reached through the --socket on the line),
# their members, and quamachine's commands and options as its help lists them.
set -u
B=$(cd "$1" && pwd)
SRC=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
QUAD_PID=
cleanup() { [ -n "$QUAD_PID" ] && kill "$QUAD_PID" 2>/dev/null && wait "$QUAD_PID"; rm -rf "$T"; }
trap cleanup EXIT
export ASAN_OPTIONS=detect_leaks=0
unset QUA_SOCKET
S=$T/quad.sock
"$B/daemon/quad" --socket "$S" 2>"$T/quad.log" &
QUAD_PID=$!
for _ in $(seq 100); do [ -S "$S" ] && break; sleep 0.05; done
"$B/client/qua" -s "$S" create queue jobs capacity=4 >/dev/null &&
  "$B/client/qua" -s "$S" create counter hits >/dev/null &&
  "$B/client/qua" -s "$S" create pump mover >/dev/null ||
  { echo "completion: could not set up quad"; cat "$T/quad.log"; exit 1; }

fail=0
# The function is looked up as the completion's own files name it.
source "$SRC/doc/completion/qua"
source "$SRC/doc/completion/quamachine"
compopt() { :; } # outside a real completion
# expect 'LINE' WORD... : completing LINE (the last word is being typed)
# must offer exactly WORDs, in any order.
expect() {
  local line=$1
  shift
  read -r -a COMP_WORDS <<<"$line"
  [[ $line == *' ' ]] && COMP_WORDS+=("")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMP_WORDS[0]=$B/${COMP_WORDS[0]}
  COMPREPLY=()
  case ${COMP_WORDS[0]} in */qua) _qua ;; */quamachine) _quamachine ;; esac
  local got want
  got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ')
  want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
  [[ ${#COMPREPLY[@]} -eq 0 ]] && got=' '
  [[ $# -eq 0 ]] && want=' '
  if [[ $got != "$want" ]]; then
    echo "completion: '$line' offered [$got], expected [$want]"
    fail=1
  fi
}
Q="client/qua -s $S"
expect "$Q cr" create
expect "$Q w" watch wire
expect "$Q create qu" queue
expect "$Q create queue x ca" capacity=
expect "$Q create queue x capacity=4 no" notify=
expect "$Q rm " jobs hits mover
expect "$Q put j" jobs
expect "$Q put jobs " # values, not names
expect "$Q watch jobs notf" notfull
expect "$Q call hits " add read pass
expect "$Q wire mo" mover.
expect "$Q wire mover." mover.source mover.sink
expect "$Q wire mover.sink jobs." jobs.put jobs.get jobs.count
expect "$Q --js" --json
expect "$Q t" types top
expect "$Q graph --s" --svg --socket
expect "$Q show --co" --code --connect
expect "$Q show jobs --cod" --code
expect "$Q ls --co" --connect
expect "$Q help js" json
expect "client/qua -s $T/nothing-here rm " # no daemon: nothing, quickly
M=m68k/quamachine
expect "$M s" sst smp
expect "$M explore q" queue-cas2
expect "$M quaject " queue stack counter list
expect "$M smp --cpu 680" 68000 68030
expect "$M smp --sc" --schedule
expect "$M quaject --pro" --producers
expect "$M run --st" --stats
expect "$M run --cy" --cycles
expect "$M explore --max" --max-schedules

# The words the completions know by heart are the ones the help names.
h=$("$B/client/qua" --help)
for v in ping types ls show stats create rm close wire unwire call put get watch drain graph top help; do
  grep -q "^  $v " <<<"$h" || { echo "completion: qua has no verb $v"; fail=1; }
done
[ "$(grep -c '^  [a-z]' <<<"$(sed -n '/^Verbs:/,/^$/p' <<<"$h")")" = 18 ] ||
  { echo "completion: qua's verbs changed; update doc/completion/qua"; fail=1; }
"$B/m68k/quamachine" explore --help | grep -q 'counter-cas (add, read), stack-cas2 (push, pop), queue-cas2 (put, get),' ||
  { echo "completion: explore's algorithms changed"; fail=1; }
[ $fail = 0 ] && echo "completion: qua and quamachine complete as expected"
exit $fail
