#!/usr/bin/env bash
# The studio's command line as the README uses it, offscreen: a start-up plan and prompt, one
# run, a screenshot; and a malformed plan refused with exit code 2 before a window opens.
# Usage: check_command_line.sh PATH/TO/halfscope
set -uo pipefail
studio=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME="$tmp/config"

timeout 300 "$studio" --data-dir "$tmp/history" --prompt "a large red circle in the centre, blue background" \
  --seed 3 --plan transformer=fp16 --generate --screenshot "$tmp/shot.png" || { echo "studio run failed"; exit 1; }
[ -s "$tmp/shot.png" ] || { echo "no screenshot written"; exit 1; }
[ "$(head -c 8 "$tmp/shot.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || { echo "screenshot is not a PNG"; exit 1; }
# The first-launch welcome stays away when the command line says what to do.
[ -s "$tmp/config/Halfscope/Halfscope.conf" ] || { echo "no settings written"; exit 1; }
grep -q '^\[welcome\]' "$tmp/config/Halfscope/Halfscope.conf" && { echo "the welcome showed with --generate"; exit 1; }
# The run went into the history with the start-up plan and prompt.
ls "$tmp/history" | grep -q . || { echo "nothing saved in the history folder"; exit 1; }

timeout 60 "$studio" --plan "transformer=fp99" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 2 ] || { echo "bad --plan: exit code $rc, expected 2"; cat "$tmp/out"; exit 1; }
grep -q "fp99" "$tmp/out" || { echo "the error does not name the bad format:"; cat "$tmp/out"; exit 1; }
echo ok
