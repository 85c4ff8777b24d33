/* cli/cmd_pca.c - `gensvd pca`: options, input, backend, the run and its Zarr group; the text
 * outputs (TSV on stdout, plink2 .eigenvec/.eigenval, --outlier-out) and the summary on stderr
 * are formatted from plain arrays by cli/pca_text.c and cli/pca_summary.c (cli/pca_out.h). */
#include "gsvd_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/backend.h"
#include "analysis/scan/genotype.h"
#include "analysis/ldprune/ldprune.h"
#include "analysis/pca/pca.h"
#include "analysis/pca/pca_store.h"
#include "cli/cli.h"
#include "cli/opts_input.h"
#include "cli/cli_mask.h"
#include "cli/pca_out.h"
#include "analysis/pca/pca_fit.h"
#include "analysis/pca/pca_outlier.h"
#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/codec.h"
#include "zarr/meta.h"
#include "zarr/writer.h"

struct pca_opts {
    const char *input, *output, *format, *plink, *device, *samples_file;
    const char *ld_prune_arg;    /* --ld-prune as given (checked while parsing) */
    const char *fit_file;        /* --fit-samples (analysis/pca/pca_fit.h) */
    struct gsvd_strlist fit_ids; /* its IDs */
    int want_loadings;           /* --loadings given (--fit-samples computes them anyway) */
    int gram_f64;                /* --gram-f64 */
    int gram_kernel;             /* --gram-kernel: enum gsvd_gram_kernel */
    int pass_kernel;             /* --pass-kernel: enum gsvd_pass_kernel */
    int force;
    int outlier_project;     /* --outlier-project */
    const char *outlier_out; /* --outlier-out FILE */
    struct gsvd_pca_params pca;
    struct gsvd_geno_params geno;
    uint64_t memory;
    char *command;
    struct gsvd_cli_zarr_out zout;          /* --zarr-format, --shard */
    int input_format;                       /* 2 or 3: the default output format */
    const char *variant_mask, *sample_mask; /* --variant-mask, --sample-mask STORE[/ARRAY] */
    int ld_prune;                           /* --ld-prune given: lp holds its parameters */
    struct gsvd_ldprune_params lp;
    struct gsvd_mask vmask, smask;
    uint8_t *prune_keep; /* owned: --ld-prune's mask (and --variant-mask's) */
    struct gsvd_cli_common common;
};

static const char *const method_names[] = {"randomized", "krylov", "subspace", "exact",
                                           "auto",       NULL}; /* enum gsvd_pca_method order */
static const char *const scaler_names[] = {"patterson", "hwe",  "standard",
                                           "center",    "none", NULL}; /* enum gsvd_scaler order */
static const char *const missing_names[] = {"mean", "error", NULL};    /* geno.missing_error */
static const char *const stop_names[] = {"bound", "subspace", "estimate",
                                         NULL};                     /* enum gsvd_pca_stop */
static const char *const accuracy_names[] = {"fast", "bulk", NULL}; /* enum gsvd_pca_accuracy */
static const char *const gram_kernel_names[] = {"auto", "f32", "amx", "i8",
                                                NULL}; /* enum gsvd_gram_kernel order */
static const char *const pass_kernel_names[] = {"auto", "f32", "i8",
                                                NULL}; /* enum gsvd_pass_kernel order */

static int parse_ld_prune(const char *cmd, const char *arg, void *field)
{
    struct gsvd_ldprune_params lp = GSVD_LDPRUNE_PARAMS_DEFAULT;
    if (gsvd_cli_parse_ld_prune(arg, &lp) < 0)
        return gsvd_cli_usage_error(
            cmd, "invalid --ld-prune '%s' (R2,WINDOW[,STEP], e.g. 0.2,500kb or 0.1,1000,100)", arg);
    memcpy(field, &arg, sizeof arg);
    return 0;
}

#define PCA(field) GSVD_OPT_FIELD(struct pca_opts, field)
static const struct gsvd_opt out_options[] = {
    GSVD_OPT_OUTPUT(struct pca_opts,
                    "write a Zarr group (sgkit names: sample_pca_projection, ...)"),
    GSVD_OPT_FORCE(struct pca_opts),
    GSVD_OPT_FORMAT_TSV(struct pca_opts, "scores to stdout: sample_id, PC1..PCk (%.17g)"),
    {.name = "plink",
     .type = GSVD_OPT_STRING,
     PCA(plink),
     .arg = "PREFIX",
     .flags = GSVD_OPTF_NONEMPTY | GSVD_OPTF_FILE,
     .help = "PREFIX.eigenvec (unit eigenvectors) and PREFIX.eigenval\n(s^2 / variants used), "
             "as plink2 --pca writes them (existing\nfiles: --force)"},
    {.name = "loadings",
     .type = GSVD_OPT_FLAG,
     PCA(want_loadings),
     .value = 1,
     .help = "also variant loadings and the per-variant mean/scale (one\nmore pass; Zarr output "
             "only)"},
};
static const struct gsvd_opt method_options[] = {
    {.name = "components",
     .key = 'k',
     .type = GSVD_OPT_UINT,
     PCA(pca.n_components),
     .arg = "INT",
     .lo = 1,
     .hi = 100000,
     .help = "principal components [10]"},
    {.name = "method",
     .key = 'm',
     .type = GSVD_OPT_CHOICE,
     PCA(pca.method),
     .arg = "NAME",
     .choices = method_names,
     .help = "auto (exact up to 5,000 samples, else randomized),\nrandomized (block Krylov, "
             "bounded memory), krylov (keeps\nevery iterate), subspace (power iteration) or "
             "exact (Gram +\neigensolver, N <= 50,000) [auto]"},
    {.name = "scaler",
     .type = GSVD_OPT_CHOICE,
     PCA(geno.scaler),
     .arg = "NAME",
     .choices = scaler_names,
     .help = "patterson sqrt(p(1-p)), hwe sqrt(ploidy p(1-p)), standard\n(sd), center, none "
             "[patterson]"},
    {.name = "missing",
     .type = GSVD_OPT_CHOICE,
     PCA(geno.missing_error),
     .arg = "MODE",
     .choices = missing_names,
     .help = "mean (missing call = variant mean) or error [mean]"},
    {.name = "oversampling",
     .type = GSVD_OPT_UINT,
     PCA(pca.oversampling),
     .arg = "INT",
     .lo = 0,
     .hi = 10000,
     .help = "extra block columns beyond k [10]"},
    {.name = "accuracy",
     .type = GSVD_OPT_CHOICE,
     PCA(pca.accuracy),
     .arg = "NAME",
     .choices = accuracy_names,
     .help = "fast: at most --max-iter passes (8); the components whose\nerror bound reaches --tol "
             "are converged (the population\nPCs), the others are reported as estimates; bulk: "
             "every\nsingular value within --tol by its error estimate\n(krylov, --stop estimate, "
             "up to 60 passes) [fast]"},
    {.name = "stop",
     .type = GSVD_OPT_CHOICE,
     PCA(pca.stop),
     .arg = "RULE",
     .choices = stop_names,
     .help = "bound: stop when every component's singular value error\nbound (relative, from its "
             "Ritz residual) is <= --tol;\nsubspace: when 1 - MEV of the top-k vectors between\n"
             "passes < --tol\n(vectors inside clusters of equal eigenvalues);\nestimate: when "
             "every error estimate (the rise of the\nsingular value over the last passes, "
             "extrapolated;\nnot a bound) is <= --tol [bound]"},
    {.name = "tol",
     .type = GSVD_OPT_DOUBLE,
     PCA(pca.tol),
     .arg = "X",
     .dlo = 0,
     .dhi = 1,
     .range = "0..1",
     .help = "tolerance of the stop rule [1e-4]"},
    {.name = "max-iter",
     .type = GSVD_OPT_UINT,
     PCA(pca.max_iter),
     .arg = "INT",
     .lo = 1,
     .hi = 100000,
     .help = "at most this many passes of the stop rule; stopping\nthere is reported "
             "(converged: false) [8; --accuracy bulk: 60]"},
    {.name = "power-iter",
     .type = GSVD_OPT_UINT,
     PCA(pca.power_iter),
     .arg = "INT",
     .lo = 1,
     .hi = 100000,
     .help = "exactly this many passes, with no stop rule (--tol and\n--stop do not "
             "apply; not with --max-iter)"},
    {.name = "window",
     .type = GSVD_OPT_UINT,
     PCA(pca.window),
     .arg = "INT",
     .lo = 2,
     .hi = 10000,
     .help = "randomized: basis blocks kept before a restart [8]"},
    {.name = "seed",
     .type = GSVD_OPT_UINT,
     PCA(pca.seed),
     .arg = "INT",
     .lo = 0,
     .hi = UINT64_MAX,
     .help = "test matrix seed [42]"},
    {.name = "tw",
     .type = GSVD_OPT_FLAG,
     PCA(pca.tw),
     .value = 1,
     .help = "Tracy-Widom statistics of the eigenvalues, as EIGENSOFT's\ntwstats (output: "
             "sample_pca_tw_statistic, ..._pvalue,\n..._effective_n; a table on stderr); needs "
             "the exact\nmethod, which -m auto then runs, with --gram-f64"},
    {.name = "gram-f64",
     .type = GSVD_OPT_FLAG,
     PCA(gram_f64),
     .value = 1,
     .help = "exact on the CPU: Gram from float64 products (slower;\nscores to float64 rounding, "
             "not ~1e-7)"},
    {.name = "gram-kernel",
     .type = GSVD_OPT_CHOICE,
     PCA(gram_kernel),
     .arg = "NAME",
     .choices = gram_kernel_names,
     .help = "exact on the CPU: the Gram's tile product, f32 (ssyrk),\namx (bf16 hi/lo on Intel "
             "AMX tiles: singular values\nto ~2e-6) or i8 (int8 products on the dosages, AMX\n"
             "tiles or AVX-512 VNNI: faster; with AVX2 only: slower;\nsingular values within "
             "3.1e-5); auto is f32, or i8 for\n-m auto on large data [auto]"},
    {.name = "pass-kernel",
     .type = GSVD_OPT_CHOICE,
     PCA(pass_kernel),
     .arg = "NAME",
     .choices = pass_kernel_names,
     .help = "iterative methods on the CPU: a cached pass's products,\nf32 (float32) or i8 "
             "(int8 Intel AMX tiles on the\n2-bit codes, X and W to 2^-20: faster, products within"
             "\n~1e-6 of f32's); auto is i8 where it runs [auto]"},
};
static const struct gsvd_opt outlier_options[] = {
    {.name = "outlier-iter",
     .type = GSVD_OPT_UINT,
     PCA(pca.outlier_iter),
     .arg = "N",
     .lo = 0,
     .hi = 1000,
     .help = "remove outliers as EIGENSOFT's smartpca, in at most N\nrounds (its numoutlieriter, "
             "default 5 there) [0: off]"},
    {.name = "outlier-pcs",
     .type = GSVD_OPT_UINT,
     PCA(pca.outlier_pcs),
     .arg = "K",
     .lo = 1,
     .hi = 100000,
     .help = "...looking at the top K PCs (numoutlierevec) [10]"},
    {.name = "outlier-sigma",
     .type = GSVD_OPT_DOUBLE,
     PCA(pca.outlier_sigma),
     .arg = "S",
     .dlo = 1e-9,
     .dhi = 1e9,
     .range = "a number > 0",
     .help = "...removing samples more than S standard deviations\nfrom the mean on any of them "
             "(outliersigmathresh) [6]"},
    {.name = "outlier-project",
     .type = GSVD_OPT_FLAG,
     PCA(outlier_project),
     .value = 1,
     .help = "project the removed samples onto the final PCs (else\ntheir rows are NaN in -o "
             "and absent from the TSV)"},
    {.name = "outlier-out",
     .type = GSVD_OPT_STRING,
     PCA(outlier_out),
     .arg = "FILE",
     .flags = GSVD_OPTF_NONEMPTY | GSVD_OPTF_FILE,
     .help = "the removed samples as TSV: sample_id, iter, pc, sigmage\n(smartpca's outlier "
             "lines)"},
};
static const struct gsvd_opt input_options[] = {
    GSVD_OPT_IN_ARRAY(struct pca_opts),
    GSVD_OPT_IN_TRANSPOSE(struct pca_opts),
    GSVD_OPT_IN_PLOIDY(struct pca_opts),
    GSVD_OPT_IN_VARIANTS(struct pca_opts),
    GSVD_OPT_IN_SAMPLES(struct pca_opts),
    {.name = "fit-samples",
     .type = GSVD_OPT_STRING,
     PCA(fit_file),
     .arg = "FILE",
     .flags = GSVD_OPTF_FILE,
     .help = "fit on these samples only, then project every other\nsample onto their PCs "
             "(output: sample_pca_fitted)"},
    GSVD_OPT_IN_MAF(struct pca_opts),
    GSVD_OPT_IN_MAX_MISSING(struct pca_opts),
    GSVD_OPT_IN_VARIANT_MASK(struct pca_opts),
    GSVD_OPT_IN_SAMPLE_MASK(struct pca_opts),
    {.name = "ld-prune",
     .type = GSVD_OPT_CALL,
     PCA(ld_prune_arg),
     .arg = "R2,WINDOW[,STEP]",
     .parse = parse_ld_prune,
     .help = "first prune variants in LD as gensvd ldprune\n--r2 R2 --window WINDOW --step STEP "
             "[STEP: 1]"},
};
static const struct gsvd_opt resource_options[] = {
    GSVD_OPT_DEVICE(struct pca_opts),
    {.name = "memory",
     .type = GSVD_OPT_BYTES,
     PCA(memory),
     .arg = "SIZE",
     .lo = 1,
     .range = "a size such as 2G",
     .help = "cap the whole run (basis, pass buffers, decode pipeline,\nin-memory cache; the "
             "cache beyond it is spilled), e.g. 2G;\n-v prints the plan"},
    {.name = "cache",
     .type = GSVD_OPT_BYTES,
     PCA(geno.cache_bytes),
     .arg = "SIZE",
     .range = "a size such as 4G, or 0",
     .help = "keep the genotypes in memory (2 bits per call) after the\nfirst pass, up to SIZE; "
             "what does not fit goes to a\nfile in --cache-dir; 0 re-reads the store on every\n"
             "pass [a quarter of physical memory]"},
    {.name = "cache-dir",
     .type = GSVD_OPT_STRING,
     PCA(geno.cache_dir),
     .arg = "DIR",
     .flags = GSVD_OPTF_NONEMPTY | GSVD_OPTF_DIR,
     .help = "where the cache beyond --cache goes (a file deleted\nwhen gensvd ends, however it "
             "ends) [$TMPDIR or /tmp]"},
};
static const struct gsvd_opt_group out_group =
    GSVD_OPT_GROUP("Output (default: TSV of the scores on stdout):", out_options);
static const struct gsvd_opt_group method_group = GSVD_OPT_GROUP("Method:", method_options);
static const struct gsvd_opt_group input_group = GSVD_OPT_GROUP("Input:", input_options);
static const struct gsvd_opt_group outlier_group =
    GSVD_OPT_GROUP("Outlier removal (smartpca's):", outlier_options);
static const struct gsvd_opt_group resource_group = GSVD_OPT_GROUP("Resources:", resource_options);
static const struct gsvd_opt_bind pca_groups[] = {
    {&out_group, 0},
    {&gsvd_opts_zarr_out, offsetof(struct pca_opts, zout)},
    {&method_group, 0},
    {&outlier_group, 0},
    {&input_group, 0},
    {&resource_group, 0},
    GSVD_OPTS_BIND_COMMON(struct pca_opts),
};
const struct gsvd_cmd_spec gsvd_cmd_pca_spec = {
    .name = "pca",
    .intro = "Usage: gensvd pca [options] INPUT\n"
             "Principal components of the genotype matrix in INPUT (a VCF-Zarr store: "
             "call_genotype,\nor scikit-allel calldata/GT, or a 2-D dosage array named with "
             "--array); samples are\nthe observations.\n",
    .groups = pca_groups,
    .n_groups = GSVD_ARRAY_LEN(pca_groups),
    .opts_size = sizeof(struct pca_opts),
    .footer = "Exit status: 0 success, 1 failure, 2 usage error, 3 device or feature "
              "unavailable.\n",
};

/* The scores (U S) of r's rows, as a new array (caller frees with gsvd_free), or NULL. */
static double *scores_of(const struct gsvd_pca_result *r)
{
    size_t nk = r->n * r->k; /* r->u holds as many */
    double *sc = gsvd_malloc((nk ? nk : 1) * sizeof *sc);
    for (size_t i = 0; sc && i < nk; i++)
        sc[i] = r->u[i] * r->s[i % r->k];
    return sc;
}

/* The scores on stdout (cli/pca_text.c). */
static int write_tsv(const struct gsvd_pca_result *r, const struct gsvd_strlist *ids)
{
    double *sc = scores_of(r);
    int rc = sc ? gsvd_cli_pca_tsv(r->n, r->k, (const char *const *)ids->items, sc) : GSVD_ENOMEM;
    gsvd_free(sc);
    return rc;
}

/* The summary (cli/pca_summary.c) of r with the command's settings p and, after outlier
 * removal, what it did. */
static void report(const struct gsvd_pca_result *r, const struct gsvd_pca_params *p,
                   const struct gsvd_pca_outliers *ol)
{
    const struct gsvd_geno_counts *c = &r->counts;
    struct gsvd_cli_pca_summary s = {.n = r->n,
                                     .k = r->k,
                                     .m_kept = c->n_kept,
                                     .m_range = c->n_range,
                                     .m_no_calls = c->n_no_calls,
                                     .m_zero_var = c->n_zero_var,
                                     .m_maf = c->n_maf,
                                     .m_missing = c->n_missing,
                                     .m_mask = c->n_mask,
                                     .missing_calls = c->n_missing_calls,
                                     .method = gsvd_pca_method_name(r->method),
                                     .exact = r->method == GSVD_PCA_EXACT,
                                     .gram_error = r->gram_error,
                                     .subspace_stop =
                                         gsvd_pca_stop_for(p) == GSVD_PCA_STOP_SUBSPACE,
                                     .iterations = r->iterations,
                                     .converged = r->converged,
                                     .convergence = r->convergence,
                                     .s = r->s,
                                     .error_bound = r->error_bound,
                                     .error_estimate = r->error_estimate,
                                     .trace = r->trace,
                                     .bulk = p->accuracy == GSVD_PCA_ACCURACY_BULK,
                                     .accuracy = gsvd_pca_accuracy_name(p->accuracy),
                                     .tol = p->tol,
                                     .max_iter = p->max_iter,
                                     .tw_stat = r->tw_stat,
                                     .tw_pvalue = r->tw_pvalue,
                                     .tw_neff = r->tw_neff,
                                     .tw_m = r->tw_m};
    if (ol) {
        s.round = ol->round;
        s.n_start = ol->n;
        s.n_removed = ol->n_removed;
        s.n_rounds = ol->n_rounds;
    }
    gsvd_cli_pca_report(&s);
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
    gsvd_log_info("distributed: %d ranks (%d on rank 0's node, which is its local rank %d), "
                  "%zu threads each, variants %llu:%llu cut at multiples of %zu",
                  size, gsvd_comm_local_size(world), gsvd_comm_local_rank(world), threads,
                  (unsigned long long)vs, (unsigned long long)ve, gsvd_backend_gram_group_rows(n));
    for (int r = 0; r < size; r++) {
        gsvd_pca_split(n, vs, ve, r, size, &a, &b);
        gsvd_log_info("  rank %d: variants %llu:%llu (%llu)", r, (unsigned long long)a,
                      (unsigned long long)b, (unsigned long long)(b - a));
    }
    gsvd_pca_split(n, vs, ve, gsvd_comm_rank(world), size, &a, &b);
    return gsvd_geno_restrict(g, a, b);
}

/* -o, --plink's two files and --outlier-out, before any input is read: each may exist only
 * with --force. */
static int check_outputs(const struct pca_opts *o)
{
    char *vec = o->plink ? gsvd_asprintf("%s.eigenvec", o->plink) : NULL;
    char *val = o->plink ? gsvd_asprintf("%s.eigenval", o->plink) : NULL;
    const char *files[4] = {NULL};
    size_t nf = 0;
    int rc;

    if (o->plink) {
        files[nf++] = vec;
        files[nf++] = val;
    }
    if (o->outlier_out)
        files[nf++] = o->outlier_out;
    if (o->plink && (!vec || !val)) /* every rank learns of it (gsvd_cli_check_outputs does) */
        rc = gsvd_comm_agree(gsvd_cli_world(), GSVD_ENOMEM, NULL);
    else
        rc = gsvd_cli_check_outputs(o->output, o->force, nf ? files : NULL, o->force);
    gsvd_free(vec);
    gsvd_free(val);
    return rc;
}

/* What a genotype handle needs after gsvd_geno_open: this rank's part of the variants and the
 * memory plan; for the first handle and for each outlier round's (gsvd_pca_open_fn). */
struct ready_ctx {
    struct pca_opts *o;
    const struct gsvd_cli_common *common;
    gsvd_comm *world;
    struct gsvd_cli_input *in;
    struct gsvd_backend_params bp;
};

static int make_ready(struct ready_ctx *c, gsvd_geno *g)
{
    uint64_t cache = c->o->geno.cache_bytes;
    int rc = GSVD_OK;
    if (c->world)
        GSVD_TRY(split_variants(c->world, g, &c->o->pca, c->common->threads));
    GSVD_TRY(gsvd_pca_plan(g, c->o->memory, &c->bp, &c->o->pca, &cache));
    gsvd_geno_set_cache(g, cache);
out:
    return rc;
}

static int reopen(void *vctx, const struct gsvd_strlist *keep, gsvd_geno **out)
{
    struct ready_ctx *c = vctx;
    struct gsvd_geno_params gp = c->o->geno;
    gsvd_geno *g = NULL;
    int rc = GSVD_OK;

    *out = NULL;
    gp.samples = keep; /* the kept samples of the starting set, by ID */
    gp.sample_mask = NULL;
    gp.sample_mask_len = 0;
    GSVD_TRY(gsvd_geno_open(c->in->tree, c->in->node, &gp, &g));
    GSVD_TRY(make_ready(c, g));
    *out = g;
    g = NULL;
out:
    gsvd_geno_close(g);
    return rc;
}

/* Everything before the analysis: backend, input, genotype handle, this rank's part, plan. */
static int setup(struct ready_ctx *c, struct gsvd_strlist *samples, gsvd_geno **g,
                 gsvd_backend **be)
{
    struct pca_opts *o = c->o;
    const struct gsvd_cli_common *common = c->common;
    struct gsvd_cli_input *in = c->in;
    int rc = GSVD_OK;

    c->bp = (struct gsvd_backend_params){.n_threads = common->threads,
                                         .local_rank = (size_t)gsvd_comm_local_rank(c->world),
                                         .gram_f64 = o->gram_f64,
                                         .gram_kernel = o->gram_kernel,
                                         .pass_kernel = o->pass_kernel};
    /* first, so that an unavailable device fails before any data is read */
    GSVD_TRY(gsvd_backend_open(o->device, &c->bp, be));
    if (o->gram_kernel != GSVD_GRAM_AUTO && strcmp(gsvd_backend_name(*be), "cpu") != 0)
        gsvd_log_warn("--gram-kernel applies to the CPU backend only (%s runs its own Gram)",
                      gsvd_backend_name(*be));
    if (o->pass_kernel != GSVD_PASS_AUTO && strcmp(gsvd_backend_name(*be), "cpu") != 0)
        gsvd_log_warn("--pass-kernel applies to the CPU backend only (%s runs its own passes)",
                      gsvd_backend_name(*be));
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
    if (o->output)
        GSVD_TRY(gsvd_cli_zarr_out_check_input("pca", &o->zout, o->input_format));
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
    GSVD_TRY(make_ready(c, *g));
out:
    return rc;
}

/* Rank 0, after the run: the samples outside the fit (--fit-samples) or removed as outliers
 * projected onto the PCs (--outlier-project), or the removed ones as NaN rows; *res and *ids
 * then describe every sample, else they stay the fitted ones. */
static int join_rows(struct pca_opts *o, struct gsvd_cli_input *in,
                     const struct gsvd_strlist *samples, gsvd_geno *g,
                     const struct gsvd_pca_result *r, const struct gsvd_pca_outliers *ol,
                     size_t threads, struct gsvd_pca_fit_join *join)
{
    struct gsvd_geno_params fitp = o->geno;
    int rc = GSVD_OK;

    if (o->fit_file) {
        rc = gsvd_pca_fit_join(in->tree, in->node, &o->geno, o->samples_file ? samples : NULL, g, r,
                               threads, join);
    } else if (o->outlier_project) { /* the starting set, by ID (no mask needed again) */
        fitp.sample_mask = NULL;
        fitp.sample_mask_len = 0;
        rc = gsvd_pca_fit_join(in->tree, in->node, &fitp, &ol->ids, g, r, threads, join);
    } else if (o->pca.outlier_iter) {
        rc = gsvd_pca_outliers_join(ol, r, join);
    }
    if (!o->want_loadings)
        join->all.v = NULL;
    return rc;
}

static int run(struct pca_opts *o, const struct gsvd_cli_common *common)
{
    gsvd_comm *world = gsvd_cli_world();
    struct gsvd_cli_input in = {0};
    struct ready_ctx ready = {.o = o, .common = common, .world = world, .in = &in};
    struct gsvd_strlist samples = GSVD_STRLIST_INIT;
    gsvd_geno *g = NULL;
    gsvd_backend *be = NULL;
    struct gsvd_pca_result *r = NULL;
    struct gsvd_cli_bar bar;
    struct gsvd_pca_fit_join join = {0};
    struct gsvd_pca_outliers ol = {0};
    const struct gsvd_pca_result *res, *tsv;
    const struct gsvd_strlist *ids, *tsv_ids;
    int rc;

    rc = check_outputs(o); /* agreed on by every rank */
    if (rc == GSVD_OK)
        rc = setup(&ready, &samples, &g, &be);
    if (world) /* one rank's bad start (say, a store it cannot reach) stops every rank */
        rc = gsvd_comm_agree(world, rc, NULL);
    if (rc < 0)
        goto out;
    o->pca.progress = gsvd_cli_progress(&bar, "variants", common->progress);
    o->pca.n_threads = common->threads;
    o->pca.comm = world;
    if (o->pca.outlier_iter)
        GSVD_TRY(gsvd_pca_outliers_run(&g, reopen, &ready, be, &o->pca, &r, &ol));
    else
        GSVD_TRY(gsvd_pca_run(g, be, &o->pca, &r));
    res = tsv = r;
    ids = tsv_ids = gsvd_geno_sample_ids(g);
    /* every rank holds the results; rank 0 (which alone holds every rank's loadings) projects
     * the samples outside --fit-samples or removed as outliers, writes, and tells the others how
     * it went */
    if (gsvd_comm_rank(world) == 0 && (o->fit_file || o->pca.outlier_iter)) {
        rc = join_rows(o, &in, &samples, g, r, &ol, common->threads, &join);
        res = &join.all;
        ids = &join.ids;
        if (join.fitted) { /* every row has scores: the TSV lists them all */
            tsv = res;
            tsv_ids = ids;
        }
    }
    if (gsvd_comm_rank(world) == 0 && rc == GSVD_OK) {
        report(r, &o->pca, o->pca.outlier_iter ? &ol : NULL);
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
            info.outliers = o->pca.outlier_iter ? &ol : NULL;
            if (rc == GSVD_OK)
                rc = gsvd_pca_store_write(o->output, o->force, &wp, &info, res, ids);
            gsvd_variant_ids_free(&vids);
        }
        if (rc == GSVD_OK && o->plink)
            rc = gsvd_cli_pca_plink(o->plink, r->n, r->k,
                                    (const char *const *)gsvd_geno_sample_ids(g)->items, r->u, NULL,
                                    r->s, r->m_used);
        if (rc == GSVD_OK && o->outlier_out)
            rc = gsvd_cli_pca_outlier_file(o->outlier_out, ol.n, (const char *const *)ol.ids.items,
                                           ol.round, ol.pc, ol.sigma, ol.n_rounds);
        if (rc == GSVD_OK && (o->format || (!o->output && !o->plink)))
            rc = write_tsv(tsv, tsv_ids);
        if (rc == GSVD_OK)
            gsvd_cli_pca_done(o->output, o->plink, o->outlier_out,
                              o->format || (!o->output && !o->plink));
    }
    if (world)
        rc = gsvd_comm_agree(world, rc, NULL);
out:
    gsvd_pca_outliers_free(&ol);
    gsvd_pca_fit_join_free(&join);
    gsvd_strlist_free(&o->fit_ids);
    gsvd_pca_result_free(r);
    gsvd_backend_destroy(be);
    gsvd_geno_close(g);
    gsvd_cli_close_input(&in);
    gsvd_strlist_free(&samples);
    gsvd_mask_free(&o->vmask);
    gsvd_mask_free(&o->smask);
    gsvd_free(o->prune_keep);
    return rc;
}

int gsvd_cmd_pca(int argc, char **argv)
{
    struct pca_opts o = {.device = "auto",
                         .pca = GSVD_PCA_PARAMS_DEFAULT,
                         .geno = GSVD_GENO_PARAMS_DEFAULT,
                         .lp = GSVD_LDPRUNE_PARAMS_DEFAULT,
                         .common = GSVD_CLI_COMMON_DEFAULT};
    int first, rc;

    o.geno.cache_bytes = UINT64_MAX; /* not given (--cache cannot reach it) */
    o.pca.max_iter = 0;              /* not given (below its range) */
    o.pca.stop = (enum gsvd_pca_stop) - 1;
    o.pca.outlier_pcs = 0; /* not given (the options' ranges exclude 0) */
    o.pca.outlier_sigma = 0;
    rc = gsvd_opts_parse(&gsvd_cmd_pca_spec, argc, argv, &o, &first);
    if (rc != 0)
        return rc == GSVD_OPTS_HELP ? GSVD_EXIT_OK : rc;
    /* --power-iter fixes the pass count; --max-iter caps the stop rule's passes: a cap given
       with a fixed count would be ignored (or cut it short), so the pair is refused */
    if (o.pca.power_iter && o.pca.max_iter)
        return gsvd_cli_usage_error("pca", "--power-iter (exactly this many passes) and "
                                           "--max-iter (a cap for the stop rule) cannot be "
                                           "combined");
    if (o.pca.accuracy == GSVD_PCA_ACCURACY_BULK) {
        /* bulk is the estimate stop with room to reach it; another rule would not keep its
         * promise */
        if ((int)o.pca.stop >= 0 || o.pca.power_iter)
            return gsvd_cli_usage_error("pca",
                                        "--accuracy bulk sets the stop rule itself: it "
                                        "cannot be combined with %s",
                                        o.pca.power_iter ? "--power-iter" : "--stop");
        o.pca.stop = GSVD_PCA_STOP_ESTIMATE;
        if (!o.pca.max_iter)
            o.pca.max_iter = GSVD_PCA_BULK_MAX_ITER;
    }
    if ((int)o.pca.stop < 0)
        o.pca.stop = GSVD_PCA_STOP_BOUND;
    if (!o.pca.max_iter)
        o.pca.max_iter = GSVD_PCA_MAX_ITER;
    if (first != argc - 1)
        return gsvd_cli_usage_error("pca", first >= argc ? "missing INPUT" : "too many arguments");
    if (!o.pca.outlier_iter &&
        (o.pca.outlier_pcs || o.pca.outlier_sigma > 0 || o.outlier_project || o.outlier_out))
        return gsvd_cli_usage_error("pca", "--outlier-pcs, --outlier-sigma, --outlier-project and "
                                           "--outlier-out need --outlier-iter N (N > 0)");
    if (!o.pca.outlier_pcs) /* smartpca's defaults */
        o.pca.outlier_pcs = 10;
    if (!(o.pca.outlier_sigma > 0))
        o.pca.outlier_sigma = 6.0;
    if (o.want_loadings || o.fit_file || o.outlier_project)
        o.pca.loadings = 1; /* projecting the others needs them */
    if (o.ld_prune_arg) {
        o.ld_prune = 1;
        if (gsvd_cli_parse_ld_prune(o.ld_prune_arg, &o.lp) < 0) /* checked while parsing */
            return GSVD_EXIT_INTERNAL;
    }
    if (o.samples_file && o.sample_mask)
        return gsvd_cli_usage_error("pca", "--samples and --sample-mask cannot be combined");
    if (o.want_loadings && !o.output)
        return gsvd_cli_usage_error("pca", "--loadings needs -o (Zarr output)");
    if (gsvd_cli_zarr_out_check("pca", &o.zout, o.output) != 0)
        return GSVD_EXIT_USAGE;
    if (o.gram_f64 && o.gram_kernel != GSVD_GRAM_AUTO)
        return gsvd_cli_usage_error("pca", "--gram-f64 and --gram-kernel cannot be combined");
    if (o.pca.tw && o.pca.method != GSVD_PCA_AUTO && o.pca.method != GSVD_PCA_EXACT)
        return gsvd_cli_usage_error("pca",
                                    "--tw needs every eigenvalue (the sum of their squares), which "
                                    "only --method exact gives; --method %s cannot",
                                    method_names[o.pca.method]);
    if (o.pca.tw && (o.gram_kernel == GSVD_GRAM_AMX || o.gram_kernel == GSVD_GRAM_I8))
        return gsvd_cli_usage_error("pca",
                                    "--tw needs a Gram of exact products; --gram-kernel %s rounds "
                                    "them",
                                    gram_kernel_names[o.gram_kernel]);
    if (o.pca.tw && o.gram_kernel == GSVD_GRAM_AUTO)
        o.gram_f64 = 1; /* the effective n amplifies S2's rounding ~8x: float64 products */
    o.input = argv[first];
    if (o.geno.cache_bytes == UINT64_MAX) {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        o.geno.cache_bytes = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 4 : 0;
    }
    if (!o.geno.cache_dir) {
        const char *tmp = getenv("TMPDIR");
        o.geno.cache_dir = tmp && *tmp ? tmp : "/tmp";
    }
    gsvd_cli_common_apply(&o.common);
    o.command = gsvd_cli_command_line(argc, argv);
    rc = run(&o, &o.common);
    gsvd_free(o.command);
    return gsvd_cli_exit_code(rc);
}
