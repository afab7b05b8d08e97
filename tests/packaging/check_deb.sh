#!/usr/bin/env bash
# Builds the Debian package from a configured and built tree and checks what it holds: the
# studio, the CLI, the demo model, the bundled tokenizers and the SentencePiece module, the
# desktop entry, the manual pages and the bash completion, and dependencies on what is loaded at run
# time. Usage: check_deb.sh BUILD_DIR
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
         ./usr/share/bash-completion/completions/halfscope-cli; do
  grep -q " $f\$" <<<"$contents" || { echo "missing in $deb: $f"; exit 1; }
done
depends=$(dpkg-deb -f "$deb" Depends)
for d in libtorch libopenblas0-openmp libqt6sql6-sqlite libqt6widgets6 libsentencepiece0; do
  grep -q "$d" <<<"$depends" || { echo "Depends lacks $d: $depends"; exit 1; }
done
# The manual page has a section per command the CLI has.
dpkg-deb -x "$deb" "$out/root"
page=$(zcat "$out/root/usr/share/man/man1/halfscope-cli.1.gz")
for c in BISECT COMPARE GENERATE INSPECT REPORT; do
  grep -q "^\.SH $c\$" <<<"$page" || { echo "halfscope-cli.1 lacks a $c section"; exit 1; }
done
# The completion offers the commands and a command's own options.
words=$(bash -c 'source "$1"; COMP_WORDS=(halfscope-cli bisect --rem); COMP_CWORD=2; _halfscope_cli
                 echo "${COMPREPLY[*]}"' _ "$out/root/usr/share/bash-completion/completions/halfscope-cli")
[[ $words == --remedies ]] || { echo "completion of 'bisect --rem' gave '$words'"; exit 1; }
echo "ok: $(basename "$deb"), $(wc -l <<<"$contents") entries"
