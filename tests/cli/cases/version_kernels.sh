# --version's "cpu kernels:" line against the CPU flags the Linux kernel reports (an oracle
# apart from gensvd's own CPUID probe): the i8 Gram runs on AMX int8 tiles where the kernel
# lists them (AVX-512 VNNI instead when the OS withholds the tiles), on AVX-512 VNNI where
# it lists vnni and the AVX-512 subsets the packing needs, on AVX2 where it lists AVX2, FMA,
# BMI1, BMI2 and POPCNT, and nowhere else; the AMX kernels (gram amx, pass i8) only where it
# lists the AMX tiles; the float32 pass on the AVX2 engine where AVX2 runs and AVX-512F does
# not or the CPU is an AMD family 25 (Zen 4 runs 512-bit vectors as two halves), else on
# OpenBLAS; pdist's and ldprune's popcounts on AVX-512 VPOPCNTDQ where listed, else
# on AVX2, else POPCNT, else portable code.  The same again with GENSVD_CPU_LEVEL=avx2 (the
# flags above AVX2 ignored) and =base (nothing above the portable code: not POPCNT either).
flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
halved() { # AMD family 25 (0x19)
    grep -q -m1 '^vendor_id.*AuthenticAMD' /proc/cpuinfo &&
        [ "$(grep -m1 '^cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')" = 25 ]
}
check() { # LEVEL: the line under GENSVD_CPU_LEVEL=LEVEL (amx: uncapped)
    level=$1
    v=$(GENSVD_CPU_LEVEL=$level "$GENSVD" --version | grep '^cpu kernels: ')
    has() {
        for f in "$@"; do
            case $f in
            avx2 | fma | bmi1 | bmi2 | popcnt) [ "$level" = base ] && return 1 ;;
            avx512* | amx*) [ "$level" = amx ] || return 1 ;;
            esac
            case $flags in *" $f "*) ;; *) return 1 ;; esac
        done
    }
    vnni() { has avx512f avx512bw avx512vl avx512dq avx512vbmi avx512_vnni; }
    avx2() { has avx2 fma bmi1 bmi2 popcnt; }
    case $v in
    "cpu kernels: gram i8 on AMX int8 tiles, "*)
        has amx_tile amx_int8 && echo "$level: the i8 engine fits the flags" || echo "$level: AMX without the flags: $v" ;;
    "cpu kernels: gram i8 on AVX-512 VNNI, "*)
        vnni && echo "$level: the i8 engine fits the flags" || echo "$level: VNNI without the flags: $v" ;;
    "cpu kernels: gram i8 on AVX2, "*)
        ! vnni && avx2 && echo "$level: the i8 engine fits the flags" || echo "$level: AVX2 engine against the flags: $v" ;;
    "cpu kernels: gram i8: no, "*)
        ! vnni && ! avx2 && echo "$level: the i8 engine fits the flags" || echo "$level: no engine although the CPU lists one: $v" ;;
    *) echo "$level: unexpected line: $v" ;;
    esac
    case $v in
    *", gram amx: yes, pass i8: "*) has amx_tile amx_bf16 && echo "$level: amx fits" || echo "$level: amx without the flags" ;;
    *", gram amx: no, pass i8: "*) echo "$level: amx fits" ;;
    *) echo "$level: no amx field: $v" ;;
    esac
    case $v in
    *", pass i8: yes, "*) has amx_tile amx_int8 && echo "$level: pass i8 fits" || echo "$level: pass i8 without the flags" ;;
    *", pass i8: no, "*) echo "$level: pass i8 fits" ;;
    *) echo "$level: no pass i8 field: $v" ;;
    esac
    case $v in
    *", pass f32 on AVX2, "*) avx2 && { ! has avx512f || halved; } && echo "$level: pass f32 fits" || echo "$level: pass f32 on AVX2 against the flags" ;;
    *", pass f32 on OpenBLAS, "*) ! avx2 || { has avx512f && ! halved; } && echo "$level: pass f32 fits" || echo "$level: pass f32 on OpenBLAS although AVX2 runs" ;;
    *) echo "$level: no pass f32 field: $v" ;;
    esac
    for what in pdist ldprune; do
        case $v in
        *", $what popcounts on AVX-512 VPOPCNTDQ"*) has avx512f avx512_vpopcntdq && echo "$level: $what fits" || echo "$level: $what VPOPCNTDQ without the flags" ;;
        *", $what popcounts on AVX2"*) ! has avx512f avx512_vpopcntdq && avx2 && echo "$level: $what fits" || echo "$level: $what AVX2 against the flags" ;;
        *", $what popcounts on POPCNT"*) ! avx2 && has popcnt && echo "$level: $what fits" || echo "$level: $what POPCNT against the flags" ;;
        *", $what popcounts on portable code"*) ! has popcnt && echo "$level: $what fits" || echo "$level: $what portable code although POPCNT runs" ;;
        *) echo "$level: no $what field: $v" ;;
        esac
    done
}
check amx
check avx2
check base
