#!/usr/bin/env bash
# The manual's check fails on each kind of content that does not belong in it.  A fixture page
# (manual_lint/good.md, which comes close to every rule) passes scripts/lint_manual.sh; each
# case below makes one fault in a copy of it (a line added to its DESCRIPTION, or a change) and
# requires the lint to fail naming that fault, in --man mode and, for content faults, in --doc
# mode too.  Then scripts/make_man.sh, run on a copy of docs/man with one such fault, or with an
# option entry missing or extra, must fail and write no page.
# Usage: test_manual_lint.sh GENSVD SOURCE_DIR
set -u
. "$(dirname "$0")/../testlib.sh"
G=$1 SRC=$2
lint=$SRC/scripts/lint_manual.sh
good=$SRC/tests/cli/manual_lint/good.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check "the fixture page passes --man" "$lint" --man "$good"
check "the fixture page passes --doc" "$lint" --doc "$good"
# fails MODE REASON FILE: the lint fails on FILE and names REASON
fails() {
    local out
    out=$("$lint" "$1" "$3")
    [ $? = 1 ] && grep -qF -- "$2" <<<"$out" || { echo "  lint $1 said: $out"; return 1; }
}
# kind<TAB>reason<TAB>the line added to DESCRIPTION (kind: content, for both modes; man, --man only)
while IFS=$'\t' read -r kind reason line; do
    [ -n "$kind" ] || continue
    page=$tmp/case.md
    awk -v add="$line" '{ print } /^## DESCRIPTION$/ { print ""; print add }' "$good" >"$page"
    check "--man refuses $reason: $line" fails --man "$reason" "$page"
    if [ "$kind" = content ]; then
        check "--doc refuses $reason: $line" fails --doc "$reason" "$page"
    else
        check "--doc allows: $line" "$lint" --doc "$page"
    fi
done <<'EOF'
content	a source path	The passes are in analysis/pca.c, the writer in `zarr/writer.h`.
content	a source path	The kernel bodies run on the CPU in gpu/kernel_body.h as well.
content	a benchmark figure	The whole run took 5.3 s against 17.2 s for the float32 Gram.
content	a benchmark figure	It is 3x faster than plink2 on this data.
content	a benchmark figure	The VNNI engine is 1.8x quicker.
content	a benchmark figure	The tiles run at 790 GMAC/s per core.
content	a benchmark figure	A scan reads 1803 MB/s.
content	a benchmark figure	A cached pass takes ~0.48 s.
content	a benchmark figure	The run needs 360 MB on 2 cores.
content	a benchmark figure	P1 is met with AMX.
content	a benchmark figure	The float64 Gram takes about twice the float32 Gram's time.
content	a benchmark figure	The i8 kernel is three times faster.
content	a benchmark figure	(int8 products: ~2.8x faster); auto is i8
content	a benchmark figure	Gram from float64 products (about 2x slower; scores exact)
content	a host or CPU model name	Measured on an AMD Zen 4.
content	a host or CPU model name	Sapphire Rapids and later run it.
content	a CPU instruction name	The engine multiplies with vpdpbusd.
content	a CPU instruction name	It needs AVX-512BW/VL/DQ/VBMI.
content	a CPU instruction name	The probe reads CPUID amx-tile.
content	a test name	Checked by test_gram_i8 against numpy.
content	a test name	The workflow_ancestry test runs it.
content	the history of the work	This was added in the ninth session.
content	the history of the work	The second wave made it faster.
content	the history of the work	Issue 12 asked for it.
content	the history of the work	The next sprint will add it.
content	the history of the work	Session nine measured it.
content	the history of the work	Commit 36b1f89 holds the change.
man	a source path	Run scripts/ancestry.sh to see it.
man	a test name	ctest -L pca checks it.
man	a developer document	See docs/dev/decisions.md for the measurements.
man	a developer document	The figures are in bench/README.md.
man	a Markdown table	| option | default |
man	a code span broken across lines	The command `gensvd pca
EOF
# structural faults, --man only
sed '/^## EXIT STATUS$/d' "$good" >"$tmp/nosec.md"
check "--man refuses a missing section" fails --man "missing section EXIT STATUS" "$tmp/nosec.md"
sed '/^## NAME$/,/^gensvd-fixture/d' "$good" >"$tmp/noname.md"
check "--man refuses a missing NAME" fails --man "missing section NAME" "$tmp/noname.md"
{ cat "$good"; printf '\n## OPTIONS\n\nMore.\n'; } >"$tmp/twice.md"
check "--man refuses a repeated section" fails --man "section OPTIONS out of order" "$tmp/twice.md"
sed '/-k 5 > out.tsv/d' "$good" >"$tmp/four.md"
check "--man refuses fewer than five examples" fails --man "at least 5 wanted" "$tmp/four.md"
sed 's/^As in \[gensvd(1)\](gensvd.md#message-options)\.$/&\nMore text./' "$good" >"$tmp/asin.md"
check "--man refuses text right after an 'As in' line" fails --man "leave a blank line" "$tmp/asin.md"
check "--doc allows a page without the sections" "$lint" --doc "$tmp/nosec.md"

# make_man.sh on the real pages with one fault each: fails, names it, writes nothing
man_fails() { # WHAT EXPECTED SED-SCRIPT PAGE
    local d=$tmp/docs_$RANDOM out=$tmp/out_$RANDOM msg
    cp -r "$SRC/docs/man" "$d"
    sed -i "$3" "$d/$4"
    msg=$("$SRC/scripts/make_man.sh" "$G" "$out" 0.0.0 "$d" 2>&1)
    [ $? != 0 ] && grep -qF -- "$2" <<<"$msg" && [ -z "$(ls "$out"/*.1 2>/dev/null)" ] ||
        { echo "  make_man.sh said: $msg"; return 1; }
}
check "make_man.sh builds the real pages" "$SRC/scripts/make_man.sh" "$G" "$tmp/real" 0.0.0 "$SRC/docs/man"
check "make_man.sh fails on a source path" man_fails path "a source path" \
    '/^## DESCRIPTION$/a See analysis/pca.c.' gensvd-pca.md
check "make_man.sh fails on a benchmark figure" man_fails figure "a benchmark figure" \
    '/^## DESCRIPTION$/a It took 5.3 s against 17.2 s.' gensvd-pdist.md
check "make_man.sh fails on history" man_fails history "the history of the work" \
    '/^## DESCRIPTION$/a It came in the eighth session.' gensvd.md
check "make_man.sh fails on a table" man_fails table "a Markdown table" \
    '/^## OUTPUT$/a | array | type |' gensvd-ldprune.md
check "make_man.sh fails on a missing section" man_fails section "missing section ENVIRONMENT" \
    '/^## ENVIRONMENT$/d' gensvd-info.md
check "make_man.sh fails on a missing option entry" man_fails option "no OPTIONS entry for --seed" \
    '/^- `--seed INT`:$/,/^- `--gram-f64`:$/{/^- `--gram-f64`:$/!d}' gensvd-pca.md
check "make_man.sh fails on an entry for no option" man_fails extra "describes --bogus" \
    's/^- `--stats`:$/- `--bogus`:\n    Nothing.\n&/' gensvd-dump.md
report
