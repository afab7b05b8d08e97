#!/usr/bin/env bash
# Writes halfscope.ico (the installer's, the programs' shortcuts' and the report association's
# icon) from resources/icons/halfscope.svg. Run by hand after the SVG changes and commit the .ico:
# the build needs no SVG renderer. Needs rsvg-convert and icotool
# (apt-get install librsvg2-bin icoutils). Usage: make_ico.sh
#
# 16-48 px entries are stored as bitmaps (what every Windows version and makensis read), 256 px as
# PNG (Windows Vista and later; a 256 px bitmap would be 256 KiB).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
svg=$here/../../resources/icons/halfscope.svg
for tool in rsvg-convert icotool; do
  command -v $tool >/dev/null || { echo "make_ico.sh: $tool is missing (apt-get install librsvg2-bin icoutils)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for s in 16 24 32 48 64 256; do rsvg-convert -w $s -h $s -o "$tmp/$s.png" "$svg"; done
icotool -c -o "$tmp/halfscope.ico" "$tmp/16.png" "$tmp/24.png" "$tmp/32.png" "$tmp/48.png" \
        "$tmp/64.png" -r "$tmp/256.png"
# Renamed into place: an interrupted run leaves no half icon.
mv "$tmp/halfscope.ico" "$here/halfscope.ico"
icotool -l "$here/halfscope.ico"
