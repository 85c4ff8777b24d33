/* tests/lib/test_lib_api.c - the contract of include/gensvd.h that needs no oracle but the
 * header itself: versions and codes; every setter refuses an unknown name and a bad value with
 * GENSVD_EINVAL and a last error naming the option (every option of every analysis, found
 * through gensvd_options_name, and every default value set back as text); failing calls
 * return their documented codes with a message (the refusals of empty paths and unknown
 * analyses in words, through the log callback and the last error alike); a failing chunk
 * callback fails the run; the log callback gets the messages at its level; the store reader's
 * walk, arrays and blocks (a store's and an in-memory source's; a callback that stops the
 * read, cancel, bad regions).  It writes its report to the file named by its argument: its
 * driver (test_lib_silent.sh) checks that nothing at all reached stdout or stderr, the
 * library's included.
 * Usage: test_lib_api REPORT HAPMAP3.vcz SCRATCH_DIR */
#include <gensvd.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "lib_check.h"

/* rc is GENSVD_EINVAL and the last error names `name`. */
static void einval(gensvd_ctx *ctx, int rc, const char *what, const char *name)
{
    const char *e = gensvd_ctx_last_error(ctx);
    check(rc == GENSVD_EINVAL && strstr(e, name) != NULL, "%s: EINVAL naming '%s' (rc %d: %s)",
          what, name, rc, e);
}

static int n_logged[5];
static void count_log(void *user, enum gensvd_log_level level, const char *msg)
{
    (void)user;
    if ((int)level >= 0 && (int)level < 5 && msg && !strchr(msg, '\n'))
        n_logged[level]++;
}

/* The last ERROR message the callback heard ("" none), for `messages`. */
static char heard[2048];
static void keep_error(void *user, enum gensvd_log_level level, const char *msg)
{
    (void)user;
    if (level == GENSVD_LOG_ERROR)
        snprintf(heard, sizeof heard, "%s", msg);
}

/* A refusal reaches the log callback and the last error alike, in words for a person (`want`),
 * naming no function of the library. */
static void refused(gensvd_ctx *ctx, int rc, int want_rc, const void *out, const char *what,
                    const char *want)
{
    const char *e = gensvd_ctx_last_error(ctx);
    check(rc == want_rc && !out && !strcmp(heard, e) && strstr(e, want) && !strstr(e, "gensvd_"),
          "%s: rc %d, '%s' logged and kept (logged '%s', kept '%s')", what, want_rc, want, heard,
          e);
    heard[0] = '\0';
}

static void messages(gensvd_ctx *ctx)
{
    gensvd_dest *d = NULL;
    gensvd_source *src = NULL;
    gensvd_options *opt = NULL;

    check(gensvd_ctx_set_log(ctx, keep_error, NULL, GENSVD_LOG_ERROR) == 0, "ctx_set_log error");
    heard[0] = '\0';
    refused(ctx, gensvd_dest_new(ctx, "", &d), GENSVD_EINVAL, d, "dest_new \"\"",
            "empty output path");
    refused(ctx, gensvd_dest_new(ctx, NULL, &d), GENSVD_EINVAL, d, "dest_new NULL",
            "empty output path");
    refused(ctx, gensvd_source_open(ctx, "", &src), GENSVD_EINVAL, src, "source_open \"\"",
            "empty source path");
    refused(ctx, gensvd_options_new(ctx, (enum gensvd_analysis)42, &opt), GENSVD_EINVAL, opt,
            "options_new 42", "unknown analysis 42");
    refused(ctx, gensvd_ctx_set_log(ctx, keep_error, NULL, (enum gensvd_log_level)9), GENSVD_EINVAL,
            NULL, "ctx_set_log level 9", "log level 9");
    check(gensvd_dest_new(ctx, "out.zarr", &d) == 0 && d && gensvd_source_new(ctx, &src) == 0 &&
              src && gensvd_options_new(ctx, GENSVD_PCA, &opt) == 0 && opt && !heard[0],
          "dest_new, source_new, options_new succeed silently");
    gensvd_dest_free(d);
    gensvd_source_free(src);
    gensvd_options_free(opt);
    check(gensvd_ctx_set_log(ctx, NULL, NULL, GENSVD_LOG_OFF) == 0, "ctx_set_log off");
}

static int fail_chunk(void *user, const uint64_t *chunk, void *dst, size_t dst_bytes)
{
    (void)user;
    memset(dst, 0, dst_bytes);
    return chunk[0] >= 2 ? 9 : 0; /* the third chunk row fails */
}

static void versions(void)
{
    check(!strcmp(gensvd_version(), GENSVD_VERSION_STRING), "gensvd_version %s", gensvd_version());
    check(gensvd_version_number() == GENSVD_VERSION_NUMBER, "gensvd_version_number");
    for (int c = GENSVD_OK; c >= GENSVD_EPEER; c--)
        for (int d = GENSVD_OK; d > c; d--)
            if (!strcmp(gensvd_strerror(c), gensvd_strerror(d)))
                check(0, "gensvd_strerror(%d) = gensvd_strerror(%d)", c, d);
    check(!strcmp(gensvd_strerror(-999), "unknown error"), "gensvd_strerror of an unknown code");
    check(*gensvd_build_info("stores") && *gensvd_build_info("blas") &&
              !*gensvd_build_info("nonsense"),
          "gensvd_build_info");
    check(gensvd_dtype_size(GENSVD_DTYPE_FLOAT64) == 8 &&
              gensvd_dtype_size(GENSVD_DTYPE_BOOL) == 1 &&
              gensvd_dtype_size((enum gensvd_dtype)99) == 0,
          "gensvd_dtype_size");
}

static void ctx_settings(gensvd_ctx *ctx)
{
    einval(ctx, gensvd_ctx_set_int(ctx, "nonsense", 1), "ctx_set_int", "nonsense");
    einval(ctx, gensvd_ctx_set_int(ctx, "threads", -1), "ctx threads -1", "threads");
    einval(ctx, gensvd_ctx_set_int(ctx, "concurrency", 0), "ctx concurrency 0", "concurrency");
    einval(ctx, gensvd_ctx_set_int(ctx, "device", 1), "ctx device as int", "device");
    einval(ctx, gensvd_ctx_set_string(ctx, "device", "tpu"), "ctx device tpu", "device");
    einval(ctx, gensvd_ctx_set_string(ctx, "s3-addressing", "sideways"), "ctx s3-addressing",
           "s3-addressing");
    einval(ctx, gensvd_ctx_set_string(ctx, "endpoint", "localhost"), "ctx endpoint", "endpoint");
    einval(ctx, gensvd_ctx_set_string(ctx, "retries", "many"), "ctx retries text", "retries");
    check(gensvd_ctx_set_string(ctx, "retries", "3") == 0 &&
              gensvd_ctx_set_string(ctx, "device", "cpu") == 0 &&
              gensvd_ctx_set_string(ctx, "aws-region", "eu-west-1") == 0 &&
              gensvd_ctx_set_int(ctx, "threads", 2) == 0,
          "good context settings");
    check(gensvd_ctx_set_log(ctx, count_log, NULL, (enum gensvd_log_level)9) == GENSVD_EINVAL,
          "ctx_set_log: a bad level");
}

/* Every option of analysis `an`: a bad name, bad values by type, the default set back. */
static void options(gensvd_ctx *ctx, enum gensvd_analysis an)
{
    gensvd_options *opt = NULL;
    int rc = gensvd_options_new(ctx, an, &opt);
    const char *name;

    check(rc == 0, "options_new(%d)", (int)an);
    if (rc)
        return;
    einval(ctx, gensvd_options_set_int(opt, "no-such-option", 1), "options_set_int",
           "no-such-option");
    einval(ctx, gensvd_options_set_string(opt, "no-such-option", "1"), "options_set_string",
           "no-such-option");
    for (size_t i = 0; (name = gensvd_options_name(opt, i)) != NULL; i++) {
        int type = gensvd_options_type(opt, name);
        char def[256];
        snprintf(def, sizeof def, "%s", gensvd_options_value(opt, name));
        check(type >= GENSVD_OPTION_INT && type <= GENSVD_OPTION_FLAG, "%d/%s: a type", (int)an,
              name);
        if (type == GENSVD_OPTION_INT) {
            einval(ctx, gensvd_options_set_int(opt, name, -5), "set_int -5", name);
            einval(ctx, gensvd_options_set_string(opt, name, "12x"), "set_string 12x", name);
            einval(ctx, gensvd_options_set_double(opt, name, 1.5), "set_double on an int", name);
        } else if (type == GENSVD_OPTION_DOUBLE) {
            einval(ctx, gensvd_options_set_double(opt, name, NAN), "set_double NaN", name);
            einval(ctx, gensvd_options_set_double(opt, name, 1e300 * 1e10), "set_double inf", name);
            einval(ctx, gensvd_options_set_string(opt, name, "x"), "set_string x", name);
        } else if (type == GENSVD_OPTION_FLAG) {
            einval(ctx, gensvd_options_set_int(opt, name, 2), "set_int 2 on a flag", name);
            einval(ctx, gensvd_options_set_string(opt, name, "maybe"), "flag maybe", name);
        } else if (strcmp(name, "command") != 0 && strcmp(name, "title") != 0 &&
                   strcmp(name, "label-column") != 0) {
            /* a choice or a form: "%%" is none; plain text options take anything */
            rc = gensvd_options_set_string(opt, name, "%%");
            check(rc == 0 ||
                      (rc == GENSVD_EINVAL && strstr(gensvd_ctx_last_error(ctx), name) != NULL),
                  "%d/%s: a bad form refused naming it, or text taken (rc %d)", (int)an, name, rc);
            if (strcmp(name, "cache") != 0) /* a size: an integer is taken */
                einval(ctx, gensvd_options_set_int(opt, name, 1), "set_int on text", name);
        }
        rc = gensvd_options_set_string(opt, name, def);
        check(rc == 0 && !strcmp(gensvd_options_value(opt, name), def),
              "%d/%s: its default '%s' set back as text (rc %d: %s)", (int)an, name, def, rc,
              rc ? gensvd_ctx_last_error(ctx) : "");
    }
    gensvd_options_free(opt);
}

static void source_settings(gensvd_ctx *ctx)
{
    gensvd_source *src = NULL;
    const char *ids[] = {"a", "b", "a"};
    uint8_t m[3] = {1, 0, 1};
    int8_t g[2][3][2] = {{{0}}};
    uint64_t shape[3] = {2, 3, 2};

    check(gensvd_source_new(ctx, &src) == 0, "source_new");
    einval(ctx, gensvd_source_set_int(src, "nonsense", 1), "source_set_int", "nonsense");
    einval(ctx, gensvd_source_set_int(src, "transpose", 2), "source transpose 2", "transpose");
    einval(ctx, gensvd_source_set_double(src, "maf", 0.7), "source maf 0.7", "maf");
    einval(ctx, gensvd_source_set_double(src, "max-missing", -1), "source max-missing",
           "max-missing");
    einval(ctx, gensvd_source_set_string(src, "variants", "9:3"), "source variants 9:3",
           "variants");
    einval(ctx, gensvd_source_set_string(src, "ploidy", "two"), "source ploidy two", "ploidy");
    einval(ctx, gensvd_source_set_samples(src, ids, 3), "set_samples with a duplicate", "'a'");
    einval(ctx, gensvd_source_set_mask(src, "genotype-mask", m, 3), "set_mask name",
           "genotype-mask");
    einval(ctx, gensvd_source_add_array(src, "call_genotype", g, GENSVD_DTYPE_INT8, 2, shape, NULL),
           "call_genotype of 2 axes", "call_genotype");
    check(gensvd_source_add_array(src, "call_genotype", g, GENSVD_DTYPE_INT8, 3, shape, NULL) == 0,
          "call_genotype added");
    {
        const char *names[] = {"x", "y"};
        uint64_t two = 2;
        check(gensvd_source_add_array(src, "sample_id", names, GENSVD_DTYPE_STRING, 1, &two,
                                      NULL) == GENSVD_EINCONSIST,
              "sample_id of another length: EINCONSIST");
    }
    gensvd_source_free(src);
}

static void dest_settings(gensvd_ctx *ctx, const char *scratch)
{
    gensvd_dest *d = NULL;
    gensvd_options *opt = NULL;
    gensvd_result *res = NULL;
    char path[1024], fin[1024];

    check(gensvd_dest_new(ctx, scratch, &d) == 0, "dest_new");
    einval(ctx, gensvd_dest_set_int(d, "nonsense", 1), "dest_set_int", "nonsense");
    einval(ctx, gensvd_dest_set_int(d, "zarr-format", 4), "dest zarr-format 4", "zarr-format");
    einval(ctx, gensvd_dest_set_string(d, "shard", "x,y"), "dest shard x,y", "shard");
    einval(ctx, gensvd_dest_set_int(d, "force", 2), "dest force 2", "force");
    check(gensvd_dest_check(d) == GENSVD_EIO && strstr(gensvd_ctx_last_error(ctx), scratch),
          "dest_check: an existing output without force (%s)", gensvd_ctx_last_error(ctx));
    gensvd_dest_free(d);
    snprintf(path, sizeof path, "%s/no/such/dir/out.zarr", scratch);
    check(gensvd_dest_new(ctx, path, &d) == 0 && gensvd_dest_check(d) == GENSVD_EIO,
          "dest_check: a missing parent directory (%s)", gensvd_ctx_last_error(ctx));
    gensvd_dest_free(d);
    /* pdist's finalize gathers Zarr v2 parts as they are: a format 3 destination is refused */
    snprintf(fin, sizeof fin, "%s/fin.zarr", scratch);
    check(gensvd_dest_new(ctx, fin, &d) == 0 && gensvd_dest_set_int(d, "zarr-format", 3) == 0 &&
              gensvd_options_new(ctx, GENSVD_PDIST, &opt) == 0 &&
              gensvd_options_set_string(opt, "finalize", fin) == 0,
          "pdist finalize to a format 3 destination set");
    einval(ctx, gensvd_run(ctx, opt, NULL, d, &res), "finalize to zarr-format 3", "finalize");
    check(!res && access(fin, F_OK) != 0, "finalize to zarr-format 3: nothing written");
    gensvd_options_free(opt);
    gensvd_dest_free(d);
    /* a text file beside the outputs: the rules written out again (zarr/dest.c's) */
    check(gensvd_file_check(ctx, scratch, 1) == GENSVD_EIO &&
              strstr(gensvd_ctx_last_error(ctx), "is a directory"),
          "file_check: a directory (%s)", gensvd_ctx_last_error(ctx));
    check(gensvd_file_check(ctx, path, 0) == GENSVD_EIO &&
              strstr(gensvd_ctx_last_error(ctx), "no/such/dir"),
          "file_check: a missing directory (%s)", gensvd_ctx_last_error(ctx));
    check(gensvd_file_check(ctx, "", 0) == GENSVD_EINVAL, "file_check: an empty path");
    snprintf(path, sizeof path, "%s/table.tsv", scratch);
    check(gensvd_file_check(ctx, path, 0) == GENSVD_OK && access(path, F_OK) != 0,
          "file_check: a new file in a writable directory, nothing left behind");
    FILE *fp = fopen(path, "w");
    check(fp != NULL, "fopen %s", path);
    if (fp)
        fclose(fp);
    check(gensvd_file_check(ctx, path, 0) == GENSVD_EIO &&
              strstr(gensvd_ctx_last_error(ctx), "output exists"),
          "file_check: an existing file without overwrite (%s)", gensvd_ctx_last_error(ctx));
    check(gensvd_file_check(ctx, path, 1) == GENSVD_OK, "file_check: overwrite");
    remove(path);
}

static void failing_calls(gensvd_ctx *ctx, const char *hapmap, const char *scratch)
{
    gensvd_ctx *other = gensvd_ctx_new();
    gensvd_source *src = NULL, *mem = NULL;
    gensvd_options *opt = NULL, *oopt = NULL;
    gensvd_result *res = NULL;
    char path[1024];

    snprintf(path, sizeof path, "%s/does-not-exist.vcz", scratch);
    check(gensvd_source_open(ctx, path, &src) == GENSVD_ENOTFOUND && !src &&
              strstr(gensvd_ctx_last_error(ctx), "does-not-exist.vcz"),
          "source_open of a missing store: ENOTFOUND naming it (%s)", gensvd_ctx_last_error(ctx));
    check(gensvd_source_open(ctx, hapmap, &src) == 0, "source_open %s", hapmap);
    check(gensvd_options_new(other, GENSVD_PCA, &oopt) == 0, "options of another context");
    check(gensvd_run(ctx, oopt, src, NULL, &res) == GENSVD_EINVAL && !res,
          "run with options of another context: EINVAL");
    check(gensvd_options_new(ctx, GENSVD_PDIST, &opt) == 0 &&
              gensvd_options_set_string(opt, "metric", "king") == 0 &&
              gensvd_options_set_double(opt, "min-kinship", 0.1) == 0,
          "pdist king min-kinship set");
    /* without a destination the kept pairs are the result's arrays (their bytes against the
     * command line's pair list: lib_stores; the CLI's list against plink2: pdist_king) */
    {
        struct gensvd_array_view pi, pj, kin;
        double n_pairs = -1;
        int rc = gensvd_run(ctx, opt, src, NULL, &res);
        if (rc == 0)
            rc = gensvd_result_array(res, "pair_i", &pi);
        if (rc == 0)
            rc = gensvd_result_array(res, "pair_j", &pj);
        if (rc == 0)
            rc = gensvd_result_array(res, "kinship", &kin);
        if (rc == 0)
            rc = gensvd_result_attr_double(res, "n_pairs", &n_pairs);
        int ok = rc == 0 && pi.ndim == 1 && pi.dtype == GENSVD_DTYPE_INT64 &&
                 kin.dtype == GENSVD_DTYPE_FLOAT64 && (double)pi.shape[0] == n_pairs &&
                 n_pairs > 0 && pj.shape[0] == pi.shape[0];
        for (uint64_t q = 0; ok && q < pi.shape[0]; q++) {
            int64_t i = ((const int64_t *)pi.data)[q], j = ((const int64_t *)pj.data)[q];
            double k = ((const double *)kin.data)[q];
            ok = i >= 0 && i < j && j < 957 && k >= 0.1 && k <= 0.5;
        }
        check(ok,
              "min-kinship without a destination: %.0f pairs i < j, kinship in [0.1, 0.5] "
              "(rc %d: %s)",
              n_pairs, rc, gensvd_ctx_last_error(ctx));
        gensvd_result_free(res);
        res = NULL;
    }
    check(gensvd_options_set_string(opt, "part", "1/2") == 0, "pdist part 1/2 set");
    einval(ctx, gensvd_run(ctx, opt, src, NULL, &res), "part without a destination", "part");
    check(gensvd_options_set_int(opt, "components", 3) == GENSVD_EINVAL, "pdist has no components");
    gensvd_options_free(opt);
    opt = NULL;
    /* accuracy bulk chooses the stop rule: another one given is refused at the run */
    check(gensvd_options_new(ctx, GENSVD_PCA, &opt) == 0 &&
              gensvd_options_set_string(opt, "accuracy", "bulk") == 0 &&
              gensvd_options_set_string(opt, "stop", "subspace") == 0,
          "pca accuracy bulk with stop subspace set");
    einval(ctx, gensvd_run(ctx, opt, src, NULL, &res), "accuracy bulk with a stop rule", "stop");
    check(gensvd_options_set_string(opt, "stop", "bound") == 0 &&
              gensvd_options_set_int(opt, "power-iter", 3) == 0,
          "pca accuracy bulk with power-iter set");
    einval(ctx, gensvd_run(ctx, opt, src, NULL, &res), "accuracy bulk with power-iter",
           "power-iter");
    gensvd_options_free(opt);
    opt = NULL;
    /* a fixed pass count with a cap on the stop rule's passes: refused, as the command line
     * refuses --power-iter with --max-iter */
    check(gensvd_options_new(ctx, GENSVD_PCA, &opt) == 0 &&
              gensvd_options_set_int(opt, "power-iter", 3) == 0 &&
              gensvd_options_set_int(opt, "max-iter", 5) == 0,
          "pca power-iter with max-iter set");
    einval(ctx, gensvd_run(ctx, opt, src, NULL, &res), "power-iter with max-iter", "max-iter");
    gensvd_options_free(opt);
    opt = NULL;
    /* options that go together, refused before any input is read, as the command line does */
    check(gensvd_options_new(ctx, GENSVD_PDIST, &opt) == 0 &&
              gensvd_options_set_int(opt, "ignore-phase", 1) == 0,
          "pdist ignore-phase set");
    einval(ctx, gensvd_run(ctx, opt, src, NULL, &res), "ignore-phase with metric euclidean",
           "ignore-phase");
    check(gensvd_options_set_string(opt, "metric", "king") == 0 &&
              gensvd_options_set_int(opt, "ignore-phase", 0) == 0 &&
              gensvd_options_set_int(opt, "haplotypes", 1) == 0,
          "pdist king haplotypes set");
    einval(ctx, gensvd_run(ctx, opt, src, NULL, &res), "king on haplotypes", "haplotypes");
    check(gensvd_options_set_string(opt, "metric", "p-distance") == 0 &&
              gensvd_options_set_int(opt, "haplotypes", 0) == 0 &&
              gensvd_run(ctx, opt, src, NULL, &res) == GENSVD_EINCONSIST && !res &&
              strstr(gensvd_ctx_last_error(ctx), "unphased heterozygous"),
          "p-distance on unphased calls: EINCONSIST naming them (%s)", gensvd_ctx_last_error(ctx));
    gensvd_options_free(opt);
    opt = NULL;
    check(gensvd_options_new(ctx, GENSVD_PCA, &opt) == 0 &&
              gensvd_options_set_int(opt, "outlier-project", 1) == 0,
          "pca outlier-project set");
    einval(ctx, gensvd_run(ctx, opt, src, NULL, &res), "outlier-project without outlier-iter",
           "outlier-iter");
    check(gensvd_options_set_int(opt, "outlier-project", 0) == 0 &&
              gensvd_options_set_int(opt, "tw", 1) == 0 &&
              gensvd_options_set_string(opt, "method", "randomized") == 0,
          "pca tw method randomized set");
    einval(ctx, gensvd_run(ctx, opt, src, NULL, &res), "tw with method randomized", "tw");
    check(gensvd_options_set_string(opt, "method", "auto") == 0 &&
              gensvd_options_set_string(opt, "gram-kernel", "i8") == 0,
          "pca tw gram-kernel i8 set");
    einval(ctx, gensvd_run(ctx, opt, src, NULL, &res), "tw with gram-kernel i8", "gram-kernel");
    check(gensvd_options_set_string(opt, "gram-kernel", "auto") == 0 &&
              gensvd_options_set_int(opt, "tw", 0) == 0 &&
              gensvd_options_set_double(opt, "tw-effective-n", 5000) == 0,
          "pca tw-effective-n without tw set");
    einval(ctx, gensvd_run(ctx, opt, src, NULL, &res), "tw-effective-n without tw", "\"tw\"");
    gensvd_options_free(opt);
    opt = NULL;
    /* an empty in-memory source, then one whose chunk callback fails */
    check(gensvd_source_new(ctx, &mem) == 0 && gensvd_options_new(ctx, GENSVD_PDIST, &opt) == 0,
          "in-memory source");
    check(gensvd_run(ctx, opt, mem, NULL, &res) == GENSVD_EINVAL, "run on an empty source: %s",
          gensvd_ctx_last_error(ctx));
    {
        uint64_t shape[3] = {50, 8, 2}, chunks[3] = {10, 8, 2};
        int rc = gensvd_source_add_chunked(mem, "call_genotype", GENSVD_DTYPE_INT8, 3, shape,
                                           chunks, fail_chunk, NULL);
        check(rc == 0, "chunked array added");
        rc = gensvd_run(ctx, opt, mem, NULL, &res);
        check(rc == GENSVD_EIO && !res && strstr(gensvd_ctx_last_error(ctx), "callback"),
              "a failing chunk callback fails the run: EIO (rc %d: %s)", rc,
              gensvd_ctx_last_error(ctx));
    }
    gensvd_options_free(opt);
    gensvd_options_free(oopt);
    gensvd_source_free(mem);
    gensvd_source_free(src);
    gensvd_ctx_free(other);
}

/* A run on the store: the callback at info level hears it; at OFF nothing, yet a failure still
 * leaves its last error. */
static void logging(gensvd_ctx *ctx, const char *hapmap)
{
    gensvd_source *src = NULL;
    gensvd_options *opt = NULL;
    gensvd_result *res = NULL;
    struct gensvd_array_view v;
    int rc;

    memset(n_logged, 0, sizeof n_logged);
    check(gensvd_ctx_set_log(ctx, count_log, NULL, GENSVD_LOG_INFO) == 0, "ctx_set_log info");
    rc = gensvd_source_open(ctx, hapmap, &src);
    if (rc == 0)
        rc = gensvd_options_new(ctx, GENSVD_PCA, &opt);
    if (rc == 0)
        rc = gensvd_options_set_int(opt, "components", 3);
    if (rc == 0)
        rc = gensvd_run(ctx, opt, src, NULL, &res);
    check(rc == 0 && n_logged[GENSVD_LOG_INFO] > 0, "a pca run logs at info (%d messages)",
          n_logged[GENSVD_LOG_INFO]);
    check(gensvd_result_array(res, "sample_pca_projection", &v) == 0 && v.ndim == 2 &&
              v.shape[0] == 957 && v.shape[1] == 3 && v.dtype == GENSVD_DTYPE_FLOAT64 &&
              !strcmp(v.dims[0], "samples"),
          "the result's projection: 957 x 3 float64 over samples");
    check(gensvd_result_array(res, "nonsense", &v) == GENSVD_ENOTFOUND, "an absent array");
    {
        double k = 0;
        check(gensvd_result_attr_double(res, "k", &k) == 0 && k == 3 &&
                  !strcmp(gensvd_result_attr_string(res, "scaler"), "patterson") &&
                  gensvd_result_attr_string(res, "k") == NULL,
              "attributes by name");
    }
    check(!strcmp(gensvd_result_array_attrs_json(res, "sample_pca_projection"), "{}") &&
              gensvd_result_array_attrs_json(res, "nonsense") == NULL &&
              gensvd_result_array_attrs_json(NULL, "sample_id") == NULL,
          "an array's attributes: {} when it has none, NULL for no such array");
    gensvd_result_free(res);
    res = NULL;
    {
        /* related's sample_unrelated carries its cutoff (the one array with attributes) */
        gensvd_options *rel = NULL;
        const char *a = NULL;
        rc = gensvd_options_new(ctx, GENSVD_RELATED, &rel);
        if (rc == 0)
            rc = gensvd_options_set_double(rel, "king-cutoff", 0.125);
        if (rc == 0)
            rc = gensvd_source_set_string(src, "variants", "0:2000");
        if (rc == 0)
            rc = gensvd_run(ctx, rel, src, NULL, &res);
        if (rc == 0)
            a = gensvd_result_array_attrs_json(res, "sample_unrelated");
        check(a && strstr(a, "\"king_cutoff\": 0.125") != NULL,
              "sample_unrelated's attributes hold king_cutoff (%s)", a ? a : "(null)");
        gensvd_result_free(res);
        res = NULL;
        gensvd_options_free(rel);
        check(gensvd_source_set_int(src, "variant-start", 0) == 0 &&
                  gensvd_source_set_int(src, "variant-stop", 0) == 0,
              "variants cleared");
    }
    memset(n_logged, 0, sizeof n_logged);
    check(gensvd_ctx_set_log(ctx, count_log, NULL, GENSVD_LOG_OFF) == 0, "ctx_set_log off");
    check(gensvd_options_set_int(opt, "components", 0) == GENSVD_EINVAL &&
              n_logged[GENSVD_LOG_ERROR] == 0 && strstr(gensvd_ctx_last_error(ctx), "components"),
          "at level OFF nothing is logged, the last error is kept");
    gensvd_options_free(opt);
    gensvd_source_free(src);
}

static char plan_line[512];
static void keep_plan(void *user, enum gensvd_log_level level, const char *msg)
{
    (void)user;
    (void)level;
    if (msg && strstr(msg, "plan:"))
        snprintf(plan_line, sizeof plan_line, "%s", msg);
}

/* The context's thread count reaches pca's memory plan (the plan counts each thread's pass
 * buffers; it once saw one thread whatever the context said). */
static void plan_threads(gensvd_ctx *ctx, const char *hapmap)
{
    gensvd_source *src = NULL;
    gensvd_options *opt = NULL;
    gensvd_result *res = NULL;
    int rc;

    plan_line[0] = 0;
    check(gensvd_ctx_set_log(ctx, keep_plan, NULL, GENSVD_LOG_INFO) == 0 &&
              gensvd_ctx_set_int(ctx, "threads", 3) == 0,
          "ctx: a log callback, 3 threads");
    rc = gensvd_source_open(ctx, hapmap, &src);
    if (rc == 0)
        rc = gensvd_options_new(ctx, GENSVD_PCA, &opt);
    if (rc == 0)
        rc = gensvd_options_set_int(opt, "components", 3);
    if (rc == 0)
        rc = gensvd_options_set_string(opt, "method", "randomized");
    if (rc == 0)
        rc = gensvd_run(ctx, opt, src, NULL, &res);
    check(rc == 0 && strstr(plan_line, "(3 threads)") != NULL,
          "a randomized pca plans for the context's 3 threads (%s)", plan_line);
    gensvd_result_free(res);
    gensvd_options_free(opt);
    gensvd_source_free(src);
    check(gensvd_ctx_set_int(ctx, "threads", 0) == 0, "threads back to the default");
}

/* ---- reading stores: the walk, arrays, blocks ----------------------------------------------- */

struct blocks_seen {
    gensvd_ctx *ctx;
    int n, stop_at, cancel_at; /* stop_at / cancel_at: 1-based block that stops; 0 never */
    uint64_t rows, sum;
};

static int count_block(void *user, const uint64_t *start, const uint64_t *count, const void *data)
{
    struct blocks_seen *b = user;
    (void)start;
    b->n++;
    b->rows += count[0];
    for (uint64_t i = 0; i < count[0] * count[1]; i++)
        b->sum += (uint64_t)((const int32_t *)data)[i];
    if (b->cancel_at == b->n)
        gensvd_ctx_cancel(b->ctx);
    return b->n == b->stop_at || b->n == b->cancel_at;
}

static void reading_store(gensvd_ctx *ctx, const char *hapmap)
{
    gensvd_source *src = NULL, *sub = NULL;
    gensvd_array *arr = NULL;
    const char *path = NULL, *dim;
    const uint64_t *shape = NULL, *chunks = NULL;
    uint64_t stop[3], bytes = 0, objects = 0;
    unsigned depth = 9;
    enum gensvd_node_kind kind = 0;
    int64_t v = 0;
    size_t n_nodes = 0, n_arrays = 0;
    char url[4096];
    int rc;

    if (gensvd_source_open(ctx, hapmap, &src) != 0) {
        check(0, "reading: open %s: %s", hapmap, gensvd_ctx_last_error(ctx));
        return;
    }
    check(gensvd_source_node_kind(src, NULL) == GENSVD_NODE_GROUP &&
              gensvd_source_node_kind(src, "call_genotype") == GENSVD_NODE_ARRAY &&
              gensvd_source_node_kind(src, "/call_genotype") == GENSVD_NODE_ARRAY &&
              gensvd_source_node_kind(src, "nothing_here") == 0,
          "source_node_kind: group, array, none");
    rc = gensvd_source_node_kind(src, "a/../b");
    check(rc == GENSVD_EFORMAT && strstr(gensvd_ctx_last_error(ctx), "a/../b"),
          "source_node_kind of a path with '..': EFORMAT naming it (%s)",
          gensvd_ctx_last_error(ctx));
    check(gensvd_source_get_int(src, "zarr-format", &v) == 0 && v == 2 &&
              gensvd_source_get_int(src, "consolidated", &v) == 0 && (v == 0 || v == 1),
          "source_get_int zarr-format, consolidated");
    einval(ctx, gensvd_source_get_int(src, "nonsense", &v), "source_get_int", "nonsense");
    check(gensvd_source_get_string(src, "store") &&
              !strcmp(gensvd_source_get_string(src, "node"), "") &&
              !gensvd_source_get_string(src, "nonsense"),
          "source_get_string store, node; NULL for another name");
    /* the walk: the group first, then its members; past the last: OK and NULL, again */
    while ((rc = gensvd_source_node(src, n_nodes, &path, &depth, &kind)) == 0 && path) {
        if (n_nodes == 0)
            check(!*path && depth == 0 && kind == GENSVD_NODE_GROUP, "walk: the node first");
        else if (depth != 1 || !*path)
            check(0, "walk: %s at depth %u", path, depth);
        n_arrays += kind == GENSVD_NODE_ARRAY;
        n_nodes++;
    }
    check(rc == 0 && n_arrays >= 5 && n_arrays + 1 == n_nodes, "walk: %zu nodes, %zu arrays",
          n_nodes, n_arrays);
    check(gensvd_source_node(src, n_nodes + 3, &path, NULL, NULL) == 0 && !path &&
              gensvd_source_node(src, 1, &path, NULL, NULL) == 0 && path && *path,
          "walk: past the last node, and back");
    snprintf(url, sizeof url, "%s/no_such_node", hapmap);
    rc = gensvd_source_open(ctx, url, &sub);
    if (rc == 0)
        rc = gensvd_source_node(sub, 0, &path, &depth, &kind);
    check(rc == GENSVD_ENOTFOUND && !path && strstr(gensvd_ctx_last_error(ctx), "no_such_node"),
          "walk of a missing node: ENOTFOUND naming it (%s)", gensvd_ctx_last_error(ctx));
    gensvd_source_free(sub);
    /* arrays */
    rc = gensvd_array_open(src, "", &arr);
    check(rc == GENSVD_ENOTFOUND && !arr, "array_open of a group: ENOTFOUND (%s)",
          gensvd_ctx_last_error(ctx));
    rc = gensvd_array_open(src, "nothing_here", &arr);
    check(rc == GENSVD_ENOTFOUND && !arr && strstr(gensvd_ctx_last_error(ctx), "nothing_here"),
          "array_open of nothing: ENOTFOUND naming it");
    if (gensvd_array_open(src, "call_genotype", &arr) != 0) {
        check(0, "array_open call_genotype: %s", gensvd_ctx_last_error(ctx));
        gensvd_source_free(src);
        return;
    }
    check(gensvd_array_shape(arr, &shape, &chunks) == 3 && shape[2] == 2 && chunks[0] > 0 &&
              gensvd_array_dtype(arr) == GENSVD_DTYPE_INT8,
          "array shape and dtype");
    dim = gensvd_array_dim_name(arr, 0);
    check(dim && !strcmp(dim, "variants") && !gensvd_array_dim_name(arr, 3), "dim names");
    check(gensvd_array_get_int(arr, "item-size", &v) == 0 && v == 1 &&
              !strcmp(gensvd_array_get_string(arr, "dtype"), "|i1") &&
              !gensvd_array_get_string(arr, "nonsense"),
          "array_get_int, array_get_string");
    einval(ctx, gensvd_array_get_int(arr, "nonsense", &v), "array_get_int", "nonsense");
    check(gensvd_array_stored_bytes(arr, &bytes, &objects) == 0 && bytes > 0 && objects > 0,
          "array_stored_bytes");
    stop[0] = shape[0] + 1, stop[1] = shape[1], stop[2] = 2;
    rc = gensvd_array_read_blocks(arr, NULL, stop, count_block, &(struct blocks_seen){0});
    check(rc == GENSVD_EINVAL && strstr(gensvd_ctx_last_error(ctx), "axis 0"),
          "read_blocks past the end: EINVAL naming the axis (%s)", gensvd_ctx_last_error(ctx));
    gensvd_array_close(arr);
    gensvd_array_close(NULL);
    gensvd_source_free(src);
}

/* An in-memory array read back through the reader: blocks of "chunk-variants" rows. */
static void reading_memory(gensvd_ctx *ctx)
{
    static int32_t x[1000 * 3];
    const uint64_t shape[2] = {1000, 3};
    gensvd_source *src = NULL;
    gensvd_array *arr = NULL;
    struct blocks_seen b = {.ctx = ctx};
    uint64_t want = 0;
    int rc;

    for (size_t i = 0; i < 3000; i++)
        want += (uint64_t)(x[i] = (int32_t)(i * 7 % 1001));
    rc = gensvd_source_new(ctx, &src);
    if (rc == 0)
        rc = gensvd_source_add_array(src, "x", x, GENSVD_DTYPE_INT32, 2, shape, NULL);
    if (rc == 0)
        rc = gensvd_source_set_int(src, "chunk-variants", 64);
    if (rc == 0)
        rc = gensvd_array_open(src, "x", &arr);
    if (rc == 0)
        rc = gensvd_array_read_blocks(arr, NULL, NULL, count_block, &b);
    check(rc == 0 && b.n == 16 && b.rows == 1000 && b.sum == want,
          "in memory: %d blocks of 64 rows, the values back (rc %d: %s)", b.n, rc,
          gensvd_ctx_last_error(ctx));
    b = (struct blocks_seen){.ctx = ctx, .stop_at = 2};
    rc = gensvd_array_read_blocks(arr, NULL, NULL, count_block, &b);
    check(rc == GENSVD_EIO && b.n == 2, "a callback that stops the read: EIO after its block");
    b = (struct blocks_seen){.ctx = ctx, .cancel_at = 3};
    rc = gensvd_array_read_blocks(arr, NULL, NULL, count_block, &b);
    /* nothing logged: the last error names the call in words, not as a C identifier */
    check(rc == GENSVD_ECANCELED && b.n == 3 &&
              strcmp(gensvd_ctx_last_error(ctx), "array read blocks: cancelled") == 0,
          "cancelled while reading: ECANCELED, \"array read blocks: cancelled\" (%s)",
          gensvd_ctx_last_error(ctx));
    gensvd_ctx_cancel(ctx);
    b = (struct blocks_seen){.ctx = ctx};
    rc = gensvd_array_read_blocks(arr, NULL, NULL, count_block, &b);
    check(rc == GENSVD_ECANCELED && b.n == 0, "cancelled before the read: ECANCELED, no block");
    b = (struct blocks_seen){.ctx = ctx};
    rc = gensvd_array_read_blocks(arr, (const uint64_t[]){100, 1}, (const uint64_t[]){130, 3},
                                  count_block, &b);
    check(rc == 0 && b.n == 2 && b.rows == 30, "a region: the request cleared, two blocks");
    gensvd_array_close(arr);
    gensvd_source_free(src);
}

int main(int argc, char **argv)
{
    gensvd_ctx *ctx;

    if (argc != 4 || !(rep = fopen(argv[1], "w")))
        return 2;
    versions();
    ctx = gensvd_ctx_new();
    check(ctx != NULL, "ctx_new");
    ctx_settings(ctx);
    for (int an = GENSVD_PCA; an <= GENSVD_PLOT_PDIST; an++)
        options(ctx, (enum gensvd_analysis)an);
    {
        gensvd_options *o = NULL;
        check(gensvd_options_new(ctx, (enum gensvd_analysis)42, &o) == GENSVD_EINVAL && !o,
              "options_new of an unknown analysis");
    }
    source_settings(ctx);
    dest_settings(ctx, argv[3]);
    messages(ctx);
    failing_calls(ctx, argv[2], argv[3]);
    logging(ctx, argv[2]);
    plan_threads(ctx, argv[2]);
    reading_store(ctx, argv[2]);
    reading_memory(ctx);
    gensvd_ctx_free(ctx);
    gensvd_ctx_free(NULL);
    gensvd_source_free(NULL);
    gensvd_options_free(NULL);
    gensvd_result_free(NULL);
    gensvd_dest_free(NULL);
    fprintf(rep, "%d passed, %d failed\n", passed, failed);
    fclose(rep);
    return failed != 0;
}
