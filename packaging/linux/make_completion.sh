#!/usr/bin/env bash
# Writes the bash completion of halfscope-cli from its own --help texts (commands, and the
# options each command lists). Usage: make_completion.sh CLI OUTFILE
set -euo pipefail
cli=$1 out=$2
optionsOf() { "$@" --help 2>&1 | grep -oE -- '--[a-z][a-z0-9-]*[a-z0-9]' | sort -u | tr '\n' ' '; }

commands=$("$cli" --help 2>&1 | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF {print $1}')
global=$(optionsOf "$cli")
{
  echo '# bash completion for halfscope-cli (generated from its --help; do not edit)'
  echo '_halfscope_cli() {'
  echo '    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd="" w opts'
  echo '    for w in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do'
  echo '        case $w in -*) ;; *) cmd=$w; break ;; esac'
  echo '    done'
  # Options that take a file or a folder complete paths.
  echo '    case $prev in'
  echo '        --model|--out|--report|--data-dir|--inputs|--save|--json-out|-o)'
  echo '            COMPREPLY=($(compgen -f -- "$cur")); return ;;'
  echo '    esac'
  echo '    case $cmd in'
  echo "        '') COMPREPLY=(\$(compgen -W \"$(tr '\n' ' ' <<<"$commands")$global\" -- \"\$cur\")); return ;;"
  for c in $commands; do
    echo "        $c) opts=\"$(optionsOf "$cli" "$c")$global\" ;;"
  done
  echo '        *) opts="" ;;'
  echo '    esac'
  echo '    if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur"))'
  echo '    else COMPREPLY=($(compgen -f -- "$cur")); fi'
  echo '}'
  echo 'complete -o filenames -F _halfscope_cli halfscope-cli'
} >"$out"
