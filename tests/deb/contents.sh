#!/bin/sh
# contents.sh DIR -- lists each .deb in DIR and checks it holds what its
# package promises: quad the daemon, its unit and group; qua the CLI;
# libquaclient0 the shared library (its soname); libquaclient-dev the
# header, link and pkg-config file; quamachine; python3-qua the package.
set -eu
D=${1:?usage: contents.sh DIR}
fail=0
has() { # has PACKAGE PATH-REGEX...
  pkg=$1
  shift
  deb=$(ls "$D"/${pkg}_*.deb 2>/dev/null | head -1)
  [ -n "$deb" ] || { echo "deb: no $pkg package in $D"; fail=1; return; }
  list=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|')
  echo "== $pkg ($(basename "$deb"))"
  echo "$list" | grep -v '/$' | sed 's/^/  /'
  for re in "$@"; do
    echo "$list" | grep -Eq "^$re\$" || { echo "deb: $pkg lacks $re"; fail=1; }
  done
}
has quad /usr/sbin/quad /lib/systemd/system/quad.service /lib/systemd/system/quad.socket \
  /usr/lib/sysusers.d/quad.conf /usr/lib/tmpfiles.d/quad.conf \
  /usr/share/man/man8/quad.8.gz
has qua /usr/bin/qua /usr/share/man/man1/qua.1.gz /usr/share/bash-completion/completions/qua
has libquaclient0 '/usr/lib/[^/]+/libquaclient.so.0' '/usr/lib/[^/]+/libquaclient.so.0.1.0'
has libquaclient-dev /usr/include/qua/quaclient.h /usr/include/qua/qua-status.h \
  '/usr/lib/[^/]+/libquaclient.so' '/usr/lib/[^/]+/pkgconfig/quaclient.pc' \
  /usr/share/man/man3/libquaclient.3.gz
has quamachine /usr/bin/quamachine /usr/share/man/man1/quamachine.1.gz /usr/share/qua/smp.ld
has python3-qua /usr/lib/python3/dist-packages/qua/__init__.py \
  /usr/lib/python3/dist-packages/qua/qua_pb2.py /usr/lib/python3/dist-packages/qua/_status.py
# The maintainer scripts create the group and start the unit.
deb=$(ls "$D"/quad_*.deb | head -1)
dpkg-deb --ctrl-tarfile "$deb" | tar -xOf - ./postinst 2>/dev/null | grep -q systemd-sysusers ||
  { echo "deb: quad's postinst does not create the qua group"; fail=1; }
dpkg-deb --ctrl-tarfile "$deb" | tar -xOf - ./postinst 2>/dev/null | grep -q 'deb-systemd-helper' ||
  { echo "deb: quad's postinst does not enable quad.service"; fail=1; }
dpkg-deb --ctrl-tarfile "$deb" | tar -xOf - ./postinst 2>/dev/null | grep -q 'systemd-tmpfiles' ||
  { echo "deb: quad's postinst does not make /run/qua"; fail=1; }
[ $fail = 0 ] && echo "deb: every package holds what it promises"
exit $fail
