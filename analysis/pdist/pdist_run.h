/* analysis/pdist/pdist_run.h - the pdist engine's run state, shared by its three files:
 * pdist.c (planning, passes, kernel handover, turning sums into values), pdist_bands.c (band
 * buffers, the sink, bands shared out between MPI ranks or job-array parts) and pdist_sources.c
 * (where the features come from: the genotype scan or an in-memory matrix; the variants collected
 * for --axis variants). Private to analysis/pdist/: the kernels never see it (they see
 * pdist_internal.h). */
#ifndef GSVD_ANALYSIS_PDIST_PDIST_RUN_H
#define GSVD_ANALYSIS_PDIST_PDIST_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/pdist/pdist.h"
#include "analysis/pdist/pdist_internal.h"

struct pd_run;

/* Where the features come from: one call of `pass` feeds every stripe to pd_feed. */
struct pd_source {
    int (*pass)(struct pd_source *src, struct pd_run *run);
    /* features the last complete pass considered (dropped for having no call included, left
     * out by a variant mask not); NULL: all env.m */
    uint64_t (*used)(struct pd_source *src);
    void *ctx;
};

struct pd_run {
    const struct gsvd_pdist_params *p;
    struct pd_env env;
    double ploidy;
    const struct pd_kernel_ops *kops;
    void *kst;
    int first_pass; /* counting called values this pass */
    uint64_t *called;
    uint64_t n_missing;
    uint64_t m_used; /* features the first pass considered */
    /* bands */
    size_t *band_rows; /* first row of each band, plus n at the end */
    size_t n_bands, band;
    int *owner; /* distributed: the rank that computes each band, or NULL */
    double *dist;
    uint32_t *n_sites;
    uint32_t *king; /* king, ibs0: GSVD_PDIST_KING_COUNTS per pair of the band, else NULL */
    size_t out_cap;
    /* progress */
    uint64_t work_done, work_total;
    struct gsvd_pdist_summary sum;
    /* p-distance on haplotype columns: columns per item, and each block's haplotypes as rows */
    size_t haps;
    int8_t *hrows;
    size_t hrows_cap;
};

/* Counts a stripe's called values (first pass only), then gives it to the kernel: GSVD_OK,
 * PD_HANDOVER or an error. */
GSVD_NODISCARD int pd_feed(struct pd_run *r, const struct pd_stripe *s);

/* Runs every band of r (r->p, r->env.n and .m, r->ploidy, r->m_used set by the source's
 * caller) through the chain of kernels, each band to `sink`.  r owns what it allocates until
 * pd_run_clear. */
GSVD_NODISCARD int pd_run_engine(struct pd_run *r, struct pd_source *src, int is_float,
                                 gsvd_pdist_sink_fn sink, void *ctx);
void pd_run_clear(struct pd_run *r);

/* The band buffers (r->dist, r->n_sites, r->king) for `cells` pairs, grown when needed. */
GSVD_NODISCARD int pd_band_buffers(struct pd_run *r, size_t cells);
/* The band of rows [row0, row0 + nb) in the band buffers to the sink. */
GSVD_NODISCARD int pd_to_sink(struct pd_run *r, size_t row0, size_t nb, gsvd_pdist_sink_fn sink,
                              void *ctx);

/* pdist_bands.c: under MPI or job-array parts, refines the plan to at least four bands per
 * rank and sets r->owner (NULL when alone); rank 0's plan is every rank's. */
GSVD_NODISCARD int pd_share_bands(struct pd_run *r);
/* A rank other than 0: the current band (status GSVD_OK), or its error, to rank 0. */
GSVD_NODISCARD int pd_send_band(struct pd_run *r, int status, size_t nb, size_t nc);
/* Rank 0: the current band, computed by rank `from`, to the sink. */
GSVD_NODISCARD int pd_receive_band(struct pd_run *r, int from, gsvd_pdist_sink_fn sink, void *ctx);

#endif
