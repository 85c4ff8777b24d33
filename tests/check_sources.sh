#!/usr/bin/env bash
# Mechanical checks of the sources (docs/dev/style.md; CONTRIBUTING.md, "Layers"):
#  - layering: common <- zarr <- analysis <- gpu <- mpi <- plot <- lib <- cli (mpi/ uses
#    common/ only; plot/ reads results through zarr/; lib/ is the public API of
#    include/gensvd.h, which counts as lib's); a file includes only its own or lower
#    layers' headers, and *_internal.h only from its own folder, subfolders being folders of
#    their own (analysis/cpu/ and gpu/ may use analysis/backend_internal.h, and so may
#    lib/backend_registry.c, which proxies the CUDA module); analysis/scan/ (the genotype
#    scan) includes no other part of analysis/;
#  - banned calls: atoi atol atof sprintf vsprintf strcpy strcat strncpy strtok gets everywhere;
#    exit abort printf puts outside cli/; raw malloc/calloc/realloc/free outside common/alloc.c
#    and the ported files of cli/ (a client of the library, like examples/: libc's allocator);
#    stderr outside cli/ and common/log.c (the library layers are silent: log.h, progress.h);
#  - include guards: a header's is its path (GSVD_ANALYSIS_PCA_PCA_H for analysis/pca/pca.h),
#    a public header's its name (GENSVD_H for include/gensvd.h);
#  - analysis/ code (comments aside, strings included) names no device API or backend ("cuda"):
#    backends attach through the tables of analysis/backend_internal.h.
#  - the command line on the public API (issue 31): a file of cli/ includes only
#    include/gensvd.h, gsvd_config.h, system headers and the cli/ headers that do the same, and
#    calls no gsvd_ function but the command line's own (gsvd_cli_*, gsvd_opt_*, gsvd_opts_*,
#    gsvd_cmd_*): no internal header, no Zarr writer.  A ratchet: the files not yet ported are
#    listed in cli_unported below, which shrinks to empty as the commands are ported.
#  Subfolders of the layer folders are checked too.
# Usage: check_sources.sh [--cli] [ROOT]   (--cli: the files of cli/ alone, as the build runs it
# before compiling the command line: cli/CMakeLists.txt)
set -u
only=
if [ "${1:-}" = --cli ]; then
    only=cli
    shift
fi
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2
layers=(common zarr analysis gpu mpi plot lib cli)
rank() { local i; [ "$1" = include ] && set -- lib; for i in "${!layers[@]}"; do [ "${layers[$i]}" = "$1" ] && echo "$i" && return; done; echo -1; }
# The internal headers used outside their own folder: analysis/backend_internal.h (the
# backend table) by the backends that implement it (analysis/cpu/, gpu/) and by
# lib/backend_registry.c, which proxies the CUDA module.  Every other *_internal.h is
# included only from the folder it sits in (analysis/pca/pca_internal.h from analysis/pca/,
# not from analysis/ nor analysis/pca/sub/).
internal_ok() { # FILE HEADER
    [ "$2" = analysis/backend_internal.h ] || return 1
    case "$1" in
    analysis/cpu/* | gpu/* | lib/backend_registry.c) return 0 ;;
    esac
    return 1
}
# cli/ files that still use gensvd's internals (the ratchet above: remove a file when it is
# ported onto include/gensvd.h; never add one).
#   commands not yet ported: none;
#   shared helpers that keep internal includes until the library offers what they use:
#     none (every file of cli/ is ported).
cli_unported=" "
cli_unported=$(tr '\n' ' ' <<<"$cli_unported")
pass=0
fail=0
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

# every source below the layer folders, subfolders included
files=$(find ${only:-common zarr analysis gpu mpi plot lib include cli} -type f \( -name '*.[ch]' -o -name '*.cu' -o -name '*.cuh' \) | sort)
for f in $files; do
    dir=${f%%/*}
    r=$(rank "$dir")
    ok=1
    # includes of project headers: "folder/name.h"
    while IFS= read -r inc; do
        hdir=${inc%%/*}
        hr=$(rank "$hdir")
        [ "$hr" = -1 ] && continue
        if [ "$hr" -gt "$r" ]; then
            bad "$f includes $inc (higher layer $hdir)"; ok=0
        fi
        case "$f:$inc" in
        analysis/scan/*:analysis/scan/*) ;;
        analysis/scan/*:analysis/*)
            bad "$f includes $inc (the genotype scan sits below every other part of analysis/)"; ok=0 ;;
        esac
        case "$inc" in
        *_internal.h)
            if [ "${inc%/*}" != "${f%/*}" ] && ! internal_ok "$f" "$inc"; then
                bad "$f includes $inc (internal header of another folder)"; ok=0
            fi ;;
        esac
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
    # a ported file of cli/: the public API only
    if [ "$dir" = cli ] && [[ $cli_unported != *" $f "* ]]; then
        while IFS= read -r inc; do
            case "$inc" in
            gsvd_config.h | include/gensvd.h | gensvd.h) ;;
            cli/*)
                if [[ $cli_unported == *" $inc "* ]]; then
                    bad "$f includes $inc (a cli/ header that uses gensvd's internals: this file is ported onto include/gensvd.h)"; ok=0
                fi ;;
            *) bad "$f includes $inc (cli/ uses include/gensvd.h only: tests/check_sources.sh, cli_unported)"; ok=0 ;;
            esac
        done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
        calls=$(perl -0777 -pe 's{/\*.*?\*/}{}gs; s{//[^\n]*}{}g; s/"(?:[^"\\\n]|\\.)*"//g' "$f" |
            grep -oE '(^|[^a-zA-Z0-9_])gsvd_[a-zA-Z0-9_]*[[:space:]]*\(' |
            grep -oE 'gsvd_[a-zA-Z0-9_]*' | grep -vE '^gsvd_(cli|opt|opts|cmd)_' | sort -u | tr '\n' ' ')
        if [ -n "$calls" ]; then
            bad "$f calls gensvd's internals: $calls(cli/ uses include/gensvd.h only)"; ok=0
        fi
    fi
    # a header's guard is its path: analysis/pca/pca.h -> GSVD_ANALYSIS_PCA_PCA_H
    case "$f" in
    include/*.h) # a public header: its name alone (include/gensvd.h -> GENSVD_H)
        want=$(basename "${f%.h}")
        want=$(tr 'a-z' 'A-Z' <<<"$want")_H
        got=$(sed -n 's/^#ifndef[[:space:]]*\([A-Za-z0-9_]*\).*/\1/p' "$f" | head -n 1)
        if [ "$got" != "$want" ]; then
            bad "$f has include guard ${got:-none}, not $want"; ok=0
        fi ;;
    *.h)
        want=${f%.h}
        want=GSVD_$(tr 'a-z/' 'A-Z_' <<<"$want")_H
        got=$(sed -n 's/^#ifndef[[:space:]]*\([A-Za-z0-9_]*\).*/\1/p' "$f" | head -n 1)
        if [ "$got" != "$want" ]; then
            bad "$f has include guard ${got:-none}, not $want"; ok=0
        fi ;;
    esac
    # banned calls, ignoring comments (block comments across lines too) and string literals
    code=$(perl -0777 -pe 's{/\*.*?\*/}{}gs; s{//[^\n]*}{}g; s/"(?:[^"\\\n]|\\.)*"//g' "$f")
    for fn in atoi atol atof sprintf vsprintf strcpy strcat strncpy strtok gets; do
        if grep -qE "(^|[^a-zA-Z0-9_.>])$fn[[:space:]]*\(" <<<"$code"; then
            bad "$f calls banned $fn()"; ok=0
        fi
    done
    if [ "$dir" != cli ] && [ "$f" != common/log.c ] && grep -qE "(^|[^a-zA-Z0-9_])stderr([^a-zA-Z0-9_]|$)" <<<"$code"; then
        bad "$f writes to stderr outside cli/ and common/log.c (log through common/log.h, report progress through common/progress.h)"; ok=0
    fi
    if [ "$dir" != cli ]; then
        for fn in exit abort printf puts; do
            if grep -qE "(^|[^a-zA-Z0-9_.>])$fn[[:space:]]*\(" <<<"$code"; then
                bad "$f calls $fn() outside cli/"; ok=0
            fi
        done
    fi
    if [ "$dir" = analysis ] &&
        perl -0777 -pe 's{/\*.*?\*/}{}gs; s{//[^\n]*}{}g' "$f" | grep -qi 'cuda'; then
        bad "$f names cuda in code (backends attach through analysis/backend_internal.h)"; ok=0
    fi
    if [ "$dir" != mpi ] && grep -qE '^[[:space:]]*#[[:space:]]*include[[:space:]]*<mpi\.h>' "$f"; then
        bad "$f includes mpi.h outside mpi/ (use common/comm.h)"; ok=0
    fi
    # libc's allocator: common/alloc.c, and cli/ once a file is ported (it frees what it
    # allocates itself; the library's objects have their own _free)
    if [ "$f" != common/alloc.c ] && { [ "$dir" != cli ] || [[ $cli_unported == *" $f "* ]]; }; then
        for fn in malloc calloc realloc free strdup strndup posix_memalign aligned_alloc; do
            if grep -qE "(^|[^a-zA-Z0-9_.>])$fn[[:space:]]*\(" <<<"$code"; then
                bad "$f calls raw $fn() (use gsvd_$fn / gsvd_free)"; ok=0
            fi
        done
    fi
    [ $ok = 1 ] && pass=$((pass + 1))
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
