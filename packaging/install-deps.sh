#!/usr/bin/env bash
# Installs the Debian 12 packages Halfscope needs to build and run (with --tests: also to test);
# installs only what is missing. Needs root (or sudo) when something is missing.
set -euo pipefail
PACKAGES=(
  cmake ninja-build g++ pkg-config
  libtorch-dev libopenblas0-openmp      # LibTorch 1.13 (CPU); OpenBLAS: ~30x faster fp32 matmul
  libtcmalloc-minimal4                  # tensor memory reuse: 3-4x faster large fp32 elementwise ops
  nlohmann-json3-dev libpng-dev
  libyaml-dev                           # ComfyUI's extra_model_paths.yaml
  libsentencepiece-dev                  # T5's spiece.model (FLUX.1's second tokenizer)
  qt6-base-dev libqt6sql6-sqlite qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools
  linguist-qt6 libqcustomplot-dev
  qt6-translations-l10n                 # Qt's own translations: standard buttons, file dialogs
  fonts-wqy-microhei                    # a CJK font the archive and the Windows installer carry
)
if [ "${1:-}" = "--tests" ]; then
  PACKAGES+=(libgtest-dev chromium)  # chromium: the HTML report test renders it headless
  PACKAGES+=(sentencepiece)  # spm_train / spm_encode: the T5 tokenizer test's model and reference
  PACKAGES+=(lintian appstream nsis)  # the package checks: lintian, appstreamcli, makensis
  PACKAGES+=(fonts-dejavu-core)  # the CJK glyph test: a Latin-only font set
  PACKAGES+=(p7zip-full)  # the NSIS check lists the installer's payload
  PACKAGES+=(g++-mingw-w64-x86-64-posix)  # the Windows code paths compile-checked with MinGW-w64
  PACKAGES+=(dbus-daemon)  # the theme test's private session bus, serving a freedesktop portal
fi
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "Installing: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# --no-remove: installing what Halfscope needs never removes a package the machine has.
$SUDO apt-get install -y -q --no-install-recommends --no-remove "${missing[@]}"
