# scripts/md2roff.awk - the Markdown subset of gensvd's manual pages (docs/man/*.md) as man(7)
# roff, for scripts/make_man.sh.  Understood: "# " (dropped: the page title comes from --help),
# "## TITLE" (.SH), "### TITLE" (.SS), paragraphs, "- " and "N. " list items with indented
# continuation lines, fenced code blocks (```), table rows ("|", kept verbatim), inline `code`
# and **bold** (both bold), [text](url) links (text, and the url when it is absolute).  Anything else is plain text.
# Usage: awk -f md2roff.awk FILE.md
function esc(s) {
    gsub(/\\/, "\\e", s)
    return s
}
function inline(s, out, i, url) {
    s = esc(s)
    while (match(s, /\[[^]]*\]\([^)]*\)/)) {
        i = index(substr(s, RSTART, RLENGTH), "](")
        url = substr(s, RSTART + i + 1, RLENGTH - i - 2)
        s = substr(s, 1, RSTART - 1) substr(s, RSTART + 1, i - 2) \
            (url ~ /:\/\// ? " (" url ")" : "") substr(s, RSTART + RLENGTH)
    }
    while (match(s, /\*\*[^*]+\*\*/))
        s = substr(s, 1, RSTART - 1) "\\fB" substr(s, RSTART + 2, RLENGTH - 4) "\\fR" \
            substr(s, RSTART + RLENGTH)
    while (match(s, /`[^`]+`/))
        s = substr(s, 1, RSTART - 1) "\\fB" substr(s, RSTART + 1, RLENGTH - 2) "\\fR" \
            substr(s, RSTART + RLENGTH)
    if (s ~ /^[.']/)
        s = "\\&" s
    return s
}
function verbatim(s) {
    s = esc(s)
    if (s ~ /^[.']/)
        s = "\\&" s
    return s
}
BEGIN { code = 0; para = 0; intro = 0 }
/^```/ {
    if (code) { print ".fi"; print ".RE"; code = 0 }
    else { print ".PP"; print ".RS 2"; print ".nf"; code = 1 }
    para = 0
    next
}
code { print verbatim($0); next }
/^# / { intro = 1; next }
intro == 1 && /^[ \t]*$/ { next }
intro == 1 { intro = 2; next }
intro == 2 && !/^[ \t]*$/ { next }
intro == 2 { intro = 0; next }
/^## / { print ".SH " toupper(inline(substr($0, 4))); para = 0; next }
/^### / { print ".SS " inline(substr($0, 5)); para = 0; next }
/^\|/ { if (!para) { print ".PP" }; print ".nf"; print verbatim($0); print ".fi"; para = 1; next }
/^[ \t]*$/ { para = 0; next }
/^- / { print ".IP \\(bu 2"; print inline(substr($0, 3)); para = 1; next }
/^[0-9]+\. / {
    n = index($0, " ")
    print ".IP " substr($0, 1, n - 1) " 4"
    print inline(substr($0, n + 1))
    para = 1
    next
}
{
    if (!para) print ".PP"
    sub(/^[ \t]+/, "")
    print inline($0)
    para = 1
}
END { if (code) { print ".fi"; print ".RE" } }
