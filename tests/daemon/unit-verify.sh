#!/bin/sh
# unit-verify.sh -- systemd-analyze verify finds nothing to say about quad.service and quad.socket.
#
# Usage: tests/daemon/unit-verify.sh BUILD/daemon/quad.service BUILD/daemon/quad \
#          daemon/quad.socket BUILD/doc
#
# verify also checks that ExecStart's program exists, and the unit names the
# installed path (@sbindir@/quad), which a build tree does not have: the unit
# is checked as generated but for that one path, which is pointed at the
# built quad (and the two files must differ in that alone). The socket unit
# sits beside it, and the man pages its Documentation= names are looked up
# in the build's. Skipped (77) without systemd-analyze.
set -u
unit=${1:?usage: unit-verify.sh UNIT QUAD}
quad=${2:?usage: unit-verify.sh UNIT QUAD}
socket=${3:?usage: unit-verify.sh UNIT QUAD SOCKET DOCDIR}
docs=${4:?usage: unit-verify.sh UNIT QUAD SOCKET DOCDIR}
command -v systemd-analyze >/dev/null 2>&1 || { echo "unit-verify: no systemd-analyze: skipped"; exit 77; }

dir=$(mktemp -d /tmp/qua-unit-XXXXXX)
trap 'rm -rf "$dir"' EXIT
installed=$(sed -n 's|^ExecStart=\([^ ]*\)/quad .*|\1|p' "$unit")
[ -n "$installed" ] || { echo "unit-verify: no ExecStart=.../quad in $unit"; exit 1; }
quad=$(cd "$(dirname "$quad")" && pwd)/$(basename "$quad")
sed "s|^ExecStart=$installed/quad |ExecStart=$quad |" "$unit" >"$dir/quad.service"
changed=$(diff "$unit" "$dir/quad.service" | grep -c '^[<>]')
[ "$changed" -eq 2 ] || { echo "unit-verify: rewriting ExecStart changed $changed lines"; exit 1; }
grep -q '@[a-z]*@' "$unit" && { echo "unit-verify: $unit has unfilled @...@"; exit 1; }

cp "$socket" "$dir/quad.socket"
mkdir -p "$dir/man/man1" "$dir/man/man8"
cp "$docs/qua.1" "$dir/man/man1/" && cp "$docs/quad.8" "$dir/man/man8/" ||
  { echo "unit-verify: no man pages in $docs"; exit 1; }
out=$(cd "$dir" && MANPATH=$dir/man SYSTEMD_LOG_LEVEL=notice \
  systemd-analyze verify "$dir/quad.service" "$dir/quad.socket" 2>&1)
rc=$?
if [ $rc -ne 0 ] || [ -n "$out" ]; then
  echo "unit-verify: systemd-analyze verify $unit (ExecStart=$quad): status $rc"
  echo "$out"
  exit 1
fi
echo "unit-verify: $unit and quad.socket verify clean (ExecStart=$installed/quad)"
