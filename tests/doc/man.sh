#!/bin/sh
# man.sh BUILD -- the man pages render without warnings and say what the
# programs' help says: every verb's manual, option and libquaclient function.
set -eu
B=$1
SRC=$(cd "$(dirname "$0")/../.." && pwd)
fail=0
bad() { echo "man: $*" >&2; fail=1; }
export MANWIDTH=200 ASAN_OPTIONS=detect_leaks=0

for page in qua.1 quad.8 quamachine.1 libquaclient.3; do
  f=$B/doc/$page
  [ -s "$f" ] || { bad "$page was not made"; continue; }
  w=$(groff -man -ww -z -Tutf8 "$f" 2>&1) || bad "$page: groff failed"
  [ -z "$w" ] || bad "$page: groff warns: $w"
done

# Rendered text with hyphenation off and spaces squeezed, one line.
flat() { groff -man -Tascii -rHY=0 -P-cbou "$1" 2>/dev/null | tr -s ' \n' '  '; }
squeeze() { tr -s ' \n' '  '; }

QUA1=$(flat "$B/doc/qua.1")
for verb in $("$B/client/qua" --help | sed -n '/^Verbs:/,/^$/s/^  \([a-z]*\) .*/\1/p'); do
  # The first sentence of the verb's DESCRIPTION, as qua help prints it.
  d=$("$B/client/qua" help "$verb" | sed -n '/^DESCRIPTION/,/^$/p' | sed 1d | squeeze |
      sed 's/^ *//' | cut -c1-60)
  [ -n "$d" ] || { bad "qua help $verb has no DESCRIPTION"; continue; }
  case $QUA1 in *"$d"*) ;; *) bad "qua.1 lacks the manual of $verb ('$d')" ;; esac
done
for opt in $("$B/client/qua" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
  case $QUA1 in *"$opt"*) ;; *) bad "qua.1 lacks $opt" ;; esac
done

QUAD8=$(flat "$B/doc/quad.8")
for opt in $("$B/daemon/quad" --help | sed -n 's/^  \(--[a-z-]*\).*/\1/p'); do
  case $QUAD8 in *"$opt"*) ;; *) bad "quad.8 lacks $opt" ;; esac
done

QM1=$(flat "$B/doc/quamachine.1")
for cmd in run sst smp; do
  case $QM1 in *"$cmd ["*) ;; *) bad "quamachine.1 lacks the command $cmd" ;; esac
done
for cmd in quaject explore; do
  u=$("$B/m68k/quamachine" $cmd --help | sed -n '1s/^Usage: //p')
  case $QM1 in *"QUAMACHINE $(echo $cmd | tr a-z A-Z)"*"$u"*) ;;
    *) bad "quamachine.1 lacks the manual of $cmd ('$u')" ;; esac
done

LIB3=$(flat "$B/doc/libquaclient.3")
for fn in $(sed -n 's/^QUAC_API [^(]*[ *]\(quac_[a-z_]*\)(.*/\1/p' "$SRC/client/quaclient.h"); do
  case $LIB3 in *"$fn("*) ;; *) bad "libquaclient.3 lacks $fn" ;; esac
done

[ $fail = 0 ] && echo "man: 4 pages render cleanly and carry every verb, option and function"
exit $fail
