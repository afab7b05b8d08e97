#!/usr/bin/env bash
# Builds the Debian package from a configured and built tree and checks what it holds: the
# studio, the CLI, the demo model, the bundled tokenizers and the SentencePiece module, the
# desktop entry, and dependencies on what is loaded at run
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
         ./usr/share/icons/hicolor/scalable/apps/halfscope.svg; do
  grep -q " $f\$" <<<"$contents" || { echo "missing in $deb: $f"; exit 1; }
done
depends=$(dpkg-deb -f "$deb" Depends)
for d in libtorch libopenblas0-openmp libqt6sql6-sqlite libqt6widgets6 libsentencepiece0; do
  grep -q "$d" <<<"$depends" || { echo "Depends lacks $d: $depends"; exit 1; }
done
echo "ok: $(basename "$deb"), $(wc -l <<<"$contents") entries"
