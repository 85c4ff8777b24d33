#!/usr/bin/env zsh
# Print what zsh's completion offers for $LINE (then TAB) with the completion functions in
# $ZDIR: an interactive zsh in a pseudo-terminal (zsh/zpty) loads compinit, the line is typed,
# and what the terminal shows up to a marker printed after it.  Usage: ZDIR=DIR LINE='gensvd pdist -m c' zsh -f THIS
zmodload zsh/zpty || exit 77
zpty -b z "zsh -f -i"
zpty -w z "PS1='%% '; fpath=('$ZDIR' \$fpath); autoload -U compinit; compinit -u -D; "\
"zstyle ':completion:*' list-prompt ''; zstyle ':completion:*' menu no; unsetopt beep; "\
"LISTMAX=1000; print READY-\$((6*7))"
out=
while zpty -r -t z line 2>/dev/null || { sleep 0.05; (( SECONDS < 20 )); }; do
    out+=$line
    [[ $out == *READY-42* ]] && break
done
# TAB lists the matches; then ^U clears the line and a marker command shows zle is done
zpty -w -n z "$LINE"$'\t\x15'"print DONE-\$((6*7))"$'\n'
out=
while zpty -r -t z line 2>/dev/null || { sleep 0.05; (( SECONDS < 40 )); }; do
    out+=$line
    [[ $out == *DONE-42* ]] && break
done
print -r -- "${out//$'\r'/}"
zpty -d z
