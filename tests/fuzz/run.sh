#!/bin/sh
# run.sh -- runs each fuzz harness of a -Dfuzz=true build for a while; prints executions per harness.
#
# Usage: tests/fuzz/run.sh BUILD SECONDS (make fuzz runs it). Each harness starts from the
# committed seeds (corpus/NAME), the inputs that once failed (regress/NAME), the seeds the
# build made, and what earlier runs found (BUILD/fuzz-work/corpus/NAME, where new inputs go).
# A crash, sanitizer report, leak or hang is saved under BUILD/fuzz-work/artifacts/NAME and
# fails the run, after the other harnesses ran; to keep it fixed, fix it and copy the input
# to regress/NAME (the test fuzz-NAME of the ordinary build replays it). FUZZ_ONLY="frame
# dispatch" runs only the harnesses named.
set -u
build=$1
secs=$2
src=$(cd "$(dirname "$0")" && pwd)
work=$build/fuzz-work
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
failed=0
for h in ${FUZZ_ONLY:-frame dispatch stencilgen m68k-elf m68k-cpu}; do
  corpus=$work/corpus/$h
  seeds=$work/seeds/$h
  art=$work/artifacts/$h
  rm -rf "$seeds"
  mkdir -p "$corpus" "$seeds" "$art"
  case $h in
    stencilgen) find "$build/tests/jit" -maxdepth 1 -name '*-templates.o' -exec cp {} "$seeds" \; ;;
    m68k-elf) find "$build/tests/fuzz" -maxdepth 1 -name 'seed-*.elf' -exec cp {} "$seeds" \; ;;
  esac
  dirs="$corpus $seeds"
  for d in "$src/corpus/$h" "$src/regress/$h"; do
    [ -d "$d" ] && dirs="$dirs $d"
  done
  log=$work/$h.log
  # shellcheck disable=SC2086
  "$build/tests/fuzz/fuzz-$h" -max_total_time="$secs" -timeout=20 -rss_limit_mb=3072 \
    -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$art/" $dirs >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  inputs=$(find "$corpus" -type f | wc -l)
  if [ "$rc" -eq 0 ]; then
    echo "FUZZ $h: ${execs:-?} executions in $secs s ($(( ${execs:-0} / secs ))/s), corpus of $inputs inputs: no finding"
  else
    failed=1
    echo "FUZZ $h: FAILED after ${execs:-?} executions (exit status $rc); the report, from $log:"
    grep -v '^#\|^INFO\|^stat::' "$log" | tail -n 40 | sed 's/^/  /'
    echo "  the input: $(ls -t "$art" | head -n 1 | sed "s|^|$art/|")"
  fi
done
exit $failed
