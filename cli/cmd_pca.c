/* cli/cmd_pca.c - `gensvd pca`: principal components, run by the library (include/gensvd.h,
 * GENSVD_PCA) into its Zarr group (-o); the text outputs (TSV on stdout, plink2's
 * .eigenvec/.eigenval, --outlier-out) and the summary on stderr are formatted by
 * cli/pca_text.c and cli/pca_summary.c (cli/pca_out.h) from the result: its arrays and
 * attributes, and the arrays it holds beside them (the fitted samples in their order, the
 * unrounded error bounds, the variant counts, the outlier rounds). */
#include "gsvd_config.h"

#include <stdio.h>
#include <string.h>

#include "cli/cli_base.h"
#include "cli/opts_source.h"
#include "cli/pca_out.h"
#include "include/gensvd.h"

struct pca_opts {
    const char *output, *format, *plink, *device, *samples_file;
    const char *variant_mask, *sample_mask; /* --variant-mask, --sample-mask STORE[/ARRAY] */
    const char *ld_prune;                   /* --ld-prune as given (checked while parsing) */
    const char *fit_file;                   /* --fit-samples */
    const char *outlier_out;                /* --outlier-out FILE */
    const char *eigensoft, *eigensoft_ind;  /* --eigensoft PREFIX, --eigensoft-ind FILE */
    const char *cache_dir;                  /* --cache-dir */
    int want_loadings;                      /* --loadings */
    int force, gram_f64, gram_kernel, pass_kernel, outlier_project, tw;
    int method, scaler, missing_error, accuracy;
    int stop;         /* -1: not given */
    int outlier_mode; /* -1: not given (all) */
    size_t n_components, oversampling, max_iter, power_iter, window;
    size_t outlier_iter, outlier_pcs; /* outlier_pcs 0: not given */
    uint64_t seed, memory;
    uint64_t cache;            /* UINT64_MAX: not given (a quarter of physical memory) */
    double tol, outlier_sigma; /* outlier_sigma 0: not given */
    double tw_effective_n;     /* 0: estimated */
    struct gsvd_cli_geno geno;
    struct gsvd_cli_zarr_out zout;
    struct gsvd_cli_common common;
};

/* the choices, forwarded to the library by name */
static const char *const method_names[] = {"randomized", "krylov", "subspace",
                                           "exact",      "auto",   NULL};
static const char *const scaler_names[] = {"patterson", "hwe", "standard", "center", "none", NULL};
static const char *const missing_names[] = {"mean", "error", NULL};
static const char *const stop_names[] = {"bound", "subspace", "estimate", NULL};
static const char *const accuracy_names[] = {"fast", "bulk", NULL};
static const char *const outlier_mode_names[] = {"all", "leave-one-out", NULL};
static const char *const gram_kernel_names[] = {"auto", "f32", "amx", "i8", NULL};
static const char *const pass_kernel_names[] = {"auto", "f32", "i8", NULL};
/* indices into the lists above (the values the options hold) */
enum { PCA_EXACT = 3, PCA_AUTO = 4 };
enum { STOP_BOUND = 0, STOP_ESTIMATE = 2 };
enum { ACCURACY_BULK = 1 };
enum { SCALER_PATTERSON = 0, SCALER_HWE = 1 };
enum { GRAM_AUTO = 0, GRAM_AMX = 2, GRAM_I8 = 3 };

/* "R2,WINDOW[,STEP]": 0 <= R2 < 1, a window as ldprune's --window, STEP >= 1; 0 or -1. */
static int check_ld_prune(const char *arg)
{
    char buf[128], *c1, *c2;
    uint64_t w, bp, step;
    double r2;
    size_t len = strlen(arg);

    if (len >= sizeof buf)
        return -1;
    memcpy(buf, arg, len + 1);
    if (!(c1 = strchr(buf, ',')))
        return -1;
    *c1++ = '\0';
    if ((c2 = strchr(c1, ',')))
        *c2++ = '\0';
    if (gsvd_cli_parse_double(buf, 0, 1, &r2) < 0 || !(r2 < 1))
        return -1;
    if (gsvd_cli_parse_window(c1, &w, &bp) < 0)
        return -1;
    if (c2 && gsvd_cli_parse_uint(c2, 1, (uint64_t)1 << 40, 0, &step) < 0)
        return -1;
    return 0;
}

static int parse_ld_prune(const char *cmd, const char *arg, void *field)
{
    if (check_ld_prune(arg) < 0)
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
             "as plink2 --pca writes them; with\n--loadings also PREFIX.eigenvec.allele "
             "(plink2's allele-wts,\nfor plink2 --score) (existing files: --force)"},
    {.name = "eigensoft",
     .type = GSVD_OPT_STRING,
     PCA(eigensoft),
     .arg = "PREFIX",
     .flags = GSVD_OPTF_NONEMPTY | GSVD_OPTF_FILE,
     .help = "PREFIX.evec (the eigenvalues in smartpca's scale, its rows,\na label column) as "
             "smartpca writes it; with --fit-samples\nalso the projected samples; with the "
             "exact method\nPREFIX.eval, with --loadings PREFIX.snpwt (existing files:\n"
             "--force)"},
    {.name = "eigensoft-ind",
     .type = GSVD_OPT_STRING,
     PCA(eigensoft_ind),
     .arg = "FILE",
     .flags = GSVD_OPTF_NONEMPTY | GSVD_OPTF_FILE,
     .help = "...the labels from an EIGENSTRAT .ind file (sample ID,\nsex, label; samples it "
             "lacks: ?\?\?)"},
    {.name = "loadings",
     .lib = "loadings",
     .type = GSVD_OPT_FLAG,
     PCA(want_loadings),
     .value = 1,
     .help = "also variant loadings and the per-variant mean/scale (one\nmore pass; to -o), and "
             "--plink's or --eigensoft's\nweights files"},
};
static const struct gsvd_opt method_options[] = {
    {.name = "components",
     .lib = "components",
     .key = 'k',
     .type = GSVD_OPT_UINT,
     PCA(n_components),
     .arg = "INT",
     .lo = 1,
     .hi = 100000,
     .help = "principal components [10]"},
    {.name = "method",
     .lib = "method",
     .key = 'm',
     .type = GSVD_OPT_CHOICE,
     PCA(method),
     .arg = "NAME",
     .choices = method_names,
     .help = "auto (exact up to 5,000 samples, else randomized),\nrandomized (block Krylov, "
             "bounded memory), krylov (keeps\nevery iterate), subspace (power iteration) or "
             "exact (Gram +\neigensolver, N <= 50,000) [auto]"},
    {.name = "scaler",
     .lib = "scaler",
     .type = GSVD_OPT_CHOICE,
     PCA(scaler),
     .arg = "NAME",
     .choices = scaler_names,
     .help = "patterson sqrt(p(1-p)), hwe sqrt(ploidy p(1-p)), standard\n(sd), center, none "
             "[patterson]"},
    {.name = "missing",
     .lib = "missing",
     .type = GSVD_OPT_CHOICE,
     PCA(missing_error),
     .arg = "MODE",
     .choices = missing_names,
     .help = "mean (missing call = variant mean) or error [mean]"},
    {.name = "oversampling",
     .lib = "oversampling",
     .type = GSVD_OPT_UINT,
     PCA(oversampling),
     .arg = "INT",
     .lo = 0,
     .hi = 10000,
     .help = "extra block columns beyond k [10]"},
    {.name = "accuracy",
     .lib = "accuracy",
     .type = GSVD_OPT_CHOICE,
     PCA(accuracy),
     .arg = "NAME",
     .choices = accuracy_names,
     .help = "fast: at most --max-iter passes (8); the components whose\nerror bound reaches --tol "
             "are converged (the population\nPCs), the others are reported as estimates; bulk: "
             "every\nsingular value within --tol by its error estimate\n(krylov, --stop estimate, "
             "up to 60 passes) [fast]"},
    {.name = "stop",
     .type = GSVD_OPT_CHOICE,
     PCA(stop),
     .arg = "RULE",
     .choices = stop_names,
     .help = "bound: stop when every component's singular value error\nbound (relative, from its "
             "Ritz residual) is <= --tol;\nsubspace: when 1 - MEV of the top-k vectors between\n"
             "passes < --tol\n(vectors inside clusters of equal eigenvalues);\nestimate: when "
             "every error estimate (the rise of the\nsingular value over the last passes, "
             "extrapolated;\nnot a bound) is <= --tol [bound]"},
    {.name = "tol",
     .lib = "tol",
     .type = GSVD_OPT_DOUBLE,
     PCA(tol),
     .arg = "X",
     .dlo = 0,
     .dhi = 1,
     .range = "0..1",
     .help = "tolerance of the stop rule [1e-4]"},
    {.name = "max-iter",
     .lib = "max-iter",
     .type = GSVD_OPT_UINT,
     PCA(max_iter),
     .arg = "INT",
     .lo = 1,
     .hi = 100000,
     .help = "at most this many passes of the stop rule; stopping\nthere is reported "
             "(converged: false) [8; --accuracy bulk: 60]"},
    {.name = "power-iter",
     .lib = "power-iter",
     .type = GSVD_OPT_UINT,
     PCA(power_iter),
     .arg = "INT",
     .lo = 1,
     .hi = 100000,
     .help = "exactly this many passes, with no stop rule (--tol and\n--stop do not "
             "apply; not with --max-iter)"},
    {.name = "window",
     .lib = "window",
     .type = GSVD_OPT_UINT,
     PCA(window),
     .arg = "INT",
     .lo = 2,
     .hi = 10000,
     .help = "randomized: basis blocks kept before a restart [8]"},
    {.name = "seed",
     .lib = "seed",
     .type = GSVD_OPT_UINT,
     PCA(seed),
     .arg = "INT",
     .lo = 0,
     .hi = UINT64_MAX,
     .help = "test matrix seed [42]"},
    {.name = "tw",
     .lib = "tw",
     .type = GSVD_OPT_FLAG,
     PCA(tw),
     .value = 1,
     .help = "Tracy-Widom statistics of the eigenvalues, as EIGENSOFT's\ntwstats (output: "
             "sample_pca_tw_statistic, ..._pvalue,\n..._effective_n; a table on stderr); needs "
             "the exact\nmethod, which -m auto then runs, with --gram-f64"},
    {.name = "tw-effective-n",
     .lib = "tw-effective-n",
     .type = GSVD_OPT_DOUBLE,
     PCA(tw_effective_n),
     .arg = "N",
     .dlo = 0,
     .dhi = 1e15,
     .range = "a number >= 0",
     .help = "--tw with this effective number of markers for every\ncomponent (twstats -n) "
             "instead of estimating it\n[0: estimated]"},
    {.name = "gram-f64",
     .lib = "gram-f64",
     .type = GSVD_OPT_FLAG,
     PCA(gram_f64),
     .value = 1,
     .help = "exact on the CPU: Gram from float64 products (slower;\nscores to float64 rounding, "
             "not ~1e-7)"},
    {.name = "gram-kernel",
     .lib = "gram-kernel",
     .type = GSVD_OPT_CHOICE,
     PCA(gram_kernel),
     .arg = "NAME",
     .choices = gram_kernel_names,
     .help = "exact on the CPU: the Gram's tile product, f32 (ssyrk),\namx (bf16 hi/lo on Intel "
             "AMX tiles: singular values\nto ~2e-6) or i8 (int8 products on the dosages, AMX\n"
             "tiles or AVX-512 VNNI: faster; with AVX2 only: slower;\nsingular values within "
             "3.1e-5); auto is f32, or i8 for\n-m auto on large data [auto]"},
    {.name = "pass-kernel",
     .lib = "pass-kernel",
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
     .lib = "outlier-iter",
     .type = GSVD_OPT_UINT,
     PCA(outlier_iter),
     .arg = "N",
     .lo = 0,
     .hi = 1000,
     .help = "remove outliers as EIGENSOFT's smartpca, in at most N\nrounds (its numoutlieriter, "
             "default 5 there) [0: off]"},
    {.name = "outlier-pcs",
     .lib = "outlier-pcs",
     .type = GSVD_OPT_UINT,
     PCA(outlier_pcs),
     .arg = "K",
     .lo = 1,
     .hi = 100000,
     .help = "...looking at the top K PCs (numoutlierevec) [10]"},
    {.name = "outlier-sigma",
     .lib = "outlier-sigma",
     .type = GSVD_OPT_DOUBLE,
     PCA(outlier_sigma),
     .arg = "S",
     .dlo = 1e-9,
     .dhi = 1e9,
     .range = "a number > 0",
     .help = "...removing samples more than S standard deviations\nfrom the mean on any of them "
             "(outliersigmathresh) [6]"},
    {.name = "outlier-mode",
     .lib = "outlier-mode",
     .type = GSVD_OPT_CHOICE,
     PCA(outlier_mode),
     .arg = "MODE",
     .choices = outlier_mode_names,
     .help = "...each sample's mean and sd: of all the samples, or of\nthe others "
             "(leave-one-out, for small samples) (outliermode\n0 or 1) [all]"},
    {.name = "outlier-project",
     .lib = "outlier-project",
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
    GSVD_OPT_IN_KEEP_REMOVE(struct pca_opts),
    GSVD_OPT_IN_MIND(struct pca_opts),
    {.name = "fit-samples",
     .lib = "fit-samples",
     .type = GSVD_OPT_STRING,
     PCA(fit_file),
     .arg = "FILE",
     .flags = GSVD_OPTF_FILE,
     .help = "fit on these samples only, then project every other\nsample onto their PCs "
             "(output: sample_pca_fitted)"},
    GSVD_OPT_IN_MAF(struct pca_opts),
    GSVD_OPT_IN_MAX_MISSING(struct pca_opts),
    GSVD_OPT_IN_HWE(struct pca_opts),
    GSVD_OPT_IN_CHR(struct pca_opts),
    GSVD_OPT_IN_VAR_LISTS(struct pca_opts),
    GSVD_OPT_IN_VAR_FILTER(struct pca_opts),
    GSVD_OPT_IN_VAR_FILTER_EXCEPT(struct pca_opts),
    GSVD_OPT_IN_VARIANT_MASK(struct pca_opts),
    GSVD_OPT_IN_SAMPLE_MASK(struct pca_opts),
    {.name = "ld-prune",
     .lib = "ld-prune",
     .type = GSVD_OPT_CALL,
     PCA(ld_prune),
     .arg = "R2,WINDOW[,STEP]",
     .parse = parse_ld_prune,
     .help = "first prune variants in LD as gensvd ldprune\n--r2 R2 --window WINDOW --step STEP "
             "[STEP: 1]"},
};
static const struct gsvd_opt resource_options[] = {
    GSVD_OPT_DEVICE(struct pca_opts),
    {.name = "memory",
     .lib = "memory",
     .type = GSVD_OPT_BYTES,
     PCA(memory),
     .arg = "SIZE",
     .lo = 1,
     .range = "a size such as 2G",
     .help = "cap the whole run (basis, pass buffers, decode pipeline,\nin-memory cache; the "
             "cache beyond it is spilled), e.g. 2G;\n-v prints the plan"},
    {.name = "cache",
     .type = GSVD_OPT_BYTES,
     PCA(cache),
     .arg = "SIZE",
     .range = "a size such as 4G, or 0",
     .help = "keep the genotypes in memory (2 bits per call) after the\nfirst pass, up to SIZE; "
             "what does not fit goes to a\nfile in --cache-dir; 0 re-reads the store on every\n"
             "pass [a quarter of physical memory]"},
    {.name = "cache-dir",
     .type = GSVD_OPT_STRING,
     PCA(cache_dir),
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
    .n_groups = GSVD_CLI_LEN(pca_groups),
    .opts_size = sizeof(struct pca_opts),
    .footer = "Exit status: 0 success, 1 failure, 2 usage error, 3 device or feature "
              "unavailable.\n",
};

/* An array of the result (or held beside it) by name: its data and first dimension, or NULL. */
static const void *array_of(const gensvd_result *res, const char *name, uint64_t *n)
{
    struct gensvd_array_view v;
    if (gensvd_result_array(res, name, &v) != GENSVD_OK)
        return NULL;
    if (n)
        *n = v.shape[0];
    return v.data;
}

/* The summary (cli/pca_summary.c) of the run in res, with the command's settings o. */
static void report(const gensvd_result *res, const struct pca_opts *o)
{
    const char *method = gensvd_result_attr_string(res, "method");
    const char *stop = gensvd_result_attr_string(res, "stop");
    uint64_t n_counts = 0;
    const uint64_t *c = array_of(res, "variant_counts", &n_counts);
    const int64_t *converged = array_of(res, "converged", NULL);
    const double *gram_error = array_of(res, "gram_error", NULL);
    uint64_t k = 0, n = 0, n_start = 0;
    struct gsvd_cli_pca_summary s = {
        .s = array_of(res, "sample_pca_singular_value", &k),
        .error_bound = array_of(res, "singular_value_error_bound", NULL),
        .error_estimate = array_of(res, "singular_value_error_estimate", NULL),
        .method = method ? method : "",
        .exact = method && strcmp(method, "exact") == 0,
        .subspace_stop = stop && strcmp(stop, "subspace") == 0,
        .iterations = (size_t)gsvd_cli_attr(res, "iterations"),
        .convergence = gsvd_cli_attr(res, "convergence"),
        .trace = gsvd_cli_attr(res, "trace"),
        .bulk = o->accuracy == ACCURACY_BULK,
        .accuracy = o->accuracy == ACCURACY_BULK ? "bulk" : "fast",
        .tol = o->tol,
        .max_iter = o->power_iter ? o->power_iter : o->max_iter,
        .tw_stat = array_of(res, "sample_pca_tw_statistic", NULL),
        .tw_pvalue = array_of(res, "sample_pca_tw_pvalue", NULL),
        .tw_neff = array_of(res, "sample_pca_tw_effective_n", NULL),
        .tw_m = (size_t)gsvd_cli_attr(res, "tw_eigenvalues"),
        .round = array_of(res, "outlier_round", &n_start)};

    if (!array_of(res, "fit_sample_id", &n) || !s.s || !s.error_bound || !s.error_estimate || !c ||
        !converged || !gram_error)
        return; /* not a pca result */
    s.n = (size_t)n;
    s.k = (size_t)k;
    s.m_kept = c[0];
    s.m_range = c[1];
    s.m_no_calls = c[2];
    s.m_zero_var = c[3];
    s.m_maf = c[4];
    s.m_missing = c[5];
    s.m_mask = c[6];
    s.missing_calls = c[7];
    s.m_hwe = n_counts > 8 ? c[8] : 0;
    s.hwe = o->geno.hwe > 0;
    s.converged = (int)*converged;
    s.gram_error = *gram_error;
    if (s.round) {
        s.n_start = (size_t)n_start;
        s.n_removed = (size_t)gsvd_cli_attr(res, "N_outliers");
        s.n_rounds = (size_t)gsvd_cli_attr(res, "outlier_rounds");
    }
    gsvd_cli_pca_report(&s);
}

/* The scores on stdout: every sample's with --fit-samples or --outlier-project (each row has
 * scores), else those of the samples the PCs are of (U S, without removed outliers). */
static int write_tsv(const gensvd_result *res)
{
    struct gensvd_array_view ids, v, s;
    int rc;

    if (gensvd_result_array(res, "sample_pca_fitted", &v) == GENSVD_OK) {
        rc = gensvd_result_array(res, "sample_id", &ids);
        if (rc == GENSVD_OK)
            rc = gensvd_result_array(res, "sample_pca_projection", &v);
        if (rc != GENSVD_OK)
            return rc;
        return gsvd_cli_pca_tsv(ids.shape[0], v.shape[1], (const char *const *)ids.data, v.data,
                                NULL, NULL);
    }
    rc = gensvd_result_array(res, "fit_sample_id", &ids);
    if (rc == GENSVD_OK)
        rc = gensvd_result_array(res, "fit_sample_vector", &v);
    if (rc == GENSVD_OK)
        rc = gensvd_result_array(res, "sample_pca_singular_value", &s);
    if (rc != GENSVD_OK)
        return rc;
    return gsvd_cli_pca_tsv(ids.shape[0], v.shape[1], (const char *const *)ids.data, NULL, v.data,
                            s.data);
}

/* --plink: the samples the PCs are of, in their order (the --fit-samples file's). */
static int write_plink(const gensvd_result *res, const char *prefix)
{
    struct gensvd_array_view ids, u, s;
    int rc = gensvd_result_array(res, "fit_sample_id", &ids);

    if (rc == GENSVD_OK)
        rc = gensvd_result_array(res, "fit_sample_vector", &u);
    if (rc == GENSVD_OK)
        rc = gensvd_result_array(res, "sample_pca_singular_value", &s);
    if (rc != GENSVD_OK)
        return rc;
    return gsvd_cli_pca_plink(prefix, ids.shape[0], u.shape[1], (const char *const *)ids.data,
                              u.data, NULL, s.data, (uint64_t)gsvd_cli_attr(res, "M_used"));
}

/* With --plink and --loadings the allele weights plink2 --score reads, for the scalers whose
 * standardisation its variance-standardize repeats (scale aside). */
static int plink_alleles(const struct pca_opts *o)
{
    return o->plink && o->want_loadings &&
           (o->scaler == SCALER_PATTERSON || o->scaler == SCALER_HWE);
}

/* The loadings and the variants' identity for a weights file (`file`, named in the warning):
 * *have 0 (warned) when the input has no variant identity. */
static int loadings_of(const gensvd_result *res, const char *file, struct gensvd_array_view *v,
                       struct gsvd_cli_pca_variants *var, int *have)
{
    struct gensvd_array_view inc, contig, pos, alleles, name;
    char msg[512];
    int rc = gensvd_result_array(res, "sample_pca_component", v), named;

    *have = 0;
    if (rc == GENSVD_OK)
        rc = gensvd_result_array(res, "variant_pca_included", &inc);
    if (rc == GENSVD_OK && gensvd_result_array(res, "variant_pca_contig", &contig) != GENSVD_OK) {
        snprintf(msg, sizeof msg,
                 "no %.200s: the input has no variant identity (VCF-Zarr's variant_contig, "
                 "contig_id, variant_position and variant_allele)",
                 file);
        gsvd_cli_msg_log(GENSVD_LOG_WARN, msg);
        return GENSVD_OK;
    }
    if (rc == GENSVD_OK)
        rc = gensvd_result_array(res, "variant_pca_position", &pos);
    if (rc == GENSVD_OK)
        rc = gensvd_result_array(res, "variant_pca_alleles", &alleles);
    if (rc != GENSVD_OK)
        return rc;
    named = gensvd_result_array(res, "variant_pca_id", &name) == GENSVD_OK;
    *var = (struct gsvd_cli_pca_variants){.m = (size_t)v->shape[0],
                                          .contig = contig.data,
                                          .alleles = alleles.data,
                                          .name = named ? name.data : NULL,
                                          .pos = pos.data,
                                          .included = inc.data};
    *have = 1;
    return GENSVD_OK;
}

static int write_allele_wts(const gensvd_result *res, const char *prefix)
{
    struct gensvd_array_view v;
    struct gsvd_cli_pca_variants var;
    size_t n_multi = 0;
    char msg[512];
    int have, rc;

    snprintf(msg, sizeof msg, "%.200s.eigenvec.allele", prefix);
    rc = loadings_of(res, msg, &v, &var, &have);
    if (rc != GENSVD_OK || !have)
        return rc;
    rc = gsvd_cli_pca_allele_wts(prefix, &var, (size_t)v.shape[1], v.data,
                                 (uint64_t)gsvd_cli_attr(res, "M_used"), &n_multi);
    if (rc == GENSVD_OK && n_multi) {
        snprintf(msg, sizeof msg,
                 "%.200s.eigenvec.allele: %zu variants with more than two alleles have no rows",
                 prefix, n_multi);
        gsvd_cli_msg_log(GENSVD_LOG_WARN, msg);
    }
    return rc;
}

/* --eigensoft with --loadings: smartpca's SNP weights, scaled over the SNPs it counts (those
 * used and the monomorphic ones, which it keeps in its list but writes no row for). */
static int write_snpwt(const gensvd_result *res, const char *prefix, int *written)
{
    struct gensvd_array_view v, counts;
    struct gsvd_cli_pca_variants var;
    const uint64_t *c;
    char file[512];
    int have, rc;

    snprintf(file, sizeof file, "%.200s.snpwt", prefix);
    *written = 0;
    rc = loadings_of(res, file, &v, &var, &have);
    if (rc == GENSVD_OK && have)
        rc = gensvd_result_array(res, "variant_counts", &counts);
    if (rc != GENSVD_OK || !have)
        return rc;
    c = counts.data; /* used, range, no calls, zero variance, ... */
    *written = 1;
    return gsvd_cli_pca_snpwt(prefix, &var, (size_t)v.shape[1], v.data, c[0] + c[3]);
}

/* --eigensoft: smartpca's rows (the library's "smartpca-rows") of the samples the PCs are of
 * and, with --fit-samples, of the others, labelled from ind (or NULL). */
static int write_eigensoft(const gensvd_result *res, const char *prefix,
                           const struct gsvd_cli_ind *ind)
{
    struct gensvd_array_view ids, u, fit, ratio;
    int rc = gensvd_result_array(res, "smartpca_sample_id", &ids);

    if (rc == GENSVD_OK)
        rc = gensvd_result_array(res, "smartpca_row", &u);
    if (rc == GENSVD_OK)
        rc = gensvd_result_array(res, "fit_sample_id", &fit);
    if (rc == GENSVD_OK)
        rc = gensvd_result_array(res, "sample_pca_explained_variance_ratio", &ratio);
    if (rc != GENSVD_OK)
        return rc;
    return gsvd_cli_pca_eigensoft(prefix, ids.shape[0], fit.shape[0], u.shape[1],
                                  (const char *const *)ids.data, u.data, ratio.data, ind);
}

/* --eigensoft's .eval: every eigenvalue, which the exact method computes (the library's
 * "all-eigenvalues"); the iterative methods compute k, and a file of those alone would give
 * twstats wrong statistics: none then, with a warning, and an earlier run's file (there only
 * with --force: checked before the run) removed, so that it is not read beside this .evec.
 * *written: 1 when it was. */
static int write_eval(const gensvd_result *res, const char *prefix, int *written)
{
    struct gensvd_array_view w;
    char msg[512], path[8192];

    *written = 0;
    if (gensvd_result_array(res, "gram_eigenvalue", &w) != GENSVD_OK) {
        const char *m = gensvd_result_attr_string(res, "method");
        snprintf(path, sizeof path, "%s.eval", prefix);
        snprintf(msg, sizeof msg,
                 "no %.200s.eval: smartpca's lists every eigenvalue, and the %s method computes "
                 "the top k only (--method exact computes every one)%s",
                 prefix, m ? m : "iterative",
                 remove(path) == 0 ? "; the file an earlier run left there is removed" : "");
        gsvd_cli_msg_log(GENSVD_LOG_WARN, msg);
        return GENSVD_OK;
    }
    *written = 1;
    return gsvd_cli_pca_eval(prefix, w.shape[0], w.data);
}

/* --outlier-out: the starting set's removed samples, in its order, round by round. */
static int write_outliers(const gensvd_result *res, const char *path)
{
    struct gensvd_array_view ids, round, pc, sigma;
    int rc = gensvd_result_array(res, "outlier_sample_id", &ids);

    if (rc == GENSVD_OK)
        rc = gensvd_result_array(res, "outlier_round", &round);
    if (rc == GENSVD_OK)
        rc = gensvd_result_array(res, "outlier_pc", &pc);
    if (rc == GENSVD_OK)
        rc = gensvd_result_array(res, "outlier_sigma", &sigma);
    if (rc != GENSVD_OK)
        return rc;
    return gsvd_cli_pca_outlier_file(path, ids.shape[0], (const char *const *)ids.data, round.data,
                                     pc.data, sigma.data,
                                     (size_t)gsvd_cli_attr(res, "outlier_rounds"));
}

/* What the option table does not forward: the stop rule (bulk sets its own), --cache when
 * given, --cache-dir, and smartpca's rows for --eigensoft. */
static int set_rest(gensvd_ctx *ctx, gensvd_options *opt, const struct pca_opts *o)
{
    char text[32];
    int rc = GENSVD_OK;

    if (o->accuracy != ACCURACY_BULK)
        rc = gensvd_options_set_string(opt, "stop", stop_names[o->stop]);
    if (rc == GENSVD_OK && o->cache != UINT64_MAX) {
        snprintf(text, sizeof text, "%llu", (unsigned long long)o->cache);
        rc = gensvd_options_set_string(opt, "cache", text);
    }
    if (rc == GENSVD_OK && o->cache_dir)
        rc = gensvd_ctx_set_string(ctx, "cache-dir", o->cache_dir);
    if (rc == GENSVD_OK && o->eigensoft)
        rc = gensvd_options_set_string(opt, "smartpca-rows", "1");
    if (rc == GENSVD_OK && o->eigensoft)
        rc = gensvd_options_set_string(opt, "all-eigenvalues", "1");
    return rc;
}

/* After the run (-o written by it): the summary, then --plink, --eigensoft, --outlier-out and
 * the TSV, and the closing line. */
static int outputs(const gensvd_result *res, const struct pca_opts *o,
                   const struct gsvd_cli_ind *ind, int tsv)
{
    int rc = GENSVD_OK, eval = 0, snpwt = 0;

    report(res, o);
    if (o->plink)
        rc = write_plink(res, o->plink);
    if (rc == GENSVD_OK && plink_alleles(o))
        rc = write_allele_wts(res, o->plink);
    else if (rc == GENSVD_OK && o->plink && o->want_loadings)
        gsvd_cli_msg_log(GENSVD_LOG_WARN, "no allele weights (.eigenvec.allele): plink2's "
                                          "variance-standardize repeats --scaler hwe or "
                                          "patterson only");
    if (rc == GENSVD_OK && o->eigensoft)
        rc = write_eigensoft(res, o->eigensoft, ind);
    if (rc == GENSVD_OK && o->eigensoft)
        rc = write_eval(res, o->eigensoft, &eval);
    if (rc == GENSVD_OK && o->eigensoft && o->want_loadings)
        rc = write_snpwt(res, o->eigensoft, &snpwt);
    if (rc == GENSVD_OK && o->outlier_out)
        rc = write_outliers(res, o->outlier_out);
    if (rc == GENSVD_OK && tsv)
        rc = write_tsv(res);
    if (rc == GENSVD_OK)
        gsvd_cli_pca_done(o->output, o->plink, plink_alleles(o), o->eigensoft,
                          (eval ? GSVD_CLI_EIGENSOFT_EVAL : 0) |
                              (snpwt ? GSVD_CLI_EIGENSOFT_SNPWT : 0),
                          o->outlier_out, tsv);
    return rc;
}

/* The run with -o as its destination (a --shard that does not fit fails before it), then the
 * outputs. */
static int run(const struct pca_opts *o, const char *input, int tsv, const char *command)
{
    /* longer names than these fail to open anyway (PATH_MAX) */
    char vec[8192], val[8192], allele[8192], evec[8192], eval[8192], snpwt[8192];
    const char *files[8] = {NULL};
    struct gsvd_cli_ind ind = {0};
    size_t nf = 0;
    struct gsvd_cli_run r = {.cmd = "pca",
                             .analysis = GENSVD_PCA,
                             .spec = &gsvd_cmd_pca_spec,
                             .target = o,
                             .command = command,
                             .common = &o->common,
                             .device = o->device,
                             .unit = "variants",
                             .output = o->output,
                             .force = o->force,
                             .zout = &o->zout,
                             .input = input,
                             .geno = &o->geno,
                             .samples_file = o->samples_file,
                             .variant_mask = o->variant_mask,
                             .sample_mask = o->sample_mask,
                             .files = files};
    int rc;

    if (o->plink) { /* --plink's two files, then --outlier-out, after -o */
        snprintf(vec, sizeof vec, "%s.eigenvec", o->plink);
        snprintf(val, sizeof val, "%s.eigenval", o->plink);
        files[nf++] = vec;
        files[nf++] = val;
    }
    if (plink_alleles(o)) {
        snprintf(allele, sizeof allele, "%s.eigenvec.allele", o->plink);
        files[nf++] = allele;
    }
    if (o->eigensoft) {
        snprintf(evec, sizeof evec, "%s.evec", o->eigensoft);
        snprintf(eval, sizeof eval, "%s.eval", o->eigensoft);
        files[nf++] = evec;
        files[nf++] = eval; /* checked whatever the method: it is known after the run */
        if (o->want_loadings) {
            snprintf(snpwt, sizeof snpwt, "%s.snpwt", o->eigensoft);
            files[nf++] = snpwt;
        }
    }
    if (o->outlier_out)
        files[nf++] = o->outlier_out;
    if (o->eigensoft_ind) { /* read before any work, its errors first */
        rc = gsvd_cli_ind_read(o->eigensoft_ind, &ind);
        if (rc != GENSVD_OK) {
            gsvd_cli_ind_free(&ind);
            return rc;
        }
    }
    rc = gsvd_cli_run_open(&r);
    if (rc == GENSVD_OK)
        rc = set_rest(r.ctx, r.opt, o);
    if (rc == GENSVD_OK)
        rc = gensvd_run(r.ctx, r.opt, r.src, r.dest, &r.res);
    /* every process of a distributed run holds the result; the first speaks and writes */
    if (rc == GENSVD_OK && gensvd_mpi_rank() == 0)
        rc = outputs(r.res, o, o->eigensoft_ind ? &ind : NULL, tsv);
    gsvd_cli_run_close(&r);
    gsvd_cli_ind_free(&ind);
    return rc;
}

int gsvd_cmd_pca(int argc, char **argv)
{
    struct pca_opts o = {.device = "auto",
                         .n_components = 10,
                         .method = PCA_AUTO,
                         .oversampling = 10,
                         .stop = -1,
                         .outlier_mode = -1,
                         .tol = 1e-4,
                         .window = 8,
                         .seed = 42,
                         .cache = UINT64_MAX, /* not given (--cache cannot reach it) */
                         .geno = GSVD_CLI_GENO_DEFAULT,
                         .common = GSVD_CLI_COMMON_DEFAULT};
    char *command;
    int first, rc;

    rc = gsvd_opts_parse(&gsvd_cmd_pca_spec, argc, argv, &o, &first);
    if (rc != 0)
        return rc == GSVD_OPTS_HELP ? GSVD_EXIT_OK : rc;
    /* --power-iter fixes the pass count; --max-iter caps the stop rule's passes: a cap given
       with a fixed count would be ignored (or cut it short), so the pair is refused */
    if (o.power_iter && o.max_iter)
        return gsvd_cli_usage_error("pca", "--power-iter (exactly this many passes) and "
                                           "--max-iter (a cap for the stop rule) cannot be "
                                           "combined");
    if (o.accuracy == ACCURACY_BULK) {
        /* bulk is the estimate stop with room to reach it; another rule would not keep its
         * promise */
        if (o.stop >= 0 || o.power_iter)
            return gsvd_cli_usage_error("pca",
                                        "--accuracy bulk sets the stop rule itself: it "
                                        "cannot be combined with %s",
                                        o.power_iter ? "--power-iter" : "--stop");
        o.stop = STOP_ESTIMATE;
        if (!o.max_iter)
            o.max_iter = 60;
    }
    if (o.stop < 0)
        o.stop = STOP_BOUND;
    if (!o.max_iter && !o.power_iter) /* the stop rule's cap (the library's default too) */
        o.max_iter = 8;
    if (first != argc - 1)
        return gsvd_cli_usage_error("pca", first >= argc ? "missing INPUT" : "too many arguments");
    if (!o.outlier_iter && (o.outlier_pcs || o.outlier_sigma > 0 || o.outlier_mode >= 0 ||
                            o.outlier_project || o.outlier_out))
        return gsvd_cli_usage_error("pca", "--outlier-pcs, --outlier-sigma, --outlier-mode, "
                                           "--outlier-project and --outlier-out need "
                                           "--outlier-iter N (N > 0)");
    if (!o.outlier_pcs) /* smartpca's defaults */
        o.outlier_pcs = 10;
    if (o.outlier_mode < 0)
        o.outlier_mode = 0;
    if (!(o.outlier_sigma > 0))
        o.outlier_sigma = 6.0;
    if (o.samples_file && o.sample_mask)
        return gsvd_cli_usage_error("pca", "--samples and --sample-mask cannot be combined");
    if (o.want_loadings && !o.output && !o.plink && !o.eigensoft)
        return gsvd_cli_usage_error("pca", "--loadings needs somewhere to write them: -o (the "
                                           "Zarr output), or the weights files of --plink or "
                                           "--eigensoft");
    if (gsvd_cli_zarr_out_check("pca", &o.zout, o.output) != 0)
        return GSVD_EXIT_USAGE;
    if (o.gram_f64 && o.gram_kernel != GRAM_AUTO)
        return gsvd_cli_usage_error("pca", "--gram-f64 and --gram-kernel cannot be combined");
    if (o.tw && o.method != PCA_AUTO && o.method != PCA_EXACT)
        return gsvd_cli_usage_error("pca",
                                    "--tw needs every eigenvalue (the sum of their squares), which "
                                    "only --method exact gives; --method %s cannot",
                                    method_names[o.method]);
    if (o.eigensoft_ind && !o.eigensoft)
        return gsvd_cli_usage_error("pca", "--eigensoft-ind needs --eigensoft PREFIX");
    if (o.tw_effective_n > 0 && !o.tw)
        return gsvd_cli_usage_error("pca", "--tw-effective-n needs --tw");
    if (o.tw && (o.gram_kernel == GRAM_AMX || o.gram_kernel == GRAM_I8))
        return gsvd_cli_usage_error("pca",
                                    "--tw needs a Gram of exact products; --gram-kernel %s rounds "
                                    "them",
                                    gram_kernel_names[o.gram_kernel]);
    gsvd_cli_common_apply(&o.common);
    command = gsvd_cli_command_line(argc, argv);
    rc = run(&o, argv[first], o.format != NULL || (!o.output && !o.plink && !o.eigensoft), command);
    gsvd_cli_free(command);
    return gsvd_cli_exit_code(rc);
}
