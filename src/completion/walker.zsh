# The values of kind $1 that start with $2 ($2 is what follows any --flag=); $3 runs ion.
__ion_values() {
  local -a items lines
  local line value
  case "$1" in
    file) _files ;;
    dir) _files -/ ;;
    choice:*) compadd -- ${=${1#choice:}} ;;
    words:*)
      lines=("${(@f)$("$3" completion --words "${1#words:}" "$2" 2>/dev/null)}")
      for line in $lines; do
        [[ -z "$line" ]] && continue
        value="${line%%$'\t'*}"
        value="${value//:/\\:}"
        if [[ "$line" == *$'\t'* ]]; then items+=("$value:${line#*$'\t'}"); else items+=("$value"); fi
      done
      (( ${#items} )) && _describe -t values 'value' items ;;
  esac
}

_ion() {
  local cur="${words[CURRENT]}" word cmdpath='' kind='' program="${words[1]}" dashdash=0 i=2 REPLY
  local -a reply
  [[ "$program" == "~/"* ]] && program="$HOME/${program#\~/}"
  while (( i < CURRENT )); do
    word="${words[i]}"
    if (( ! dashdash )) && [[ "$word" == "--" ]]; then
      dashdash=1
    elif (( ! dashdash )) && [[ "$word" == -* ]]; then
      [[ -z "$cmdpath" ]] && cmdpath=chat
      if [[ "$word" != *=* ]]; then
        __ion_flag_value "$cmdpath" "$word"
        if [[ -n "$REPLY" ]]; then
          (( i + 1 >= CURRENT )) && kind="$REPLY"
          (( i++ ))
        fi
      fi
    else
      __ion_subcommands "$cmdpath"
      if (( ! dashdash )) && (( ${${=REPLY}[(Ie)$word]} )); then cmdpath="${cmdpath:+$cmdpath }$word"; fi
    fi
    (( i++ ))
  done
  if [[ -z "$kind" && "$cur" == --*=* ]]; then
    __ion_flag_value "$cmdpath" "${cur%%=*}"
    kind="$REPLY"
    compset -P '*='
    cur="${cur#*=}"
  fi
  if [[ -n "$kind" ]]; then
    __ion_values "$kind" "$cur" "$program"
  elif (( ! dashdash )) && [[ "$cur" == -* ]]; then
    __ion_describe_flags "$cmdpath"
    _describe -t options 'option' reply
  else
    __ion_positional "$cmdpath"
    [[ -n "$REPLY" ]] && __ion_values "$REPLY" "$cur" "$program"
    if (( ! dashdash )); then
      __ion_describe_subcommands "$cmdpath"
      (( ${#reply} )) && _describe -t commands 'command' reply
    fi
  fi
  return 0
}

# Autoloaded from a `_ion` file in $fpath this file is the function's body; sourced, it registers.
if [[ "${funcstack[1]}" == "_ion" ]]; then _ion "$@"; else compdef _ion ion; fi
