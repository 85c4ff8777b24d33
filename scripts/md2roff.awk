# scripts/md2roff.awk - the Markdown of gensvd's manual pages (docs/man/*.md) as man(7) roff,
# for scripts/make_man.sh.  What a page may use:
#   "# TITLE"           dropped (the .TH line comes from make_man.sh)
#   "## NAME" ...       .SH NAME ...; in NAME the first " - " becomes " \- " (whatis, apropos)
#   "### Title"         .SS
#   paragraphs          .PP; lines of a paragraph are joined as roff joins them
#   "- `TERM`:"         a definition list entry (.TP): TERM in bold, words of it written in
#                       capitals (the option's argument, INT, PATH) in italics; the definition
#                       is the lines indented under it, "    " paragraphs after a blank line
#   "- text", "1. text" bullet and numbered items (continuation lines indented)
#   nested items        "- `VALUE`:" or "- text" indented by 4 inside an entry (.RS ... .RE),
#                       their own text indented by 8
#   fenced code         ``` lines (.nf), also indented inside an entry
#   inline              `code` and **bold** in bold, *WORD* in italics, [text](url) as text
#                       (and the url when it is absolute; text like gensvd-pca(1) in bold)
# Tables are not understood (man cannot render them; scripts/lint_manual.sh refuses them).
# Common options: with -v common=PATH (docs/man/gensvd.md) and -v opts="--a --b ..." (the
# command's long options, from its --help), a line "As in [gensvd(1)](gensvd.md#ANCHOR)."
# becomes the entries of PATH's "### " section with that anchor (GitHub's: lower case, spaces
# as "-") whose options the command takes and the page does not describe itself.
# Usage: awk [-v common=GENSVD_MD -v opts=OPTS] -f md2roff.awk PAGE.md
function esc(s) {
    gsub(/\\/, "\\e", s)
    return s
}
function minus(s, out, i, c) { # every "-" as roff's \-
    out = ""
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        out = out (c == "-" ? "\\-" : c)
    }
    return out
}
function dashes(s, out, i, c, p) { # "-" starting a word (options, negative numbers) as \-
    out = ""
    p = " "
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == "-" && (p ~ /[ (\[|\/=]/ || (p == "-" && substr(out, length(out) - 1, 2) == "\\-")))
            out = out "\\-"
        else
            out = out c
        p = c
    }
    return out
}
function plain(s) { # text outside code spans
    while (match(s, /\*\*[^*]+\*\*/))
        s = substr(s, 1, RSTART - 1) "\\fB" substr(s, RSTART + 2, RLENGTH - 4) "\\fR" \
            substr(s, RSTART + RLENGTH)
    while (match(s, /(^|[ (\[])\*[A-Za-z][^* ]*\*/)) {
        lead = substr(s, RSTART, 1) == "*" ? "" : substr(s, RSTART, 1)
        s = substr(s, 1, RSTART - 1) lead "\\fI" substr(s, RSTART + length(lead) + 1, \
            RLENGTH - length(lead) - 2) "\\fR" substr(s, RSTART + RLENGTH)
    }
    return dashes(s)
}
function inline(s, out, i, url, text, st, ln) {
    s = esc(s)
    while (match(s, /\[[^]]*\]\([^)]*\)/)) {
        i = index(substr(s, RSTART, RLENGTH), "](")
        url = substr(s, RSTART + i + 1, RLENGTH - i - 2)
        text = substr(s, RSTART + 1, i - 2)
        if (text ~ /^[a-z0-9-]+\([1-9]\)$/)
            text = "\\fB" substr(text, 1, index(text, "(") - 1) "\\fR" substr(text, index(text, "("))
        s = substr(s, 1, RSTART - 1) text (url ~ /:\/\// ? " (" url ")" : "") \
            substr(s, RSTART + RLENGTH)
    }
    out = ""
    while (match(s, /`[^`]+`/)) {
        st = RSTART
        ln = RLENGTH
        out = out plain(substr(s, 1, st - 1)) "\\fB" minus(substr(s, st + 1, ln - 2)) "\\fR"
        s = substr(s, st + ln)
    }
    out = out plain(s)
    if (out ~ /^[.']/)
        out = "\\&" out
    return out
}
function verbatim(s) {
    s = esc(s)
    if (s ~ /^[.']/)
        s = "\\&" s
    return s
}
function term(t, n, w, i, out, tok, comma) { # "- `-k, --components INT`:" -> roff
    sub(/^- /, "", t)
    sub(/:$/, "", t)
    gsub(/`/, "", t)
    n = split(esc(t), w, " ")
    out = ""
    for (i = 1; i <= n; i++) {
        tok = w[i]
        comma = ""
        if (tok ~ /,$/) { comma = ","; tok = substr(tok, 1, length(tok) - 1) }
        if (tok ~ /^-/ || tok !~ /[A-Z]/ || tok ~ /^[A-Z][A-Z0-9]*_[A-Z0-9_]*$/)
            tok = "\\fB" minus(tok) "\\fR"
        else
            tok = "\\fI" tok "\\fR"
        out = out (i > 1 ? " " : "") tok comma
    }
    return out ~ /^[.']/ ? "\\&" out : out
}
function close_nested() {
    if (nested) { print ".RE"; nested = 0 }
}
function anchor(h) {
    h = tolower(h)
    gsub(/[^a-z0-9 -]/, "", h)
    gsub(/ /, "-", h)
    return h
}
# The entries of the common page's "### " section `want` that the command takes (opts) and the
# page itself does not describe (mine), through line().
function expand(want, line_, insec, n, k, e, lines, take, i, o, words) {
    n = 0
    insec = 0
    while ((getline line_ < common) > 0) {
        if (line_ ~ /^##/) { insec = line_ ~ /^### / && anchor(substr(line_, 5)) == want; continue }
        if (insec) lines[++n] = line_
    }
    close(common)
    if (!insec && n == 0) {
        print "md2roff: no section #" want " in " common > "/dev/stderr"
        exit 1
    }
    take = 0
    for (i = 1; i <= n; i++) {
        if (lines[i] ~ /^- `.*`:$/) {
            take = 0
            k = split(lines[i], words, /[^-a-z0-9]+/)
            for (e = 1; e <= k; e++) {
                o = words[e]
                if (o ~ /^--[a-z]/ && index(" " opts " ", " " o " ") && !index(" " mine " ", " " o " "))
                    take = 1
            }
        } else if (lines[i] !~ /^[ \t]/ && lines[i] !~ /^[ \t]*$/)
            take = 0
        if (take)
            line(lines[i])
    }
    prev_blank = 1
}
function line(s, ind, t, n) {
    if (s ~ /^[ \t]*```/) {
        if (code) {
            print ".fi"
            if (!code_in_item) print ".RE"
            code = 0
            open = 0
        } else {
            match(s, /^[ \t]*/)
            code_ind = RLENGTH
            code_in_item = code_ind > 0 && ctx != ""
            if (code_in_item) { print ".IP"; print ".nf" }
            else { close_nested(); ctx = ""; print ".PP"; print ".RS 2"; print ".nf" }
            code = 1
        }
        prev_blank = 0
        return
    }
    if (code) {
        t = s
        if (code_ind > 0 && substr(t, 1, code_ind) ~ /^[ \t]*$/) t = substr(t, code_ind + 1)
        print verbatim(t)
        return
    }
    if (s ~ /^# /) return
    if (s ~ /^## /) {
        close_nested()
        ctx = ""; open = 0
        sec = toupper(substr(s, 4))
        print ".SH " sec
        return
    }
    if (s ~ /^### /) {
        close_nested()
        ctx = ""; open = 0
        print ".SS " inline(substr(s, 5))
        return
    }
    if (s ~ /^[ \t]*$/) { prev_blank = 1; return }
    match(s, /^[ \t]*/)
    ind = RLENGTH
    t = substr(s, ind + 1)
    if (ind == 0 && common != "" && match(t, /^As in \[gensvd\(1\)\]\(gensvd\.md#[a-z0-9-]+\)\.$/)) {
        close_nested()
        ctx = ""; open = 0
        expand(substr(t, index(t, "#") + 1, length(t) - index(t, "#") - 2))
        return
    }
    if (ind == 0 || ctx == "") {
        if (ind == 0 && t ~ /^- `.*`:$/) {
            close_nested()
            print ".TP 7"; print term(t)
            ctx = "item"; open = 0
        } else if (ind == 0 && t ~ /^- /) {
            close_nested()
            print ".IP \\(bu 2"; print inline(substr(t, 3))
            ctx = "item"; open = 1
        } else if (ind == 0 && t ~ /^[0-9]+\. /) {
            close_nested()
            n = index(t, " ")
            print ".IP " substr(t, 1, n - 1) " 4"; print inline(substr(t, n + 1))
            ctx = "item"; open = 1
        } else if (!prev_blank && (open || ctx != "")) {
            print inline(t); open = 1
        } else {
            close_nested()
            ctx = ""
            print (sec == "SYNOPSIS" && synopsis++ ? ".br" : ".PP")
            t = inline(t)
            if (sec == "NAME") sub(/ - /, " \\- ", t)
            print t; open = 1
        }
        prev_blank = 0
        return
    }
    # indented, inside a list entry
    if (ind >= 2 && t ~ /^- `.*`:$/ && (prev_blank || ctx == "nitem" || !open)) {
        if (!nested) { print ".RS"; nested = 1 }
        print ".TP"; print term(t)
        ctx = "nitem"; open = 0
    } else if (ind >= 2 && t ~ /^- / && (prev_blank || ctx == "nitem")) {
        if (!nested) { print ".RS"; nested = 1 }
        print ".IP \\(bu 2"; print inline(substr(t, 3))
        ctx = "nitem"; open = 1
    } else if (!prev_blank) {
        print inline(t); open = 1
    } else {
        if (nested && ind < 6) { close_nested(); ctx = "item" }
        print ".IP"; print inline(t); open = 1
    }
    prev_blank = 0
}
BEGIN { code = 0; nested = 0; ctx = ""; open = 0; prev_blank = 1; sec = ""; mine = "" }
FNR == 1 && common != "" { # the options this page describes itself
    while ((getline l < FILENAME) > 0)
        if (l ~ /^- `.*`:$/ && (k = split(l, ws, /[^-a-z0-9]+/)))
            for (e = 1; e <= k; e++)
                if (ws[e] ~ /^--[a-z]/) mine = mine " " ws[e]
    close(FILENAME)
}
{ line($0) }
END { if (code) { print ".fi"; if (!code_in_item) print ".RE" }; close_nested() }
