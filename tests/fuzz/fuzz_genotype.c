/* tests/fuzz/fuzz_genotype.c - libFuzzer target for the genotype decode (analysis/scan/genotype.h):
 * calls to dosages, per-variant statistics and filters, int8 / float64 blocks, and the 2-bit
 * codes of the block cache.
 * Input: byte 0 picks one of a fixed set of small genotype arrays (`arrays`: VCF-Zarr 3-D calls
 * of int8 or int16 and ploidy 2 or 3, 2-D int8 or float32 dosage matrices, a sample subset),
 * byte 1 the scan parameters (scaler, --maf, --max-missing, missing calls as errors, a
 * transposed 2-D matrix, two decode threads); the rest fills the array's chunks in order, raw
 * (no compressor), so every byte is a call or a dosage; a short tail is a short chunk, and
 * chunks the input does not reach are missing (fill_value).  The matrix is scanned twice with
 * the block cache on: the first scan decodes the chunks, the second replays the cache (2-bit
 * codes for ploidy <= 2).  Checks: both scans return the same code, the same counts, the same
 * per-variant kept/mean/scale and bit-identical standardised values.  Built with standalone.c
 * when libFuzzer is not available. */
#include "gsvd_config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "analysis/backend.h"
#include "analysis/scan/gblock_std.h"
#include "analysis/scan/genotype.h"
#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/meta.h"
#include "zarr/store.h"
#include "zarr/tree.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ZA(shape, chunks, dtype, fill)                                                             \
    "{\"zarr_format\": 2, \"shape\": " shape ", \"chunks\": " chunks ", \"dtype\": \"" dtype       \
    "\", \"fill_value\": " fill ", \"order\": \"C\", \"compressor\": null, \"filters\": null}"

/* One genotype array per selector (data[0] % GSVD_ARRAY_LEN(arrays)); keep in step with the
 * seed corpus (tests/fuzz/corpus/genotype/NN_*). */
static const struct {
    const char *name;   /* array path; "call_genotype" is found without params.array */
    const char *zarray; /* raw chunks */
    size_t n_chunks;    /* chunks in the grid, in key order */
    const char *keys[4];
    size_t chunk_bytes;
    int subset; /* 1: analyse samples sample_2, sample_0 only */
} arrays[] = {
    /* 0: diploid int8 calls, 6 variants x 5 samples, an edge chunk */
    {"call_genotype", ZA("[6, 5, 2]", "[4, 5, 2]", "|i1", "null"), 2, {"0.0.0", "1.0.0"}, 40, 0},
    /* 1: triploid int16 calls */
    {"call_genotype",
     ZA("[5, 3, 3]", "[2, 3, 3]", "<i2", "-1"),
     3,
     {"0.0.0", "1.0.0", "2.0.0"},
     36,
     0},
    /* 2: float32 dosages (NaN missing), 6 variants x 4 samples */
    {"dosage", ZA("[6, 4]", "[3, 4]", "<f4", "\"NaN\""), 2, {"0.0", "1.0"}, 48, 0},
    /* 3: int8 dosages, one chunk, fill -1 (missing) */
    {"dosage", ZA("[6, 4]", "[6, 4]", "|i1", "-1"), 1, {"0.0"}, 24, 0},
    /* 4: diploid int8 calls with a sample subset in a different order */
    {"call_genotype",
     ZA("[7, 3, 2]", "[3, 3, 2]", "|i1", "-1"),
     3,
     {"0.0.0", "1.0.0", "2.0.0"},
     18,
     1},
    /* 5: haploid int8 calls, the variant axis chunked by one */
    {"call_genotype",
     ZA("[4, 6, 1]", "[1, 6, 1]", "|i1", "0"),
     4,
     {"0.0.0", "1.0.0", "2.0.0", "3.0.0"},
     6,
     0},
};

/* Everything a scan handed to its callback, for comparing two scans. */
struct record {
    struct gsvd_buf bytes;
    int oom;
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    gsvd_meta_global_init();
    gsvd_log_set_level(GSVD_LOG_OFF); /* every rejected input would log */
    return 0;
}

static void put(struct record *rec, const void *p, size_t n)
{
    if (!rec->oom && n && gsvd_buf_append(&rec->bytes, p, n) != GSVD_OK)
        rec->oom = 1;
}

/* Record the block's standardised values and the per-variant statistics. */
static int on_block(void *ctx, const struct gsvd_gblock *blk, const struct gsvd_geno_info *info)
{
    struct record *rec = ctx;
    size_t nc = blk->n_cols, rb = gsvd_std_p2_row_bytes(nc);

    put(rec, &info->first, sizeof info->first);
    put(rec, &info->n_variants, sizeof info->n_variants);
    put(rec, info->kept, info->n_variants);
    put(rec, info->mean, info->n_variants * sizeof *info->mean);
    put(rec, info->scale, info->n_variants * sizeof *info->scale);
    put(rec, &blk->n_rows, sizeof blk->n_rows);
    for (size_t r = 0; r < blk->n_rows; r++) {
        float c = blk->center[r], s = blk->scale[r], m = blk->missing ? blk->missing[r] : 0.0f;
        for (size_t j = 0; j < nc; j++) {
            float z;
            if (blk->i8)
                z = gsvd_std_i8(blk->i8[r * nc + j], c, s, m);
            else if (blk->p2)
                z = gsvd_std_p2(gsvd_std_p2_code(blk->p2 + r * rb, j), c, s, m);
            else if (blk->f64)
                z = gsvd_std_f64(blk->f64[r * nc + j], c, s, m);
            else
                __builtin_trap(); /* a block with rows has data */
            put(rec, &z, sizeof z);
        }
    }
    return GSVD_OK;
}

static void scan_twice(gsvd_tree *t, size_t sel, uint8_t pbits)
{
    static const char *const subset[] = {"sample_2", "sample_0"};
    struct gsvd_strlist samples = GSVD_STRLIST_INIT;
    struct gsvd_geno_params p = GSVD_GENO_PARAMS_DEFAULT;
    struct gsvd_geno_counts c1;
    struct record r1 = {GSVD_BUF_INIT, 0}, r2 = {GSVD_BUF_INIT, 0};
    gsvd_geno *g = NULL;
    int rc1, rc2;

    for (size_t i = 0; arrays[sel].subset && i < GSVD_ARRAY_LEN(subset); i++)
        if (gsvd_strlist_push(&samples, subset[i]) != GSVD_OK)
            goto out;
    p.array = strcmp(arrays[sel].name, "call_genotype") ? arrays[sel].name : NULL;
    p.samples = arrays[sel].subset ? &samples : NULL;
    p.scaler = (enum gsvd_scaler)(pbits % 5);
    p.maf = pbits & 0x08 ? 0.1 : 0;
    p.max_missing = pbits & 0x10 ? 0.5 : 1;
    p.missing_error = (pbits & 0x20) != 0;
    p.transpose = (pbits & 0x40) && p.array;
    p.n_threads = pbits & 0x80 ? 2 : 1;
    p.cache_bytes = 1 << 20;
    if (gsvd_geno_open(t, "", &p, &g) != GSVD_OK)
        goto out;
    rc1 = gsvd_geno_scan(g, on_block, &r1);
    c1 = *gsvd_geno_counts(g);
    if (rc1 != GSVD_OK)
        goto out;
    rc2 = gsvd_geno_scan(g, on_block, &r2);
    if (rc2 == GSVD_ENOMEM || r1.oom || r2.oom)
        goto out;
    if (rc2 != rc1 || memcmp(&c1, gsvd_geno_counts(g), sizeof c1) != 0 ||
        r1.bytes.len != r2.bytes.len ||
        (r1.bytes.len && memcmp(r1.bytes.data, r2.bytes.data, r1.bytes.len) != 0))
        __builtin_trap(); /* the cached replay differs from the decode */
out:
    gsvd_geno_close(g);
    gsvd_buf_free(&r1.bytes);
    gsvd_buf_free(&r2.bytes);
    gsvd_strlist_free(&samples);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gsvd_store *st = NULL;
    gsvd_tree *t = NULL;
    char *key = NULL;
    size_t sel, off = 2;

    if (size < 2)
        return 0;
    sel = data[0] % GSVD_ARRAY_LEN(arrays);
    if (gsvd_store_open("mem:fuzz-genotype", GSVD_STORE_WRITE, &st) != GSVD_OK)
        return 0;
    if (gsvd_store_put(st, ".zgroup", "{\"zarr_format\": 2}", 18) != GSVD_OK ||
        gsvd_key_join(arrays[sel].name, ".zarray", &key) != GSVD_OK ||
        gsvd_store_put(st, key, arrays[sel].zarray, strlen(arrays[sel].zarray)) != GSVD_OK)
        goto out;
    for (size_t i = 0; i < arrays[sel].n_chunks && off < size; i++) {
        size_t n = size - off < arrays[sel].chunk_bytes ? size - off : arrays[sel].chunk_bytes;
        char *ck = NULL;
        int rc = gsvd_key_join(arrays[sel].name, arrays[sel].keys[i], &ck);
        if (rc == GSVD_OK)
            rc = gsvd_store_put(st, ck, data + off, n);
        gsvd_free(ck);
        if (rc != GSVD_OK)
            goto out;
        off += n;
    }
    if (gsvd_tree_open(st, &t) != GSVD_OK)
        __builtin_trap(); /* the fixed metadata is valid: failing here is a bug */
    scan_twice(t, sel, data[1]);
out:
    gsvd_tree_close(t);
    gsvd_free(key);
    gsvd_store_close(st);
    return 0;
}
