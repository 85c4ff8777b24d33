/* analysis/pdist/king_pairs.c - see king_pairs.h.  A kept pair is (i < j); the TSV names them ID1,
 * ID2 in row order of the upper triangle (plink2's .kin0 lists the later sample first). */
#include "gsvd_config.h"
#include "analysis/pdist/king_pairs.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/codec.h"

enum { PAIR_CHUNK = 1 << 20 };

struct gsvd_king_pairs {
    struct gsvd_king_pairs_cfg cfg;
    FILE *spool;         /* Zarr output: the kept pairs until the count is known */
    struct gsvd_buf mem; /* in memory (no output, no TSV): the kept pairs, for the result */
    uint64_t n_kept;
    struct gsvd_buf bands; /* a part's bands: int64 first row, rows, first pair, pairs */
};

int gsvd_king_pairs_open(const struct gsvd_king_pairs_cfg *cfg, struct gsvd_king_pairs **out)
{
    struct gsvd_king_pairs *kp = gsvd_calloc(1, sizeof *kp);
    *out = kp;
    if (!kp)
        return GSVD_ENOMEM;
    kp->cfg = *cfg;
    if (cfg->output) {
        if (!(kp->spool = tmpfile())) {
            gsvd_log_error("%s: cannot create a temporary file for the pairs: %s", cfg->output,
                           strerror(errno));
            return GSVD_EIO;
        }
        return GSVD_OK;
    }
    if (!cfg->tsv) /* in memory: gsvd_king_pairs_build */
        return GSVD_OK;
    fputs(cfg->counts ? "#ID1\tID2\tNSNP\tHETHET\tIBS0\tHET1_HOM2\tHET2_HOM1\tKINSHIP\n"
                      : "#ID1\tID2\tNSNP\tHETHET\tIBS0\tKINSHIP\n",
          cfg->tsv);
    return GSVD_OK;
}

uint64_t gsvd_king_pairs_count(const struct gsvd_king_pairs *kp)
{
    return kp->n_kept;
}

static void print_number(FILE *f, double v)
{
    if (isnan(v))
        fputs("nan", f);
    else if (isinf(v))
        fputs(v < 0 ? "-inf" : "inf", f);
    else
        fprintf(f, "%.17g", v);
}

static void print_pair(const struct gsvd_king_pairs *kp, const struct gsvd_king_pair *r)
{
    char *const *ids = kp->cfg.ids->items;
    FILE *f = kp->cfg.tsv;
    fprintf(f, "%s\t%s\t%u\t", ids[r->i], ids[r->j], r->n);
    if (kp->cfg.counts) {
        fprintf(f, "%u\t%u\t%u\t%u\t", r->hethet, r->ibs0, r->het1_hom2, r->het2_hom1);
    } else {
        print_number(f, r->n ? (double)r->hethet / r->n : NAN);
        fputc('\t', f);
        print_number(f, r->n ? (double)r->ibs0 / r->n : NAN);
        fputc('\t', f);
    }
    print_number(f, r->kinship);
    fputc('\n', f);
}

/* The TSV stream's name in messages. */
static const char *tsv_name(const struct gsvd_king_pairs *kp)
{
    return kp->cfg.tsv == stdout ? "standard output" : "the pair table";
}

int gsvd_king_pairs_put(struct gsvd_king_pairs *kp, const struct gsvd_king_pair *x)
{
    if (!kp->spool && kp->cfg.tsv)
        return GSVD_EINVAL;
    if (!kp->spool) {
        int rc = gsvd_buf_append(&kp->mem, x, sizeof *x);
        kp->n_kept += rc == GSVD_OK;
        return rc;
    }
    if (fwrite(x, sizeof *x, 1, kp->spool) != 1) {
        gsvd_log_error("%s: writing the temporary pair file failed: %s", kp->cfg.output,
                       strerror(errno));
        return GSVD_EIO;
    }
    kp->n_kept++;
    return GSVD_OK;
}

int gsvd_king_pairs_band(void *ctx, const struct gsvd_pdist_band *b)
{
    struct gsvd_king_pairs *kp = ctx;
    const int64_t entry[4] = {(int64_t)b->row0, (int64_t)b->n_rows, (int64_t)kp->n_kept, 0};
    int rc = GSVD_OK;
    if (!b->king)
        return GSVD_EINTERNAL;
    for (size_t r = 0; r < b->n_rows; r++)
        for (size_t c = r + 1; c < b->ld; c++) {
            size_t at = r * b->ld + c;
            const uint32_t *k = b->king + at * GSVD_PDIST_KING_COUNTS;
            struct gsvd_king_pair x;
            if (!(b->dist[at] >= kp->cfg.min_kinship)) /* NaN: no jointly called site */
                continue;
            x = (struct gsvd_king_pair){.i = (uint32_t)(b->row0 + r),
                                        .j = (uint32_t)(b->row0 + c),
                                        .n = b->n_sites[at],
                                        .hethet = k[0],
                                        .ibs0 = k[1],
                                        .het1_hom2 = k[2] - k[0],
                                        .het2_hom1 = k[3] - k[0],
                                        .kinship = b->dist[at]};
            if (kp->spool || !kp->cfg.tsv) {
                GSVD_TRY(gsvd_king_pairs_put(kp, &x));
            } else {
                kp->n_kept++;
                print_pair(kp, &x);
            }
        }
    if (kp->cfg.emit && !kp->cfg.output && !kp->cfg.tsv) {
        size_t n = kp->mem.len / sizeof(struct gsvd_king_pair);
        GSVD_TRY(kp->cfg.emit(kp->cfg.emit_ctx, (const struct gsvd_king_pair *)kp->mem.data, n));
        kp->mem.len = 0;
    }
    if (kp->cfg.part) {
        int64_t e[4] = {entry[0], entry[1], entry[2], (int64_t)kp->n_kept - entry[2]};
        GSVD_TRY(gsvd_buf_append(&kp->bands, e, sizeof e));
    }
    if (!kp->spool && kp->cfg.tsv && ferror(kp->cfg.tsv)) {
        gsvd_log_error("%s: write failed", tsv_name(kp));
        return GSVD_EIO;
    }
out:
    return rc;
}

/* Column q of a chunk of records as the array's dtype. */
static void column(const struct gsvd_king_pair *r, size_t n, int q, void *dst)
{
    for (size_t k = 0; k < n; k++) {
        const struct gsvd_king_pair *x = r + k;
        switch (q) {
        case 0:
            ((int64_t *)dst)[k] = x->i;
            break;
        case 1:
            ((int64_t *)dst)[k] = x->j;
            break;
        case 2:
            ((double *)dst)[k] = x->kinship;
            break;
        default: {
            const uint32_t v[] = {x->n, x->hethet, x->ibs0, x->het1_hom2, x->het2_hom1};
            ((uint32_t *)dst)[k] = v[q - 3];
        }
        }
    }
}

enum { NCOL = 8 };
static const char *const col_names[NCOL] = {"pair_i", "pair_j", "kinship",   "n_sites",
                                            "hethet", "ibs0",   "het1_hom2", "het2_hom1"};
static const double col_nan = NAN;
static const uint32_t col_zero = 0;
static const int64_t col_minus1 = -1;

/* The pair arrays' chunk length for `total` pairs. */
static uint64_t pair_chunk(uint64_t total)
{
    return total < PAIR_CHUNK ? (total ? total : 1) : PAIR_CHUNK;
}

/* Column q's array along "pairs": int64 indices, float64 kinship, uint32 counts. */
static struct gsvd_array_spec pair_spec(int q, uint64_t total)
{
    struct gsvd_array_spec s = {.path = col_names[q],
                                .ndim = 1,
                                .shape = {total},
                                .chunks = {pair_chunk(total)},
                                .dims = {"pairs"}};
    if (q < 2) {
        s.dtype = (struct gsvd_dtype){'i', '<', 8};
        s.fill = &col_minus1;
    } else if (q == 2) {
        s.dtype = (struct gsvd_dtype){'f', '<', 8};
        s.fill = &col_nan;
    } else {
        s.dtype = (struct gsvd_dtype){'u', '<', 4};
        s.fill = &col_zero;
    }
    return s;
}

/* The sample IDs along "samples", one chunk. */
static struct gsvd_array_spec ids_spec(uint64_t n)
{
    return (struct gsvd_array_spec){.path = "sample_id",
                                    .ndim = 1,
                                    .shape = {n},
                                    .chunks = {n ? n : 1},
                                    .dtype = {'O', '|', sizeof(char *)},
                                    .dims = {"samples"}};
}

/* A part's band table (see gsvd_king_pairs_cfg.part). */
static int write_bands(struct gsvd_king_pairs *kp, gsvd_writer *w, gsvd_codec_ws *ws)
{
    uint64_t nb = kp->bands.len / (4 * sizeof(int64_t));
    const int64_t fill = -1;
    struct gsvd_array_spec s = {.path = "part_bands",
                                .ndim = 2,
                                .shape = {nb, 4},
                                .chunks = {nb ? nb : 1, 4},
                                .dtype = {'i', '<', 8},
                                .dims = {"part_bands", "band_fields"},
                                .fill = &fill};
    gsvd_warray *a;
    int rc = gsvd_writer_array(w, &s, &a);
    if (rc == GSVD_OK && nb)
        rc = gsvd_warray_write_rows(a, ws, 0, nb, kp->bands.data);
    return rc;
}

int gsvd_king_pairs_attrs(const char *attrs_json, uint64_t n_pairs, struct gsvd_buf *b)
{
    size_t len = attrs_json ? strlen(attrs_json) : 0;
    int rc = GSVD_OK;
    if (len < 3 || strcmp(attrs_json + len - 2, "\n}") != 0)
        return GSVD_EINTERNAL;
    GSVD_TRY(gsvd_buf_append(b, attrs_json, len - 2));
    GSVD_TRY(gsvd_buf_printf(b, ",\n    \"n_pairs\": %llu\n}", (unsigned long long)n_pairs));
out:
    return rc;
}

static int write_attrs(gsvd_writer *w, const char *attrs_json, uint64_t n_pairs)
{
    struct gsvd_buf b = GSVD_BUF_INIT;
    int rc = gsvd_king_pairs_attrs(attrs_json, n_pairs, &b);
    if (rc == GSVD_OK)
        rc = gsvd_writer_group(w, "", b.data);
    gsvd_buf_free(&b);
    return rc;
}

/* The arrays along "pairs", read back from the spool chunk by chunk. */
static int write_zarr(struct gsvd_king_pairs *kp, const char *attrs_json)
{
    const uint64_t total = kp->n_kept, chunk = pair_chunk(total);
    gsvd_warray *arr[NCOL], *a;
    gsvd_writer *w = NULL;
    gsvd_codec_ws *ws = NULL;
    struct gsvd_king_pair *buf = NULL;
    void *col = NULL;
    uint64_t n = kp->cfg.n;
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_codec_ws_new(&ws));
    GSVD_TRY(gsvd_writer_open_params(kp->cfg.output, kp->cfg.force, &kp->cfg.wp, &w));
    {
        struct gsvd_array_spec sid = ids_spec(n);
        GSVD_TRY(gsvd_writer_array(w, &sid, &a));
        GSVD_TRY(
            gsvd_warray_write_strings(a, ws, (const char *const *)kp->cfg.ids->items, (size_t)n));
    }
    for (int q = 0; q < NCOL; q++) {
        struct gsvd_array_spec s = pair_spec(q, total);
        GSVD_TRY(gsvd_writer_array(w, &s, &arr[q]));
    }
    if (!(buf = gsvd_malloc((size_t)chunk * sizeof *buf)) ||
        !(col = gsvd_malloc((size_t)chunk * sizeof(double)))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    if (fflush(kp->spool) != 0 || fseek(kp->spool, 0, SEEK_SET) != 0) {
        gsvd_log_error("%s: reading the temporary pair file back failed: %s", kp->cfg.output,
                       strerror(errno));
        rc = GSVD_EIO;
        goto out;
    }
    for (uint64_t row = 0; row < total; row += chunk) {
        size_t k = (size_t)(total - row < chunk ? total - row : chunk);
        if (fread(buf, sizeof *buf, k, kp->spool) != k) {
            gsvd_log_error("%s: the temporary pair file is short", kp->cfg.output);
            rc = GSVD_EIO;
            goto out;
        }
        for (int q = 0; q < NCOL; q++) {
            column(buf, k, q, col);
            GSVD_TRY(gsvd_warray_write_rows(arr[q], ws, row, k, col));
        }
    }
    if (kp->cfg.part)
        GSVD_TRY(write_bands(kp, w, ws));
    GSVD_TRY(write_attrs(w, attrs_json, total));
    GSVD_TRY(gsvd_writer_commit(w));
out:
    gsvd_free(buf);
    gsvd_free(col);
    gsvd_writer_close(w);
    gsvd_codec_ws_free(ws);
    return rc;
}

/* The arrays of the pair list (the IDs, then the columns) into res. */
static int build_arrays(const struct gsvd_king_pairs *kp, gsvd_result *res)
{
    const struct gsvd_king_pair *x = (const struct gsvd_king_pair *)kp->mem.data;
    const uint64_t total = kp->n_kept;
    struct gsvd_array_spec sid = ids_spec(kp->cfg.n);
    int rc = GSVD_OK;

    if (total > SIZE_MAX / sizeof(double))
        return GSVD_ENOMEM;
    GSVD_TRY(gsvd_result_add(res, &sid, kp->cfg.ids->items));
    for (int q = 0; q < NCOL; q++) {
        struct gsvd_array_spec s = pair_spec(q, total);
        void *col = gsvd_malloc((size_t)(total ? total : 1) * s.dtype.size);
        if (!col)
            return GSVD_ENOMEM;
        column(x, (size_t)total, q, col);
        GSVD_TRY(gsvd_result_adopt(res, &s, col)); /* frees col on failure */
    }
out:
    return rc;
}

int gsvd_king_pairs_build(struct gsvd_king_pairs *kp, const char *attrs_json, gsvd_result **out)
{
    struct gsvd_buf attrs = GSVD_BUF_INIT;
    gsvd_result *res = NULL;
    int rc = GSVD_OK;

    *out = NULL;
    if (kp->spool || kp->cfg.tsv)
        return GSVD_EINVAL;
    GSVD_TRY(gsvd_result_new(&res));
    if (!kp->cfg.emit) /* else the pairs went to emit: the attributes alone */
        GSVD_TRY(build_arrays(kp, res));
    /* the writer's order: the arrays' documents first, then the group's */
    GSVD_TRY(gsvd_king_pairs_attrs(attrs_json, kp->n_kept, &attrs));
    GSVD_TRY(gsvd_result_set_attrs(res, attrs.data, GSVD_RESULT_ATTRS_LAST));
    *out = res;
    res = NULL;
out:
    gsvd_buf_free(&attrs);
    gsvd_result_free(res);
    return rc;
}

int gsvd_king_pairs_finish(struct gsvd_king_pairs *kp, const char *attrs_json)
{
    if (kp->spool)
        return write_zarr(kp, attrs_json);
    if (!kp->cfg.tsv)
        return GSVD_EINVAL; /* in memory: gsvd_king_pairs_build */
    if (fflush(kp->cfg.tsv) != 0) {
        gsvd_log_error("%s: write failed", tsv_name(kp));
        return GSVD_EIO;
    }
    return GSVD_OK;
}

void gsvd_king_pairs_close(struct gsvd_king_pairs *kp)
{
    if (!kp)
        return;
    if (kp->spool)
        fclose(kp->spool);
    gsvd_buf_free(&kp->mem);
    gsvd_buf_free(&kp->bands);
    gsvd_free(kp);
}
