#!/usr/bin/env zsh
# Print what zsh's completion lists for $LINE (then TAB) with the completion functions in
# $ZDIR: an interactive zsh in a pseudo-terminal (zsh/zpty) loads compinit and the line is
# typed.  TAB is the last key written: nothing follows it until the terminal shows a match of
# $EXPECT (an extended regex; terminal escapes and CRs removed), so zle never sees typeahead
# (with input pending, zle may skip the redisplay that draws the list; CI saw that race).
# Gives up after 40 s.  Usage: ZDIR=DIR LINE='gensvd pdist -m c' EXPECT='cosine' zsh -f THIS
zmodload zsh/zpty || exit 77
setopt extendedglob
clean() { REPLY=${${1//$'\e'\[[0-9;?]#[a-zA-Z]/}//$'\r'/} }
zpty -b z "zsh -f -i"
zpty -w z "PS1='%% '; fpath=('$ZDIR' \$fpath); autoload -U compinit; compinit -u -D; "\
"zstyle ':completion:*' list-prompt ''; zstyle ':completion:*' menu no; unsetopt beep; "\
"LISTMAX=1000; print READY-\$((6*7))"
upto() { # REGEX SECONDS: read the terminal into $out until it matches (escapes removed)
    out=
    local line
    while (( SECONDS < $2 )); do
        if zpty -r -t z line 2>/dev/null; then
            out+=$line
            clean "$out"
            [[ $REPLY =~ $1 ]] && return 0
        else
            sleep 0.05
        fi
    done
    return 1
}
upto READY-42 20
zpty -w -n z "$LINE"$'\t'
upto "$EXPECT" 40
clean "$out"
print -r -- "$REPLY"
zpty -d z
