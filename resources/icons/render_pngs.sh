#!/usr/bin/env bash
# Renders the hicolor PNG icons from halfscope.svg (run by hand after the SVG changes, then commit
# the PNGs): the build needs no SVG renderer for them. Needs rsvg-convert (apt-get install
# librsvg2-bin). Usage: render_pngs.sh
set -euo pipefail
cd "$(dirname "$0")"
command -v rsvg-convert >/dev/null || { echo "render_pngs.sh: rsvg-convert is missing (apt-get install librsvg2-bin)" >&2; exit 1; }
for s in 16 22 24 32 48 64 128 256 512; do
  mkdir -p hicolor/${s}x${s}
  # Written beside and renamed: an interrupted render leaves no half PNG.
  rsvg-convert -w "$s" -h "$s" -o "hicolor/${s}x${s}/halfscope.png.tmp" halfscope.svg
  mv "hicolor/${s}x${s}/halfscope.png.tmp" "hicolor/${s}x${s}/halfscope.png"
done
