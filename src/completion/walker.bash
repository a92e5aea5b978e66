# The program as typed, for the helper: ~/bin/ion is not expanded in COMP_WORDS.
__ion_program() {
  case "$1" in
    "~/"*) REPLY="$HOME/${1#\~/}" ;;
    *) REPLY="$1" ;;
  esac
}

# COMPREPLY: the values of kind $1 that start with $2; $3 runs ion.
__ion_values() {
  local IFS=$'\n' line
  case "$1" in
    file) COMPREPLY=($(compgen -f -- "$2")); compopt -o filenames 2>/dev/null ;;
    dir) COMPREPLY=($(compgen -d -- "$2")); compopt -o filenames 2>/dev/null ;;
    choice:*) IFS=$' \t\n'; COMPREPLY=($(compgen -W "${1#choice:}" -- "$2")) ;;
    words:*)
      while IFS= read -r line; do
        line="${line%%$'\t'*}"
        [[ "$line" == "$2"* ]] && COMPREPLY+=("$line")
      done < <("$3" completion --words "${1#words:}" "$2" 2>/dev/null) ;;
  esac
}

_ion() {
  local cur cword REPLY word cmdpath='' kind='' program dashdash=0 i=1 next
  local -a words
  COMPREPLY=()
  if declare -F _get_comp_words_by_ref >/dev/null; then
    _get_comp_words_by_ref -n =: -w words -i cword -c cur
  else
    words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; cur="${COMP_WORDS[COMP_CWORD]}"
  fi
  __ion_program "${words[0]}"; program="$REPLY"
  while [ "$i" -lt "$cword" ]; do
    word="${words[i]}"
    if [ "$dashdash" = 0 ] && [ "$word" = "--" ]; then
      dashdash=1
    elif [ "$dashdash" = 0 ] && [[ "$word" == -* ]]; then
      [ -z "$cmdpath" ] && cmdpath=chat
      if [[ "$word" != *=* ]]; then
        __ion_flag_value "$cmdpath" "$word"
        if [ -n "$REPLY" ]; then
          next=$((i + 1))
          # Without bash-completion, --model=x arrives as three words: --model = x.
          [ "${words[next]}" = "=" ] && [ "$next" -lt "$cword" ] && next=$((next + 1))
          if [ "$next" -ge "$cword" ]; then kind="$REPLY"; fi
          i=$next
        fi
      fi
    else
      __ion_subcommands "$cmdpath"
      if [ "$dashdash" = 0 ] && [[ " $REPLY " == *" $word "* ]]; then cmdpath="${cmdpath:+$cmdpath }$word"; fi
    fi
    i=$((i + 1))
  done
  [ "$cur" = "=" ] && cur=''
  if [ -z "$kind" ] && [[ "$cur" == --*=* ]]; then
    __ion_flag_value "$cmdpath" "${cur%%=*}"; kind="$REPLY"; cur="${cur#*=}"
  fi
  if [ -n "$kind" ]; then
    __ion_values "$kind" "$cur" "$program"
  elif [ "$dashdash" = 0 ] && [[ "$cur" == -* ]]; then
    __ion_flags "$cmdpath"
    COMPREPLY=($(compgen -W "$REPLY" -- "$cur"))
  else
    __ion_subcommands "$cmdpath"
    local subcommands="$REPLY"
    __ion_positional "$cmdpath"
    [ -n "$REPLY" ] && __ion_values "$REPLY" "$cur" "$program"
    [ "$dashdash" = 0 ] && COMPREPLY+=($(compgen -W "$subcommands" -- "$cur"))
  fi
  if declare -F __ltrim_colon_completions >/dev/null; then __ltrim_colon_completions "$cur"; fi
  return 0
}
complete -F _ion ion
