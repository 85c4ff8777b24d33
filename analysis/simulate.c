/* analysis/simulate.c - Balding-Nichols genotypes, generated and written in parallel by
 * variant chunk.  Frequencies are drawn with counter-based randomness keyed by variant (and
 * population), genotypes by (variant, sample), so any chunking gives identical data. */
#include "gsvd_config.h"
#include "analysis/simulate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/pipeline.h"
#include "common/alloc.h"
#include "common/detmath.h"
#include "common/err.h"
#include "common/log.h"
#include "common/rng.h"
#include "common/scope.h"
#include "zarr/codec.h"
#include "zarr/writer.h"

#define MAX_GAMMA_TRIES 64

/* Gamma(shape a, scale 1) by Marsaglia & Tsang; the try count and draw index are part of the
 * counter.  Shapes below 1 use Gamma(a + 1) * U^(1/a).  log and exp are common/detmath.h's,
 * not libm's (whose last bit depends on the CPU), so the store is the same bytes on every
 * CPU; the other operations are IEEE's + - * / and sqrt, rounded the same everywhere.
 * U^(1/a) = exp(log(U) / a) carries a relative error of about |log(U) / a| ulp (the error of
 * log(U) magnified by exp), far below what matters for a random draw. */
static double gamma_draw(uint64_t seed, uint64_t variant, uint64_t which, double a)
{
    double boost = 1.0;
    if (a < 1.0) {
        struct gsvd_rng4 r =
            gsvd_rng_words(seed, GSVD_RNG_SIM_POPFREQ, variant, (which << 16) | 0xffffu);
        boost = gsvd_detmath_exp(gsvd_detmath_log(gsvd_rng_unit(r.v[0], r.v[1])) / a);
        a += 1.0;
    }
    double d = a - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (uint64_t t = 0; t < MAX_GAMMA_TRIES; t++) {
        uint64_t col = (which << 16) | (t << 1);
        double x = gsvd_rng_normal(seed, GSVD_RNG_SIM_POPFREQ, variant, col);
        double v = 1.0 + c * x;
        if (v <= 0)
            continue;
        v = v * v * v;
        struct gsvd_rng4 r = gsvd_rng_words(seed, GSVD_RNG_SIM_POPFREQ, variant, col | 1u);
        double u = gsvd_rng_unit(r.v[0], r.v[1]);
        if (gsvd_detmath_log(u) < 0.5 * x * x + d - d * v + d * gsvd_detmath_log(v))
            return d * v * boost;
    }
    return d * boost; /* unreachable in practice: acceptance is above 95% per try */
}

static double ancestral_freq(const struct gsvd_sim_params *p, uint64_t j)
{
    struct gsvd_rng4 r = gsvd_rng_words(p->seed, GSVD_RNG_SIM_ANCESTRAL, j, 0);
    return 0.05 + 0.9 * gsvd_rng_unit(r.v[0], r.v[1]);
}

double gsvd_simulate_pop_freq(const struct gsvd_sim_params *p, uint64_t j, size_t k)
{
    double anc = ancestral_freq(p, j);
    if (p->n_pops <= 1)
        return anc;
    double s = (1.0 - p->fst) / p->fst;
    double x = gamma_draw(p->seed, j, 2 * (uint64_t)k, anc * s);
    double y = gamma_draw(p->seed, j, 2 * (uint64_t)k + 1, (1.0 - anc) * s);
    return x + y > 0 ? x / (x + y) : anc;
}

struct sim_ctx {
    const struct gsvd_sim_params *p;
    gsvd_warray *gt, *mask, *pf;
    gsvd_codec_ws **ws; /* one per worker */
    uint32_t *pop_of;   /* population of each sample */
    uint64_t n_blocks;
    const struct gsvd_progress *progress;
};

struct sim_slot {
    int8_t *gt;       /* chunk_variants x n_samples x ploidy */
    uint8_t *mask;    /* the same shape: 1 where an allele is missing (gt < 0) */
    double *freq;     /* chunk_variants x n_pops */
    uint32_t *thresh; /* n_pops thresholds of the current variant */
};

/* Threshold t with P(u < t) = f for a 21-bit uniform u (rounded to the nearest 2^-21). */
static uint32_t threshold(double f)
{
    double t = floor(f * 2097152.0 + 0.5);
    return t <= 0 ? 0 : t >= 2097152.0 ? 2097152u : (uint32_t)t;
}

/* SplitMix64's output function: a bijection on 64 bits with full avalanche. */
static inline uint64_t mix64(uint64_t z)
{
    z ^= z >> 30;
    z *= 0xbf58476d1ce4e5b9u;
    z ^= z >> 27;
    z *= 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

#define U21_MASK 0x1fffffu

/* One variant's calls.  Genotype randomness is a hash of (seed, variant, sample, group): each
 * 64-bit hash gives three 21-bit uniforms, the first for missingness, the others for the
 * alleles (a diploid call takes one hash).  Thresholds are frequencies scaled to 2^21; this
 * hash is used instead of Philox because it costs a third as much and genotypes dominate. */
static void gen_row(const struct gsvd_sim_params *p, const uint32_t *pop_of, const uint32_t *thresh,
                    uint64_t j, uint32_t miss, int8_t *row)
{
    size_t P = p->ploidy, N = (size_t)p->n_samples, groups = (P + 1 + 2) / 3;
    uint64_t rowkey = mix64(p->seed ^ mix64(j * 0x9E3779B97F4A7C15u + GSVD_RNG_SIM_GENOTYPE));

    for (size_t i = 0; i < N; i++) {
        uint32_t t = thresh[pop_of[i]];
        int8_t *g = row + i * P;
        uint64_t h = mix64(rowkey + (uint64_t)i * groups * 0xD1B54A32D192ED03u);
        if ((uint32_t)(h & U21_MASK) < miss) {
            memset(g, -1, P);
            continue;
        }
        for (size_t a = 0; a < P; a++) {
            size_t slot = a + 1; /* slot 0 of group 0 decided missingness */
            if (slot % 3 == 0)
                h = mix64(rowkey + ((uint64_t)i * groups + slot / 3) * 0xD1B54A32D192ED03u);
            g[a] = (uint32_t)((h >> (21 * (slot % 3))) & U21_MASK) < t;
        }
    }
}

static int sim_produce(void *vctx, size_t worker, uint64_t block, void *vslot)
{
    struct sim_ctx *c = vctx;
    struct sim_slot *s = vslot;
    const struct gsvd_sim_params *p = c->p;
    uint64_t v0 = block * p->chunk_variants;
    uint64_t nv = p->n_variants - v0 < p->chunk_variants ? p->n_variants - v0 : p->chunk_variants;
    uint32_t miss = threshold(p->missing);
    size_t P = p->ploidy, N = (size_t)p->n_samples;
    int rc = GSVD_OK;

    for (uint64_t jj = 0; jj < nv; jj++) {
        uint64_t j = v0 + jj;
        for (size_t k = 0; k < p->n_pops; k++) {
            double f = gsvd_simulate_pop_freq(p, j, k);
            s->freq[jj * p->n_pops + k] = f;
            s->thresh[k] = threshold(f);
        }
        gen_row(p, c->pop_of, s->thresh, j, miss, s->gt + jj * N * P);
    }
    for (size_t i = 0; i < (size_t)nv * N * P; i++)
        s->mask[i] = s->gt[i] < 0;
    GSVD_TRY(gsvd_warray_write_rows(c->gt, c->ws[worker], v0, nv, s->gt));
    GSVD_TRY(gsvd_warray_write_rows(c->mask, c->ws[worker], v0, nv, s->mask));
    GSVD_TRY(gsvd_warray_write_rows(c->pf, c->ws[worker], v0, nv, s->freq));
out:
    return rc;
}

static int sim_consume(void *vctx, uint64_t block, void *slot)
{
    struct sim_ctx *c = vctx;
    (void)slot;
    uint64_t done = (block + 1) * c->p->chunk_variants; /* blocks are consumed in order */
    gsvd_progress_report(c->progress, "writing", done < c->p->n_variants ? done : c->p->n_variants,
                         c->p->n_variants);
    /* the caller asked to stop: between chunk rows (the staged output is discarded) */
    return gsvd_scope_cancelled() ? GSVD_ECANCELED : GSVD_OK;
}

static int check_params(const struct gsvd_sim_params *p)
{
    if (p->n_variants == 0 || p->n_samples == 0 || p->n_pops == 0 || p->n_pops > p->n_samples ||
        p->ploidy == 0 || p->ploidy > 8 || p->chunk_variants == 0 || p->chunk_samples == 0 ||
        p->n_threads == 0 || !(p->missing >= 0 && p->missing < 1) ||
        (p->n_pops > 1 && !(p->fst > 0 && p->fst < 1)) || p->n_samples > UINT32_MAX) {
        gsvd_log_error("simulation parameters out of range (variants and samples >= 1, "
                       "1 <= populations <= samples, 0 < fst < 1, 0 <= missing < 1, "
                       "ploidy 1..8)");
        return GSVD_EINVAL;
    }
    return GSVD_OK;
}

/* Small per-sample / per-variant arrays that are written in one piece. */
/* A 1-D (or V x k) array of V rows written chunk row by chunk row; a cancelled caller stops it
 * between chunk rows. */
static int write_rows(gsvd_warray *a, gsvd_codec_ws *ws, uint64_t V, uint64_t cv, const void *data,
                      size_t row_bytes)
{
    int rc = GSVD_OK;
    for (uint64_t r = 0; r < V; r += cv) {
        if (gsvd_scope_cancelled())
            return GSVD_ECANCELED;
        GSVD_TRY(gsvd_warray_write_rows(a, ws, r, V - r < cv ? V - r : cv,
                                        (const char *)data + r * row_bytes));
    }
out:
    return rc;
}

static int write_small_arrays(gsvd_writer *w, const struct gsvd_sim_params *p, gsvd_codec_ws *ws,
                              const uint32_t *pop_of)
{
    int rc = GSVD_OK;
    char **ids = NULL, **pops = NULL;
    int32_t *pos = NULL;
    int8_t *contig = NULL;
    char *alleles = NULL;
    double *anc = NULL;
    uint64_t V = p->n_variants, N = p->n_samples, cv = p->chunk_variants;
    int width = snprintf(NULL, 0, "%llu", (unsigned long long)(N - 1));
    gsvd_warray *a;
    static const char *const contigs[] = {"1"};

    ids = gsvd_calloc((size_t)N, sizeof *ids);
    pops = gsvd_calloc((size_t)N, sizeof *pops);
    pos = gsvd_malloc((size_t)V * sizeof *pos);
    contig = gsvd_calloc((size_t)V, 1);
    alleles = gsvd_malloc((size_t)V * 2);
    anc = gsvd_malloc((size_t)V * sizeof *anc);
    if (!ids || !pops || !pos || !contig || !alleles || !anc) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (uint64_t i = 0; i < N; i++) {
        ids[i] = gsvd_asprintf("sample_%0*llu", width, (unsigned long long)i);
        pops[i] = gsvd_asprintf("pop_%u", pop_of[i]);
        if (!ids[i] || !pops[i]) {
            rc = GSVD_ENOMEM;
            goto out;
        }
    }
    for (uint64_t j = 0; j < V; j++) {
        if ((j & 0xffff) == 0 && gsvd_scope_cancelled()) { /* a long loop for many variants */
            rc = GSVD_ECANCELED;
            goto out;
        }
        if (j >= (uint64_t)INT32_MAX / 100) {
            gsvd_log_error("more than %d variants do not fit int32 positions", INT32_MAX / 100);
            rc = GSVD_EINVAL;
            goto out;
        }
        pos[j] = (int32_t)(100 * j + 1);
        alleles[2 * j] = 'A';
        alleles[2 * j + 1] = 'T';
        anc[j] = ancestral_freq(p, j);
    }
    struct gsvd_array_spec s1 = {.path = "sample_id",
                                 .ndim = 1,
                                 .shape = {N},
                                 .chunks = {N},
                                 .dtype = {'O', '|', sizeof(char *)},
                                 .dims = {"samples"}};
    GSVD_TRY(gsvd_writer_array(w, &s1, &a));
    GSVD_TRY(gsvd_warray_write_strings(a, ws, (const char *const *)ids, (size_t)N));
    s1.path = "sample_population";
    GSVD_TRY(gsvd_writer_array(w, &s1, &a));
    GSVD_TRY(gsvd_warray_write_strings(a, ws, (const char *const *)pops, (size_t)N));
    struct gsvd_array_spec s2 = {.path = "contig_id",
                                 .ndim = 1,
                                 .shape = {1},
                                 .chunks = {1},
                                 .dtype = {'O', '|', sizeof(char *)},
                                 .dims = {"contigs"}};
    GSVD_TRY(gsvd_writer_array(w, &s2, &a));
    GSVD_TRY(gsvd_warray_write_strings(a, ws, contigs, 1));
    int32_t fill_pos = -1;
    struct gsvd_array_spec s3 = {.path = "variant_position",
                                 .ndim = 1,
                                 .shape = {V},
                                 .chunks = {cv},
                                 .dtype = {'i', '<', 4},
                                 .dims = {"variants"},
                                 .fill = &fill_pos};
    GSVD_TRY(gsvd_writer_array(w, &s3, &a));
    GSVD_TRY(write_rows(a, ws, V, cv, pos, sizeof *pos));
    int8_t fill_contig = -1;
    struct gsvd_array_spec s4 = {.path = "variant_contig",
                                 .ndim = 1,
                                 .shape = {V},
                                 .chunks = {cv},
                                 .dtype = {'i', '|', 1},
                                 .dims = {"variants"},
                                 .fill = &fill_contig};
    GSVD_TRY(gsvd_writer_array(w, &s4, &a));
    GSVD_TRY(write_rows(a, ws, V, cv, contig, 1));
    struct gsvd_array_spec s5 = {.path = "variant_allele",
                                 .ndim = 2,
                                 .shape = {V, 2},
                                 .chunks = {cv, 2},
                                 .dtype = {'S', '|', 1},
                                 .dims = {"variants", "alleles"}};
    GSVD_TRY(gsvd_writer_array(w, &s5, &a));
    GSVD_TRY(write_rows(a, ws, V, cv, alleles, 2));
    double nan = NAN;
    struct gsvd_array_spec s6 = {.path = "variant_ancestral_frequency",
                                 .ndim = 1,
                                 .shape = {V},
                                 .chunks = {cv},
                                 .dtype = {'f', '<', 8},
                                 .dims = {"variants"},
                                 .fill = &nan};
    GSVD_TRY(gsvd_writer_array(w, &s6, &a));
    GSVD_TRY(write_rows(a, ws, V, cv, anc, sizeof *anc));
out:
    for (uint64_t i = 0; ids && pops && i < N; i++) {
        gsvd_free(ids[i]);
        gsvd_free(pops[i]);
    }
    gsvd_free(ids);
    gsvd_free(pops);
    gsvd_free(pos);
    gsvd_free(contig);
    gsvd_free(alleles);
    gsvd_free(anc);
    return rc;
}

static int root_attrs(const struct gsvd_sim_params *p, struct gsvd_buf *b)
{
    int rc = GSVD_OK;
    GSVD_TRY(gsvd_buf_printf(b,
                             "{\n    \"vcf_zarr_version\": \"0.4\",\n    \"source\": \"gensvd "
                             "%s simulate\",\n    \"simulation\": {\"model\": "
                             "\"Balding-Nichols\", \"n_variants\": %llu, \"n_samples\": %llu, "
                             "\"n_populations\": %zu, \"fst\": %.17g, \"missing\": %.17g, "
                             "\"seed\": %llu, \"ploidy\": %zu}",
                             GSVD_VERSION, (unsigned long long)p->n_variants,
                             (unsigned long long)p->n_samples, p->n_pops, p->fst, p->missing,
                             (unsigned long long)p->seed, p->ploidy));
    if (p->command) {
        GSVD_TRY(gsvd_buf_puts(b, ",\n    \"command\": "));
        GSVD_TRY(gsvd_json_quote(b, p->command));
    }
    GSVD_TRY(gsvd_buf_puts(b, "\n}"));
out:
    return rc;
}

int gsvd_simulate(const struct gsvd_sim_params *p, const char *out_url)
{
    int rc = check_params(p);
    gsvd_writer *w = NULL;
    struct sim_ctx c = {0};
    struct sim_slot *slots = NULL;
    void **slot_ptrs = NULL;
    struct gsvd_buf attrs = GSVD_BUF_INIT;
    size_t nw = p->n_threads, depth = 2 * p->n_threads, N = (size_t)p->n_samples;
    uint64_t cv = p->chunk_variants;

    if (rc < 0)
        return rc;
    if (cv > p->n_variants)
        cv = p->n_variants;
    c.p = p;
    c.n_blocks = (p->n_variants + p->chunk_variants - 1) / p->chunk_variants;
    c.progress = &p->progress;
    c.pop_of = gsvd_malloc(N * sizeof *c.pop_of);
    c.ws = gsvd_calloc(nw, sizeof *c.ws);
    slots = gsvd_calloc(depth, sizeof *slots);
    slot_ptrs = gsvd_calloc(depth, sizeof *slot_ptrs);
    if (!c.pop_of || !c.ws || !slots || !slot_ptrs) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < N; i++)
        c.pop_of[i] = (uint32_t)((uint64_t)i * p->n_pops / p->n_samples);
    for (size_t i = 0; i < nw; i++)
        GSVD_TRY(gsvd_codec_ws_new(&c.ws[i]));
    for (size_t i = 0; i < depth; i++) {
        slots[i].gt = gsvd_malloc((size_t)p->chunk_variants * N * p->ploidy);
        slots[i].mask = gsvd_malloc((size_t)p->chunk_variants * N * p->ploidy);
        slots[i].freq = gsvd_malloc((size_t)p->chunk_variants * p->n_pops * sizeof(double));
        slots[i].thresh = gsvd_malloc(p->n_pops * sizeof(uint32_t));
        if (!slots[i].gt || !slots[i].mask || !slots[i].freq || !slots[i].thresh) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        slot_ptrs[i] = &slots[i];
    }
    GSVD_TRY(gsvd_writer_open_params(out_url, p->overwrite,
                                     p->writer.zarr_format ? &p->writer : NULL, &w));
    GSVD_TRY(root_attrs(p, &attrs));
    GSVD_TRY(gsvd_writer_group(w, "", attrs.data));
    /* No fill value (null), as bio2zarr writes call_genotype and its mask: xarray (and so
       sgkit.load_dataset) would take a fill of -1 for a missing-value marker and decode the
       genotypes as float, NaN where missing.  Every chunk is written, so none is read as fill. */
    struct gsvd_array_spec sg = {.path = "call_genotype",
                                 .ndim = 3,
                                 .shape = {p->n_variants, p->n_samples, p->ploidy},
                                 .chunks = {p->chunk_variants, p->chunk_samples, p->ploidy},
                                 .dtype = {'i', '|', 1},
                                 .dims = {"variants", "samples", "ploidy"},
                                 /* level 1: genotypes are the bulk; higher levels cost
                                    several times the generation for ~10% smaller chunks */
                                 .compressor_json = "{\"blocksize\": 0, \"clevel\": 1, "
                                                    "\"cname\": \"zstd\", \"id\": "
                                                    "\"blosc\", \"shuffle\": 2}"};
    GSVD_TRY(gsvd_writer_array(w, &sg, &c.gt));
    /* VCF-Zarr's call_genotype_mask, as bio2zarr writes it: bool, true where an allele is
       missing (< 0), with the genotypes' shape, chunks, compressor and dimensions. */
    struct gsvd_array_spec sm = sg;
    sm.path = "call_genotype_mask";
    sm.dtype = (struct gsvd_dtype){'b', '|', 1};
    GSVD_TRY(gsvd_writer_array(w, &sm, &c.mask));
    double nan = NAN;
    struct gsvd_array_spec sf = {.path = "variant_population_frequency",
                                 .ndim = 2,
                                 .shape = {p->n_variants, p->n_pops},
                                 .chunks = {p->chunk_variants, p->n_pops},
                                 .dtype = {'f', '<', 8},
                                 .dims = {"variants", "populations"},
                                 .fill = &nan};
    GSVD_TRY(gsvd_writer_array(w, &sf, &c.pf));
    GSVD_TRY(write_small_arrays(w, p, c.ws[0], c.pop_of));
    struct gsvd_pipeline_params pp = {.n_workers = nw, .depth = depth, .slots = slot_ptrs};
    GSVD_TRY(gsvd_pipeline_run(&pp, c.n_blocks, sim_produce, sim_consume, &c));
    GSVD_TRY(gsvd_writer_commit(w));
out:
    gsvd_writer_close(w);
    for (size_t i = 0; slots && i < depth; i++) {
        gsvd_free(slots[i].gt);
        gsvd_free(slots[i].mask);
        gsvd_free(slots[i].freq);
        gsvd_free(slots[i].thresh);
    }
    for (size_t i = 0; c.ws && i < nw; i++)
        gsvd_codec_ws_free(c.ws[i]);
    gsvd_free(c.ws);
    gsvd_free(c.pop_of);
    gsvd_free(slots);
    gsvd_free(slot_ptrs);
    gsvd_buf_free(&attrs);
    return rc;
}
