#!/bin/sh
# m68k-real.sh -- real programs' own test suites under quamachine and qemu-m68k: the same results.
#
# Usage: m68k-real.sh QUAMACHINE QEMU_M68K M68K_GCC WORKDIR
# Fetches Debian's sources of zlib and expat with `apt-get source` into WORKDIR (once; kept
# there), builds them with the cross compiler (-O2 -m68030 -static), and runs, under both
# emulators, each in an empty folder of its own (quamachine's --root):
#   zlib:  example (its self-test) and a minigzip round trip of a 1 MB file, and infcover
#          (its inflate coverage test);
#   expat: tests/runtests (365 checks in 2.5.0).
# Each program's output and exit status must be the same under both. Prints
#   REAL <program> quamachine <passed>/<total> qemu-m68k <passed>/<total>
# Exit 77 (skipped) when a tool, the deb-src entries (tests/m68k/real/deb-src.sh adds them)
# or the network is missing.
set -u
QM=$1 QEMU=$2 CC=$3 WORK=$4
skip() { echo "SKIP: $*"; exit 77; }
for t in "$QM" "$QEMU" "$CC"; do
  command -v "$t" >/dev/null 2>&1 || skip "$t is missing"
done
command -v apt-get >/dev/null 2>&1 || skip "apt-get is missing"
mkdir -p "$WORK/src" || exit 1
QM=$(realpath "$QM") QEMU=$(command -v "$QEMU")
CODENAME=$(. /etc/os-release 2>/dev/null; echo "${VERSION_CODENAME:-}")

# Sources: the machine's release first, then its main suite (a security mirror may lack them).
fetch() { # PACKAGE DIRGLOB
  ls -d "$WORK/src/"$2 >/dev/null 2>&1 && return 0
  (cd "$WORK/src" && { apt-get source -qq "$1" >/dev/null 2>&1 ||
    { [ -n "$CODENAME" ] && apt-get source -qq "$1/$CODENAME" >/dev/null 2>&1; }; })
  ls -d "$WORK/src/"$2 >/dev/null 2>&1 ||
    skip "apt-get source $1 failed (no deb-src entry: run tests/m68k/real/deb-src.sh as root; or no network)"
}
fetch zlib 'zlib-*/'
fetch expat 'expat-*/'
ZLIB=$(ls -d "$WORK/src/"zlib-*/ | head -1)
EXPAT=$(ls -d "$WORK/src/"expat-*/expat | head -1)

CFLAGS="-O2 -m68030 -static"
BIN=$WORK/bin
mkdir -p "$BIN"
build() { # OUT SOURCES...
  out=$1
  shift
  [ -x "$BIN/$out" ] && return 0
  "$CC" $CFLAGS -o "$BIN/$out" "$@" 2>"$BIN/$out.log" || {
    echo "FAIL: building $out:"
    cat "$BIN/$out.log"
    exit 1
  }
}
ZSRC="adler32.c crc32.c deflate.c infback.c inffast.c inflate.c inftrees.c trees.c zutil.c
  compress.c uncompr.c gzclose.c gzlib.c gzread.c gzwrite.c"
Z=""
for f in $ZSRC; do Z="$Z $ZLIB$f"; done
build zlib-example -I"$ZLIB" $Z "$ZLIB"test/example.c
build zlib-minigzip -I"$ZLIB" $Z "$ZLIB"test/minigzip.c
build zlib-infcover -I"$ZLIB" $Z "$ZLIB"test/infcover.c
# expat's configuration for m68k-linux-gnu (what its configure finds there).
mkdir -p "$BIN/expat-config"
cat >"$BIN/expat-config/expat_config.h" <<'EOF'
#define BYTEORDER 4321
#define WORDS_BIGENDIAN 1
#define HAVE_FCNTL_H 1
#define HAVE_GETPAGESIZE 1
#define HAVE_GETRANDOM 1
#define HAVE_SYSCALL_GETRANDOM 1
#define HAVE_INTTYPES_H 1
#define HAVE_MMAP 1
#define HAVE_STDINT_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_UNISTD_H 1
#define STDC_HEADERS 1
#define PACKAGE "expat"
#define XML_CONTEXT_BYTES 1024
#define XML_DEV_URANDOM 1
#define XML_DTD 1
#define XML_NS 1
EOF
build expat-runtests -DHAVE_EXPAT_CONFIG_H -I"$BIN/expat-config" -I"$EXPAT/lib" \
  "$EXPAT/lib/xmlparse.c" "$EXPAT/lib/xmlrole.c" "$EXPAT/lib/xmltok.c" \
  "$EXPAT/tests/runtests.c" "$EXPAT/tests/chardata.c" "$EXPAT/tests/structdata.c" \
  "$EXPAT/tests/memcheck.c" "$EXPAT/tests/minicheck.c"

# A 1 MB file for minigzip: text with some repetition.
awk 'BEGIN { for (i = 0; i < 40000; i++) printf "line %d of the m68k-real test %d\n", i, (i * 7919) % 1000 }' \
  >"$BIN/input.txt"

fail=0
# run NAME PASS_PATTERN TOTAL_SED ARGS...: one program under both, in fresh folders.
run() {
  name=$1
  shift
  for who in quamachine qemu; do
    d=$(mktemp -d)
    cp "$BIN/input.txt" "$d/"
    if [ $who = quamachine ]; then
      (cd "$d" && "$QM" run --root "$d" "$BIN/$name" "$@" >"$WORK/$name.$who.out" 2>&1)
    else
      (cd "$d" && "$QEMU" -cpu m68030 "$BIN/$name" "$@" >"$WORK/$name.$who.out" 2>&1)
    fi
    echo $? >"$WORK/$name.$who.status"
    rm -rf "$d"
  done
}
same() { # NAME: the same output and status under both
  if cmp -s "$WORK/$1.quamachine.out" "$WORK/$1.qemu.out" &&
    cmp -s "$WORK/$1.quamachine.status" "$WORK/$1.qemu.status"; then
    return 0
  fi
  echo "FAIL: $1 differs (status $(cat "$WORK/$1.quamachine.status") under quamachine," \
    "$(cat "$WORK/$1.qemu.status") under qemu-m68k)"
  diff "$WORK/$1.quamachine.out" "$WORK/$1.qemu.out" | head -20
  fail=1
  return 1
}

# zlib: example's checks are its lines; a failure exits non-zero.
run zlib-example
same zlib-example
for who in quamachine qemu; do
  n=$(grep -c . "$WORK/zlib-example.$who.out")
  s=$(cat "$WORK/zlib-example.$who.status")
  eval "ex_$who=\"$([ "$s" = 0 ] && echo "$n/$n" || echo "0/$n")\""
done
echo "REAL zlib-example quamachine $ex_quamachine qemu-m68k $ex_qemu"

run zlib-infcover
same zlib-infcover
for who in quamachine qemu; do
  s=$(cat "$WORK/zlib-infcover.$who.status")
  eval "ic_$who=\"$([ "$s" = 0 ] && echo 1/1 || echo 0/1)\""
done
echo "REAL zlib-infcover quamachine $ic_quamachine qemu-m68k $ic_qemu"

# minigzip: compress then decompress under each emulator; the round trip must give the input.
for who in quamachine qemu; do
  d=$(mktemp -d)
  cp "$BIN/input.txt" "$d/"
  if [ $who = quamachine ]; then
    (cd "$d" && "$QM" run --root "$d" "$BIN/zlib-minigzip" -9 input.txt &&
      "$QM" run --root "$d" "$BIN/zlib-minigzip" -d input.txt.gz)
  else
    (cd "$d" && "$QEMU" -cpu m68030 "$BIN/zlib-minigzip" -9 input.txt &&
      "$QEMU" -cpu m68030 "$BIN/zlib-minigzip" -d input.txt.gz)
  fi
  if cmp -s "$d/input.txt" "$BIN/input.txt"; then
    eval "mg_$who=1/1"
  else
    eval "mg_$who=0/1"
    fail=1
  fi
  rm -rf "$d"
done
echo "REAL zlib-minigzip-roundtrip quamachine $mg_quamachine qemu-m68k $mg_qemu"

# expat: runtests ends with "100%: Checks: N, Failed: F".
run expat-runtests
same expat-runtests
for who in quamachine qemu; do
  line=$(grep -E 'Checks: [0-9]+, Failed: [0-9]+' "$WORK/expat-runtests.$who.out" | tail -1)
  t=$(echo "$line" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
  f=$(echo "$line" | sed -E 's/.*Failed: ([0-9]+).*/\1/')
  [ -n "$t" ] || { t=0; f=0; fail=1; }
  eval "xp_$who=$((t - f))/$t"
done
echo "REAL expat-runtests quamachine $xp_quamachine qemu-m68k $xp_qemu"
[ "$xp_quamachine" = "$xp_qemu" ] || fail=1
exit $fail
