/* lib/options_table.c - the options of each analysis as data (name, kind, field, range or
 * choices), with the command line's names, defaults and accepted values, the parsers of the
 * options that have a syntax of their own, and the options objects' life (options.c sets
 * and reads the values). */
#include "gsvd_config.h"
#include "lib/lib_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "analysis/pdist/pdist.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/parse.h"

#define FIELD(type, f) .offset = offsetof(type, f), .size = sizeof(((type *)0)->f)

/* ---- value parsers of the options with their own syntax ----------------------------------- */

/* "INT" (variants, >= 2), "INTkb" or "INTbp" into window and window_bp (adjacent uint64_t of
 * struct gsvd_ldprune_params). */
static int parse_window(const char *s, void *field)
{
    uint64_t w[2] = {0, 0};
    int rc = *s ? gsvd_ldprune_parse_window(s, &w[0], &w[1]) : GSVD_OK; /* "": not given */
    if (rc == GSVD_OK)
        memcpy(field, w, sizeof w);
    return rc;
}

static void format_window(const void *field, char *buf, size_t len)
{
    uint64_t w[2];
    memcpy(w, field, sizeof w);
    if (w[1] && w[1] % 1000 == 0)
        snprintf(buf, len, "%" PRIu64 "kb", w[1] / 1000);
    else if (w[1])
        snprintf(buf, len, "%" PRIu64 "bp", w[1]);
    else if (w[0])
        snprintf(buf, len, "%" PRIu64, w[0]);
    else
        snprintf(buf, len, "%s", "");
}

/* "R2,WINDOW[,STEP]" into a struct gsvd_ldprune_params followed by an int (given). */
static int parse_ld_prune(const char *s, void *field)
{
    struct lib_pca_opts *o = (void *)((char *)field - offsetof(struct lib_pca_opts, lp));
    struct gsvd_ldprune_params lp = GSVD_LDPRUNE_PARAMS_DEFAULT;
    if (!*s) { /* "": no pruning */
        o->ld_prune = 0;
        return GSVD_OK;
    }
    if (gsvd_ldprune_parse_spec(s, &lp) < 0)
        return GSVD_EINVAL;
    o->lp = lp;
    o->ld_prune = 1;
    return GSVD_OK;
}

static void format_ld_prune(const void *field, char *buf, size_t len)
{
    const struct lib_pca_opts *o =
        (const void *)((const char *)field - offsetof(struct lib_pca_opts, lp));
    char w[48];
    if (!o->ld_prune) {
        snprintf(buf, len, "%s", "");
        return;
    }
    format_window(&o->lp.window, w, sizeof w);
    snprintf(buf, len, "%.17g,%s,%" PRIu64, o->lp.r2, w, o->lp.step);
}

static int parse_metric(const char *s, void *field)
{
    enum gsvd_pdist_metric m;
    if (gsvd_pdist_metric_parse(s, &m) < 0)
        return GSVD_EINVAL;
    memcpy(field, &m, sizeof m);
    return GSVD_OK;
}

static void format_metric(const void *field, char *buf, size_t len)
{
    enum gsvd_pdist_metric m;
    memcpy(&m, field, sizeof m);
    snprintf(buf, len, "%s", gsvd_pdist_metric_name(m));
}

static int parse_dtype(const char *s, void *field)
{
    static const char *const names[] = {"f8", "f4", "float64", "float32", NULL};
    int k = gsvd_parse_choice(s, names);
    if (k < 0)
        return GSVD_EINVAL;
    k %= 2;
    memcpy(field, &k, sizeof k);
    return GSVD_OK;
}

static void format_dtype(const void *field, char *buf, size_t len)
{
    int k;
    memcpy(&k, field, sizeof k);
    snprintf(buf, len, "%s", k ? "f4" : "f8");
}

/* "I/N" into part and n_parts (adjacent size_t); "" clears it. */
static int parse_part(const char *s, void *field)
{
    size_t v[2] = {0, 0};
    int end = 0;
    if (*s && (sscanf(s, "%zu/%zu%n", &v[0], &v[1], &end) != 2 || s[end] != '\0' || v[0] < 1 ||
               v[1] < 1 || v[0] > v[1] || v[1] > 100000))
        return GSVD_EINVAL;
    memcpy(field, v, sizeof v);
    return GSVD_OK;
}

static void format_part(const void *field, char *buf, size_t len)
{
    size_t v[2];
    memcpy(v, field, sizeof v);
    if (v[1])
        snprintf(buf, len, "%zu/%zu", v[0], v[1]);
    else
        snprintf(buf, len, "%s", "");
}

/* A size, or "auto" (UINT64_MAX). */
static int parse_size_auto(const char *s, void *field)
{
    uint64_t v = UINT64_MAX;
    if (strcmp(s, "auto") != 0 && gsvd_parse_size(s, &v) < 0)
        return GSVD_EINVAL;
    memcpy(field, &v, sizeof v);
    return GSVD_OK;
}

static void format_size_auto(const void *field, char *buf, size_t len)
{
    uint64_t v;
    memcpy(&v, field, sizeof v);
    if (v == UINT64_MAX)
        snprintf(buf, len, "auto");
    else
        snprintf(buf, len, "%" PRIu64, v);
}

/* A kinship in [-1, 0.5], or "" (NaN: not given). */
static int parse_kinship(const char *s, void *field)
{
    double d = NAN;
    if (*s && gsvd_parse_double(s, -1, 0.5, &d) < 0)
        return GSVD_EINVAL;
    memcpy(field, &d, sizeof d);
    return GSVD_OK;
}

static void format_kinship(const void *field, char *buf, size_t len)
{
    double d;
    memcpy(&d, field, sizeof d);
    if (isnan(d))
        snprintf(buf, len, "%s", "");
    else
        snprintf(buf, len, "%.17g", d);
}

/* "V,S" into two adjacent uint64_t. */
static int parse_chunks(const char *s, void *field)
{
    const char *comma = strchr(s, ',');
    char v[32];
    uint64_t c[2];
    if (!comma || (size_t)(comma - s) >= sizeof v)
        return GSVD_EINVAL;
    memcpy(v, s, (size_t)(comma - s));
    v[comma - s] = '\0';
    if (gsvd_parse_uint(v, 1, (uint64_t)1 << 31, 1, &c[0]) < 0 ||
        gsvd_parse_uint(comma + 1, 1, (uint64_t)1 << 31, 1, &c[1]) < 0)
        return GSVD_EINVAL;
    memcpy(field, c, sizeof c);
    return GSVD_OK;
}

static void format_chunks(const void *field, char *buf, size_t len)
{
    uint64_t c[2];
    memcpy(c, field, sizeof c);
    snprintf(buf, len, "%" PRIu64 ",%" PRIu64, c[0], c[1]);
}

/* ---- the tables ----------------------------------------------------------------------------- */

static const char *const method_names[] = {"randomized", "krylov", "subspace",
                                           "exact",      "auto",   NULL};
static const char *const scaler_names[] = {"patterson", "hwe", "standard", "center", "none", NULL};
static const char *const pca_missing_names[] = {"mean", "error", NULL};
static const char *const stop_names[] = {"bound", "subspace", "estimate", NULL};
static const char *const accuracy_names[] = {"fast", "bulk", NULL};
static const char *const outlier_mode_names[] = {"all", "leave-one-out", NULL};
static const char *const gram_kernel_names[] = {"auto", "f32", "amx", "i8", NULL};
static const char *const pass_kernel_names[] = {"auto", "f32", "i8", NULL};
static const char *const pd_missing_names[] = {"pairwise", "scale", "error", NULL};
static const char *const axis_names[] = {"samples", "variants", NULL};
static const char *const layout_names[] = {"square", "condensed", NULL};
static const char *const kernel_names[] = {"auto", "bitplane", "gram", "generic", NULL};
static const char *const shrink_names[] = {"none", "ap", "oadp", NULL};
static const char *const proj_missing_names[] = {"mean", "lsq", NULL}; /* enum order */

#define PCA(f) FIELD(struct lib_pca_opts, f)
static const struct lib_opt pca_table[] = {
    {.name = "components", .kind = LO_UINT, PCA(pca.n_components), .lo = 1, .hi = 100000},
    {.name = "method", .kind = LO_CHOICE, PCA(pca.method), .choices = method_names},
    {.name = "scaler", .kind = LO_CHOICE, PCA(scaler), .choices = scaler_names},
    {.name = "missing", .kind = LO_CHOICE, PCA(missing_error), .choices = pca_missing_names},
    {.name = "oversampling", .kind = LO_UINT, PCA(pca.oversampling), .lo = 0, .hi = 10000},
    {.name = "accuracy", .kind = LO_CHOICE, PCA(pca.accuracy), .choices = accuracy_names},
    {.name = "stop", .kind = LO_CHOICE, PCA(pca.stop), .choices = stop_names},
    {.name = "tol", .kind = LO_DOUBLE, PCA(pca.tol), .dlo = 0, .dhi = 1},
    {.name = "max-iter",
     .kind = LO_UINT,
     PCA(pca.max_iter),
     .lo = 0,
     .hi = 100000,
     .range = "1 to 100000, or 0: 8 (60 with accuracy bulk)"},
    {.name = "power-iter",
     .kind = LO_UINT,
     PCA(pca.power_iter),
     .lo = 0,
     .hi = 100000,
     .range = "1 to 100000, or 0: by --tol"},
    {.name = "window", .kind = LO_UINT, PCA(pca.window), .lo = 2, .hi = 10000},
    {.name = "seed", .kind = LO_UINT, PCA(pca.seed), .lo = 0, .hi = UINT64_MAX},
    {.name = "loadings", .kind = LO_FLAG, PCA(pca.loadings)},
    {.name = "gram-f64", .kind = LO_FLAG, PCA(gram_f64)},
    {.name = "gram-kernel", .kind = LO_CHOICE, PCA(gram_kernel), .choices = gram_kernel_names},
    {.name = "pass-kernel", .kind = LO_CHOICE, PCA(pass_kernel), .choices = pass_kernel_names},
    {.name = "fit-samples",
     .kind = LO_STRING,
     PCA(fit_file),
     .range = "a file of sample IDs (or gensvd_options_set_strings)"},
    {.name = "ld-prune",
     .kind = LO_CALL,
     PCA(lp),
     .parse = parse_ld_prune,
     .format = format_ld_prune,
     .range = "R2,WINDOW[,STEP], e.g. 0.2,500kb or 0.1,1000,100"},
    {.name = "memory",
     .kind = LO_BYTES,
     PCA(memory),
     .lo = 0,
     .hi = UINT64_MAX,
     .range = "a size such as 2G (0: no cap)"},
    {.name = "cache",
     .kind = LO_CALL,
     PCA(cache),
     .parse = parse_size_auto,
     .format = format_size_auto,
     .range = "a size such as 4G, 0, or auto"},
    {.name = "tw", .kind = LO_FLAG, PCA(pca.tw)},
    {.name = "tw-effective-n",
     .kind = LO_DOUBLE,
     PCA(pca.tw_effective_n),
     .dlo = 0,
     .dhi = 1e15,
     .range = "a number >= 0 (0: estimated)"},
    {.name = "outlier-iter",
     .kind = LO_UINT,
     PCA(pca.outlier_iter),
     .lo = 0,
     .hi = 1000,
     .range = "0 to 1000 (0: off)"},
    {.name = "outlier-pcs", .kind = LO_UINT, PCA(pca.outlier_pcs), .lo = 1, .hi = 100000},
    {.name = "outlier-sigma",
     .kind = LO_DOUBLE,
     PCA(pca.outlier_sigma),
     .dlo = 1e-9,
     .dhi = 1e9,
     .range = "a number > 0"},
    {.name = "outlier-mode",
     .kind = LO_CHOICE,
     PCA(pca.outlier_loo),
     .choices = outlier_mode_names},
    {.name = "outlier-project", .kind = LO_FLAG, PCA(outlier_project)},
    {.name = "smartpca-rows", .kind = LO_FLAG, PCA(smartpca_rows)},
    {.name = "all-eigenvalues", .kind = LO_FLAG, PCA(pca.all_eigvals)},
};

#define PD(f) FIELD(struct lib_pdist_opts, f)
static const struct lib_opt pdist_table[] = {
    {.name = "metric",
     .kind = LO_CALL,
     PD(pd.metric),
     .parse = parse_metric,
     .format = format_metric,
     .range = "euclidean, sqeuclidean, cityblock, minkowski, chebyshev, "
              "cosine, correlation, hamming, jaccard, braycurtis, "
              "canberra, ibs, king, ibs0 or p-distance"},
    {.name = "min-kinship",
     .kind = LO_CALL,
     PD(min_kinship),
     .parse = parse_kinship,
     .format = format_kinship,
     .range = "a kinship in [-1, 0.5], or \"\": every pair"},
    {.name = "p", .kind = LO_DOUBLE, PD(pd.p), .dlo = 1e-300, .dhi = 1e300, .range = "> 0"},
    {.name = "missing", .kind = LO_CHOICE, PD(pd.missing), .choices = pd_missing_names},
    {.name = "axis", .kind = LO_CHOICE, PD(axis_variants), .choices = axis_names},
    {.name = "counts", .kind = LO_FLAG, PD(counts)},
    {.name = "haplotypes", .kind = LO_FLAG, PD(haplotypes)},
    {.name = "ignore-phase", .kind = LO_FLAG, PD(ignore_phase)},
    {.name = "layout", .kind = LO_CHOICE, PD(condensed), .choices = layout_names},
    {.name = "dtype",
     .kind = LO_CALL,
     PD(f4),
     .parse = parse_dtype,
     .format = format_dtype,
     .range = "f8 or f4"},
    {.name = "memory",
     .kind = LO_BYTES,
     PD(pd.memory),
     .lo = 0,
     .hi = UINT64_MAX,
     .range = "a size such as 2G (0: no cap)"},
    {.name = "kernel", .kind = LO_CHOICE, PD(pd.kernel), .choices = kernel_names},
    {.name = "part",
     .kind = LO_CALL,
     PD(pd.part),
     .parse = parse_part,
     .format = format_part,
     .range = "I/N, 1 <= I <= N <= 100000"},
    {.name = "finalize",
     .kind = LO_STRING,
     PD(finalize),
     .range = "the output whose parts to gather"},
};

#define LD(f) FIELD(struct lib_ldprune_opts, f)
static const struct lib_opt ldprune_table[] = {
    {.name = "window",
     .kind = LO_CALL,
     LD(lp.window),
     .parse = parse_window,
     .format = format_window,
     .range = "INT >= 2 variants, or INTkb, INTbp"},
    {.name = "step", .kind = LO_UINT, LD(lp.step), .lo = 1, .hi = (uint64_t)1 << 40},
    {.name = "r2",
     .kind = LO_DOUBLE,
     LD(lp.r2),
     .dlo = 0,
     .dhi = 0.99999999999999989,
     .range = "0 <= X < 1"},
};

#define REL(f) FIELD(struct lib_related_opts, f)
static const struct lib_opt related_table[] = {
    {.name = "king-cutoff",
     .kind = LO_DOUBLE,
     REL(cutoff),
     .dlo = -1,
     .dhi = 0.49999999999999994,
     .range = "-1 <= X < 0.5"},
    {.name = "memory",
     .kind = LO_BYTES,
     REL(memory),
     .lo = 1,
     .hi = UINT64_MAX,
     .range = "a size such as 2G"},
};

#define PRJ(f) FIELD(struct lib_project_opts, f)
static const struct lib_opt project_table[] = {
    {.name = "pcs", .kind = LO_STRING, PRJ(pcs), .range = "a pca output with loadings"},
    {.name = "components",
     .kind = LO_UINT,
     PRJ(k),
     .lo = 0,
     .hi = 100000,
     .range = "1 to 100000 (0: all)"},
    {.name = "shrinkage-correction",
     .kind = LO_CHOICE,
     PRJ(proj.shrinkage),
     .choices = shrink_names},
    {.name = "missing", .kind = LO_CHOICE, PRJ(proj.missing), .choices = proj_missing_names},
};

#define SIM(f) FIELD(struct gsvd_sim_params, f)
static const struct lib_opt sim_table[] = {
    {.name = "variants",
     .kind = LO_UINT,
     SIM(n_variants),
     .lo = 1,
     .hi = (uint64_t)1 << 40,
     .si = 1,
     .range = "1 to 2^40"},
    {.name = "samples", .kind = LO_UINT, SIM(n_samples), .lo = 1, .hi = UINT32_MAX, .si = 1},
    {.name = "populations", .kind = LO_UINT, SIM(n_pops), .lo = 1, .hi = UINT32_MAX},
    {.name = "fst",
     .kind = LO_DOUBLE,
     SIM(fst),
     .dlo = 1e-9,
     .dhi = 1 - 1e-9,
     .range = "0 < F < 1"},
    {.name = "missing",
     .kind = LO_DOUBLE,
     SIM(missing),
     .dlo = 0,
     .dhi = 0.999999,
     .range = "0 <= R < 1"},
    {.name = "seed", .kind = LO_UINT, SIM(seed), .lo = 0, .hi = UINT64_MAX},
    {.name = "ploidy", .kind = LO_UINT, SIM(ploidy), .lo = 1, .hi = 8},
    {.name = "chunks",
     .kind = LO_CALL,
     SIM(chunk_variants),
     .parse = parse_chunks,
     .format = format_chunks,
     .range = "V,S"},
};

static const char *const plot_formats[] = {"auto", "svg", "png", NULL};
static const char *const plot_orders[] = {"auto", "input", "label", "pc1", "cluster", NULL};

#define PLT(f) FIELD(struct lib_plot_opts, f)
static const struct lib_opt plot_table[] = {
    {.name = "format", .kind = LO_CHOICE, PLT(format), .choices = plot_formats},
    {.name = "dpi", .kind = LO_DOUBLE, PLT(dpi), .dlo = 1, .dhi = 2400},
    {.name = "color-by", .kind = LO_STRING, PLT(color_by)},
    {.name = "colour-by", .kind = LO_STRING, PLT(color_by)},
    {.name = "label-column", .kind = LO_STRING, PLT(label_column)},
    {.name = "title", .kind = LO_STRING, PLT(title)},
    {.name = "pcs",
     .kind = LO_STRING,
     PLT(pcs),
     .range = "pca: A,B (two components); pdist: a pca output (for order pc1)"},
    {.name = "grid", .kind = LO_UINT, PLT(grid), .lo = 0, .hi = 64, .range = "2 to 64 (0: off)"},
    {.name = "order", .kind = LO_CHOICE, PLT(order), .choices = plot_orders},
    {.name = "max-cells",
     .kind = LO_UINT,
     PLT(max_cells),
     .lo = 0,
     .hi = 4096,
     .range = "2 to 4096 (0: the default)"},
};

const char *lib_analysis_name(enum gensvd_analysis an)
{
    static const char *const names[] = {"",        "pca",      "project",  "pdist",     "ldprune",
                                        "related", "simulate", "plot pca", "plot pdist"};
    return (size_t)an < sizeof names / sizeof names[0] ? names[an] : "";
}

/* Table and defaults of analysis an into opt. */
static int options_init(gensvd_options *opt, enum gensvd_analysis an)
{
#define TABLE(t) (opt->table = (t), opt->n_table = sizeof(t) / sizeof((t)[0]))
    switch (an) {
    case GENSVD_PCA: {
        struct lib_pca_opts o = {.pca = GSVD_PCA_PARAMS_DEFAULT,
                                 .scaler = GSVD_SCALER_PATTERSON,
                                 .cache = UINT64_MAX,
                                 .lp = GSVD_LDPRUNE_PARAMS_DEFAULT};
        o.pca.max_iter = 0; /* by accuracy (lib_run_pca) */
        opt->u.pca = o;
        TABLE(pca_table);
        break;
    }
    case GENSVD_PDIST: {
        struct lib_pdist_opts o = {.pd = GSVD_PDIST_PARAMS_DEFAULT, .min_kinship = NAN};
        opt->u.pdist = o;
        TABLE(pdist_table);
        break;
    }
    case GENSVD_LDPRUNE: {
        struct lib_ldprune_opts o = {.lp = GSVD_LDPRUNE_PARAMS_DEFAULT};
        opt->u.ldprune = o;
        TABLE(ldprune_table);
        break;
    }
    case GENSVD_RELATED:
        opt->u.related.cutoff = 0.0884;
        opt->u.related.memory = (uint64_t)1 << 30;
        TABLE(related_table);
        break;
    case GENSVD_PROJECT:
        TABLE(project_table);
        break;
    case GENSVD_SIMULATE: {
        struct gsvd_sim_params o = GSVD_SIM_PARAMS_DEFAULT;
        opt->u.sim = o;
        TABLE(sim_table);
        break;
    }
    case GENSVD_PLOT_PCA:
    case GENSVD_PLOT_PDIST:
        opt->u.plot.dpi = 96;
        TABLE(plot_table);
        break;
    default:
        return GSVD_EINVAL;
    }
#undef TABLE
    return GSVD_OK;
}

int gensvd_options_new(gensvd_ctx *ctx, enum gensvd_analysis analysis, gensvd_options **out)
{
    const struct gsvd_scope *prev;
    gensvd_options *opt;
    int rc = GSVD_OK;

    if (!out)
        return GENSVD_EINVAL;
    *out = NULL;
    if (!ctx)
        return GENSVD_EINVAL;
    prev = lib_begin(ctx);
    opt = gsvd_calloc(1, sizeof *opt);
    if (!opt) {
        rc = GSVD_ENOMEM; /* the allocator logged it */
        goto out;
    }
    opt->ctx = ctx;
    opt->analysis = analysis;
    if (options_init(opt, analysis) < 0) {
        rc = lib_fail(GSVD_EINVAL, "unknown analysis %d (GENSVD_PCA to GENSVD_PLOT_PDIST)",
                      (int)analysis);
        gsvd_free(opt);
        goto out;
    }
    *out = opt;
out:
    return lib_end(ctx, prev, rc, "gensvd_options_new");
}

void gensvd_options_free(gensvd_options *opt)
{
    if (!opt)
        return;
    for (size_t i = 0; i < opt->n_table; i++) {
        char **s = (char **)((char *)&opt->u + opt->table[i].offset);
        if (opt->table[i].kind == LO_STRING &&
            (i == 0 || opt->table[i - 1].offset != opt->table[i].offset)) {
            gsvd_free(*s);
            *s = NULL;
        }
    }
    if (opt->analysis == GENSVD_PCA)
        gsvd_strlist_free(&opt->u.pca.fit_ids);
    gsvd_free(opt->command);
    gsvd_free(opt);
}

const struct lib_opt *lib_opt_find(const gensvd_options *opt, const char *name)
{
    for (size_t i = 0; name && i < opt->n_table; i++)
        if (!strcmp(opt->table[i].name, name))
            return &opt->table[i];
    return NULL;
}
