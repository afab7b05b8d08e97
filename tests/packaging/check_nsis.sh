#!/usr/bin/env bash
# The Windows installer as far as Linux can check it: generates the NSIS script from the CPack
# configuration (packaging/windows/windows.cmake), compiles it with makensis into an installer
# .exe against this build's staged install tree, and checks that
#   - the installer is a PE executable whose payload (listed with 7z when it is installed) holds
#     the programs, the demo model, the bundled tokenizers and the CJK font;
#   - the staged tree holds the same;
#   - the script has the Start-menu entry, the optional desktop shortcut, the uninstaller, the
#     saved-report "Open with" association (install and uninstall), the Halfscope icon, and no
#     licence page while the project has no licence file.
# The staged tree is the Linux one (bin/halfscope is the Linux launcher): what only a Windows build
# installs (the LibTorch and Qt DLLs, windeployqt's plugins, the .ico in share/halfscope, the
# report opener) is not checked here. Usage: check_nsis.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
command -v makensis >/dev/null || { echo "check_nsis.sh: makensis is missing (apt-get install nsis)"; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# zlib instead of the release's solid LZMA: a third of the time here, and the script is the same.
(cd "$build" && cpack -G NSIS -B "$out" -D CPACK_NSIS_COMPRESSOR=zlib >"$out/cpack.log" 2>&1) ||
  { cat "$out/cpack.log"; exit 1; }
exe=$(ls "$out"/*.exe)
file "$exe" | grep -q "PE32 executable.*Nullsoft Installer" || { echo "not an NSIS installer: $(file "$exe")"; exit 1; }
nsi=$(ls "$out"/_CPack_Packages/*/NSIS/project.nsi)
stage=$(ls -d "$out"/_CPack_Packages/*/NSIS/*/ | head -1)
# A component install stages each component in a folder of its own.
[[ -d $stage/Unspecified ]] && roots=("$stage"/*/) || roots=("$stage")

payload=(bin/halfscope bin/halfscope-cli
         share/halfscope/demo-model/model_index.json
         share/halfscope/demo-model/transformer/diffusion_pytorch_model.safetensors
         share/halfscope/demo-model/vae/diffusion_pytorch_model.safetensors
         share/halfscope/demo-model/text_encoder/model.safetensors
         share/halfscope/tokenizers/clip-l/vocab.json)
# The CJK font is installed when the build found one (resources/CMakeLists.txt).
if grep -q '^HALFSCOPE_CJK_FONT:FILEPATH=/' "$build/CMakeCache.txt"; then
  payload+=(share/halfscope/fonts/wqy-microhei.ttc share/halfscope/fonts/wqy-microhei.copyright)
else
  echo "note: this build found no CJK font, so the installer carries none"
fi
for f in "${payload[@]}"; do
  found=no
  for r in "${roots[@]}"; do [[ -f $r/$f ]] && found=yes; done
  [[ $found == yes ]] || { echo "missing in the staged tree: $f"; exit 1; }
done
if command -v 7z >/dev/null; then
  listing=$(7z l "$exe")
  for f in "${payload[@]}"; do
    grep -q " $f\$" <<<"$listing" || { echo "missing in the installer's payload: $f"; exit 1; }
  done
  echo "payload: $(grep -c ' share/\| bin/\| lib/\| libexec/' <<<"$listing") files"
else
  echo "note: 7z (p7zip-full) is not installed: the installer's payload is not listed"
fi

need() { grep -qF -- "$1" "$nsi" || { echo "project.nsi lacks: $1"; exit 1; }; }
need 'CreateShortCut "$SMPROGRAMS\$STARTMENU_FOLDER\Halfscope.lnk" "$INSTDIR\bin\halfscope.exe"'
need 'CreateShortCut "$DESKTOP\Halfscope.lnk" "$INSTDIR\bin\halfscope.exe"'
need 'CreateShortCut "$SMPROGRAMS\$STARTMENU_FOLDER\Uninstall.lnk" "$INSTDIR\Uninstall.exe"'
need 'WriteUninstaller "$INSTDIR\Uninstall.exe"'
need 'InstallDir "$PROGRAMFILES64\Halfscope"'
need "!define MUI_ICON \"$src/packaging/windows/halfscope.ico\""
need '!insertmacro HalfscopeAssociateReports'
need '!insertmacro HalfscopeForgetReports'
# The association itself: an "Open with" entry under .json, removed again by the uninstaller.
nsh=$src/packaging/windows/report_association.nsh
for line in 'WriteRegStr SHCTX "Software\Classes\.json\OpenWithProgids" "Halfscope.Report" ""' \
            'DeleteRegValue SHCTX "Software\Classes\.json\OpenWithProgids" "Halfscope.Report"' \
            "\"\$INSTDIR\\bin\\halfscope-open-report.cmd\" \"%1\""; do
  grep -qF -- "$line" "$nsh" || { echo "report_association.nsh lacks: $line"; exit 1; }
done
# Never the default program of .json: no write to the default value of .json itself.
! grep -q 'WriteRegStr [A-Z]* "Software\\Classes\\.json" ""' "$nsh" ||
  { echo "report_association.nsh takes over .json"; exit 1; }
if [[ ! -f $src/LICENSE ]] && grep -q 'MUI_PAGE_LICENSE' "$nsi"; then
  echo "licence page without a licence file"; exit 1
fi
echo "ok: $(basename "$exe"), $(du -k "$exe" | cut -f1) KiB"
