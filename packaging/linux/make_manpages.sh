#!/usr/bin/env bash
# Writes halfscope.1.gz and halfscope-cli.1.gz from the programs' own --help texts, so the
# manual pages never drift from the options. Usage: make_manpages.sh CLI STUDIO VERSION OUTDIR
# (STUDIO "-" when the studio is not built: only halfscope-cli.1.gz is written).
set -euo pipefail
cli=$1 studio=$2 version=$3 out=$4
mkdir -p "$out"

# roff: a backslash is \e, and a line starting with . or ' would be read as a request.
escape() { sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/" -e 's/-/\\-/g'; }

header() {  # NAME SUMMARY
  printf '.TH %s 1 "" "Halfscope %s" "User Commands"\n.SH NAME\n%s \\- %s\n' \
    "$(tr a-z A-Z <<<"$1")" "$version" "$1" "$2"
}

verbatim() { printf '.nf\n'; escape; printf '.fi\n'; }

{
  header halfscope-cli "find out why a diffusion model gives a black image in half precision"
  printf '.SH SYNOPSIS\n.B halfscope-cli\n.I COMMAND\n[options]\n.SH DESCRIPTION\n'
  "$cli" --help 2>&1 | verbatim
  # One subsection per command, in the order --help lists them.
  for cmd in $("$cli" --help 2>&1 | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF {print $1}'); do
    printf '.SH %s\n' "$(tr a-z A-Z <<<"$cmd" | tr - ' ')"
    "$cli" "$cmd" --help 2>&1 | verbatim
  done
  printf '.SH FILES\n.TP\n.I /usr/share/halfscope/demo\\-model\nthe embedded demo model, used when no model is given\n'
  printf '.SH SEE ALSO\n.BR halfscope (1)\n'
} >"$out/halfscope-cli.1"

[[ $studio == - ]] && { gzip -9nf "$out/halfscope-cli.1"; exit 0; }
{
  header halfscope "the Halfscope studio"
  printf '.SH SYNOPSIS\n.B halfscope\n[options]\n.SH DESCRIPTION\n'
  printf 'The studio runs a diffusion pipeline with a precision chosen per module, shows the\n'
  printf 'latent statistics of every step against the fp16 limit, names the first layer that\n'
  printf 'overflowed and finds the cheapest precision plan that fixes the run.\n.SH OPTIONS\n'
  QT_QPA_PLATFORM=offscreen "$studio" --help 2>/dev/null | sed -e '1,/^Options:/d' | verbatim
  printf '.SH FILES\n.TP\n.I ~/.local/share/Halfscope\nthe run history (SQLite) and the images of every run\n'
  printf '.SH SEE ALSO\n.BR halfscope\\-cli (1)\n'
} >"$out/halfscope.1"

gzip -9nf "$out/halfscope.1" "$out/halfscope-cli.1"
