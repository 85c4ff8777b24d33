/* analysis/pdist/pdist_bitplane_pack.c - the bit-plane kernel's packing: a stripe of genotypes
 * into the current segment's planes C, A and B or P (pdist_bitplane_internal.h).  Variant-major
 * int8 rows go 64 x 64 at a time: byte compares into row masks (SSE2, AVX2 or AVX-512BW), then
 * a 64 x 64 bit transpose into per-item words (scalar, AVX2 delta swaps, or GFNI + VBMI); groups
 * of 64 items are shared between threads, each item's words written by one.  Any other layout
 * is packed value by value. */
#include "gsvd_config.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "analysis/pdist/pdist_bitplane_internal.h"
#include "common/err.h"
#include "common/parallel.h"

/* a[t] bit i -> a[i] bit t (64 x 64 bit matrix transpose, in place). */
static void transpose64(uint64_t a[64])
{
    uint64_t m = 0x00000000FFFFFFFFull;
    for (unsigned j = 32; j != 0; j >>= 1, m ^= m << j)
        for (unsigned k = 0; k < 64; k = ((k | j) + 1) & ~j) {
            uint64_t t = ((a[k] >> j) ^ a[k | j]) & m;
            a[k | j] ^= t;
            a[k] ^= t << j;
        }
}

/* Bit i of each mask: value i of the 64 in g is >= 0, >= 1, >= 2, > 2. */
static void row_masks(const int8_t *g, uint64_t *c, uint64_t *a, uint64_t *b, uint64_t *bad)
{
#if PD_X86
    const __m128i m1 = _mm_set1_epi8(-1), z = _mm_setzero_si128(), one = _mm_set1_epi8(1),
                  two = _mm_set1_epi8(2);
    uint64_t mc = 0, ma = 0, mb = 0, mx = 0;
    for (int q = 0; q < 4; q++) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(g + 16 * q));
        mc |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpgt_epi8(x, m1)) << (16 * q);
        ma |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpgt_epi8(x, z)) << (16 * q);
        mb |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpgt_epi8(x, one)) << (16 * q);
        mx |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpgt_epi8(x, two)) << (16 * q);
    }
    *c = mc;
    *a = ma;
    *b = mb;
    *bad |= mx;
#else
    uint64_t mc = 0, ma = 0, mb = 0, mx = 0;
    for (int i = 0; i < 64; i++) {
        mc |= (uint64_t)(g[i] >= 0) << i;
        ma |= (uint64_t)(g[i] >= 1) << i;
        mb |= (uint64_t)(g[i] >= 2) << i;
        mx |= (uint64_t)(g[i] > 2) << i;
    }
    *c = mc;
    *a = ma;
    *b = mb;
    *bad |= mx;
#endif
}

struct pack_job {
    struct bp *b;
    const int8_t *v;
    size_t n, nf, pos, nt;
    uint64_t *called; /* not NULL: add each item's called values */
    atomic_int bad;
    atomic_int missing; /* some value was missing */
};

typedef void (*row_masks_fn)(const int8_t *g, uint64_t *c, uint64_t *a, uint64_t *b, uint64_t *bad);
typedef void (*transpose_fn)(uint64_t a[64]);

/* Variant-major int8 rows: the job's features into the planes of 64-sample groups t, t + T,
 * ...: 64 rows x 64 samples at a time become row masks, transposed into per-sample words. */
static inline __attribute__((always_inline)) int
pack_body(void *ctx, size_t t, const row_masks_fn masks, const transpose_fn transpose)
{
    struct pack_job *j = ctx;
    struct bp *b = j->b;
    size_t W = b->W, stride = 3 * W, n = j->n, nf = j->nf, pos = j->pos;
    uint64_t *pl = b->cur.planes, bad = 0, miss = 0;
    int8_t pad[64];

    for (size_t i0 = 64 * t; i0 < n; i0 += 64 * j->nt) {
        size_t ni = n - i0 < 64 ? n - i0 : 64;
        uint64_t items = ni < 64 ? (1ull << ni) - 1 : ~0ull;
        for (size_t f = 0; f < nf;) {
            size_t bit = (pos + f) & 63, w = (pos + f) >> 6;
            size_t k = 64 - bit < nf - f ? 64 - bit : nf - f;
            uint64_t C[64], A[64], B[64];
            for (size_t r = 0; r < k; r++) {
                const int8_t *row = j->v + (f + r) * n + i0;
                if (ni < 64) {
                    memset(pad, -1, sizeof pad);
                    memcpy(pad, row, ni);
                    row = pad;
                }
                masks(row, &C[r], &A[r], &B[r], &bad);
                miss |= ~C[r] & items;
            }
            for (size_t r = k; r < 64; r++)
                C[r] = A[r] = B[r] = 0;
            transpose(C);
            transpose(A);
            transpose(B);
            for (size_t ii = 0; ii < ni; ii++) {
                uint64_t *p = pl + (i0 + ii) * stride + w;
                p[0] |= C[ii] << bit;
                p[W] |= A[ii] << bit;
                p[2 * W] |= (b->pplane ? A[ii] ^ B[ii] : B[ii]) << bit; /* P = A ^ B */
            }
            if (j->called) /* each item's words belong to this thread alone */
                for (size_t ii = 0; ii < ni; ii++)
                    j->called[i0 + ii] += (uint64_t)__builtin_popcountll(C[ii]);
            f += k;
        }
    }
    if (bad)
        atomic_store(&j->bad, 1);
    if (miss)
        atomic_store(&j->missing, 1);
    return GSVD_OK;
}

static int pack_worker(void *ctx, size_t t)
{
    return pack_body(ctx, t, row_masks, transpose64);
}

#if PD_X86
/* The AVX-512 workers: popcnt for pack_body's called counts, which GCC compiles to the POPCNT
 * instruction under any AVX target (its SSE4.2 brings POPCNT in); bp_create asks for it. */
#define PD_AVX512BW __attribute__((target("avx512f,avx512bw,popcnt")))

/* The same masks with AVX-512BW: one compare per mask for all 64 values. */
PD_AVX512BW static inline void row_masks_avx512(const int8_t *g, uint64_t *c, uint64_t *a,
                                                uint64_t *b, uint64_t *bad)
{
    __m512i x = _mm512_loadu_si512((const void *)g);
    *c = _mm512_cmpgt_epi8_mask(x, _mm512_set1_epi8(-1));
    *a = _mm512_cmpgt_epi8_mask(x, _mm512_setzero_si512());
    *b = _mm512_cmpgt_epi8_mask(x, _mm512_set1_epi8(1));
    *bad |= _mm512_cmpgt_epi8_mask(x, _mm512_set1_epi8(2));
}

#define PD_AVX2 __attribute__((target("avx2")))

/* transpose64's delta swaps on four words at a time: for j >= 4 the two words of a swap lie in
 * two vectors at the same lane; for j = 2 and 1 in one vector (lanes 0, 1 with 2, 3; lanes 0, 2
 * with 1, 3), its partner lanes brought over by vpermq and the swap masked to the low ones. */
PD_AVX2 static void transpose64_avx2(uint64_t a[64])
{
    __m256i *v = (__m256i *)(void *)a;
    uint64_t m = 0x00000000FFFFFFFFull;
    unsigned j = 32;
    for (; j >= 4; j >>= 1, m ^= m << j) {
        const __m256i mm = _mm256_set1_epi64x((long long)m);
        const __m128i sh = _mm_cvtsi32_si128((int)j);
        for (unsigned k = 0; k < 64; k = ((k | j) + 4) & ~j) {
            __m256i x = _mm256_loadu_si256(v + k / 4), y = _mm256_loadu_si256(v + (k | j) / 4);
            __m256i t = _mm256_and_si256(_mm256_xor_si256(_mm256_srl_epi64(x, sh), y), mm);
            _mm256_storeu_si256(v + (k | j) / 4, _mm256_xor_si256(y, t));
            _mm256_storeu_si256(v + k / 4, _mm256_xor_si256(x, _mm256_sll_epi64(t, sh)));
        }
    }
    /* j = 2: m = 0x3333...; lanes 0, 1 swap with 2, 3 */
    const __m256i m2 = _mm256_setr_epi64x((long long)m, (long long)m, 0, 0);
    const __m256i m1 = _mm256_setr_epi64x(0x5555555555555555ll, 0, 0x5555555555555555ll, 0);
    for (unsigned q = 0; q < 16; q++) {
        __m256i x = _mm256_loadu_si256(v + q);
        __m256i u = _mm256_permute4x64_epi64(x, 0x4E);
        __m256i t = _mm256_and_si256(_mm256_xor_si256(_mm256_srli_epi64(x, 2), u), m2);
        x = _mm256_xor_si256(_mm256_xor_si256(x, _mm256_slli_epi64(t, 2)),
                             _mm256_permute4x64_epi64(t, 0x4E));
        /* j = 1: lanes 0, 2 swap with 1, 3 */
        u = _mm256_permute4x64_epi64(x, 0xB1);
        t = _mm256_and_si256(_mm256_xor_si256(_mm256_srli_epi64(x, 1), u), m1);
        x = _mm256_xor_si256(_mm256_xor_si256(x, _mm256_slli_epi64(t, 1)),
                             _mm256_permute4x64_epi64(t, 0xB1));
        _mm256_storeu_si256(v + q, x);
    }
}

/* row_masks with AVX2: two 32-byte compares per mask. */
PD_AVX2 static inline void row_masks_avx2(const int8_t *g, uint64_t *c, uint64_t *a, uint64_t *b,
                                          uint64_t *bad)
{
    const __m256i m1 = _mm256_set1_epi8(-1), z = _mm256_setzero_si256(), one = _mm256_set1_epi8(1),
                  two = _mm256_set1_epi8(2);
    __m256i x0 = _mm256_loadu_si256((const __m256i *)(const void *)g);
    __m256i x1 = _mm256_loadu_si256((const __m256i *)(const void *)(g + 32));
#define PD_MASK64(t)                                                                               \
    ((uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(x0, t)) |                          \
     (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(x1, t)) << 32)
    *c = PD_MASK64(m1);
    *a = PD_MASK64(z);
    *b = PD_MASK64(one);
    *bad |= PD_MASK64(two);
#undef PD_MASK64
}

PD_AVX2 static int pack_worker_avx2(void *ctx, size_t t)
{
    return pack_body(ctx, t, row_masks_avx2, transpose64_avx2);
}

PD_AVX512BW static int pack_worker_avx512(void *ctx, size_t t)
{
    return pack_body(ctx, t, row_masks_avx512, transpose64_avx2);
}

#define PD_GFNI __attribute__((target("avx512f,avx512bw,avx512vbmi,gfni,popcnt")))

/* transpose64 in 48 vector operations: the matrix is 8 x 8 blocks of 8 x 8 bits (block (q, j):
 * rows 8q.., byte j); (1) each register of 8 rows gathers every block's 8 bytes into a qword,
 * rows in reverse order; (2) GF2P8AFFINEQB with the one-hot bytes as data transposes each
 * block's bits (byte b of the result = bit b of the 8 rows, row 7 - k of the matrix qword at bit
 * k, hence the reversal); (3) an 8 x 8 transpose of qwords across the registers and (4) of bytes
 * within each register put byte q of output row 8j + b at 8b + q. */
PD_GFNI static void transpose64_gfni(uint64_t a[64])
{
    uint8_t i1[64], i4[64];
    static const int64_t s1l[8] = {0, 8, 2, 10, 4, 12, 6, 14}, s1h[8] = {1, 9, 3, 11, 5, 13, 7, 15},
                         s2l[8] = {0, 1, 8, 9, 4, 5, 12, 13}, s2h[8] = {2, 3, 10, 11, 6, 7, 14, 15},
                         s3l[8] = {0, 1, 2, 3, 8, 9, 10, 11}, s3h[8] = {4, 5, 6, 7, 12, 13, 14, 15};
    __m512i v[8], u[8], w[8];
    for (int j = 0; j < 8; j++)
        for (int k = 0; k < 8; k++) {
            i1[8 * j + k] = (uint8_t)(8 * (7 - k) + j); /* byte (row 7-k, col j) -> 8j + k */
            i4[8 * k + j] = (uint8_t)(8 * j + k);       /* byte 8j + k -> 8k + j */
        }
    const __m512i p1 = _mm512_loadu_si512((const void *)i1),
                  p4 = _mm512_loadu_si512((const void *)i4);
    const __m512i onehot = _mm512_set1_epi64((long long)0x8040201008040201ull);
    for (int q = 0; q < 8; q++) {
        v[q] = _mm512_permutexvar_epi8(p1, _mm512_loadu_si512((const void *)(a + 8 * q)));
        v[q] = _mm512_gf2p8affine_epi64_epi8(onehot, v[q], 0);
    }
    /* (3): w[j] qword q = v[q] qword j */
    const __m512i a1 = _mm512_loadu_si512((const void *)s1l),
                  b1 = _mm512_loadu_si512((const void *)s1h),
                  a2 = _mm512_loadu_si512((const void *)s2l),
                  b2 = _mm512_loadu_si512((const void *)s2h),
                  a3 = _mm512_loadu_si512((const void *)s3l),
                  b3 = _mm512_loadu_si512((const void *)s3h);
    for (int q = 0; q < 8; q += 2) {
        u[q] = _mm512_permutex2var_epi64(v[q], a1, v[q + 1]);
        u[q + 1] = _mm512_permutex2var_epi64(v[q], b1, v[q + 1]);
    }
    for (int q = 0; q < 8; q += 4)
        for (int h = 0; h < 2; h++) {
            v[q + h] = _mm512_permutex2var_epi64(u[q + h], a2, u[q + h + 2]);
            v[q + h + 2] = _mm512_permutex2var_epi64(u[q + h], b2, u[q + h + 2]);
        }
    for (int h = 0; h < 4; h++) {
        w[h] = _mm512_permutex2var_epi64(v[h], a3, v[h + 4]);
        w[h + 4] = _mm512_permutex2var_epi64(v[h], b3, v[h + 4]);
    }
    /* (4): w[j] qword q byte b is byte q of output row 8j + b */
    for (int k = 0; k < 8; k++)
        _mm512_storeu_si512((void *)(a + 8 * k), _mm512_permutexvar_epi8(p4, w[k]));
}

PD_GFNI static int pack_worker_gfni(void *ctx, size_t t)
{
    return pack_body(ctx, t, row_masks_avx512, transpose64_gfni);
}
#endif

int gsvd_pd_bp_pack_i8(struct bp *b, const int8_t *v, size_t n, size_t nf, size_t pos,
                       uint64_t *called)
{
    struct pack_job j = {.b = b, .v = v, .n = n, .nf = nf, .pos = pos, .called = called};
    size_t groups = (n + 63) / 64;
    int rc;
    j.nt = b->env.n_threads < groups ? b->env.n_threads : groups;
    atomic_init(&j.bad, 0);
    atomic_init(&j.missing, 0);
    int (*worker)(void *, size_t) = pack_worker;
#if PD_X86
    if (b->avx512bw)
        worker = b->gfni ? pack_worker_gfni : pack_worker_avx512;
    else if (b->avx2)
        worker = pack_worker_avx2;
#endif
    if ((rc = gsvd_parallel(j.nt, worker, &j)) < 0)
        return rc;
    if (atomic_load(&j.missing))
        b->cur.complete = 0;
    return atomic_load(&j.bad) ? PD_HANDOVER : GSVD_OK;
}

int gsvd_pd_bp_pack_any(struct bp *b, const struct pd_stripe *s, size_t f0, size_t nf, size_t pos)
{
    size_t W = b->W, stride = 3 * W;
    for (size_t i = 0; i < b->n; i++) {
        uint64_t *p = b->cur.planes + i * stride;
        for (size_t f = 0; f < nf; f++) {
            double v = pd_value(s, i, f0 + f);
            size_t at = pos + f;
            uint64_t bt = 1ull << (at & 63);
            if (isnan(v)) {
                b->cur.complete = 0;
                continue;
            }
            if (s->called)
                s->called[i]++;
            if (v != 0 && v != 1 && v != 2)
                return PD_HANDOVER;
            p[at >> 6] |= bt;
            if (v >= 1)
                p[W + (at >> 6)] |= bt;
            if (b->pplane ? v == 1 : v >= 2)
                p[2 * W + (at >> 6)] |= bt;
        }
    }
    return GSVD_OK;
}

/* ---- planes back to variant-major rows (KING's missing-call corrections) --------------------- */

/* The word of kind k of planes p at word w: planes C, A, P (KING): 0 P, 1 B = A & ~P, 2 M = ~C;
 * planes C, A, B (L1): 0 A, 1 B, 2 M. */
static uint64_t kind_word(const uint64_t *p, size_t W, int l1, int k, size_t w)
{
    if (k == 2)
        return ~p[w];
    if (l1)
        return p[(size_t)(k + 1) * W + w];
    return k == 0 ? p[2 * W + w] : p[W + w] & ~p[2 * W + w];
}

void gsvd_pd_bp_unpack_rows(const struct bp *b, const uint64_t *planes, size_t bits, size_t i0,
                            size_t w, uint64_t *rows, size_t xw, size_t row_cap)
{
    size_t W = b->W, stride = 3 * W, nx = b->n - i0, groups = (nx + 63) / 64;
    size_t nt = bits - 64 * w < 64 ? bits - 64 * w : 64; /* variants of this word */
    transpose_fn transpose = transpose64;
#if PD_X86
    if (b->gfni)
        transpose = transpose64_gfni;
    else if (b->avx2 || b->avx512bw)
        transpose = transpose64_avx2;
#endif
    for (int k = 0; k < 3; k++) {
        uint64_t *out = rows + ((size_t)k * row_cap + 64 * w) * xw;
        for (size_t g = 0; g < groups; g++) {
            uint64_t a[64];
            size_t ni = nx - 64 * g < 64 ? nx - 64 * g : 64;
            for (size_t i = 0; i < ni; i++)
                a[i] = kind_word(planes + (i0 + 64 * g + i) * stride, W, b->l1, k, w);
            for (size_t i = ni; i < 64; i++)
                a[i] = 0;
            transpose(a);
            for (size_t t = 0; t < nt; t++)
                out[t * xw + g] = a[t];
        }
        for (size_t t = 0; t < nt; t++)
            for (size_t g = groups; g < xw; g++)
                out[t * xw + g] = 0;
    }
}
