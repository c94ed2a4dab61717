#!/bin/sh
# install.sh BUILD -- 'meson install' (what 'make install' runs) puts every
# program, library, header, unit, man page and completion where a Debian
# user looks for them, under the configured prefix, and the installed
# programs run.
set -eu
B=$(cd "$1" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export ASAN_OPTIONS=detect_leaks=0
prefix=$(python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); print(next(x["value"] for x in o if x["name"]=="prefix"))' "$B/meson-info/intro-buildoptions.json")
libdir=$(python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); print(next(x["value"] for x in o if x["name"]=="libdir"))' "$B/meson-info/intro-buildoptions.json")
case $libdir in /*) ;; *) libdir=$prefix/$libdir ;; esac
meson install -C "$B" --no-rebuild --destdir "$T" --quiet >"$T.log" 2>&1 ||
  { cat "$T.log"; rm -f "$T.log"; exit 1; }
rm -f "$T.log"
R=$T$prefix
fail=0
for f in sbin/quad bin/qua bin/quamachine \
         include/qua/quaclient.h include/qua/qua-status.h \
         lib/systemd/system/quad.service lib/systemd/system/quad.socket \
         lib/sysusers.d/qua.conf lib/tmpfiles.d/qua.conf \
         share/man/man1/qua.1 share/man/man8/quad.8 share/man/man1/quamachine.1 \
         share/man/man3/libquaclient.3 \
         share/bash-completion/completions/qua share/bash-completion/completions/quamachine \
         share/qua/smp.ld share/qua/smp-crt0.S; do
  [ -e "$R/$f" ] || { echo "install: $prefix/$f is missing"; fail=1; }
done
L=$T$libdir
ls "$L"/libquaclient.so.* >/dev/null 2>&1 || { echo "install: no libquaclient.so.N in $libdir"; fail=1; }
[ -e "$L/pkgconfig/quaclient.pc" ] || { echo "install: no quaclient.pc in $libdir/pkgconfig"; fail=1; }
soname=$(readelf -d "$L"/libquaclient.so.*.*.* 2>/dev/null | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = libquaclient.so.0 ] || { echo "install: libquaclient's soname is '$soname'"; fail=1; }
for p in sbin/quad bin/qua bin/quamachine; do
  "$R/$p" --version >/dev/null || { echo "install: $p --version failed"; fail=1; }
done
grep -q "ExecStart=$prefix/sbin/quad" "$R/lib/systemd/system/quad.service" ||
  { echo "install: quad.service does not start $prefix/sbin/quad"; fail=1; }
[ $fail = 0 ] && echo "install: every file in place under $prefix, soname $soname"
exit $fail
