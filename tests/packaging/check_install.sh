#!/usr/bin/env bash
# Installs, starts and removes what users get: the Debian package (apt-get install ./halfscope_*.deb,
# then apt-get purge) and the portable archive (unpacked into a folder with a space in its name).
# Each one runs `halfscope-cli info`, `halfscope-cli generate` on the demo model it carries (the
# model path the run reports must be the installed one: /usr/share/halfscope/demo-model, or the
# unpacked folder's) and the studio offscreen with a screenshot, from a working folder outside
# the source tree, with a fresh $HOME. After the purge no file of the package may remain, and the
# studio's settings and run history in $HOME must.
#
# It changes the system, so it runs only as root (or with passwordless sudo) and never touches a
# halfscope package it did not install: when one is installed already it stops with a message
# and status 0. Usage: check_install.sh BUILD_DIR   (a configured and built tree)
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
t0=$SECONDS

if [[ $(id -u) -eq 0 ]]; then
  sudo=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  echo "check_install: SKIPPED: installing a package needs root or passwordless sudo"
  exit 0
fi
# Any halfscope* package (halfscope-cuda conflicts with halfscope: installing ours would remove it).
present=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' 'halfscope*' 2>/dev/null |
          awk '$2 != "not-installed" {print $1 " (" $2 ")"}' || true)
if [[ -n $present ]]; then
  echo "check_install: SKIPPED: already on this system: $present; this check installs and purges" \
       "its own halfscope package and leaves that one alone"
  exit 0
fi

work=$(mktemp -d /tmp/halfscope-install-check.XXXXXX)
# The packages installed before the check: what installing the .deb pulls in is removed again.
installed_packages() {
  dpkg-query -W -f='${Package}:${Architecture} ${db:Status-Status}\n' | awk '$2 == "installed" {print $1}' | sort
}
installed_packages >"$work/packages-before.txt"
installed=0
# Purges halfscope and exactly the packages its install pulled in (not apt's autoremove, which
# would also take packages other things left auto-installed).
remove_installed() {
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get purge -y -q halfscope >"$work/apt-purge.log" 2>&1 ||
    return 1
  local pulled
  pulled=$(installed_packages | comm -13 "$work/packages-before.txt" -)
  if [[ -n $pulled ]]; then
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get purge -y -q $pulled >>"$work/apt-purge.log" 2>&1 ||
      return 1
    echo "check_install: removed what the install pulled in: $(echo $pulled | tr '\n' ' ')"
  fi
}
cleanup() {
  # A failed check, a failed install included, must not leave its packages on the machine.
  if [[ $installed == 1 ]]; then remove_installed || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "check_install: FAILED: $*" >&2; exit 1; }

# The package and the archive, as a release would make them: as the user who called sudo where
# there is one, so that no build-tree code runs as root.
as_builder=()
if [[ $(id -u) -eq 0 && -n ${SUDO_USER:-} && ${SUDO_USER} != root ]]; then
  as_builder=(sudo -u "$SUDO_USER")
  chown "$SUDO_USER" "$work"
fi
(cd "$build" && "${as_builder[@]}" cpack -G "DEB;TGZ" -B "$work/out" >"$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; fail "cpack"; }
deb=$(ls "$work"/out/halfscope_*.deb)
tgz=$(ls "$work"/out/halfscope-*-Linux.tar.gz)
version=$(dpkg-deb -f "$deb" Version)
echo "check_install: built $(basename "$deb") and $(basename "$tgz") ($((SECONDS - t0)) s)"

# The value of "model_dir" in a run record (halfscope-cli generate --json): the model it ran.
model_dir() { sed -n 's/^ *"model_dir": *"\(.*\)",\{0,1\}$/\1/p' "$1" | head -1; }
# Width and height of a PNG, from its IHDR chunk.
png_size() { od -An -tu1 -j16 -N8 "$1" | awk '{print $1*16777216+$2*65536+$3*256+$4 "x" $5*16777216+$6*65536+$7*256+$8}'; }

# Runs one installed copy: $1 names it, $2 and $3 are its halfscope-cli and halfscope, $4 the demo
# model folder it must use. Works in a fresh folder with a fresh $HOME ($work/$1).
launch() {
  local name=$1 cli=$2 studio=$3 model=$4 dir=$work/$1
  mkdir -p "$dir/cwd" "$dir/home"
  (
    cd "$dir/cwd"
    export HOME=$dir/home
    unset XDG_CONFIG_HOME XDG_DATA_HOME XDG_CACHE_HOME HALFSCOPE_DEMO_MODEL HALFSCOPE_SPM_MODULE
    "$cli" info >info.txt 2>&1 || { cat info.txt; fail "$name: halfscope-cli info"; }
    grep -q "^Halfscope ${version%-*}\$" info.txt || { cat info.txt; fail "$name: info names no version ${version%-*}"; }
    "$cli" generate --out gen.png --json >gen.json 2>gen.log ||
      { tail -20 gen.log; fail "$name: halfscope-cli generate exited $?"; }
    [[ $(model_dir gen.json) == "$model" ]] ||
      fail "$name: generate ran the model in '$(model_dir gen.json)', not the installed $model"
    # The demo model draws at the size it was trained at: its VAE's sample_size.
    local side
    side=$(grep -o '"sample_size": *[0-9]*' "$model/vae/config.json" | grep -o '[0-9]*$')
    [[ $(png_size gen.png) == "${side}x${side}" ]] ||
      fail "$name: generate wrote no ${side}x${side} PNG (the demo model's size)"
    QT_QPA_PLATFORM=offscreen "$studio" --generate --screenshot shot.png >studio.log 2>&1 ||
      { tail -20 studio.log; fail "$name: the studio exited $?"; }
    [[ -f shot.png ]] || { tail -20 studio.log; fail "$name: the studio wrote no screenshot"; }
    local size bytes
    size=$(png_size shot.png) bytes=$(stat -c %s shot.png)
    # A window with plots, previews and panels; an empty or black grab is a few kB.
    ((${size%x*} >= 640 && ${size#*x} >= 400 && bytes > 50000)) ||
      fail "$name: the screenshot is $size, $bytes bytes: not a studio window"
    # The user's data, which removing the program must keep.
    [[ -f $HOME/.config/Halfscope/Halfscope.conf ]] || fail "$name: the studio saved no settings"
    [[ -n $(find "$HOME/.local/share/Halfscope/Halfscope/runs" -type f 2>/dev/null) ]] ||
      fail "$name: the studio stored no run in its history"
    echo "check_install: $name: info, generate ($model), studio screenshot $size ($bytes bytes)"
  )
}

# --- The Debian package ----------------------------------------------------------------------
# Marked before it runs, so that a half-done install is undone too; --no-remove: the install
# may add packages but never remove one the machine has.
installed=1
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends --no-remove \
  "$deb" >"$work/apt-install.log" 2>&1 || { tail -30 "$work/apt-install.log"; fail "apt-get install $deb"; }
[[ $(command -v halfscope-cli) == /usr/bin/halfscope-cli ]] ||
  fail "halfscope-cli on PATH is $(command -v halfscope-cli), not /usr/bin/halfscope-cli"
launch deb /usr/bin/halfscope-cli /usr/bin/halfscope /usr/share/halfscope/demo-model
dpkg -L halfscope >"$work/dpkg-L.txt"
files=()
while IFS= read -r p; do [[ -f $p || -L $p ]] && files+=("$p"); done <"$work/dpkg-L.txt"
((${#files[@]} > 20)) || fail "dpkg -L lists only ${#files[@]} files"
remove_installed || { tail -30 "$work/apt-purge.log"; fail "apt-get purge"; }
installed=0
[[ -z $(installed_packages | comm -13 "$work/packages-before.txt" -) ]] ||
  fail "packages left installed: $(installed_packages | comm -13 "$work/packages-before.txt" - | tr '\n' ' ')"
for p in "${files[@]}"; do
  if [[ -e $p || -L $p ]]; then fail "left behind by the purge: $p"; fi
done
for d in /usr/share/halfscope /usr/libexec/halfscope /usr/lib/halfscope /usr/share/doc/halfscope; do
  if [[ -e $d ]]; then fail "left behind by the purge: $d"; fi
done
[[ -f $work/deb/home/.config/Halfscope/Halfscope.conf &&
   -d $work/deb/home/.local/share/Halfscope/Halfscope/runs ]] ||
  fail "the purge took the user's settings or run history"
echo "check_install: deb: purged; its ${#files[@]} files are gone, the user's data stays" \
     "($((SECONDS - t0)) s)"

# --- The portable archive ----------------------------------------------------------------------
# Each package the .deb depends on is in the archive README's apt line (except what apt needs).
mkdir "$work/un packed"
tar -xzf "$tgz" -C "$work/un packed"
root=$(ls -d "$work/un packed"/halfscope-*-Linux)
for dep in $(dpkg-deb -f "$deb" Depends | tr ',|' '\n\n' | sed 's/(.*//; s/ //g' | sort -u); do
  case $dep in libc6 | libgcc-s1 | libstdc++6) continue ;; esac
  grep -qw -- "$dep" "$root/README" || fail "the archive README's apt line lacks $dep"
done
# Nothing in it looks for libraries in the build tree or any absolute folder: no RPATH/RUNPATH
# but $ORIGIN-relative ones. (The SentencePiece module in lib/halfscope is found like the demo
# model, relative to the running program; the run below hides the build tree to prove it.)
while IFS= read -r -d '' f; do
  [[ $(head -c4 "$f" | od -An -c | tr -d ' ') == 177ELF ]] || continue
  if readelf -d "$f" | grep -E 'R(UN)?PATH' | grep -v '\[\$ORIGIN'; then
    fail "$f has a library search path outside the archive"
  fi
done < <(find "$root" -type f -print0)
[[ -f $root/lib/halfscope/libhalfscope_spm.so ]] || fail "the archive lacks lib/halfscope/libhalfscope_spm.so"
# Hide the source and build trees (and any installed copy) where the machine allows a private
# mount namespace (root), so that the archive can only use what it carries.
export -f launch fail model_dir png_size
hide=0
if ((${#sudo[@]} == 0)) &&
   unshare -m bash -c 'mount -t tmpfs none "$1"' _ "$work/un packed" 2>/dev/null; then hide=1; fi
export work version root hide src
printf '%s\n' '#!/usr/bin/env bash' 'set -euo pipefail' \
  'if [[ $hide == 1 && -e $src/resources/demo-model ]]; then fail "the source tree is not hidden"; fi' \
  'launch tgz "$root/bin/halfscope-cli" "$root/bin/halfscope" "$root/share/halfscope/demo-model"' \
  >"$work/run-tgz.sh"
chmod +x "$work/run-tgz.sh"
if ((hide)); then
  unshare -m bash -c 'for d in "$@"; do if [[ -d $d ]]; then mount -t tmpfs none "$d"; fi; done
                      exec "$0"' "$work/run-tgz.sh" "$src" "$build" /usr/share/halfscope
else
  "$work/run-tgz.sh"
fi
if ((hide)); then
  echo "check_install: tgz: ran with the source tree, the build tree and /usr/share/halfscope hidden"
else
  echo "check_install: tgz: no private mount namespace here (unshare -m, mount): ran with the build tree" \
       "visible; the model path check still holds"
fi
echo "check_install: ok: package $version and archive installed, launched and removed in" \
     "$((SECONDS - t0)) s"
