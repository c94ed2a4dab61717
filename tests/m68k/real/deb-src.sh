#!/bin/sh
# deb-src.sh -- adds a deb-src entry for each Debian mirror this machine already uses for
# binaries, so that `apt-get source` can fetch the real programs of the m68k-real suite.
# Reads the deb822 files of /etc/apt/sources.list.d and /etc/apt/sources.list (one-line
# format); writes /etc/apt/sources.list.d/qua-deb-src.sources and runs apt-get update.
# Needs root. Does nothing when every mirror already has its deb-src entry.
set -eu
out=/etc/apt/sources.list.d/qua-deb-src.sources
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

# deb822 stanzas whose Types has deb but not deb-src, for Debian's own mirrors.
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] && [ "$f" != "$out" ] || continue
  awk -v RS= -v ORS='\n\n' '
    /(^|\n)Types:[^\n]*deb([ \t]|\n|$)/ && !/(^|\n)Types:[^\n]*deb-src/ && /URIs:[^\n]*debian/ {
      sub(/(^|\n)Types:[^\n]*/, "\nTypes: deb-src"); sub(/^\n/, ""); print
    }' "$f" >>"$tmp"
done
# One-line entries of sources.list.
if [ -f /etc/apt/sources.list ]; then
  grep -E '^deb[[:space:]]+[^#]*debian' /etc/apt/sources.list | sed 's/^deb[[:space:]]/deb-src /' |
    while read -r _ uri suite comps; do
      printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: %s\n\n' "$uri" "$suite" "$comps"
    done >>"$tmp"
fi
if [ ! -s "$tmp" ]; then
  echo "deb-src.sh: no Debian mirror without a deb-src entry was found" >&2
  exit 0
fi
install -m 0644 "$tmp" "$out"
echo "deb-src.sh: wrote $out:" >&2
cat "$out" >&2
apt-get update -qq
