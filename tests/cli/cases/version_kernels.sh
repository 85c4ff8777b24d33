# --version's "cpu kernels:" line against the CPU flags the Linux kernel reports (an oracle
# apart from gensvd's own CPUID probe): the i8 Gram runs on AMX int8 tiles where the kernel
# lists them (AVX-512 VNNI instead when the OS withholds the tiles), on AVX-512 VNNI where
# it lists vnni and the AVX-512 subsets the packing needs, and nowhere else; the AMX kernels
# (gram amx, pass i8) only where it lists the AMX tiles.
v=$("$GENSVD" --version | grep '^cpu kernels: ')
flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
has() { for f in "$@"; do case $flags in *" $f "*) ;; *) return 1 ;; esac; done; }
vnni() { has avx512f avx512bw avx512vl avx512dq avx512vbmi avx512_vnni; }
case $v in
"cpu kernels: gram i8 on AMX int8 tiles, "*)
    has amx_tile amx_int8 && echo "the i8 engine fits the flags" || echo "AMX without the flags: $v" ;;
"cpu kernels: gram i8 on AVX-512 VNNI, "*)
    vnni && echo "the i8 engine fits the flags" || echo "VNNI without the flags: $v" ;;
"cpu kernels: gram i8: no, "*)
    ! vnni && echo "the i8 engine fits the flags" || echo "no engine although the CPU lists VNNI: $v" ;;
*) echo "unexpected line: $v" ;;
esac
case $v in
*", gram amx: yes, pass i8: "*) has amx_tile amx_bf16 && echo "amx fits" || echo "amx without the flags" ;;
*", gram amx: no, pass i8: "*) echo "amx fits" ;;
*) echo "no amx field: $v" ;;
esac
case $v in
*", pass i8: yes") has amx_tile amx_int8 && echo "pass i8 fits" || echo "pass i8 without the flags" ;;
*", pass i8: no") echo "pass i8 fits" ;;
*) echo "no pass i8 field: $v" ;;
esac
