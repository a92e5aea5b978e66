# The values of kind $argv[1] that start with $argv[2]; $argv[3] runs ion; $argv[4] goes before each (--flag=).
function __ion_values --argument-names kind cur program prefix
    set -l lines
    switch $kind
        case file
            set lines (__fish_complete_path $cur)
        case dir
            set lines (__fish_complete_directories $cur)
        case 'choice:*'
            set lines (string split ' ' -- (string replace 'choice:' '' -- $kind))
        case 'words:*'
            set lines ($program completion --words (string replace 'words:' '' -- $kind) $cur 2>/dev/null)
    end
    for line in $lines
        echo "$prefix$line"
    end
end

function __ion_subcommand_names --argument-names cmdpath
    __ion_subcommands $cmdpath | string replace -r '\t.*' ''
end

function __ion_complete
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l program $tokens[1]
    string match -q -- '~/*' $program; and set program $HOME/(string sub -s 3 -- $program)
    set -l cmdpath ''
    set -l kind ''
    set -l dashdash 0
    set -l n (count $tokens)
    set -l i 2
    while test $i -le $n
        set -l word $tokens[$i]
        if test $dashdash -eq 0; and test "$word" = --
            set dashdash 1
        else if test $dashdash -eq 0; and string match -q -- '-*' $word
            test -z "$cmdpath"; and set cmdpath chat
            if not string match -q -- '*=*' $word
                set -l value (__ion_flag_value "$cmdpath" $word)
                if test -n "$value"
                    test $i -eq $n; and set kind $value
                    set i (math $i + 1)
                end
            end
        else if test $dashdash -eq 0; and contains -- $word (__ion_subcommand_names "$cmdpath")
            set cmdpath (string trim -- "$cmdpath $word")
        end
        set i (math $i + 1)
    end
    set -l prefix ''
    if test -z "$kind"; and string match -q -- '--*=*' $cur
        set -l parts (string split -m 1 = -- $cur)
        set kind (__ion_flag_value "$cmdpath" $parts[1])
        set prefix "$parts[1]="
        set cur $parts[2]
    end
    if test -n "$kind"
        __ion_values $kind "$cur" $program $prefix
    else if test $dashdash -eq 0; and string match -q -- '-*' $cur
        __ion_flags "$cmdpath"
    else
        set -l positional (__ion_positional "$cmdpath")
        test -n "$positional"; and __ion_values $positional "$cur" $program ''
        test $dashdash -eq 0; and __ion_subcommands "$cmdpath"
    end
end

complete -c ion -f -a '(__ion_complete)'
