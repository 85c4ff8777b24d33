/* analysis/cpu/kernels/gram_amx.c - AMX bf16 tiles of the Gram (see the header).  Only this file is
 * compiled with -mamx-tile -mamx-bf16 (CMake, where the compiler accepts them); the intrinsics
 * run only after gsvd_amx_usable() said yes. */
#define _GNU_SOURCE /* syscall */
#include "gsvd_config.h"

#include "analysis/cpu/kernels/gram_amx.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/cpu.h"
#include "common/err.h"

#if GSVD_HAVE_AMX
#include <cpuid.h>
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

struct gsvd_amx_pack {
    size_t rows, n; /* the block: rows x n */
    size_t kp, np;  /* rows and samples padded to multiples of 32 */
    /* Both operands are stored so that every tile load reads 1 KiB in one piece (64-byte rows
     * one after the other; a large row stride makes the 16 rows of a tile fight over one L1
     * set).  For row k = 32 u + r and sample s = 16 b + c:
     *   A, sample-major:  ah[(u np + s) 32 + r]                       = hi(z[k][s])
     *   B, VNNI pairs:    bh[((u np/16 + b) 16 + r/2) 32 + 2 c + r%2]  = hi(z[k][s])
     * and al, bl the same for lo. */
    uint16_t *ah, *al, *bh, *bl;
    size_t cap; /* elements allocated in each of the four arrays */
};

int gsvd_amx_pack_new(gsvd_amx_pack **out)
{
    *out = gsvd_calloc(1, sizeof **out);
    return *out ? GSVD_OK : GSVD_ENOMEM;
}

void gsvd_amx_pack_free(gsvd_amx_pack *p)
{
    if (!p)
        return;
    gsvd_free(p->ah);
    gsvd_free(p->al);
    gsvd_free(p->bh);
    gsvd_free(p->bl);
    gsvd_free(p);
}

static size_t round32(size_t x)
{
    return (x + 31) / 32 * 32;
}

int gsvd_amx_pack_reserve(gsvd_amx_pack *p, size_t rows, size_t n)
{
    size_t kp = round32(rows), np = round32(n), cells;
    uint16_t **arr[4] = {&p->ah, &p->al, &p->bh, &p->bl};

    if (kp < rows || np < n || gsvd_mul_size(kp, np, &cells) < 0 ||
        cells > SIZE_MAX / sizeof(uint16_t))
        return GSVD_EINVAL;
    if (cells > p->cap) {
        for (int i = 0; i < 4; i++) {
            gsvd_free(*arr[i]);
            *arr[i] = NULL;
        }
        p->cap = 0;
        for (int i = 0; i < 4; i++) {
            *arr[i] = gsvd_malloc(cells * sizeof(uint16_t));
            if (!*arr[i])
                return GSVD_ENOMEM;
        }
        p->cap = cells;
    }
    p->rows = rows;
    p->n = n;
    p->kp = kp;
    p->np = np;
    return GSVD_OK;
}

size_t gsvd_amx_pack_units(const gsvd_amx_pack *p)
{
    return p->kp / GSVD_AMX_KBLK;
}

#if GSVD_HAVE_AMX

#define ARCH_REQ_XCOMP_PERM 0x1023
#define XFEATURE_XTILEDATA 18
#define XCR0_NEEDED 0x600e6u /* SSE, AVX, opmask, ZMM halves, XTILECFG, XTILEDATA */

/* bf16 of 16 float32 lanes, round to nearest even (finite values), in the low 16 bits. */
__attribute__((target("avx512f"))) static __m512i bf16_rne16(__m512i u)
{
    __m512i odd = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
    return _mm512_srli_epi32(_mm512_add_epi32(u, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7fff))),
                             16);
}

/* Rows k0 + 2q, k0 + 2q + 1 of 16 samples as 16 VNNI pairs (even row low) of hi and lo. */
__attribute__((target("avx512f"))) static void pair_row(const gsvd_amx_pack *p, const float *z,
                                                        size_t k, size_t s0, __mmask16 m,
                                                        __m512i *hi, __m512i *lo)
{
    __m512i h[2], l[2];
    for (int e = 0; e < 2; e++) {
        __m512 v = k + e < p->rows ? _mm512_maskz_loadu_ps(m, z + (k + e) * p->n + s0)
                                   : _mm512_setzero_ps();
        h[e] = bf16_rne16(_mm512_castps_si512(v));
        /* z - hi is exact in float32 */
        __m512 r = _mm512_sub_ps(v, _mm512_castsi512_ps(_mm512_slli_epi32(h[e], 16)));
        l[e] = bf16_rne16(_mm512_castps_si512(r));
    }
    *hi = _mm512_or_si512(h[0], _mm512_slli_epi32(h[1], 16));
    *lo = _mm512_or_si512(l[0], _mm512_slli_epi32(l[1], 16));
}

/* Unit u, samples [16 b, 16 b + 16): the B tile rows are the pairs as computed (16 dwords per
 * row pair); the A rows are their transpose (sample c's row: pair q = dword c of B row q). */
__attribute__((target("avx512f"))) void gsvd_amx_pack_rows(gsvd_amx_pack *p, const float *z,
                                                           size_t u)
{
    const __m512i idx =
        _mm512_setr_epi32(0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240);
    size_t np = p->np;

    for (size_t b = 0; b < np / 16; b++) {
        size_t s0 = 16 * b, valid = p->n > s0 ? p->n - s0 : 0;
        __mmask16 m = (__mmask16)(valid >= 16 ? 0xffffu : (1u << valid) - 1u);
        uint32_t *bh = (uint32_t *)(p->bh + (u * np / 16 + b) * 16 * 32);
        uint32_t *bl = (uint32_t *)(p->bl + (u * np / 16 + b) * 16 * 32);
        for (size_t q = 0; q < 16; q++) {
            __m512i hi, lo;
            pair_row(p, z, u * GSVD_AMX_KBLK + 2 * q, s0, m, &hi, &lo);
            _mm512_storeu_si512(bh + 16 * q, hi);
            _mm512_storeu_si512(bl + 16 * q, lo);
        }
        for (size_t c = 0; c < 16; c++) { /* the B tiles were just written: L1 */
            __m512i ci = _mm512_add_epi32(idx, _mm512_set1_epi32((int)c));
            _mm512_storeu_si512(p->ah + (u * np + s0 + c) * 32, _mm512_i32gather_epi32(ci, bh, 4));
            _mm512_storeu_si512(p->al + (u * np + s0 + c) * 32, _mm512_i32gather_epi32(ci, bl, 4));
        }
    }
}

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static int probe_ok, probe_i8_ok;
static char probe_why[128], probe_i8_why[128];

static uint64_t read_xcr0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

/* Both kernels' answers: they share the tile state and differ in the product and the packing
 * instructions (bf16: amx-bf16, AVX-512F; int8: amx-int8, AVX-512F, BW, VL, DQ, VBMI, VBMI2
 * and POPCNT: the Gram's and the pass's int8 kernels share the answer). */
static void probe(void)
{
    unsigned a, b, c, d, c1 = 0;
    const char *why = NULL, *why_i8 = NULL;

    if (!gsvd_cpu_allows(GSVD_CPU_AMX))
        why = "GENSVD_CPU_LEVEL caps the kernels below AMX";
    else if (!__get_cpuid(1, &a, &b, &c1, &d) || !(c1 & (1u << 27)))
        why = "the CPU or OS has no XSAVE (OSXSAVE clear)";
    else if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(d & (1u << 24)))
        why = "the CPU has no AMX tiles (CPUID leaf 7: amx-tile)";
    else if (!(b & (1u << 16)))
        why = "the CPU has no AVX-512F (CPUID leaf 7), which packs the tiles";
    else if ((read_xcr0() & XCR0_NEEDED) != XCR0_NEEDED)
        why = "the OS does not enable the AVX-512 and AMX tile states (XCR0)";
    else if (syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) != 0)
        why = "the kernel refused the AMX tile data permission (arch_prctl)";
    if (why) {
        why_i8 = why;
    } else {
        if (!(d & (1u << 22)))
            why = "the CPU has no AMX bf16 products (CPUID leaf 7: amx-bf16)";
        if (!(d & (1u << 25)))
            why_i8 = "the CPU has no AMX int8 products (CPUID leaf 7: amx-int8)";
        else if (!(b & (1u << 30)) || !(b & (1u << 31)) || !(b & (1u << 17)) || !(c & (1u << 1)) ||
                 !(c & (1u << 6)))
            why_i8 = "the CPU has no AVX-512BW, VL, DQ, VBMI and VBMI2 (CPUID leaf 7), which pack "
                     "the tiles";
        else if (!(c1 & (1u << 23))) /* the pass counts missing calls with it (pass_i8.c) */
            why_i8 = "the CPU has no POPCNT (CPUID leaf 1)";
    }
    probe_ok = why == NULL;
    probe_i8_ok = why_i8 == NULL;
    snprintf(probe_why, sizeof probe_why, "%s", why ? why : "");
    snprintf(probe_i8_why, sizeof probe_i8_why, "%s", why_i8 ? why_i8 : "");
}

int gsvd_amx_usable(char *why, size_t why_len)
{
    pthread_once(&probe_once, probe);
    if (why && why_len)
        snprintf(why, why_len, "%s", probe_why);
    return probe_ok;
}

int gsvd_amx_int8_usable(char *why, size_t why_len)
{
    pthread_once(&probe_once, probe);
    if (why && why_len)
        snprintf(why, why_len, "%s", probe_i8_why);
    return probe_i8_ok;
}

/* The tile configuration (palette 1): tmm0..3 the 2x2 float32 accumulators (16 x 16), tmm4, 5
 * two A tiles (16 samples x 32 variants), tmm6, 7 two B tiles (16 variant pairs x 16 samples
 * x 2); each row is 64 bytes. */
struct tile_config {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
};

void gsvd_amx_tiles_configure(void)
{
    struct tile_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.palette = 1;
    for (int t = 0; t < 8; t++) {
        cfg.rows[t] = 16;
        cfg.colsb[t] = 64;
    }
    /* GCC 12 does not treat ldtilecfg as reading its operand and drops the stores above once
     * this function is not inlined: make them visible */
    __asm__ volatile("" : : "r"(&cfg) : "memory");
    _tile_loadconfig(&cfg);
}

#define KB 256 /* rows per pass over the tile: A and B panels (2 x 256 KiB) stay in L2 */

/* One 32 x 32 block of C over rows [k, k + kl): hh, hl and lh products into tmm0..3. */
static void block_rows(const gsvd_amx_pack *p, size_t si, size_t sj, size_t k, size_t kl)
{
    const size_t st = 64; /* bytes between tile rows: every tile is 1 KiB in one piece */
    for (size_t u = k / 32; u < (k + kl) / 32; u++) {
        size_t a0 = (u * p->np + si) * 32, b0 = (u * p->np / 16 + sj / 16) * 16 * 32;
        const uint16_t *ah = p->ah + a0, *al = p->al + a0, *bh = p->bh + b0, *bl = p->bl + b0;
        _tile_loadd(4, ah, st);
        _tile_loadd(5, ah + 16 * 32, st);
        _tile_loadd(6, bh, st);
        _tile_loadd(7, bh + 16 * 32, st);
        _tile_dpbf16ps(0, 4, 6);
        _tile_dpbf16ps(1, 4, 7);
        _tile_dpbf16ps(2, 5, 6);
        _tile_dpbf16ps(3, 5, 7);
        _tile_loadd(6, bl, st);
        _tile_loadd(7, bl + 16 * 32, st);
        _tile_dpbf16ps(0, 4, 6);
        _tile_dpbf16ps(1, 4, 7);
        _tile_dpbf16ps(2, 5, 6);
        _tile_dpbf16ps(3, 5, 7);
        _tile_loadd(4, al, st);
        _tile_loadd(5, al + 16 * 32, st);
        _tile_loadd(6, bh, st);
        _tile_loadd(7, bh + 16 * 32, st);
        _tile_dpbf16ps(0, 4, 6);
        _tile_dpbf16ps(1, 4, 7);
        _tile_dpbf16ps(2, 5, 6);
        /* no lo x lo: 4/3 the time for half the error (docs/dev/decisions.md) */
        _tile_dpbf16ps(3, 5, 7);
    }
}

void gsvd_amx_gram_tile(const gsvd_amx_pack *p, size_t i0, size_t j0, size_t wi, size_t wj,
                        float *c)
{
    const size_t ldc = GSVD_AMX_TILE * sizeof(float); /* bytes */
    size_t mi = round32(wi), mj = round32(wj);

    gsvd_amx_tiles_configure();
    for (size_t k = 0; k < p->kp; k += KB) {
        size_t kl = p->kp - k < KB ? p->kp - k : KB;
        for (size_t bi = 0; bi < mi; bi += 32)
            for (size_t bj = 0; bj < mj; bj += 32) {
                float *c0 = c + bi * GSVD_AMX_TILE + bj, *c2 = c0 + 16 * GSVD_AMX_TILE;
                if (k == 0) {
                    _tile_zero(0);
                    _tile_zero(1);
                    _tile_zero(2);
                    _tile_zero(3);
                } else { /* float32 through memory: exact, the same sums as in registers */
                    _tile_loadd(0, c0, ldc);
                    _tile_loadd(1, c0 + 16, ldc);
                    _tile_loadd(2, c2, ldc);
                    _tile_loadd(3, c2 + 16, ldc);
                }
                block_rows(p, i0 + bi, j0 + bj, k, kl);
                _tile_stored(0, c0, ldc);
                _tile_stored(1, c0 + 16, ldc);
                _tile_stored(2, c2, ldc);
                _tile_stored(3, c2 + 16, ldc);
            }
    }
    _tile_release();
}

#else /* !GSVD_HAVE_AMX */

void gsvd_amx_pack_rows(gsvd_amx_pack *p, const float *z, size_t u)
{
    (void)p;
    (void)z;
    (void)u; /* never called: gsvd_amx_usable() said no */
}

int gsvd_amx_usable(char *why, size_t why_len)
{
    if (why && why_len)
        snprintf(why, why_len, "%s", "built without AMX (the compiler lacks -mamx-bf16)");
    return 0;
}

int gsvd_amx_int8_usable(char *why, size_t why_len)
{
    if (why && why_len)
        snprintf(why, why_len, "%s", "built without AMX (the compiler lacks -mamx-int8)");
    return 0;
}

void gsvd_amx_tiles_configure(void)
{
    /* never called: gsvd_amx_usable() said no */
}

void gsvd_amx_gram_tile(const gsvd_amx_pack *p, size_t i0, size_t j0, size_t wi, size_t wj,
                        float *c)
{
    (void)p;
    (void)i0;
    (void)j0;
    (void)wi;
    (void)wj;
    (void)c; /* never called: gsvd_amx_usable() said no */
}

#endif
