#!/bin/sh
# unit-verify.sh -- systemd-analyze verify finds nothing to say about the generated quad.service.
#
# Usage: tests/daemon/unit-verify.sh BUILD/daemon/quad.service BUILD/daemon/quad
#
# verify also checks that ExecStart's program exists, and the unit names the
# installed path (@sbindir@/quad), which a build tree does not have: the unit
# is checked as generated but for that one path, which is pointed at the
# built quad (and the two files must differ in that alone). Skipped (77)
# without systemd-analyze.
set -u
unit=${1:?usage: unit-verify.sh UNIT QUAD}
quad=${2:?usage: unit-verify.sh UNIT QUAD}
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

out=$(cd "$dir" && SYSTEMD_LOG_LEVEL=notice systemd-analyze verify "$dir/quad.service" 2>&1)
rc=$?
if [ $rc -ne 0 ] || [ -n "$out" ]; then
  echo "unit-verify: systemd-analyze verify $unit (ExecStart=$quad): status $rc"
  echo "$out"
  exit 1
fi
echo "unit-verify: $unit verifies clean (ExecStart=$installed/quad)"
