/* tests/lib/lib_run.c - a small command line over the public API (include/gensvd.h only), for
 * the library's tests: one run of one analysis, its options given as NAME=VALUE in the command
 * line's names, the source a store, the store's arrays read into memory, or raw arrays from
 * files (what numpy's tofile writes).
 *
 *   lib_run [options] ANALYSIS SOURCE DEST [NAME=VALUE | src.NAME=VALUE | dest.NAME=VALUE ...]
 *     ANALYSIS   pca, project, pdist, ldprune, related, simulate; plot-pca and plot-pdist draw
 *                SOURCE (an output store) into DEST (a .svg or .png file) with gensvd_plot
 *     SOURCE     a store path or URL; "-" for none (simulate) or for --raw arrays only
 *     DEST       the run's destination, or "-" for none
 *   options:
 *     --memory          read SOURCE's VCF-Zarr arrays into memory, analyse them from there
 *     --chunked         the same, the numeric arrays delivered by chunk callbacks (chunks of
 *                       --chunk-rows rows, default 97)
 *     --raw NAME=FILE:DTYPE:D0xD1...  an in-memory array from a raw file (dtype i1, i2, i4,
 *                       i8, u1, f4, f8)
 *     --fail-chunk N    the chunk callbacks fail from the N-th call on
 *     --write DIR       write the result with gensvd_result_write (format/force as dest.*)
 *     --pcs STORE       project: the reference PCs from a pca run on STORE in this process
 *                       (gensvd_options_set_pcs; the pca's options are "components" only)
 *     --threads N
 *     --ctx NAME=VALUE  a context setting (gensvd_ctx_set_string: credentials, endpoint, ...)
 *     --verbose         the library's messages (info and up) on stderr
 *     --names           after the run, the names gensvd_result_array_name lists, one a line
 *     --print NAME      after the run, the array NAME of the result (gensvd_result_array),
 *                       one element a line (1-D integers or strings; float64 of any shape,
 *                       row-major, as %.17g); "absent" when not found
 * Exit status 0, or 1 with the library's last error on stderr.  Nothing on stdout but what
 * --names and --print ask for. */
#include <gensvd.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARRAYS 16

struct chunked {
    const struct gensvd_array_view *v;
    uint64_t rows;
    atomic_int *calls;
    int fail_at;
};

static int chunk_copy(void *user, const uint64_t *chunk, void *dst, size_t dst_bytes)
{
    struct chunked *c = user;
    size_t esz = gensvd_dtype_size(c->v->dtype), row = esz;
    uint64_t r0 = chunk[0] * c->rows, n;

    if (c->fail_at && atomic_fetch_add(c->calls, 1) + 1 >= c->fail_at)
        return 5;
    for (size_t d = 1; d < c->v->ndim; d++)
        row *= (size_t)c->v->shape[d];
    n = c->v->shape[0] - r0 < c->rows ? c->v->shape[0] - r0 : c->rows;
    if (n * row > dst_bytes)
        return 6;
    memcpy(dst, (const char *)c->v->data + r0 * row, (size_t)(n * row));
    return 0;
}

static void log_stderr(void *user, enum gensvd_log_level level, const char *msg)
{
    (void)user;
    fprintf(stderr, "[%d] %s\n", (int)level, msg);
}

static enum gensvd_dtype dtype_of(const char *s)
{
    static const struct {
        const char *name;
        enum gensvd_dtype t;
    } t[] = {{"i1", GENSVD_DTYPE_INT8},   {"i2", GENSVD_DTYPE_INT16}, {"i4", GENSVD_DTYPE_INT32},
             {"i8", GENSVD_DTYPE_INT64},  {"u1", GENSVD_DTYPE_UINT8}, {"f4", GENSVD_DTYPE_FLOAT32},
             {"f8", GENSVD_DTYPE_FLOAT64}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(s, t[i].name))
            return t[i].t;
    return 0;
}

/* --raw NAME=FILE:DTYPE:D0xD1...: the file read whole (kept in *buf) and added. */
static int add_raw(gensvd_source *src, const char *spec, void **buf)
{
    char name[256], file[1024], dt[8], dims[256];
    uint64_t shape[GENSVD_MAX_DIMS], n = 1;
    size_t ndim = 0;
    FILE *fp;
    long len;
    enum gensvd_dtype t;

    if (sscanf(spec, "%255[^=]=%1023[^:]:%7[^:]:%255s", name, file, dt, dims) != 4 ||
        !(t = dtype_of(dt)))
        return fprintf(stderr, "lib_run: bad --raw '%s'\n", spec), -1;
    for (char *p = strtok(dims, "x"); p && ndim < GENSVD_MAX_DIMS; p = strtok(NULL, "x"))
        n *= shape[ndim++] = strtoull(p, NULL, 10);
    if (!(fp = fopen(file, "rb")) || fseek(fp, 0, SEEK_END) != 0 || (len = ftell(fp)) < 0 ||
        (uint64_t)len != n * gensvd_dtype_size(t) || fseek(fp, 0, SEEK_SET) != 0 ||
        !(*buf = malloc((size_t)len + 1)) || fread(*buf, 1, (size_t)len, fp) != (size_t)len)
        return fprintf(stderr, "lib_run: cannot read %s (%s)\n", file, spec), -1;
    fclose(fp);
    return gensvd_source_add_array(src, name, *buf, t, ndim, shape, NULL);
}

/* --print NAME: a 1-D integer, bool or string array, or float64 of any shape, one element a
 * line. */
static int print_array(const gensvd_result *res, const char *name)
{
    struct gensvd_array_view v;
    uint64_t count = 1;
    if (gensvd_result_array(res, name, &v) != 0)
        return puts("absent") < 0;
    if (v.dtype == GENSVD_DTYPE_FLOAT64) {
        for (size_t d = 0; d < v.ndim; d++)
            count *= v.shape[d];
        for (uint64_t i = 0; i < count; i++)
            printf("%.17g\n", ((const double *)v.data)[i]);
        return 0;
    }
    if (v.ndim != 1)
        return fprintf(stderr, "lib_run: %s is not 1-D\n", name), 1;
    for (uint64_t i = 0; i < v.shape[0]; i++) {
        switch (v.dtype) {
        case GENSVD_DTYPE_STRING:
            puts(((const char *const *)v.data)[i]);
            break;
        case GENSVD_DTYPE_INT64:
            printf("%lld\n", (long long)((const int64_t *)v.data)[i]);
            break;
        case GENSVD_DTYPE_UINT64:
            printf("%llu\n", (unsigned long long)((const uint64_t *)v.data)[i]);
            break;
        case GENSVD_DTYPE_BOOL:
        case GENSVD_DTYPE_UINT8:
            printf("%d\n", ((const uint8_t *)v.data)[i]);
            break;
        default:
            return fprintf(stderr, "lib_run: %s: --print takes integers or strings\n", name), 1;
        }
    }
    return 0;
}

static enum gensvd_analysis analysis_of(const char *s)
{
    static const char *const names[] = {"",        "pca",      "project",  "pdist",     "ldprune",
                                        "related", "simulate", "plot-pca", "plot-pdist"};
    for (int i = 1; i < 9; i++)
        if (!strcmp(s, names[i]))
            return (enum gensvd_analysis)i;
    return 0;
}

int main(int argc, char **argv)
{
    const char *vcz_arrays[] = {
        "call_genotype",    "sample_id",      "variant_contig",       "contig_id",
        "variant_position", "variant_allele", "call_genotype_phased", "variant_id"};
    gensvd_ctx *ctx = gensvd_ctx_new();
    gensvd_source *src = NULL;
    gensvd_options *opt = NULL, *popt = NULL;
    gensvd_dest *dest = NULL, *wdest = NULL;
    gensvd_result *res = NULL, *pcs = NULL, *loaded[MAX_ARRAYS] = {0};
    struct gensvd_array_view views[MAX_ARRAYS];
    struct chunked ch[MAX_ARRAYS];
    void *raw[MAX_ARRAYS] = {0};
    int memory = 0, chunked = 0, n_raw = 0, fail_at = 0, rc = 0, a;
    atomic_int calls = 0;
    const char *write_dir = NULL, *pcs_store = NULL, *print[MAX_ARRAYS];
    int n_print = 0, names = 0;
    uint64_t chunk_rows = 97;
    enum gensvd_analysis an;

    if (!ctx)
        return 1;
    for (a = 1; a < argc && argv[a][0] == '-' && argv[a][1] == '-'; a++) {
        if (!strcmp(argv[a], "--memory"))
            memory = 1;
        else if (!strcmp(argv[a], "--chunked"))
            memory = chunked = 1;
        else if (!strcmp(argv[a], "--chunk-rows") && a + 1 < argc)
            chunk_rows = strtoull(argv[++a], NULL, 10);
        else if (!strcmp(argv[a], "--fail-chunk") && a + 1 < argc)
            fail_at = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--write") && a + 1 < argc)
            write_dir = argv[++a];
        else if (!strcmp(argv[a], "--pcs") && a + 1 < argc)
            pcs_store = argv[++a];
        else if (!strcmp(argv[a], "--print") && a + 1 < argc && n_print < MAX_ARRAYS)
            print[n_print++] = argv[++a];
        else if (!strcmp(argv[a], "--names"))
            names = 1;
        else if (!strcmp(argv[a], "--verbose"))
            rc = gensvd_ctx_set_log(ctx, log_stderr, NULL, GENSVD_LOG_INFO);
        else if (!strcmp(argv[a], "--ctx") && a + 1 < argc) {
            char *eq = strchr(argv[++a], '=');
            if (!eq)
                return fprintf(stderr, "lib_run: --ctx takes NAME=VALUE\n"), 2;
            *eq = '\0';
            rc = gensvd_ctx_set_string(ctx, argv[a], eq + 1);
        } else if (!strcmp(argv[a], "--threads") && a + 1 < argc)
            rc = gensvd_ctx_set_string(ctx, "threads", argv[++a]);
        else if (!strcmp(argv[a], "--raw") && a + 1 < argc && n_raw < MAX_ARRAYS) {
            if (!src && (rc = gensvd_source_new(ctx, &src)) != 0)
                break;
            if ((rc = add_raw(src, argv[++a], &raw[n_raw++])) != 0)
                break;
        } else
            return fprintf(stderr, "lib_run: unknown option %s\n", argv[a]), 2;
    }
    if (rc == 0 && argc - a < 3)
        return fprintf(stderr, "usage: lib_run [options] ANALYSIS SOURCE DEST [NAME=VALUE...]\n"),
               2;
    if (rc == 0 && !(an = analysis_of(argv[a])))
        return fprintf(stderr, "lib_run: unknown analysis %s\n", argv[a]), 2;
    if (rc == 0 && (an == GENSVD_PLOT_PCA || an == GENSVD_PLOT_PDIST)) {
        rc = gensvd_options_new(ctx, an, &opt);
        for (int i = a + 3; rc == 0 && i < argc; i++) {
            char *eq = strchr(argv[i], '=');
            if (!eq)
                return fprintf(stderr, "lib_run: '%s' is not NAME=VALUE\n", argv[i]), 2;
            *eq = '\0';
            rc = gensvd_options_set_string(opt, argv[i], eq + 1);
        }
        if (rc == 0)
            rc = gensvd_plot(ctx, opt, argv[a + 1], argv[a + 2]);
        if (rc != 0)
            fprintf(stderr, "lib_run: %s\n", gensvd_ctx_last_error(ctx));
        gensvd_options_free(opt);
        gensvd_ctx_free(ctx);
        return rc != 0;
    }
    if (rc == 0 && strcmp(argv[a + 1], "-") != 0) {
        if (!memory) {
            rc = gensvd_source_open(ctx, argv[a + 1], &src);
        } else {
            rc = gensvd_source_new(ctx, &src);
            for (size_t i = 0; rc == 0 && i < sizeof vcz_arrays / sizeof *vcz_arrays; i++) {
                if (gensvd_store_read(ctx, argv[a + 1], vcz_arrays[i], NULL, NULL, &loaded[i]) != 0)
                    continue; /* absent in this store */
                gensvd_result_array(loaded[i], vcz_arrays[i], &views[i]);
                if (chunked && views[i].dtype != GENSVD_DTYPE_STRING) {
                    uint64_t chunks[GENSVD_MAX_DIMS];
                    ch[i] = (struct chunked){&views[i], chunk_rows, &calls, fail_at};
                    for (size_t d = 0; d < views[i].ndim; d++)
                        chunks[d] = d ? views[i].shape[d] : chunk_rows;
                    rc =
                        gensvd_source_add_chunked(src, vcz_arrays[i], views[i].dtype, views[i].ndim,
                                                  views[i].shape, chunks, chunk_copy, &ch[i]);
                } else {
                    rc = gensvd_source_add_array(src, vcz_arrays[i], views[i].data, views[i].dtype,
                                                 views[i].ndim, views[i].shape, NULL);
                }
            }
        }
    }
    if (rc == 0 && pcs_store) { /* project onto a pca result made here */
        gensvd_source *psrc = NULL;
        rc = gensvd_source_open(ctx, pcs_store, &psrc);
        if (rc == 0)
            rc = gensvd_options_new(ctx, GENSVD_PCA, &popt);
        if (rc == 0)
            rc = gensvd_options_set_int(popt, "loadings", 1);
        if (rc == 0)
            rc = gensvd_run(ctx, popt, psrc, NULL, &pcs);
        gensvd_source_free(psrc);
    }
    if (rc == 0)
        rc = gensvd_options_new(ctx, an, &opt);
    if (rc == 0 && pcs)
        rc = gensvd_options_set_pcs(opt, pcs);
    if (rc == 0 && strcmp(argv[a + 2], "-") != 0)
        rc = gensvd_dest_new(ctx, argv[a + 2], &dest);
    if (rc == 0 && write_dir)
        rc = gensvd_dest_new(ctx, write_dir, &wdest);
    for (int i = a + 3; rc == 0 && i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq)
            return fprintf(stderr, "lib_run: '%s' is not NAME=VALUE\n", argv[i]), 2;
        *eq = '\0';
        if (!strncmp(argv[i], "src.", 4))
            rc = gensvd_source_set_string(src, argv[i] + 4, eq + 1);
        else if (!strncmp(argv[i], "dest.", 5)) {
            rc = dest ? gensvd_dest_set_string(dest, argv[i] + 5, eq + 1) : 0;
            if (rc == 0 && wdest)
                rc = gensvd_dest_set_string(wdest, argv[i] + 5, eq + 1);
        } else
            rc = gensvd_options_set_string(opt, argv[i], eq + 1);
    }
    if (rc == 0)
        rc = gensvd_run(ctx, opt, src, dest, &res);
    if (rc == 0 && wdest)
        rc = gensvd_result_write(ctx, res, wdest);
    for (size_t i = 0; rc == 0 && names && gensvd_result_array_name(res, i); i++)
        puts(gensvd_result_array_name(res, i));
    for (int i = 0; rc == 0 && i < n_print; i++)
        if (print_array(res, print[i]) != 0)
            rc = 1;
    if (rc != 0)
        fprintf(stderr, "lib_run: %s (%s)\n", gensvd_ctx_last_error(ctx), gensvd_strerror(rc));
    gensvd_result_free(res);
    gensvd_result_free(pcs);
    gensvd_options_free(opt);
    gensvd_options_free(popt);
    gensvd_dest_free(dest);
    gensvd_dest_free(wdest);
    gensvd_source_free(src);
    for (int i = 0; i < MAX_ARRAYS; i++) {
        gensvd_result_free(loaded[i]);
        free(raw[i]);
    }
    gensvd_ctx_free(ctx);
    return rc != 0;
}
