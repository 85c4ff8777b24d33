/* cli/cmd_pca.c - `gensvd pca`: options, input, backend, and the three output forms (Zarr group,
 * TSV on stdout, plink2 .eigenvec/.eigenval). */
#include "gsvd_config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/backend.h"
#include "analysis/genotype.h"
#include "analysis/ldprune.h"
#include "analysis/pca.h"
#include "analysis/pca_store.h"
#include "cli/cli.h"
#include "cli/cli_mask.h"
#include "cli/pca_fit.h"
#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/codec.h"
#include "zarr/meta.h"
#include "zarr/writer.h"

enum {
    OPT_SCALER = GSVD_OPT_FIRST_COMMAND_OPTION,
    OPT_MISSING,
    OPT_OVERSAMPLING,
    OPT_TOL,
    OPT_MAX_ITER,
    OPT_POWER_ITER,
    OPT_SEED,
    OPT_VARIANTS,
    OPT_SAMPLES,
    OPT_MAF,
    OPT_MAX_MISSING,
    OPT_TRANSPOSE,
    OPT_PLOIDY,
    OPT_LOADINGS,
    OPT_FORMAT,
    OPT_PLINK,
    OPT_MEMORY,
    OPT_WINDOW,
    OPT_CACHE,
    OPT_CACHE_DIR,
    OPT_STOP,
    OPT_VARIANT_MASK,
    OPT_SAMPLE_MASK,
    OPT_LD_PRUNE,
    OPT_FIT_SAMPLES,
    OPT_GRAM_F64,
};

struct pca_opts {
    const char *input, *array, *output, *format, *plink, *device, *samples_file;
    const char *fit_file;        /* --fit-samples (cli/pca_fit.h) */
    struct gsvd_strlist fit_ids; /* its IDs */
    int want_loadings;           /* --loadings given (--fit-samples computes them anyway) */
    int gram_f64;                /* --gram-f64 */
    int force;
    struct gsvd_pca_params pca;
    struct gsvd_geno_params geno;
    uint64_t memory;
    char *command;
    struct gsvd_cli_zarr_out zout;          /* --zarr-format, --shard */
    int input_format;                       /* 2 or 3: the default output format */
    const char *variant_mask, *sample_mask; /* --variant-mask, --sample-mask STORE[/ARRAY] */
    int ld_prune;                           /* --ld-prune given: lp holds its parameters */
    struct gsvd_ldprune_params lp;
    struct gsvd_cli_mask vmask, smask;
    uint8_t *prune_keep; /* owned: --ld-prune's mask (and --variant-mask's) */
};

static void usage(FILE *fp)
{
    fputs("Usage: gensvd pca [options] INPUT\n"
          "Principal components of the genotype matrix in INPUT (a VCF-Zarr store: call_genotype,\n"
          "or scikit-allel calldata/GT, or a 2-D dosage array named with --array); samples are\n"
          "the observations.\n"
          "Output (default: TSV of the scores on stdout):\n"
          "  -o, --output PATH      write a Zarr group (sgkit names: sample_pca_projection, ...)\n"
          "  -f, --force            replace the output if it exists\n"
          "      --format tsv       scores to stdout: sample_id, PC1..PCk (%.17g)\n"
          "      --plink PREFIX     PREFIX.eigenvec (unit eigenvectors) and PREFIX.eigenval\n"
          "                         (s^2 / variants used), as plink2 --pca writes "
          "them\n" GSVD_CLI_ZARR_OUT_HELP
          "      --loadings         also variant loadings and the per-variant mean/scale (one\n"
          "                         more pass; Zarr output only)\n"
          "Method:\n"
          "  -k, --components INT   principal components [10]\n"
          "  -m, --method NAME      auto (exact up to 5,000 samples, else randomized),\n"
          "                         randomized (block Krylov, bounded memory), krylov (keeps\n"
          "                         every iterate), subspace (power iteration) or exact (Gram +\n"
          "                         eigensolver, N <= 50,000) [auto]\n"
          "      --scaler NAME      patterson sqrt(p(1-p)), hwe sqrt(ploidy p(1-p)), standard\n"
          "                         (sd), center, none [patterson]\n"
          "      --missing MODE     mean (missing call = variant mean) or error [mean]\n"
          "      --oversampling INT extra block columns beyond k [10]\n"
          "      --stop RULE        bound: stop when every component's singular value error\n"
          "                         bound (relative, from its Ritz residual) is <= --tol;\n"
          "                         subspace: when 1 - MEV of the top-k vectors between\n"
          "                         passes < --tol\n"
          "                         (vectors inside clusters of equal eigenvalues) [bound]\n"
          "      --tol X            tolerance of the stop rule [1e-4]\n"
          "      --max-iter INT     at most this many passes; stopping there is reported\n"
          "                         (converged: false) [8]\n"
          "      --power-iter INT   exactly this many passes (ignores --tol)\n"
          "      --window INT       randomized: basis blocks kept before a restart [8]\n"
          "      --seed INT         test matrix seed [42]\n"
          "      --gram-f64         exact on the CPU: Gram from float64 products (about 2x\n"
          "                         slower; scores to float64 rounding, not ~1e-7)\n"
          "",
          fp);
    fputs("Input:\n"
          "  -a, --array PATH       genotype array inside INPUT\n"
          "      --transpose        the 2-D array is samples x variants\n"
          "      --ploidy INT       dosage scale of a 2-D array [2]\n"
          "      --variants A:B     only variants A (inclusive) to B (exclusive)\n"
          "      --samples FILE     only these sample IDs (one per line), in this order\n"
          "      --fit-samples FILE fit on these samples only, then project every other\n"
          "                         sample onto their PCs (output: sample_pca_fitted)\n"
          "      --maf X            drop variants with minor allele frequency below X\n"
          "      --max-missing X    drop variants with a missing fraction above X\n"
          "      --variant-mask STORE[/ARRAY]  only variants whose entry is nonzero in this 1-D\n"
          "                         bool/int8/uint8 array [ARRAY: variant_ld_keep]\n"
          "      --sample-mask STORE[/ARRAY]  only samples whose entry is nonzero, matched by\n"
          "                         the sample_id beside it, else by position\n"
          "                         [ARRAY: sample_unrelated]\n"
          "      --ld-prune R2,WINDOW[,STEP]  first prune variants in LD as gensvd ldprune\n"
          "                         --r2 R2 --window WINDOW --step STEP [STEP: 1]\n"
          "Resources:\n" GSVD_CLI_DEVICE_HELP "  -t, --threads INT      threads [all cores]\n"
          "      --memory SIZE      cap the whole run (basis, pass buffers, decode pipeline,\n"
          "                         in-memory cache; the cache beyond it is spilled), e.g. 2G;\n"
          "                         -v prints the plan\n"
          "      --cache SIZE       keep the genotypes in memory (2 bits per call) after the\n"
          "                         first pass, up to SIZE; what does not fit goes to a\n"
          "                         file in --cache-dir; 0 re-reads the store on every\n"
          "                         pass [a quarter of physical memory]\n"
          "      --cache-dir DIR    where the cache beyond --cache goes (a file deleted\n"
          "                         when gensvd ends, however it ends) [$TMPDIR or /tmp]\n"
          "      --progress, --no-progress  progress on stderr [when stderr is a terminal]\n"
          "  -v, --verbose          per-iteration convergence on stderr (repeatable)\n"
          "  -q, --quiet            errors only\n"
          "  -h, --help             print this help and exit\n" GSVD_CLI_REMOTE_HELP
          "Exit status: 0 success, 1 failure, 2 usage error, 3 device or feature unavailable.\n",
          fp);
}

static int parse_method(const char *s, enum gsvd_pca_method *m)
{
    static const enum gsvd_pca_method all[] = {GSVD_PCA_AUTO, GSVD_PCA_RANDOMIZED, GSVD_PCA_KRYLOV,
                                               GSVD_PCA_SUBSPACE, GSVD_PCA_EXACT};
    for (size_t i = 0; i < GSVD_ARRAY_LEN(all); i++)
        if (strcmp(s, gsvd_pca_method_name(all[i])) == 0) {
            *m = all[i];
            return 0;
        }
    return -1;
}

static const char *const scaler_names[] = {"patterson", "hwe", "standard", "center", "none"};

static int write_tsv(const struct gsvd_pca_result *r, const struct gsvd_strlist *ids)
{
    printf("sample_id");
    for (size_t q = 0; q < r->k; q++)
        printf("\tPC%zu", q + 1);
    putchar('\n');
    for (size_t i = 0; i < r->n; i++) {
        fputs(ids->items[i], stdout);
        for (size_t q = 0; q < r->k; q++)
            printf("\t%.17g", r->u[i * r->k + q] * r->s[q]);
        putchar('\n');
    }
    return ferror(stdout) ? GSVD_EIO : GSVD_OK;
}

/* Write PREFIX.ext through a temporary name and a rename. */
static int write_text_file(const char *prefix, const char *ext, const struct gsvd_buf *text)
{
    char *path = gsvd_asprintf("%s%s", prefix, ext);
    char *tmp = gsvd_asprintf("%s%s.tmp", prefix, ext);
    FILE *fp = NULL;
    int rc = GSVD_OK;

    if (!path || !tmp) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    fp = fopen(tmp, "w");
    if (!fp || fwrite(text->data, 1, text->len, fp) != text->len || fclose(fp) != 0) {
        gsvd_log_error("%s: cannot write: %s", tmp, strerror(errno));
        if (!fp)
            goto out_err;
        fp = NULL;
        remove(tmp);
        goto out_err;
    }
    fp = NULL;
    if (rename(tmp, path) != 0) {
        gsvd_log_error("%s: cannot rename into place: %s", path, strerror(errno));
        remove(tmp);
        goto out_err;
    }
    goto out;
out_err:
    rc = GSVD_EIO;
out:
    gsvd_free(path);
    gsvd_free(tmp);
    return rc;
}

static int write_plink(const char *prefix, const struct gsvd_pca_result *r,
                       const struct gsvd_strlist *ids)
{
    struct gsvd_buf vec = GSVD_BUF_INIT, val = GSVD_BUF_INIT;
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_buf_puts(&vec, "#IID"));
    for (size_t q = 0; q < r->k; q++)
        GSVD_TRY(gsvd_buf_printf(&vec, "\tPC%zu", q + 1));
    GSVD_TRY(gsvd_buf_puts(&vec, "\n"));
    for (size_t i = 0; i < r->n; i++) {
        GSVD_TRY(gsvd_buf_puts(&vec, ids->items[i]));
        for (size_t q = 0; q < r->k; q++)
            GSVD_TRY(gsvd_buf_printf(&vec, "\t%g", r->u[i * r->k + q]));
        GSVD_TRY(gsvd_buf_puts(&vec, "\n"));
    }
    for (size_t q = 0; q < r->k; q++)
        GSVD_TRY(gsvd_buf_printf(&val, "%g\n", r->s[q] * r->s[q] / (double)r->m_used));
    GSVD_TRY(write_text_file(prefix, ".eigenvec", &vec));
    GSVD_TRY(write_text_file(prefix, ".eigenval", &val));
out:
    gsvd_buf_free(&vec);
    gsvd_buf_free(&val);
    return rc;
}

static void report(const struct gsvd_pca_result *r)
{
    const struct gsvd_geno_counts *c = &r->counts;
    if (gsvd_log_get_level() < GSVD_LOG_WARN)
        return;
    fprintf(stderr,
            "[pca] %zu samples, %llu of %llu variants used (dropped: %llu without calls, %llu "
            "zero variance, %llu --maf, %llu --max-missing, %llu variant mask); %llu missing "
            "calls set to the mean\n",
            r->n, (unsigned long long)c->n_kept, (unsigned long long)c->n_range,
            (unsigned long long)c->n_no_calls, (unsigned long long)c->n_zero_var,
            (unsigned long long)c->n_maf, (unsigned long long)c->n_missing,
            (unsigned long long)c->n_mask, (unsigned long long)c->n_missing_calls);
    if (r->method == GSVD_PCA_EXACT)
        fprintf(stderr, "[pca] exact: Gram matrix Z'Z and symmetric eigensolver, one pass\n");
    else
        fprintf(stderr, "[pca] %s: %zu passes, %s; final 1-MEV %.3g\n",
                gsvd_pca_method_name(r->method), r->iterations,
                r->converged < 0 ? "fixed pass count (--power-iter)"
                : r->converged   ? "converged (every bound within --tol)"
                                 : "NOT converged: --max-iter reached before --tol",
                r->convergence);
    fprintf(stderr, "[pca] singular values:");
    for (size_t q = 0; q < r->k; q++)
        fprintf(stderr, " %.6g", r->s[q]);
    fprintf(stderr, "\n");
    if (r->method != GSVD_PCA_EXACT) {
        fprintf(stderr, "[pca] singular value error bounds (relative):");
        for (size_t q = 0; q < r->k; q++)
            fprintf(stderr, " %.2g", r->error_bound[q]);
        fprintf(stderr, "\n");
    }
}

/* A distributed run: this rank's part of the variants (gsvd_pca_split) and, on rank 0 with
 * -v, the plan of every rank. */
static int split_variants(gsvd_comm *world, gsvd_geno *g, struct gsvd_pca_params *p, size_t threads)
{
    uint64_t vs, ve, a, b;
    int size = gsvd_comm_size(world);
    size_t n = gsvd_geno_n_samples(g);

    gsvd_geno_range(g, &vs, &ve);
    p->n_variants_all = ve - vs;
    gsvd_log_info("distributed: %d ranks, %zu threads each, variants %llu:%llu cut at "
                  "multiples of %zu",
                  size, threads, (unsigned long long)vs, (unsigned long long)ve,
                  gsvd_backend_gram_group_rows(n));
    for (int r = 0; r < size; r++) {
        gsvd_pca_split(n, vs, ve, r, size, &a, &b);
        gsvd_log_info("  rank %d: variants %llu:%llu (%llu)", r, (unsigned long long)a,
                      (unsigned long long)b, (unsigned long long)(b - a));
    }
    gsvd_pca_split(n, vs, ve, gsvd_comm_rank(world), size, &a, &b);
    return gsvd_geno_restrict(g, a, b);
}

/* Everything before the analysis: backend, input, genotype handle, this rank's part, plan. */
static int setup(struct pca_opts *o, const struct gsvd_cli_common *common, gsvd_comm *world,
                 struct gsvd_cli_input *in, struct gsvd_strlist *samples, gsvd_geno **g,
                 gsvd_backend **be)
{
    struct gsvd_backend_params bp = {.n_threads = common->threads,
                                     .local_rank = (size_t)gsvd_comm_local_rank(world),
                                     .gram_f64 = o->gram_f64};
    int rc = GSVD_OK;

    /* first, so that an unavailable device fails before any data is read */
    GSVD_TRY(gsvd_backend_open(o->device, &bp, be));
    if (o->gram_f64 && strcmp(gsvd_backend_name(*be), "cpu") != 0)
        gsvd_log_warn("--gram-f64 applies to the CPU backend only (%s runs its own Gram)",
                      gsvd_backend_name(*be));
    if (o->samples_file) {
        GSVD_TRY(gsvd_cli_read_ids(o->samples_file, samples));
        o->geno.samples = samples;
    }
    if (o->fit_file) {
        GSVD_TRY(gsvd_cli_read_ids(o->fit_file, &o->fit_ids));
        o->geno.samples = &o->fit_ids;
    }
    GSVD_TRY(gsvd_cli_open_input(o->input, NULL, in));
    o->input_format = gsvd_tree_format(in->tree);
    o->geno.n_threads = common->threads;
    GSVD_TRY(gsvd_cli_masks_apply(o->variant_mask, o->sample_mask, &o->vmask, &o->smask, samples,
                                  &o->geno));
    if (o->ld_prune) { /* prune under the same filters and masks, then use the kept set */
        struct gsvd_ldprune_result lr;
        o->lp.n_threads = common->threads;
        GSVD_TRY(gsvd_cli_ldprune_mask(in, &o->geno, &o->lp, &lr));
        o->prune_keep = lr.keep;
        lr.keep = NULL;
        o->geno.variant_mask = o->prune_keep;
        o->geno.variant_mask_len = lr.n_array;
        gsvd_ldprune_result_free(&lr);
    }
    GSVD_TRY(gsvd_geno_open(in->tree, in->node, &o->geno, g));
    if (o->pca.n_components >= gsvd_geno_n_samples(*g)) {
        gsvd_log_error("-k %zu needs more than %zu samples", o->pca.n_components,
                       gsvd_geno_n_samples(*g));
        rc = GSVD_EINVAL;
        goto out;
    }
    if (o->output) { /* a --shard that does not fit the sample chunks fails before the run */
        uint64_t ns = gsvd_geno_n_samples(*g), chunk = ns < 100000 ? ns : 100000;
        struct gsvd_writer_params wp = gsvd_cli_zarr_out_params(&o->zout, o->input_format);
        GSVD_TRY(gsvd_writer_shard_shape(&wp, "sample_pca_projection", 1, &ns, &chunk, NULL));
    }
    if (world)
        GSVD_TRY(split_variants(world, *g, &o->pca, common->threads));
    {
        uint64_t cache = o->geno.cache_bytes;
        GSVD_TRY(gsvd_pca_plan(*g, o->memory, common->threads, &o->pca, &cache));
        gsvd_geno_set_cache(*g, cache);
    }
out:
    return rc;
}

static int run(struct pca_opts *o, const struct gsvd_cli_common *common)
{
    gsvd_comm *world = gsvd_cli_world();
    struct gsvd_cli_input in = {0};
    struct gsvd_strlist samples = GSVD_STRLIST_INIT;
    gsvd_geno *g = NULL;
    gsvd_backend *be = NULL;
    struct gsvd_pca_result *r = NULL;
    struct gsvd_cli_bar bar;
    struct gsvd_pca_fit_join join = {0};
    const struct gsvd_pca_result *res;
    const struct gsvd_strlist *ids;
    int rc;

    if (o->fit_file && world) {
        gsvd_log_error("--fit-samples runs as one process (not under mpirun)");
        return GSVD_EINVAL;
    }
    rc = setup(o, common, world, &in, &samples, &g, &be);
    if (world) /* one rank's bad start (say, a store it cannot reach) stops every rank */
        rc = gsvd_comm_agree(world, rc, NULL);
    if (rc < 0)
        goto out;
    o->pca.progress = gsvd_cli_progress(&bar, "pca", common->progress);
    o->pca.n_threads = common->threads;
    o->pca.comm = world;
    GSVD_TRY(gsvd_pca_run(g, be, &o->pca, &r));
    res = r;
    ids = gsvd_geno_sample_ids(g);
    if (o->fit_file) {
        GSVD_TRY(gsvd_pca_fit_join(in.tree, in.node, &o->geno, o->samples_file ? &samples : NULL, g,
                                   r, common->threads, &join));
        if (!o->want_loadings)
            join.all.v = NULL;
        res = &join.all;
        ids = &join.ids;
    }
    /* every rank holds the results; rank 0 writes them and tells the others how it went */
    if (gsvd_comm_rank(world) == 0) {
        report(r);
        if (o->output) {
            struct gsvd_writer_params wp = gsvd_cli_zarr_out_params(&o->zout, o->input_format);
            struct gsvd_pca_store_info info = {.command = o->command,
                                               .input = gsvd_geno_array_name(g),
                                               .pca = &o->pca,
                                               .geno = &o->geno,
                                               .ploidy = gsvd_geno_ploidy(g),
                                               .var_start = o->geno.var_start};
            struct gsvd_variant_ids vids = GSVD_VARIANT_IDS_INIT;
            if (res->v)
                rc = gsvd_variant_ids_read_present(in.tree, in.node, o->geno.var_start,
                                                   o->geno.var_start + r->m_range, &vids);
            info.vids = vids.n ? &vids : NULL;
            info.fitted = join.fitted;
            info.n_fitted = join.n_fitted;
            if (rc == GSVD_OK)
                rc = gsvd_pca_store_write(o->output, o->force, &wp, &info, res, ids);
            gsvd_variant_ids_free(&vids);
        }
        if (rc == GSVD_OK && o->plink)
            rc = write_plink(o->plink, r, gsvd_geno_sample_ids(g));
        if (rc == GSVD_OK && (o->format || (!o->output && !o->plink)))
            rc = write_tsv(res, ids);
    }
    if (world)
        rc = gsvd_comm_agree(world, rc, NULL);
out:
    gsvd_pca_fit_join_free(&join);
    gsvd_strlist_free(&o->fit_ids);
    gsvd_pca_result_free(r);
    gsvd_backend_destroy(be);
    gsvd_geno_close(g);
    gsvd_cli_close_input(&in);
    gsvd_strlist_free(&samples);
    gsvd_cli_mask_free(&o->vmask);
    gsvd_cli_mask_free(&o->smask);
    gsvd_free(o->prune_keep);
    return rc;
}

int gsvd_cmd_pca(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"force", no_argument, NULL, 'f'},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"plink", required_argument, NULL, OPT_PLINK},
        {"loadings", no_argument, NULL, OPT_LOADINGS},
        {"components", required_argument, NULL, 'k'},
        {"method", required_argument, NULL, 'm'},
        {"scaler", required_argument, NULL, OPT_SCALER},
        {"missing", required_argument, NULL, OPT_MISSING},
        {"oversampling", required_argument, NULL, OPT_OVERSAMPLING},
        {"tol", required_argument, NULL, OPT_TOL},
        {"max-iter", required_argument, NULL, OPT_MAX_ITER},
        {"power-iter", required_argument, NULL, OPT_POWER_ITER},
        {"window", required_argument, NULL, OPT_WINDOW},
        {"seed", required_argument, NULL, OPT_SEED},
        {"array", required_argument, NULL, 'a'},
        {"transpose", no_argument, NULL, OPT_TRANSPOSE},
        {"ploidy", required_argument, NULL, OPT_PLOIDY},
        {"variants", required_argument, NULL, OPT_VARIANTS},
        {"samples", required_argument, NULL, OPT_SAMPLES},
        {"maf", required_argument, NULL, OPT_MAF},
        {"max-missing", required_argument, NULL, OPT_MAX_MISSING},
        {"device", required_argument, NULL, 'd'},
        {"threads", required_argument, NULL, 't'},
        {"memory", required_argument, NULL, OPT_MEMORY},
        {"cache", required_argument, NULL, OPT_CACHE},
        {"cache-dir", required_argument, NULL, OPT_CACHE_DIR},
        {"stop", required_argument, NULL, OPT_STOP},
        {"variant-mask", required_argument, NULL, OPT_VARIANT_MASK},
        {"sample-mask", required_argument, NULL, OPT_SAMPLE_MASK},
        {"ld-prune", required_argument, NULL, OPT_LD_PRUNE},
        {"fit-samples", required_argument, NULL, OPT_FIT_SAMPLES},
        {"gram-f64", no_argument, NULL, OPT_GRAM_F64},
        GSVD_CLI_ZARR_OUT_LONGOPTS,
        GSVD_CLI_COMMON_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    struct gsvd_cli_common common = GSVD_CLI_COMMON_DEFAULT;
    struct pca_opts o = {.device = "auto",
                         .pca = GSVD_PCA_PARAMS_DEFAULT,
                         .geno = GSVD_GENO_PARAMS_DEFAULT,
                         .lp = GSVD_LDPRUNE_PARAMS_DEFAULT};
    uint64_t v;
    int c, rc, cache_set = 0;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:fk:m:a:d:t:vqh", longopts, NULL)) != -1) {
        int r = gsvd_cli_common_option("pca", c, optarg, &common);
        if (r == 0)
            r = gsvd_cli_zarr_out_option("pca", c, optarg, &o.zout);
        if (r == GSVD_EXIT_USAGE)
            return r;
        if (r == 1)
            continue;
        switch (c) {
        case 'o':
            o.output = optarg;
            break;
        case 'f':
            o.force = 1;
            break;
        case OPT_FORMAT:
            if (strcmp(optarg, "tsv") != 0)
                return gsvd_cli_usage_error("pca", "invalid --format '%s' (tsv)", optarg);
            o.format = optarg;
            break;
        case OPT_PLINK:
            if (!*optarg)
                return gsvd_cli_usage_error("pca", "empty --plink prefix");
            o.plink = optarg;
            break;
        case OPT_LOADINGS:
            o.pca.loadings = 1;
            o.want_loadings = 1;
            break;
        case 'k':
            if (gsvd_cli_parse_uint(optarg, 1, 100000, 0, &v) < 0)
                return gsvd_cli_usage_error("pca", "invalid --components '%s'", optarg);
            o.pca.n_components = (size_t)v;
            break;
        case 'm':
            if (parse_method(optarg, &o.pca.method) < 0)
                return gsvd_cli_usage_error(
                    "pca", "invalid --method '%s' (auto, randomized, krylov, subspace, exact)",
                    optarg);
            break;
        case OPT_SCALER: {
            size_t i;
            for (i = 0; i < GSVD_ARRAY_LEN(scaler_names); i++)
                if (strcmp(optarg, scaler_names[i]) == 0)
                    break;
            if (i == GSVD_ARRAY_LEN(scaler_names))
                return gsvd_cli_usage_error(
                    "pca", "invalid --scaler '%s' (patterson, hwe, standard, center, none)",
                    optarg);
            o.geno.scaler = (enum gsvd_scaler)i;
            break;
        }
        case OPT_MISSING:
            if (strcmp(optarg, "mean") == 0)
                o.geno.missing_error = 0;
            else if (strcmp(optarg, "error") == 0)
                o.geno.missing_error = 1;
            else
                return gsvd_cli_usage_error("pca", "invalid --missing '%s' (mean, error)", optarg);
            break;
        case OPT_OVERSAMPLING:
            if (gsvd_cli_parse_uint(optarg, 0, 10000, 0, &v) < 0)
                return gsvd_cli_usage_error("pca", "invalid --oversampling '%s'", optarg);
            o.pca.oversampling = (size_t)v;
            break;
        case OPT_STOP:
            if (strcmp(optarg, "bound") == 0)
                o.pca.stop = GSVD_PCA_STOP_BOUND;
            else if (strcmp(optarg, "subspace") == 0)
                o.pca.stop = GSVD_PCA_STOP_SUBSPACE;
            else
                return gsvd_cli_usage_error("pca", "invalid --stop '%s' (bound, subspace)", optarg);
            break;
        case OPT_TOL:
            if (gsvd_cli_parse_double(optarg, 0, 1, &o.pca.tol) < 0)
                return gsvd_cli_usage_error("pca", "invalid --tol '%s' (0..1)", optarg);
            break;
        case OPT_MAX_ITER:
            if (gsvd_cli_parse_uint(optarg, 1, 100000, 0, &v) < 0)
                return gsvd_cli_usage_error("pca", "invalid --max-iter '%s'", optarg);
            o.pca.max_iter = (size_t)v;
            break;
        case OPT_POWER_ITER:
            if (gsvd_cli_parse_uint(optarg, 1, 100000, 0, &v) < 0)
                return gsvd_cli_usage_error("pca", "invalid --power-iter '%s'", optarg);
            o.pca.power_iter = (size_t)v;
            break;
        case OPT_WINDOW:
            if (gsvd_cli_parse_uint(optarg, 2, 10000, 0, &v) < 0)
                return gsvd_cli_usage_error("pca", "invalid --window '%s' (>= 2)", optarg);
            o.pca.window = (size_t)v;
            break;
        case OPT_SEED:
            if (gsvd_cli_parse_uint(optarg, 0, UINT64_MAX, 0, &o.pca.seed) < 0)
                return gsvd_cli_usage_error("pca", "invalid --seed '%s'", optarg);
            break;
        case 'a':
            o.array = optarg;
            o.geno.array = optarg;
            break;
        case OPT_TRANSPOSE:
            o.geno.transpose = 1;
            break;
        case OPT_PLOIDY:
            if (gsvd_cli_parse_uint(optarg, 1, 100, 0, &v) < 0)
                return gsvd_cli_usage_error("pca", "invalid --ploidy '%s'", optarg);
            o.geno.ploidy = (size_t)v;
            break;
        case OPT_VARIANTS:
            if (gsvd_cli_parse_range(optarg, &o.geno.var_start, &o.geno.var_stop) < 0)
                return gsvd_cli_usage_error("pca", "invalid --variants '%s' (START:STOP)", optarg);
            break;
        case OPT_SAMPLES:
            o.samples_file = optarg;
            break;
        case OPT_GRAM_F64:
            o.gram_f64 = 1;
            break;
        case OPT_FIT_SAMPLES:
            o.fit_file = optarg;
            o.pca.loadings = 1; /* the projection of the others needs them */
            break;
        case OPT_MAF:
            if (gsvd_cli_parse_double(optarg, 0, 0.5, &o.geno.maf) < 0)
                return gsvd_cli_usage_error("pca", "invalid --maf '%s' (0..0.5)", optarg);
            break;
        case OPT_MAX_MISSING:
            if (gsvd_cli_parse_double(optarg, 0, 1, &o.geno.max_missing) < 0)
                return gsvd_cli_usage_error("pca", "invalid --max-missing '%s' (0..1)", optarg);
            break;
        case 'd':
            if (gsvd_cli_parse_device(optarg, &o.device) < 0)
                return gsvd_cli_usage_error("pca", "invalid --device '%s' (auto, cpu, gpu)",
                                            optarg);
            break;
        case OPT_MEMORY:
            if (gsvd_cli_parse_size(optarg, &o.memory) < 0 || o.memory == 0)
                return gsvd_cli_usage_error("pca", "invalid --memory '%s'", optarg);
            break;
        case OPT_CACHE:
            if (gsvd_cli_parse_size(optarg, &o.geno.cache_bytes) < 0)
                return gsvd_cli_usage_error("pca", "invalid --cache '%s'", optarg);
            cache_set = 1;
            break;
        case OPT_CACHE_DIR:
            if (!*optarg)
                return gsvd_cli_usage_error("pca", "empty --cache-dir");
            o.geno.cache_dir = optarg;
            break;
        case OPT_VARIANT_MASK:
            o.variant_mask = optarg;
            break;
        case OPT_SAMPLE_MASK:
            o.sample_mask = optarg;
            break;
        case OPT_LD_PRUNE:
            if (gsvd_cli_parse_ld_prune(optarg, &o.lp) < 0)
                return gsvd_cli_usage_error(
                    "pca",
                    "invalid --ld-prune '%s' (R2,WINDOW[,STEP], e.g. 0.2,500kb or 0.1,1000,100)",
                    optarg);
            o.ld_prune = 1;
            break;
        case 'h':
            usage(stdout);
            return GSVD_EXIT_OK;
        default:
            return gsvd_cli_usage_error("pca", "invalid option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return gsvd_cli_usage_error("pca", optind >= argc ? "missing INPUT" : "too many arguments");
    if (o.samples_file && o.sample_mask)
        return gsvd_cli_usage_error("pca", "--samples and --sample-mask cannot be combined");
    if (o.want_loadings && !o.output)
        return gsvd_cli_usage_error("pca", "--loadings needs -o (Zarr output)");
    if (gsvd_cli_zarr_out_check("pca", &o.zout) != 0)
        return GSVD_EXIT_USAGE;
    o.input = argv[optind];
    if (!cache_set) {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        o.geno.cache_bytes = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 4 : 0;
    }
    if (!o.geno.cache_dir) {
        const char *tmp = getenv("TMPDIR");
        o.geno.cache_dir = tmp && *tmp ? tmp : "/tmp";
    }
    gsvd_cli_common_apply(&common);
    o.command = gsvd_cli_command_line(argc, argv);
    rc = run(&o, &common);
    gsvd_free(o.command);
    return gsvd_cli_exit_code(rc);
}
