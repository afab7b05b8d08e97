#!/usr/bin/env bash
# Builds the Debian package from a configured and built tree and checks what it holds: the
# studio, the CLI, the demo model, the bundled tokenizers and the SentencePiece module, the
# desktop entry, the icons (SVG and every hicolor PNG size), the AppStream metadata (valid for
# appstreamcli), the manual pages and the bash completion, Debian's copyright file and changelog,
# dependencies on what is loaded at run time, and that lintian reports no error.
# Usage: check_deb.sh BUILD_DIR
set -euo pipefail
build=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
(cd "$build" && cpack -G DEB -B "$out" >"$out/cpack.log" 2>&1) || { cat "$out/cpack.log"; exit 1; }
deb=$(ls "$out"/*.deb)
contents=$(dpkg-deb -c "$deb")
for f in ./usr/bin/halfscope ./usr/bin/halfscope-cli \
         ./usr/libexec/halfscope/halfscope ./usr/libexec/halfscope/halfscope-cli \
         ./usr/share/halfscope/demo-model/model_index.json \
         ./usr/share/halfscope/demo-model/transformer/diffusion_pytorch_model.safetensors \
         ./usr/share/halfscope/tokenizers/clip-l/vocab.json \
         ./usr/lib/halfscope/libhalfscope_spm.so \
         ./usr/share/applications/halfscope.desktop \
         ./usr/share/icons/hicolor/scalable/apps/halfscope.svg \
         ./usr/share/man/man1/halfscope.1.gz ./usr/share/man/man1/halfscope-cli.1.gz \
         ./usr/share/bash-completion/completions/halfscope-cli \
         ./usr/share/metainfo/io.github.halfscope.Halfscope.metainfo.xml \
         ./usr/share/doc/halfscope/copyright ./usr/share/doc/halfscope/changelog.Debian.gz; do
  grep -q " $f\$" <<<"$contents" || { echo "missing in $deb: $f"; exit 1; }
done
depends=$(dpkg-deb -f "$deb" Depends)
for d in libtorch libopenblas0-openmp libqt6sql6-sqlite libqt6widgets6 libsentencepiece0; do
  grep -q "$d" <<<"$depends" || { echo "Depends lacks $d: $depends"; exit 1; }
done
[[ $(dpkg-deb -f "$deb" Recommends) == *fonts-noto-cjk* ]] ||
  { echo "Recommends lacks fonts-noto-cjk (the Chinese interface)"; exit 1; }
dpkg-deb -x "$deb" "$out/root"
# A PNG of each hicolor size, as large as its folder says (width and height from the IHDR chunk).
for s in 16 22 24 32 48 64 128 256 512; do
  png=$out/root/usr/share/icons/hicolor/${s}x${s}/apps/halfscope.png
  [[ -f $png ]] || { echo "missing icon: ${png#"$out/root"}"; exit 1; }
  wh=$(od -An -tu1 -j16 -N8 "$png" | awk '{print $3*256+$4 "x" $7*256+$8}')
  [[ $wh == "${s}x${s}" ]] || { echo "${png#"$out/root"} is $wh, not ${s}x${s}"; exit 1; }
done
# Debian's copyright file is machine-readable (DEP-5) and says what the metadata says of the
# licence; the changelog's newest entry is this version.
copyright=$out/root/usr/share/doc/halfscope/copyright
head -1 "$copyright" | grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' ||
  { echo "copyright is not DEP-5"; exit 1; }
grep -q 'LicenseRef-proprietary' "$copyright" || { echo "copyright does not state the licence"; exit 1; }
version=$(dpkg-deb -f "$deb" Version)
zcat "$out/root/usr/share/doc/halfscope/changelog.Debian.gz" | head -1 | grep -qF "halfscope ($version)" ||
  { echo "changelog.Debian.gz does not start with version $version"; exit 1; }
# The AppStream metadata validates (warnings allowed, errors not).
command -v appstreamcli >/dev/null || { echo "appstreamcli is missing (apt-get install appstream)"; exit 1; }
appstreamcli validate --no-net --no-color \
  "$out/root/usr/share/metainfo/io.github.halfscope.Halfscope.metainfo.xml" >"$out/appstream.log" 2>&1 ||
  { cat "$out/appstream.log"; echo "appstreamcli validate failed"; exit 1; }
# lintian: no errors (its warnings are listed in packaging/linux/README.md).
command -v lintian >/dev/null || { echo "lintian is missing (apt-get install lintian)"; exit 1; }
# (Status 1 means it found errors, 2 or more that lintian itself failed.)
rc=0
lintian --tag-display-limit 0 "$deb" >"$out/lintian.log" 2>&1 || rc=$?
((rc <= 1)) || { cat "$out/lintian.log"; echo "lintian failed ($rc)"; exit 1; }
if grep -q '^E: ' "$out/lintian.log"; then grep '^E: ' "$out/lintian.log"; echo "lintian errors"; exit 1; fi
# The manual page has a section per command the CLI has.
page=$(zcat "$out/root/usr/share/man/man1/halfscope-cli.1.gz")
for c in BISECT COMPARE GENERATE INSPECT REPORT; do
  grep -q "^\.SH $c\$" <<<"$page" || { echo "halfscope-cli.1 lacks a $c section"; exit 1; }
done
# The completion offers the commands and a command's own options.
words=$(bash -c 'source "$1"; COMP_WORDS=(halfscope-cli bisect --rem); COMP_CWORD=2; _halfscope_cli
                 echo "${COMPREPLY[*]}"' _ "$out/root/usr/share/bash-completion/completions/halfscope-cli")
[[ $words == --remedies ]] || { echo "completion of 'bisect --rem' gave '$words'"; exit 1; }
echo "ok: $(basename "$deb"), $(wc -l <<<"$contents") entries"
