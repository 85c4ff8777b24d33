/* analysis/pdist/pdist_store.c - see pdist_store.h.
 * Square layout: chunks of c x c; the band of rows [row0, row0 + nb) (row0 and nb multiples of
 * c) holds every chunk (I, J >= I) of its chunk rows, and chunk (J, I) is written at the same
 * time as the transpose of (I, J), so each chunk is written once and nothing waits for a later
 * band.  Condensed layout: the band's pairs are the next stretch of scipy's order; chunks are
 * written as they fill. */
#include "gsvd_config.h"
#include "analysis/pdist/pdist_store.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "common/parallel.h"
#include "zarr/codec.h"
#include "zarr/meta.h"
#include "zarr/writer.h"

enum { CONDENSED_CHUNK = 1 << 20 };

struct worker {
    gsvd_codec_ws *ws;
    struct gsvd_buf enc;
    void *tile; /* c x c values */
};

struct gsvd_pdist_store {
    struct gsvd_pdist_store_cfg cfg;
    gsvd_writer *w;
    gsvd_warray *dist, *nsites;
    int nsites_wanted, arrays_made;
    uint64_t chunk; /* square: rows and columns of a chunk; condensed: elements */
    struct worker *wk;
    size_t n_wk;
    /* condensed stream */
    double *cbuf;
    float *fbuf;
    uint32_t *nbuf;
    uint64_t cpos, total; /* pairs buffered or written so far; all pairs */
    uint64_t cbase;       /* pair index of cbuf[0] (a multiple of chunk) */
    uint64_t ccap;        /* buffer: n_wk chunks, compressed in parallel when full */
    /* TSV square */
    double *full;
    /* the band being written (square) */
    const struct gsvd_pdist_band *band;
    uint64_t n_jobs;
    uint64_t *jobs; /* (I << 32) | J */
    int is_counts;  /* which array the workers write this round */
};

size_t gsvd_pdist_store_row_align(const struct gsvd_pdist_store *o)
{
    return o->cfg.output && !o->cfg.condensed ? (size_t)o->chunk : 1;
}

uint64_t gsvd_pdist_store_bytes(const struct gsvd_pdist_store *o)
{
    uint64_t b = 0;
    if (o->cfg.output) {
        if (o->cfg.condensed)
            b += (uint64_t)o->n_wk * o->chunk *
                 (sizeof(double) + sizeof(float) + sizeof(uint32_t) * 2);
        else
            b += (uint64_t)o->n_wk * o->chunk * o->chunk * sizeof(double) * 2;
    }
    if (o->cfg.tsv && !o->cfg.condensed)
        b += (uint64_t)o->cfg.n * o->cfg.n * sizeof(double);
    return b;
}

uint64_t gsvd_pdist_store_chunk(const struct gsvd_pdist_store_cfg *cfg)
{
    uint64_t n = cfg->n, chunk;
    if (cfg->condensed) {
        uint64_t total = n * (n ? n - 1 : 0) / 2;
        chunk = total < CONDENSED_CHUNK ? (total ? total : 1) : CONDENSED_CHUNK;
        /* the buffered chunks (24 bytes a pair per worker) take at most 1/16 of --memory: the
         * chunk from --memory alone (room for 8 workers, so that the output's chunking does
         * not depend on --threads), then fewer workers if even that does not fit */
        while (cfg->memory && chunk > 4096 && chunk * 8 * 24 * 16 > cfg->memory)
            chunk /= 2;
    } else {
        chunk = n < 1000 ? (n ? n : 1) : 1000;
        /* with a memory cap the chunk rows (the bands' granule) must leave room for a band */
        while (cfg->memory && chunk > 64 && chunk * n * 64 * 4 > cfg->memory)
            chunk /= 2;
    }
    return chunk;
}

/* The distance array's spec (n_sites': the same with path, dtype and fill changed); `fill`
 * holds the fill value's storage. */
static void distance_spec(const struct gsvd_pdist_store_cfg *cfg, uint64_t chunk,
                          struct gsvd_array_spec *sd, double *nan, float *nanf)
{
    /* N^2 values: a fast compression level (zstd 1 is ~4x faster than gensvd's default 5 and
     * within a few percent of its size on distances) */
    static const char *const fast =
        "{\"blocksize\":0,\"clevel\":1,\"cname\":\"zstd\",\"id\":\"blosc\",\"shuffle\":1}";
    int variants = strcmp(cfg->axis, "variants") == 0;
    uint64_t n = cfg->n;

    *nan = NAN;
    *nanf = NAN;
    memset(sd, 0, sizeof *sd);
    sd->path = GSVD_PDIST_STORE_DISTANCE;
    sd->compressor_json = fast;
    sd->dtype = (struct gsvd_dtype){'f', '<', cfg->f4 ? 4 : 8};
    sd->fill = cfg->f4 ? (const void *)nanf : (const void *)nan;
    if (cfg->condensed) {
        sd->ndim = 1;
        sd->shape[0] = n * (n ? n - 1 : 0) / 2;
        sd->chunks[0] = chunk;
        sd->dims[0] = "pairs";
    } else {
        sd->ndim = 2;
        sd->shape[0] = sd->shape[1] = n;
        sd->chunks[0] = sd->chunks[1] = chunk;
        sd->dims[0] = variants ? "variants_0" : "samples_0";
        sd->dims[1] = variants ? "variants_1" : "samples_1";
    }
}

/* The ID array's spec. */
static void ids_spec(const struct gsvd_pdist_store_cfg *cfg, struct gsvd_array_spec *sid)
{
    int variants = strcmp(cfg->axis, "variants") == 0;
    uint64_t n = cfg->n;
    memset(sid, 0, sizeof *sid);
    sid->path = variants ? GSVD_PDIST_STORE_VARIANT_INDEX : GSVD_PDIST_STORE_SAMPLE_ID;
    sid->ndim = 1;
    sid->shape[0] = n;
    sid->chunks[0] = n ? n : 1;
    sid->dtype = (struct gsvd_dtype){'O', '|', sizeof(char *)};
    sid->dims[0] = variants ? "variants_0" : "samples_0";
}

int gsvd_pdist_store_open(const struct gsvd_pdist_store_cfg *cfg, struct gsvd_pdist_store **out)
{
    struct gsvd_pdist_store *o = gsvd_calloc(1, sizeof *o);
    gsvd_codec_ws *ws = NULL;
    gsvd_warray *a;
    uint64_t n = cfg->n;
    int rc = GSVD_OK;

    *out = o;
    if (!o)
        return GSVD_ENOMEM;
    o->cfg = *cfg;
    o->n_wk = gsvd_parallel_workers(cfg->threads); /* worker buffers: threads that run at once */
    o->chunk = gsvd_pdist_store_chunk(cfg);
    if (cfg->condensed) {
        o->total = n * (n ? n - 1 : 0) / 2;
        if (cfg->memory) {
            uint64_t fit = cfg->memory / (16 * 24 * o->chunk);
            if (o->n_wk > (fit ? fit : 1))
                o->n_wk = (size_t)(fit ? fit : 1);
        }
    }
    if (cfg->plan_only)
        return GSVD_OK;
    if (cfg->tsv && !cfg->condensed) {
        if (cfg->memory && n * n * sizeof(double) > cfg->memory / 2) {
            gsvd_log_error("--format tsv holds the %llu x %llu matrix (%llu bytes), more than half "
                           "of --memory; write Zarr (-o) or use --layout condensed",
                           (unsigned long long)n, (unsigned long long)n,
                           (unsigned long long)(n * n * sizeof(double)));
            return GSVD_ENOMEM;
        }
        o->full = gsvd_malloc((n ? n * n : 1) * sizeof *o->full);
        if (!o->full)
            return GSVD_ENOMEM;
    }
    if (!cfg->output)
        return GSVD_OK;
    o->wk = gsvd_calloc(o->n_wk, sizeof *o->wk);
    if (!o->wk)
        return GSVD_ENOMEM;
    for (size_t t = 0; t < o->n_wk; t++) {
        GSVD_TRY(gsvd_codec_ws_new(&o->wk[t].ws));
        if (!cfg->condensed && !(o->wk[t].tile = gsvd_malloc(o->chunk * o->chunk * sizeof(double))))
            return GSVD_ENOMEM;
    }
    if (cfg->condensed) {
        o->ccap = o->chunk * o->n_wk;
        o->cbuf = gsvd_malloc(o->ccap * sizeof(double));
        o->fbuf = gsvd_malloc(o->ccap * sizeof(float));
        o->nbuf = gsvd_malloc(o->ccap * sizeof(uint32_t));
        if (!o->cbuf || !o->fbuf || !o->nbuf)
            return GSVD_ENOMEM;
    }
    {
        /* a --shard that does not fit the distance chunks is refused before any work */
        uint64_t shape[2] = {o->total, 0}, chunks[2] = {o->chunk, o->chunk};
        if (!cfg->condensed)
            shape[0] = shape[1] = n;
        GSVD_TRY(gsvd_writer_shard_shape(&cfg->wp, GSVD_PDIST_STORE_DISTANCE,
                                         cfg->condensed ? 1 : 2, shape, chunks, NULL));
    }
    GSVD_TRY(gsvd_writer_open_params(cfg->output, cfg->force, &cfg->wp, &o->w));
    ws = o->wk[0].ws;
    {
        struct gsvd_array_spec sid;
        ids_spec(cfg, &sid);
        GSVD_TRY(gsvd_writer_array(o->w, &sid, &a));
        GSVD_TRY(gsvd_warray_write_strings(a, ws, (const char *const *)cfg->ids->items, (size_t)n));
    }
out:
    return rc;
}

/* The distance and n_sites arrays, once the first band says whether values were missing. */
static int make_arrays(struct gsvd_pdist_store *o, uint64_t n_missing)
{
    struct gsvd_array_spec sd;
    double nan;
    float nanf;
    int rc = GSVD_OK;

    o->arrays_made = 1;
    o->nsites_wanted = n_missing > 0 || o->cfg.counts;
    distance_spec(&o->cfg, o->chunk, &sd, &nan, &nanf);
    GSVD_TRY(gsvd_writer_array(o->w, &sd, &o->dist));
    if (o->nsites_wanted) {
        struct gsvd_array_spec sn = sd;
        sn.path = GSVD_PDIST_STORE_N_SITES;
        sn.dtype = (struct gsvd_dtype){'u', '<', 4};
        sn.fill = NULL;
        GSVD_TRY(gsvd_writer_array(o->w, &sn, &o->nsites));
    }
out:
    return rc;
}

/* ---- square --------------------------------------------------------------------------------- */

/* Copy chunk (I, J) (or its transpose) of the band into a c x c tile. */
static void fill_tile(const struct gsvd_pdist_store *o, uint64_t I, uint64_t J, int transpose,
                      void *tile)
{
    const struct gsvd_pdist_band *b = o->band;
    uint64_t c = o->chunk, n = b->n;
    /* the source block: rows from chunk row I (in the band), columns from chunk column J */
    uint64_t r0 = I * c - b->row0, c0 = J * c - b->row0;
    uint64_t nr = n - I * c < c ? n - I * c : c, nc = n - J * c < c ? n - J * c : c;
    if (nr < c || nc < c) /* edge chunk: zero padding */
        memset(tile, 0, (size_t)(c * c) * (o->is_counts || o->cfg.f4 ? 4 : 8));
    for (uint64_t i = 0; i < (transpose ? nc : nr); i++)
        for (uint64_t j = 0; j < (transpose ? nr : nc); j++) {
            uint64_t sr = transpose ? r0 + j : r0 + i, sc = transpose ? c0 + i : c0 + j;
            size_t at = (size_t)(sr * b->ld + sc), to = (size_t)(i * c + j);
            if (o->is_counts)
                ((uint32_t *)tile)[to] = b->n_sites[at];
            else if (o->cfg.f4)
                ((float *)tile)[to] = (float)b->dist[at];
            else
                ((double *)tile)[to] = b->dist[at];
        }
}

/* Chunk job j of the band and its mirror, in worker `worker`'s tile. */
static int square_task(void *ctx, size_t worker, size_t j)
{
    struct gsvd_pdist_store *o = ctx;
    struct worker *w = &o->wk[worker];
    gsvd_warray *a = o->is_counts ? o->nsites : o->dist;
    uint64_t I = o->jobs[j] >> 32, J = o->jobs[j] & 0xffffffffu;
    uint64_t idx[2] = {I, J};
    int rc;

    fill_tile(o, I, J, 0, w->tile);
    if ((rc = gsvd_warray_write_chunk(a, w->ws, idx, w->tile, &w->enc)) < 0)
        return rc;
    if (J != I) {
        uint64_t tidx[2] = {J, I};
        fill_tile(o, I, J, 1, w->tile);
        if ((rc = gsvd_warray_write_chunk(a, w->ws, tidx, w->tile, &w->enc)) < 0)
            return rc;
    }
    return GSVD_OK;
}

static int square_band(struct gsvd_pdist_store *o, const struct gsvd_pdist_band *b)
{
    uint64_t c = o->chunk, n = b->n, nct = (n + c - 1) / c;
    uint64_t I0 = b->row0 / c, I1 = (b->row0 + b->n_rows + c - 1) / c, k = 0;
    int rc;

    if (b->row0 % c != 0 || (b->n_rows % c != 0 && b->row0 + b->n_rows != n))
        return GSVD_EINTERNAL;
    gsvd_free(o->jobs);
    o->jobs = gsvd_malloc((size_t)((I1 - I0) * nct + 1) * sizeof *o->jobs);
    if (!o->jobs)
        return GSVD_ENOMEM;
    for (uint64_t I = I0; I < I1; I++)
        for (uint64_t J = I; J < nct; J++)
            o->jobs[k++] = I << 32 | J;
    o->n_jobs = k;
    o->band = b;
    for (o->is_counts = 0; o->is_counts <= o->nsites_wanted; o->is_counts++) {
        if ((rc = gsvd_parallel_tasks(o->n_wk, (size_t)o->n_jobs, square_task, o)) < 0)
            return rc;
    }
    return GSVD_OK;
}

/* ---- condensed ------------------------------------------------------------------------------ */

/* Worker t encodes buffered chunk t (if there is one). */
static int condensed_worker(void *ctx, size_t t)
{
    struct gsvd_pdist_store *o = ctx;
    struct worker *w = &o->wk[t];
    uint64_t off = t * o->chunk, fill = o->cpos - o->cbase;
    uint64_t idx[1] = {(o->cbase + off) / o->chunk};
    const void *data = o->cbuf + off;
    int rc;

    if (off >= fill)
        return GSVD_OK;
    if (o->cfg.f4) {
        for (uint64_t k = off; k < off + o->chunk; k++) /* (the tail is padded: see flush) */
            o->fbuf[k] = (float)o->cbuf[k];
        data = o->fbuf + off;
    }
    if ((rc = gsvd_warray_write_chunk(o->dist, w->ws, idx, data, &w->enc)) < 0)
        return rc;
    if (o->nsites_wanted &&
        (rc = gsvd_warray_write_chunk(o->nsites, w->ws, idx, o->nbuf + off, &w->enc)) < 0)
        return rc;
    return GSVD_OK;
}

/* Encode every buffered chunk (the last one may be partial: the array's end). */
static int condensed_flush(struct gsvd_pdist_store *o)
{
    int rc;
    if (o->cpos == o->cbase)
        return GSVD_OK;
    /* the array's last chunk is partial: pad it with the fill values (NaN, 0), so that its
     * bytes do not depend on what the buffer held before (thread count, earlier bands) */
    uint64_t fill = o->cpos - o->cbase, end = (fill + o->chunk - 1) / o->chunk * o->chunk;
    for (uint64_t k = fill; k < end; k++) {
        o->cbuf[k] = NAN;
        o->nbuf[k] = 0;
    }
    if ((rc = gsvd_parallel(o->n_wk, condensed_worker, o)) < 0)
        return rc;
    o->cbase = o->cpos;
    return GSVD_OK;
}

static int condensed_band(struct gsvd_pdist_store *o, const struct gsvd_pdist_band *b)
{
    int rc;
    for (size_t r = 0; r < b->n_rows; r++) {
        size_t c = r + 1;
        while (c < b->ld) {
            uint64_t at = o->cpos - o->cbase, k = b->ld - c;
            if (k > o->ccap - at)
                k = o->ccap - at;
            memcpy(o->cbuf + at, b->dist + r * b->ld + c, (size_t)k * sizeof(double));
            memcpy(o->nbuf + at, b->n_sites + r * b->ld + c, (size_t)k * sizeof(uint32_t));
            o->cpos += k;
            c += (size_t)k;
            if (o->cpos - o->cbase == o->ccap && (rc = condensed_flush(o)) < 0)
                return rc;
        }
    }
    return GSVD_OK;
}

/* ---- TSV ------------------------------------------------------------------------------------ */

static void tsv_pairs(const struct gsvd_pdist_store *o, const struct gsvd_pdist_band *b)
{
    char *const *ids = o->cfg.ids->items;
    FILE *f = o->cfg.tsv;
    for (size_t r = 0; r < b->n_rows; r++)
        for (size_t c = r + 1; c < b->ld; c++) {
            double d = b->dist[r * b->ld + c];
            fprintf(f, "%s\t%s\t", ids[b->row0 + r], ids[b->row0 + c]);
            if (isnan(d))
                fputs("nan", f);
            else
                fprintf(f, "%.17g", d);
            fprintf(f, "\t%u\n", b->n_sites[r * b->ld + c]);
        }
}

static void tsv_keep(struct gsvd_pdist_store *o, const struct gsvd_pdist_band *b)
{
    size_t n = b->n;
    for (size_t r = 0; r < b->n_rows; r++)
        for (size_t c = r; c < b->ld; c++) {
            size_t i = b->row0 + r, j = b->row0 + c;
            o->full[i * n + j] = o->full[j * n + i] = b->dist[r * b->ld + c];
        }
}

static int tsv_square(const struct gsvd_pdist_store *o)
{
    size_t n = o->cfg.n;
    char *const *ids = o->cfg.ids->items;
    FILE *f = o->cfg.tsv;
    fputs(strcmp(o->cfg.axis, "variants") == 0 ? "variant_index" : "sample_id", f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "\t%s", ids[i]);
    fputc('\n', f);
    for (size_t i = 0; i < n; i++) {
        fputs(ids[i], f);
        for (size_t j = 0; j < n; j++) {
            double d = o->full[i * n + j];
            if (isnan(d))
                fputs("\tnan", f);
            else
                fprintf(f, "\t%.17g", d);
        }
        fputc('\n', f);
    }
    return ferror(f) ? GSVD_EIO : GSVD_OK;
}

/* ---- the sink ------------------------------------------------------------------------------- */

int gsvd_pdist_store_band(void *ctx, const struct gsvd_pdist_band *b)
{
    struct gsvd_pdist_store *o = ctx;
    int rc = GSVD_OK;

    if (o->cfg.output) {
        if (!o->arrays_made)
            GSVD_TRY(make_arrays(o, b->n_missing));
        if (o->cfg.condensed)
            GSVD_TRY(condensed_band(o, b));
        else
            GSVD_TRY(square_band(o, b));
    }
    if (o->cfg.tsv && o->cfg.condensed) {
        if (b->row0 == 0)
            fputs(strcmp(o->cfg.axis, "variants") == 0 ? "variant_i\tvariant_j\tdistance\tn_sites\n"
                                                       : "sample_i\tsample_j\tdistance\tn_sites\n",
                  o->cfg.tsv);
        tsv_pairs(o, b);
        if (ferror(o->cfg.tsv))
            return GSVD_EIO;
    } else if (o->cfg.tsv) {
        tsv_keep(o, b);
    }
out:
    return rc;
}

int gsvd_pdist_store_finish(struct gsvd_pdist_store *o, const char *attrs_json, uint64_t n_missing)
{
    int rc = GSVD_OK;

    if (o->cfg.output) {
        if (!o->arrays_made) /* no band here: n = 0, or a job-array part without bands */
            GSVD_TRY(make_arrays(o, n_missing));
        if (o->cfg.condensed)
            GSVD_TRY(condensed_flush(o));
        GSVD_TRY(gsvd_writer_group(o->w, "", attrs_json));
        if (o->cfg.part)
            GSVD_TRY(gsvd_writer_commit_part(o->w));
        else
            GSVD_TRY(gsvd_writer_commit(o->w));
    }
    if (o->cfg.tsv && !o->cfg.condensed)
        GSVD_TRY(tsv_square(o));
    if (o->cfg.tsv && fflush(o->cfg.tsv) != 0)
        rc = GSVD_EIO;
out:
    return rc;
}

void gsvd_pdist_store_close(struct gsvd_pdist_store *o)
{
    if (!o)
        return;
    gsvd_writer_close(o->w);
    for (size_t t = 0; o->wk && t < o->n_wk; t++) {
        gsvd_codec_ws_free(o->wk[t].ws);
        gsvd_buf_free(&o->wk[t].enc);
        gsvd_free(o->wk[t].tile);
    }
    gsvd_free(o->wk);
    gsvd_free(o->cbuf);
    gsvd_free(o->fbuf);
    gsvd_free(o->nbuf);
    gsvd_free(o->full);
    gsvd_free(o->jobs);
    gsvd_free(o);
}

/* ---- the schema as a result ---------------------------------------------------------------- */

int gsvd_pdist_store_attrs(const struct gsvd_pdist_attrs *a, struct gsvd_buf *attrs)
{
    const struct gsvd_pdist_summary *sum = a->sum;
    int rc = GSVD_OK;
    GSVD_TRY(
        gsvd_buf_printf(attrs, "{\n    \"version\": \"%s\",\n    \"command\": ", GSVD_VERSION));
    GSVD_TRY(gsvd_json_quote(attrs, a->command ? a->command : ""));
    GSVD_TRY(gsvd_buf_printf(
        attrs,
        ",\n    \"metric\": \"%s\",\n    \"p\": %.17g,\n    \"missing\": \"%s\",\n    \"axis\": "
        "\"%s\",\n    \"layout\": \"%s\",\n    \"M\": %llu,\n    \"N\": %llu,\n    "
        "\"n_missing\": %llu,\n    \"kernel\": \"%s\",\n    \"device\": \"%s\"\n}",
        gsvd_pdist_metric_name(a->pd->metric), a->pd->p, gsvd_pdist_missing_name(a->pd->missing),
        a->axis_variants ? "variants" : "samples", a->condensed ? "condensed" : "square",
        (unsigned long long)sum->m, (unsigned long long)sum->n, (unsigned long long)sum->n_missing,
        sum->kernel ? sum->kernel : "none", sum->device ? sum->device : "cpu"));
out:
    return rc;
}

/* scipy's condensed vector of the upper triangle of the n x n matrix m (elements of esz
 * bytes), into a new buffer. */
static void *condense(const void *m, uint64_t n, size_t esz)
{
    uint64_t total = n * (n ? n - 1 : 0) / 2, k = 0;
    unsigned char *c = gsvd_malloc((size_t)(total ? total : 1) * esz);
    for (uint64_t i = 0; c && i + 1 < n; i++) {
        memcpy(c + k * esz, (const unsigned char *)m + (i * n + i + 1) * esz,
               (size_t)(n - i - 1) * esz);
        k += n - i - 1;
    }
    return c;
}

int gsvd_pdist_store_build(const struct gsvd_pdist_store_cfg *cfg, const char *attrs_json,
                           uint64_t n_missing, double *dist, uint32_t *n_sites, gsvd_result **out)
{
    gsvd_result *res = NULL;
    struct gsvd_array_spec sd, sid;
    uint64_t n = cfg->n, chunk = gsvd_pdist_store_chunk(cfg);
    void *d = NULL, *ns = NULL;
    double nan;
    float nanf;
    int rc = GSVD_OK;

    *out = NULL;
    GSVD_TRY(gsvd_result_new(&res));
    GSVD_TRY(gsvd_result_set_attrs(res, attrs_json, GSVD_RESULT_ATTRS_LAST));
    ids_spec(cfg, &sid);
    GSVD_TRY(gsvd_result_add(res, &sid, cfg->ids->items));
    distance_spec(cfg, chunk, &sd, &nan, &nanf);
    if (cfg->f4) { /* float32 values, converted as the streaming writer converts them */
        float *f = gsvd_malloc((size_t)(n ? n * n : 1) * sizeof *f);
        for (uint64_t i = 0; f && i < n * n; i++)
            f[i] = (float)dist[i];
        d = f;
    } else {
        d = dist;
        dist = NULL;
    }
    if (d && cfg->condensed) {
        void *c = condense(d, n, sd.dtype.size);
        gsvd_free(d);
        d = c;
    }
    if (!d) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    rc = gsvd_result_adopt(res, &sd, d);
    d = NULL;
    if (rc < 0)
        goto out;
    if (!cfg->condensed) /* the streaming writer pads edge tiles with zeros */
        gsvd_result_pad_zero(res);
    if (n_missing > 0 || cfg->counts) {
        struct gsvd_array_spec sn = sd;
        sn.path = GSVD_PDIST_STORE_N_SITES;
        sn.dtype = (struct gsvd_dtype){'u', '<', 4};
        sn.fill = NULL;
        if (!n_sites) {
            rc = GSVD_EINTERNAL;
            goto out;
        }
        if (cfg->condensed) {
            ns = condense(n_sites, n, sizeof *n_sites);
        } else {
            ns = n_sites;
            n_sites = NULL;
        }
        if (!ns) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        rc = gsvd_result_adopt(res, &sn, ns);
        ns = NULL;
        if (rc < 0)
            goto out;
        if (!cfg->condensed)
            gsvd_result_pad_zero(res);
    }
    *out = res;
    res = NULL;
out:
    gsvd_free(dist);
    gsvd_free(n_sites);
    gsvd_free(d);
    gsvd_free(ns);
    gsvd_result_free(res);
    return rc;
}

/* ---- the reader ---------------------------------------------------------------------------- */

int gsvd_pdist_store_open_distance(gsvd_tree *t, const char *node, size_t n, gsvd_array **a,
                                   int *condensed)
{
    const struct gsvd_zarray *z;
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_array_open_numeric(t, node, GSVD_PDIST_STORE_DISTANCE, 0, "gensvd pdist", a));
    z = gsvd_array_meta(*a);
    *condensed = z->ndim == 1;
    if (*condensed ? z->shape[0] != (uint64_t)n * (n ? n - 1 : 0) / 2
                   : z->shape[0] != n || z->shape[1] != n) {
        gsvd_log_error("%s: shape does not fit the %zu samples of sample_id (expected %zu x %zu "
                       "or %llu condensed)",
                       gsvd_array_name(*a), n, n, n,
                       (unsigned long long)((uint64_t)n * (n ? n - 1 : 0) / 2));
        rc = GSVD_EINCONSIST;
    }
out:
    return rc;
}
