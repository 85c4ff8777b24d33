/* analysis/pdist/pdist_bitplane_internal.h - the bit-plane kernel's state, shared by
 * pdist_bitplane.c (the kernel: segments, pair counts, bands, replay) and pdist_bitplane_pack.c
 * (stripes into planes).  For those two files only.  Thread safety: as the kernel's. */
#ifndef GSVD_ANALYSIS_PDIST_PDIST_BITPLANE_INTERNAL_H
#define GSVD_ANALYSIS_PDIST_PDIST_BITPLANE_INTERNAL_H
#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define PD_X86 1
#else
#define PD_X86 0
#endif

#include "analysis/pdist/pdist_internal.h"

/* NC counts per pair (n, one, two); NW for the wide metrics (see gsvd_pd_wide_to_sums), NK for
 * king and ibs0 (gsvd_pd_king_to_sums) */
enum { ROW_TILE = 64, COL_TILE = 64, NC = 3, NW = GSVD_PD_N_WIDE, NK = GSVD_PD_N_KING };

struct segment {
    uint64_t *planes; /* n x 3 x W words: [item][C|A|B or P][word] */
    size_t bits;      /* features packed */
    int complete;     /* 1: no missing call among them */
};

struct bp {
    struct pd_env env;
    size_t n, W;
    struct segment cur;
    /* kept segments of the first pass (cache) */
    struct segment *kept;
    size_t n_kept, kept_cap;
    uint64_t kept_bytes;
    int caching;  /* 1 while the first pass is being kept */
    int complete; /* 1 once a whole pass is kept */
    /* band */
    size_t row0, nb, nc;
    uint32_t *cnt;    /* nb x nc x ncnt */
    size_t ncnt;      /* counts per pair: NC, or NW for the wide metrics */
    int wide;         /* jaccard, braycurtis, canberra, cosine, correlation: NW counts, host only */
    int king;         /* king, ibs0: NK counts from planes C, A, P, host only */
    uint32_t *isum;   /* wide: per item |A|, |B| of a complete segment; king: per item missing
                         calls and |P|, l1: missing calls (and 0), of every segment (2 x n) */
    struct apart *ap; /* king, ibs, cityblock on the host: missing calls counted apart (or NULL) */
    size_t cnt_cap;
    int avx512;                     /* pair counts with AVX-512 VPOPCNTQ */
    int avx2;                       /* ... or with AVX2 (pdist_bitplane_avx2.c) */
    int popcnt;                     /* ... else scalar, with the POPCNT instruction */
    int l1;                         /* the metric needs only n and sum |u - v| */
    int pplane;                     /* the third plane is P = [g == 1] (else B = [g >= 2]) */
    int avx512bw;                   /* byte compares into masks (packing) */
    int gfni;                       /* ... and GFNI + VBMI transposes */
    uint64_t n_seg, n_seg_complete; /* segments counted on the host, and complete ones */
    uint64_t n_seg_apart;           /* ... and those with their missing calls counted apart */
};

/* The AVX2 pair counts (pdist_bitplane_avx2.c): each is the scalar function of the same name
 * in pdist_bitplane.c (x against y[0..3], planes W words apart, nw a multiple of 4), with the
 * same counts; only after the CPU's AVX2 probe said yes. */
#define PD_AVX2_PAIR(name)                                                                         \
    void name(const uint64_t *x, const uint64_t *const y[4], size_t W, size_t nw,                  \
              uint64_t out[4][NW])
PD_AVX2_PAIR(gsvd_pd_pair4_avx2_l1_k);
PD_AVX2_PAIR(gsvd_pd_pair4_avx2_l1);
PD_AVX2_PAIR(gsvd_pd_pair4_avx2_pq_k);
PD_AVX2_PAIR(gsvd_pd_pair4_avx2_pq);
PD_AVX2_PAIR(gsvd_pd_pairw_avx2);
PD_AVX2_PAIR(gsvd_pd_pairw_avx2_full);
PD_AVX2_PAIR(gsvd_pd_pairk_avx2_k);
PD_AVX2_PAIR(gsvd_pd_pairk_avx2);
#undef PD_AVX2_PAIR

/* Pack features [0, nf) of variant-major int8 rows v (n items each) into the current segment
 * at bit position pos, adding each item's called values to called (may be NULL), on the
 * kernel's threads.  GSVD_OK, PD_HANDOVER (a value above 2), or a thread error. */
int gsvd_pd_bp_pack_i8(struct bp *b, const int8_t *v, size_t n, size_t nf, size_t pos,
                       uint64_t *called);

/* Any other stripe layout, value by value: features [f0, f0 + nf) of s at bit position pos.
 * GSVD_OK or PD_HANDOVER (a value other than 0, 1, 2). */
int gsvd_pd_bp_pack_any(struct bp *b, const struct pd_stripe *s, size_t f0, size_t nf, size_t pos);

/* Planes back to variant-major rows, for the missing calls counted apart: the 64 variants of
 * word w of `planes` (bits features in all) as rows[(k cap + v) xw + g] bit i = kind k of item
 * i0 + 64 g + i at variant v, kinds 0 P (het), 1 B = A & ~P (hom alt), 2 M = ~C (missing) for
 * KING, 0 A, 1 B, 2 M for the L1 metrics (b->l1); xw words a row, those past the items zero. */
void gsvd_pd_bp_unpack_rows(const struct bp *b, const uint64_t *planes, size_t bits, size_t i0,
                            size_t w, uint64_t *rows, size_t xw, size_t cap);

/* A segment's few missing calls counted apart (pdist_bitplane_apart.c), for KING and the L1
 * metrics: the segment is counted by the unmasked pair functions, and gsvd_pd_apart_segment
 * adds what involves a missing call into the band's totals, which gsvd_pd_apart_drain (at the
 * band's end) reads into b->cnt.  create: for n items and segments of W words a plane, l1 for
 * the L1 counts (GSVD_ENOMEM); band: the band's rows [row0, row0 + nb), totals zeroed;
 * segment: isum as struct bp's (each item's missing calls at 2 i); drain: the totals into the
 * counts of b's band, then zeroed. */
struct apart;
uint64_t gsvd_pd_apart_rows_bytes(size_t n, size_t W); /* the rows a segment's transpose takes */
int gsvd_pd_apart_create(struct apart **ap, size_t n, size_t W, size_t n_threads, int l1);
void gsvd_pd_apart_destroy(struct apart *ap);
int gsvd_pd_apart_band(struct apart *ap, size_t row0, size_t nb);
int gsvd_pd_apart_segment(struct apart *ap, struct bp *b, const struct segment *seg,
                          const uint32_t *isum);
int gsvd_pd_apart_drain(struct apart *ap, struct bp *b);

#endif /* GSVD_ANALYSIS_PDIST_PDIST_BITPLANE_INTERNAL_H */
