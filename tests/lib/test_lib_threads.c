/* tests/lib/test_lib_threads.c - what include/gensvd.h promises about threads, cancellation
 * and memory, through the public API only:
 *   together  two contexts running different analyses at once in two threads (pca and pdist,
 *             then ldprune and related) give the bytes of each run alone;
 *   cancel    gensvd_ctx_cancel from another thread stops a long pca, a long pdist and a long
 *             simulate within a second with GENSVD_ECANCELED, logs no error, leaves nothing at
 *             the destination nor beside it, and the next call on the context runs;
 *   memory    a pca of a large in-memory int8 array (read in place) raises the peak resident
 *             size by less than half the array: nothing holds a copy of it (getrusage).
 * Usage: test_lib_threads HAPMAP3.vcz SCRATCH_DIR [together|cancel|memory]...  (all when none) */
#include <gensvd.h>

#include <dirent.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib_check.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void pause_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

/* ---- one run, as a thread ------------------------------------------------------------------ */

struct job {
    enum gensvd_analysis an;
    const char *input;   /* a store, or NULL: `src` given */
    const char *opts[8]; /* "name=value" */
    gensvd_source *src;  /* borrowed */
    const char *dest;    /* or NULL */
    int rc;
    gensvd_result *res;
    gensvd_ctx *ctx;
    atomic_int errors; /* ERROR messages logged */
    double t_end;
};

static void count_errors(void *user, enum gensvd_log_level level, const char *msg)
{
    struct job *j = user;
    (void)msg;
    if (level == GENSVD_LOG_ERROR)
        atomic_fetch_add(&j->errors, 1);
}

static void *run_job(void *arg)
{
    struct job *j = arg;
    gensvd_source *src = j->src;
    gensvd_options *opt = NULL;
    gensvd_dest *d = NULL;
    int rc = 0;

    if (!j->ctx) {
        j->ctx = gensvd_ctx_new();
        gensvd_ctx_set_int(j->ctx, "threads", 2);
    }
    gensvd_ctx_set_log(j->ctx, count_errors, j, GENSVD_LOG_ERROR);
    if (j->input)
        rc = gensvd_source_open(j->ctx, j->input, &src);
    if (rc == 0)
        rc = gensvd_options_new(j->ctx, j->an, &opt);
    for (int i = 0; rc == 0 && i < 8 && j->opts[i]; i++) {
        char name[64];
        const char *eq = strchr(j->opts[i], '=');
        snprintf(name, sizeof name, "%.*s", (int)(eq - j->opts[i]), j->opts[i]);
        rc = gensvd_options_set_string(opt, name, eq + 1);
    }
    if (rc == 0 && j->dest)
        rc = gensvd_dest_new(j->ctx, j->dest, &d);
    if (rc == 0)
        rc = gensvd_run(j->ctx, opt, j->an == GENSVD_SIMULATE ? NULL : src, d, &j->res);
    j->t_end = now();
    j->rc = rc;
    gensvd_dest_free(d);
    gensvd_options_free(opt);
    if (j->input)
        gensvd_source_free(src);
    return NULL;
}

/* The arrays of a and b hold the same bytes. */
static int same_result(const gensvd_result *a, const gensvd_result *b)
{
    const char *name;
    size_t i = 0;
    if (!a || !b)
        return 0;
    for (; (name = gensvd_result_array_name(a, i)) != NULL; i++) {
        struct gensvd_array_view va, vb;
        size_t n = 1;
        if (gensvd_result_array(a, name, &va) || gensvd_result_array(b, name, &vb) ||
            va.ndim != vb.ndim || va.dtype != vb.dtype)
            return 0;
        for (size_t d = 0; d < va.ndim; d++) {
            if (va.shape[d] != vb.shape[d])
                return 0;
            n *= (size_t)va.shape[d];
        }
        if (va.dtype == GENSVD_DTYPE_STRING) {
            for (size_t k = 0; k < n; k++)
                if (strcmp(((const char *const *)va.data)[k], ((const char *const *)vb.data)[k]))
                    return 0;
        } else if (memcmp(va.data, vb.data, n * gensvd_dtype_size(va.dtype)) != 0) {
            return 0;
        }
    }
    return i > 0 && gensvd_result_array_name(b, i) == NULL &&
           !strcmp(gensvd_result_attrs_json(a), gensvd_result_attrs_json(b));
}

static void free_job(struct job *j)
{
    gensvd_result_free(j->res);
    gensvd_ctx_free(j->ctx);
    j->res = NULL;
    j->ctx = NULL;
}

/* a and b alone, one after the other, then at once in two threads: the same bytes */
static void together(struct job a, struct job b)
{
    struct job a2 = a, b2 = b;
    pthread_t ta, tb;

    run_job(&a);
    run_job(&b);
    check(a.rc == 0 && b.rc == 0, "together: %d and %d alone", (int)a.an, (int)b.an);
    pthread_create(&ta, NULL, run_job, &a2);
    pthread_create(&tb, NULL, run_job, &b2);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    check(a2.rc == 0 && b2.rc == 0, "together: both ran at once");
    check(same_result(a.res, a2.res), "together: analysis %d at once = alone", (int)a.an);
    check(same_result(b.res, b2.res), "together: analysis %d at once = alone", (int)b.an);
    free_job(&a);
    free_job(&b);
    free_job(&a2);
    free_job(&b2);
}

/* ---- cancel -------------------------------------------------------------------------------- */

/* Genotypes made on the fly: variant v, sample s, allele a. */
static int gen_chunk(void *user, const uint64_t *chunk, void *dst, size_t dst_bytes)
{
    const uint64_t *shape = user; /* variants, samples, ploidy; chunks of 64 variants */
    int8_t *g = dst;
    size_t row = (size_t)(shape[1] * shape[2]);
    for (size_t i = 0; i < dst_bytes; i++) {
        uint64_t v = chunk[0] * 64 + i / row, s = (i % row) / shape[2];
        uint64_t h = (v * 0x9E3779B97F4A7C15u) ^ (s * 0xC2B2AE3D27D4EB4Fu) ^ (i % shape[2]);
        h ^= h >> 29;
        h *= 0xBF58476D1CE4E5B9u;
        g[i] = (int8_t)((h >> 40) % 100 < (v % 7 + 1) * 10 ? 1 : 0);
    }
    return 0;
}

/* Nothing in dir but `keep` (the scratch of earlier steps). */
static int dir_holds_only(const char *dir, const char *keep)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int ok = d != NULL;
    while (d && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, keep))
            ok = 0;
    if (d)
        closedir(d);
    return ok;
}

static void cancel_one(struct job *j, const char *what, const char *dir)
{
    pthread_t t;
    double t_cancel;

    j->ctx = gensvd_ctx_new();
    gensvd_ctx_set_int(j->ctx, "threads", 2);
    pthread_create(&t, NULL, run_job, j);
    pause_s(1.5);
    t_cancel = now();
    gensvd_ctx_cancel(j->ctx);
    pthread_join(t, NULL);
    check(j->rc == GENSVD_ECANCELED, "cancel %s: GENSVD_ECANCELED (rc %d: %s)", what, j->rc,
          gensvd_ctx_last_error(j->ctx));
    check(j->t_end - t_cancel < 1.0, "cancel %s: returned %.3f s after the request", what,
          j->t_end - t_cancel);
    check(atomic_load(&j->errors) == 0, "cancel %s: no error logged (%d)", what,
          atomic_load(&j->errors));
    check(j->res == NULL, "cancel %s: no result", what);
    check(dir_holds_only(dir, "keep"), "cancel %s: nothing left at or beside the destination",
          what);
    {
        /* the request is cleared: the next call runs */
        gensvd_source *s = NULL;
        check(gensvd_source_new(j->ctx, &s) == 0, "cancel %s: the context is usable again", what);
        gensvd_source_free(s);
    }
    free_job(j);
}

static void cancel(const char *scratch)
{
    static uint64_t shape[3] = {400000, 1500, 2}, chunks[3] = {64, 1500, 2};
    char dir[1024], out[1100], keep[1100];
    gensvd_source *src = NULL;

    snprintf(dir, sizeof dir, "%s/cancel", scratch);
    snprintf(out, sizeof out, "%s/out.zarr", dir);
    snprintf(keep, sizeof keep, "%s/keep", dir);
    mkdir(dir, 0700);
    mkdir(keep, 0700);
    {
        struct job j = {.an = GENSVD_PCA,
                        .dest = out,
                        .opts = {"method=subspace", "power-iter=500", "components=4"}};
        j.ctx = gensvd_ctx_new();
        gensvd_ctx_set_int(j.ctx, "threads", 2);
        gensvd_source_new(j.ctx, &src);
        gensvd_source_add_chunked(src, "call_genotype", GENSVD_DTYPE_INT8, 3, shape, chunks,
                                  gen_chunk, shape);
        j.src = src;
        {
            pthread_t t;
            double t_cancel;
            pthread_create(&t, NULL, run_job, &j);
            pause_s(1.5);
            t_cancel = now();
            gensvd_ctx_cancel(j.ctx);
            pthread_join(t, NULL);
            check(j.rc == GENSVD_ECANCELED, "cancel pca: GENSVD_ECANCELED (rc %d: %s)", j.rc,
                  gensvd_ctx_last_error(j.ctx));
            check(j.t_end - t_cancel < 1.0, "cancel pca: returned %.3f s after the request",
                  j.t_end - t_cancel);
            check(atomic_load(&j.errors) == 0, "cancel pca: no error logged");
            check(dir_holds_only(dir, "keep"), "cancel pca: nothing left at the destination");
        }
        /* pdist of the same source on the same context: the request was cleared */
        {
            struct job p = {.an = GENSVD_PDIST,
                            .src = src,
                            .ctx = j.ctx,
                            .dest = out,
                            .opts = {"metric=cityblock", "memory=64M"}};
            pthread_t t;
            double t_cancel;
            pthread_create(&t, NULL, run_job, &p);
            pause_s(1.5);
            t_cancel = now();
            gensvd_ctx_cancel(p.ctx);
            pthread_join(t, NULL);
            check(p.rc == GENSVD_ECANCELED, "cancel pdist: GENSVD_ECANCELED (rc %d: %s)", p.rc,
                  gensvd_ctx_last_error(p.ctx));
            check(p.t_end - t_cancel < 1.0, "cancel pdist: returned %.3f s after the request",
                  p.t_end - t_cancel);
            check(dir_holds_only(dir, "keep"), "cancel pdist: nothing left at the destination");
        }
        gensvd_source_free(src);
        gensvd_ctx_free(j.ctx);
    }
    {
        struct job s = {.an = GENSVD_SIMULATE,
                        .dest = out,
                        .opts = {"variants=20000000", "samples=200", "chunks=10000,200"}};
        cancel_one(&s, "simulate", dir);
    }
}

/* ---- memory -------------------------------------------------------------------------------- */

static long peak_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static void memory(void)
{
    uint64_t shape[3] = {60000, 2000, 2};
    size_t bytes = (size_t)(shape[0] * shape[1] * shape[2]);
    int8_t *g = malloc(bytes);
    gensvd_ctx *ctx = gensvd_ctx_new();
    gensvd_source *src = NULL;
    gensvd_options *opt = NULL;
    gensvd_result *res = NULL;
    long before, after;
    int rc;

    if (!g || !ctx) {
        check(0, "memory: allocation");
        return;
    }
    for (size_t i = 0; i < bytes; i++) /* touched: resident before the run */
        g[i] = (int8_t)((i * 2654435761u >> 13) % 3 == 0);
    gensvd_ctx_set_int(ctx, "threads", 2);
    rc = gensvd_source_new(ctx, &src);
    if (rc == 0)
        rc = gensvd_source_add_array(src, "call_genotype", g, GENSVD_DTYPE_INT8, 3, shape, NULL);
    if (rc == 0)
        rc = gensvd_options_new(ctx, GENSVD_PCA, &opt);
    if (rc == 0)
        rc = gensvd_options_set_string(opt, "method", "randomized");
    if (rc == 0)
        rc = gensvd_options_set_int(opt, "components", 5);
    before = peak_kb();
    if (rc == 0)
        rc = gensvd_run(ctx, opt, src, NULL, &res);
    after = peak_kb();
    check(rc == 0, "memory: pca of a %zu MB in-memory array (rc %d: %s)", bytes >> 20, rc,
          gensvd_ctx_last_error(ctx));
#if defined(__SANITIZE_THREAD__) /* its shadow memory grows with what the run touches */
    printf("skip memory: the peak under ThreadSanitizer (grew by %ld MB)\n",
           (after - before) >> 10);
#else
    check((after - before) * 1024L < (long)bytes / 2,
          "memory: the peak grew by %ld MB during the run, less than half the input (%zu MB)",
          (after - before) >> 10, bytes >> 20);
#endif
    gensvd_result_free(res);
    gensvd_options_free(opt);
    gensvd_source_free(src);
    gensvd_ctx_free(ctx);
    free(g);
}

int main(int argc, char **argv)
{
    int all = argc <= 3;
    if (argc < 3)
        return 2;
    for (int i = 3; all || i < argc; i++) {
        const char *what = all ? (i == 3 ? "together" : i == 4 ? "cancel" : "memory") : argv[i];
        if (!strcmp(what, "together")) {
            struct job pca = {.an = GENSVD_PCA,
                              .input = argv[1],
                              .opts = {"components=5", "method=randomized", "loadings=1"}};
            struct job pdist = {.an = GENSVD_PDIST, .input = argv[1], .opts = {"metric=ibs"}};
            struct job ld = {.an = GENSVD_LDPRUNE, .input = argv[1], .opts = {"window=50"}};
            struct job rel = {.an = GENSVD_RELATED, .input = argv[1]};
            together(pca, pdist);
            together(ld, rel);
        } else if (!strcmp(what, "cancel")) {
            cancel(argv[2]);
        } else if (!strcmp(what, "memory")) {
            memory();
        }
        if (all && i == 5)
            break;
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
