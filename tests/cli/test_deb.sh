#!/usr/bin/env bash
# The .deb that CPack builds (packaging/cpack.cmake), checked from outside CPack.
#   test_deb.sh extract BUILD_DIR   unprivileged: builds the .deb, checks its name, control
#                                   fields and file list with dpkg-deb -I/-c, that Depends
#                                   names the package of every library the binary needs
#                                   (oracle: readelf NEEDED + ldd + dpkg -S, not
#                                   dpkg-shlibdeps), that the man pages are gzip -9n, then
#                                   dpkg-deb -x into a temporary root and runs gensvd from
#                                   there (simulate + pca), man -w and the bash completion;
#                                   the library's packages libgensvd0 (the .so.0, shlibs,
#                                   Depends covering its NEEDED) and libgensvd-dev (header,
#                                   .so link, .a, gensvd.pc depending on libgensvd0 of the
#                                   version), an example built against the extracted files
#                                   with pkg-config and run.
#   test_deb.sh dpkg BUILD_DIR      as root: dpkg -i, /usr/bin/gensvd --version, man -w
#                                   gensvd and gensvd-pca, the installed bash completion
#                                   (pca --method and its values), zsh's compinit finds
#                                   _gensvd, dpkg -r, every installed file gone.
# Exit 77 (skipped): no dpkg-deb/cpack; for dpkg, not root, no dpkg, or a gensvd the machine's
# owner installed (a package or a file in /usr/bin: never replaced).  A gensvd package left
# by a killed run of this test (its marker file) is removed first.  An EXIT trap removes the
# package this run installed and its temporary files, whatever fails.
set -u
. "$(dirname "$0")/../testlib.sh"
mode=$1 build=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
marker=/var/tmp/gensvd-test-deb.installed # this test installed the package and has not removed it
command -v dpkg >/dev/null && command -v dpkg-deb >/dev/null && command -v cpack >/dev/null ||
    { echo "skip: dpkg, dpkg-deb or cpack not found"; exit 77; }
[ "$mode" = extract ] || [ "$(id -u)" = 0 ] || { echo "skip: dpkg -i needs root"; exit 77; }

tmp=$(mktemp -d)
installed=0
cleanup() {
    if [ $installed = 1 ] && dpkg-query -W gensvd >/dev/null 2>&1; then
        dpkg_locked -P gensvd >/dev/null 2>&1 || echo "cleanup: dpkg -P gensvd failed" >&2
    fi
    [ $installed = 1 ] && rm -f "$marker"
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# dpkg ARGS, retried for up to 2 minutes while another dpkg or apt holds the lock
dpkg_locked() {
    local out rc i
    for i in $(seq 60); do
        out=$(dpkg "$@" 2>&1)
        rc=$?
        grep -q "dpkg frontend lock\|dpkg status database is locked" <<<"$out" || break
        sleep 2
    done
    printf '%s\n' "$out"
    return $rc
}

# ---- build the package ------------------------------------------------------------------------
arch=$(dpkg --print-architecture)
version=$("$build/cli/gensvd" --version | sed -n '1s/^gensvd //p')
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1 ||
    { cat "$tmp/cpack.log"; echo "FAIL cpack -G DEB"; exit 1; }
deb=$tmp/pkg/gensvd_${version}_${arch}.deb
check "package named gensvd_${version}_${arch}.deb" test -f "$deb"
[ -f "$deb" ] || { ls "$tmp/pkg"; report; exit 1; }
cmds=$("$build/cli/gensvd" --help | sed -n 's/^  \([a-z][a-z0-9-]*\)  *[^-].*$/\1/p')

# offers FILE WANT WORD...: the bash completion in FILE offers WANT after `gensvd WORD...`
# (the last word is the one being completed)
offers() {
    local file=$1 want=$2
    shift 2
    bash -c '. "$1"; shift; COMP_WORDS=(gensvd "$@"); COMP_CWORD=$#; _gensvd
             printf "%s\n" "${COMPREPLY[@]}"' _ "$file" "$@" | grep -qx -- "$want"
}
# the values `gensvd pca --method` accepts, from the parser's own error message
methods=$("$build/cli/gensvd" pca --method __bogus__ "$tmp/none.zarr" 2>&1 |
    sed -n "s/^gensvd pca: error: invalid --method '__bogus__' (\(.*\))\$/\1/p" | sed 's/, / /g')

# libgensvd0 and libgensvd-dev: names, sections, files, dependencies; an example built with
# pkg-config against the extracted files, and run on the simulated store
library_debs() {
    local lib=$tmp/pkg/libgensvd0_${version}_${arch}.deb dev=$tmp/pkg/libgensvd-dev_${version}_${arch}.deb
    local major libfiles devfiles lroot=$tmp/libroot
    major=${version%%.*}
    check "package libgensvd0_${version}_${arch}.deb" test -f "$lib"
    check "package libgensvd-dev_${version}_${arch}.deb" test -f "$dev"
    [ -f "$lib" ] && [ -f "$dev" ] || return
    check "libgensvd0: Section libs" test "$(dpkg-deb -f "$lib" Section)" = libs
    check "libgensvd-dev: Section libdevel" test "$(dpkg-deb -f "$dev" Section)" = libdevel
    check "libgensvd-dev depends on libgensvd0 (= $version)" \
        test "$(dpkg-deb -f "$dev" Depends)" = "libgensvd0 (= $version)"
    check "libgensvd0 depends on the libraries it links (libopenblas0, libblosc1)" bash -c \
        'grep -q libopenblas <<<"$1" && grep -q libblosc1 <<<"$1"' _ "$(dpkg-deb -f "$lib" Depends)"
    check "libgensvd0: shlibs names libgensvd $major" bash -c \
        'dpkg-deb --ctrl-tarfile "$1" | tar -xO ./shlibs | grep -q "^libgensvd $2 libgensvd0 "' \
        _ "$lib" "$major"
    libfiles=$(dpkg-deb -c "$lib" | awk '{print $6}' | sed 's|^\./|/|')
    devfiles=$(dpkg-deb -c "$dev" | awk '{print $6}' | sed 's|^\./|/|')
    check "libgensvd0 ships libgensvd.so.$major and the real name, no link" bash -c \
        'grep -q "/libgensvd\.so\.$2$" <<<"$1" && grep -q "/libgensvd\.so\.$3$" <<<"$1" &&
         ! grep -q "/libgensvd\.so$" <<<"$1"' _ "$libfiles" "$major" "$version"
    for f in /usr/include/gensvd.h libgensvd.so libgensvd.a pkgconfig/gensvd.pc; do
        check "libgensvd-dev ships $f" grep -q -- "$f\$" <<<"$devfiles"
    done
    dpkg-deb -x "$lib" "$lroot"
    dpkg-deb -x "$dev" "$lroot"
    local pc libdir
    pc=$(find "$lroot" -name gensvd.pc | head -1)
    libdir=$(dirname "$(find "$lroot" -name 'libgensvd.so.*' | head -1)")
    if command -v cc >/dev/null && command -v pkg-config >/dev/null && [ -n "$pc" ]; then
        check "an example builds against the packages (pkg-config)" bash -c \
            'cc -std=c11 -o "$3/pca_store" "$2/examples/pca_store.c" \
                $(PKG_CONFIG_PATH=$(dirname "$1") pkg-config --cflags --libs gensvd)' \
            _ "$pc" "$src" "$tmp"
        check "and runs on the library of the package" bash -c \
            'LD_LIBRARY_PATH=$1 "$2/pca_store" "$2/sim.zarr" "$2/pcs-lib.zarr" 2 >/dev/null &&
             test -d "$2/pcs-lib.zarr" && LD_LIBRARY_PATH=$1 ldd "$2/pca_store" | grep -q "$1/libgensvd.so.0"' \
            _ "$libdir" "$tmp"
    fi
}

if [ "$mode" = extract ]; then
    info=$(dpkg-deb -I "$deb")
    field() { sed -n "s/^ $1: //p" <<<"$info"; }
    check "Package: gensvd" test "$(field Package)" = gensvd
    check "Version: $version" test "$(field Version)" = "$version"
    check "Architecture: $arch" test "$(field Architecture)" = "$arch"
    check "Section: science" test "$(field Section)" = science
    check "Description" bash -c 'grep -q "^ Description: ..*" <<<"$1" &&
        grep -q "^  gensvd runs principal component analysis" <<<"$1"' _ "$info"
    depends=$(field Depends)
    check "Depends is not empty" test -n "$depends"

    files=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|')
    has() { grep -qx -- "$1" <<<"$files"; }
    check "ships /usr/bin/gensvd" has /usr/bin/gensvd
    for c in "" $cmds; do
        check "ships man page gensvd${c:+-$c}.1.gz" has "/usr/share/man/man1/gensvd${c:+-$c}.1.gz"
    done
    check "ships bash completion" has /usr/share/bash-completion/completions/gensvd
    check "ships zsh completion in vendor-completions" has /usr/share/zsh/vendor-completions/_gensvd
    check "ships changelog.gz" has /usr/share/doc/gensvd/changelog.gz
    check "nothing outside /usr" bash -c '! grep -v "^/usr/\|^/$" <<<"$1"' _ "$files"
    check "no uncompressed man page, no site-functions" bash -c \
        '! grep -q "\.1$\|site-functions\|/usr/local" <<<"$1"' _ "$files"

    root=$tmp/root
    dpkg-deb -x "$deb" "$root"
    bin=$root/usr/bin/gensvd
    check "extracted gensvd --version" test "$("$bin" --version | head -1)" = "gensvd $version"
    # Depends against the libraries: each NEEDED entry's file (ldd), its package (dpkg -S) must
    # be in Depends, or a name it Provides, or a metapackage in Depends that depends on it
    if command -v readelf >/dev/null && command -v dpkg >/dev/null; then
        dep_names=" $(sed 's/ ([^)]*)//g; s/|/,/g; s/,/ /g' <<<"$depends" | xargs) "
        for lib in $(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
            # "lib => /path (addr)"; the dynamic loader is listed as "/path/lib (addr)"
            path=$(ldd "$bin" | awk -v l="$lib" '$1 == l && $3 ~ /^\// {print $3; exit}
                {n = split($1, a, "/"); if (n > 1 && a[n] == l) {print $1; exit}}')
            owner=""
            for p in "$path" "$(readlink -f "$path")" "${path#/usr}" "/usr$path"; do
                [ -n "$path" ] || break # never dpkg -S "" (it matches every package)
                owner=$(dpkg -S "$p" 2>/dev/null | head -1 | sed 's/:.*//; s/,.*//') && [ -n "$owner" ] && break
            done
            ok=0
            if [ -n "$owner" ]; then
                names="$owner $(dpkg-query -W -f='${Provides}' "$owner" 2>/dev/null |
                    sed 's/ ([^)]*)//g; s/,/ /g')"
                for nm in $names; do
                    [[ "$dep_names" == *" ${nm%:*} "* ]] && ok=1
                done
                for d in $dep_names; do # a metapackage (libopenblas0) that depends on it
                    dpkg-query -W -f='${Depends}' "$d" 2>/dev/null | tr ',|' '\n\n' |
                        sed 's/ *(.*//; s/^ *//; s/ *$//; s/:.*//' | grep -qx -- "$owner" && ok=1
                done
            fi
            check "Depends covers $lib (${owner:-no package})" test $ok = 1
        done
    fi
    # man pages compressed as policy 12.1 asks: gzip, no file name, no time stamp (gzip -9n)
    for page in "$root"/usr/share/man/man1/*.gz; do
        hdr=$(od -An -tu1 -N8 "$page" | xargs)
        check "$(basename "$page") is gzip -n" bash -c \
            'set -- $1; [ "$1 $2" = "31 139" ] && [ $(($4 & 8)) = 0 ] && [ "$5$6$7$8" = 0000 ]' _ "$hdr"
    done
    check "man -w gensvd-pca (extracted)" test "$(MANPATH=$root/usr/share/man man -w gensvd-pca 2>/dev/null)" = \
        "$root/usr/share/man/man1/gensvd-pca.1.gz"
    check "man renders gensvd-pca.1.gz" bash -c \
        'MANWIDTH=100 man -l "$1" 2>/dev/null | grep -q -- --method' _ "$root/usr/share/man/man1/gensvd-pca.1.gz"
    comp=$root/usr/share/bash-completion/completions/gensvd
    check "completion: pca --me offers --method" offers "$comp" --method pca --me
    check "extracted gensvd runs simulate + pca" bash -c \
        '"$1" simulate -q -n 30 -m 400 "$2/sim.zarr" && "$1" pca -q -k 2 "$2/sim.zarr" -o "$2/pcs.zarr" &&
         test -d "$2/pcs.zarr"' _ "$bin" "$tmp"
    library_debs
    report
    exit
fi

# ---- dpkg -i / -r as root -------------------------------------------------------------------------
if dpkg-query -W -f='${Status}' gensvd 2>/dev/null | grep -q "installed\|half\|unpacked\|config"; then
    if [ -f "$marker" ]; then
        echo "note: removing the gensvd package a killed run of this test left"
        dpkg_locked -P gensvd >/dev/null || { echo "FAIL dpkg -P of the leftover package"; exit 1; }
        rm -f "$marker"
    else
        echo "skip: a gensvd package is installed ($(dpkg-query -W -f='${Version}' gensvd)); not replacing it"
        exit 77
    fi
fi
if [ -e /usr/bin/gensvd ]; then
    echo "skip: /usr/bin/gensvd exists and belongs to no package; not overwriting it"
    exit 77
fi
: >"$marker"
installed=1
# --path-include: install the man pages even where dpkg.cfg.d excludes /usr/share/man (containers)
out=$(dpkg_locked -i --path-include='/usr/share/man/man1/gensvd*' "$deb")
check "dpkg -i" test "$(dpkg-query -W -f='${Status}' gensvd 2>/dev/null)" = "install ok installed"
[ "$(dpkg-query -W -f='${Status}' gensvd 2>/dev/null)" = "install ok installed" ] ||
    { printf '%s\n' "$out"; report; exit 1; }
check "/usr/bin/gensvd --version" test "$(/usr/bin/gensvd --version | head -1)" = "gensvd $version"
check "gensvd on PATH is /usr/bin/gensvd" test "$(PATH=/usr/bin:/bin command -v gensvd)" = /usr/bin/gensvd
check "man -w gensvd" test "$(env -u MANPATH man -w gensvd 2>/dev/null)" = /usr/share/man/man1/gensvd.1.gz
check "man -w gensvd-pca" test "$(env -u MANPATH man -w gensvd-pca 2>/dev/null)" = \
    /usr/share/man/man1/gensvd-pca.1.gz
comp=/usr/share/bash-completion/completions/gensvd
check "installed completion: pca --me offers --method" offers "$comp" --method pca --me
check "method values known" test -n "$methods"
for m in $methods; do
    check "installed completion: pca --method offers $m" offers "$comp" "$m" pca --method ""
done
if command -v zsh >/dev/null; then # Debian's zsh has vendor-completions in its default fpath
    check "zsh finds the installed completion" zsh -f -c 'autoload -U compinit; compinit -u -D
        [[ $_comps[gensvd] == _gensvd ]]'
fi
listed=$(dpkg-query -L gensvd)
dpkg_locked -r gensvd >"$tmp/remove.log" 2>&1
check "dpkg -r" bash -c '! dpkg-query -W -f="\${Status}" gensvd 2>/dev/null | grep -q "ok installed"'
left=""
while IFS= read -r f; do
    [ -d "$f" ] || { [ -e "$f" ] && left="$left $f"; }
done <<<"$listed"
check "every file of the package is gone${left:+ (left:$left)}" test -z "$left"
check "/usr/bin/gensvd is gone" test ! -e /usr/bin/gensvd
dpkg_locked -P gensvd >/dev/null 2>&1
check "purged" bash -c '! dpkg-query -W gensvd >/dev/null 2>&1 ||
    test "$(dpkg-query -W -f="\${Status}" gensvd)" = "unknown ok not-installed"'
rm -f "$marker"
installed=0
report
