/* lib/options.c - the options of each analysis as data (name, kind, field, range or choices),
 * with the command line's names, defaults and accepted values, and the typed setters of
 * include/gensvd.h over them.  A value is checked when it is set (the message names the option
 * and what it accepts); what depends on several options is checked by the run. */
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
#include "common/log.h"
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
static const char *const gram_kernel_names[] = {"auto", "f32", "amx", "i8", NULL};
static const char *const pass_kernel_names[] = {"auto", "f32", "i8", NULL};
static const char *const pd_missing_names[] = {"pairwise", "scale", "error", NULL};
static const char *const axis_names[] = {"samples", "variants", NULL};
static const char *const layout_names[] = {"square", "condensed", NULL};
static const char *const kernel_names[] = {"auto", "bitplane", "gram", "generic", NULL};
static const char *const shrink_names[] = {"none", "ap", "oadp", NULL};

#define PCA(f) FIELD(struct lib_pca_opts, f)
static const struct lib_opt pca_table[] = {
    {.name = "components", .kind = LO_UINT, PCA(pca.n_components), .lo = 1, .hi = 100000},
    {.name = "method", .kind = LO_CHOICE, PCA(pca.method), .choices = method_names},
    {.name = "scaler", .kind = LO_CHOICE, PCA(scaler), .choices = scaler_names},
    {.name = "missing", .kind = LO_CHOICE, PCA(missing_error), .choices = pca_missing_names},
    {.name = "oversampling", .kind = LO_UINT, PCA(pca.oversampling), .lo = 0, .hi = 10000},
    {.name = "stop", .kind = LO_CHOICE, PCA(pca.stop), .choices = stop_names},
    {.name = "tol", .kind = LO_DOUBLE, PCA(pca.tol), .dlo = 0, .dhi = 1},
    {.name = "max-iter", .kind = LO_UINT, PCA(pca.max_iter), .lo = 1, .hi = 100000},
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
              "canberra, ibs, king or ibs0"},
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

/* The name every analysis takes: the command line recorded in the attributes. */
static const char *const command_name = "command";

static const char *analysis_name(enum gensvd_analysis an)
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
    gensvd_options *opt;

    if (!out)
        return GENSVD_EINVAL;
    *out = NULL;
    if (!ctx)
        return GENSVD_EINVAL;
    opt = gsvd_calloc(1, sizeof *opt);
    if (!opt) {
        snprintf(ctx->last_error, sizeof ctx->last_error, "gensvd_options_new: out of memory");
        return GENSVD_ENOMEM;
    }
    opt->ctx = ctx;
    opt->analysis = analysis;
    if (options_init(opt, analysis) < 0) {
        snprintf(ctx->last_error, sizeof ctx->last_error,
                 "gensvd_options_new: %d is not an analysis (GENSVD_PCA ... GENSVD_PLOT_PDIST)",
                 (int)analysis);
        gsvd_free(opt);
        return GENSVD_EINVAL;
    }
    *out = opt;
    return GENSVD_OK;
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

/* ---- setting values ----------------------------------------------------------------------- */

static void *field_of(gensvd_options *opt, const struct lib_opt *o)
{
    return (char *)&opt->u + o->offset;
}

static void store_uint(void *field, size_t size, uint64_t v)
{
    if (size == sizeof(uint64_t)) {
        memcpy(field, &v, sizeof v);
    } else if (size == sizeof(uint32_t)) {
        uint32_t x = (uint32_t)v;
        memcpy(field, &x, sizeof x);
    } else if (size == sizeof(uint16_t)) {
        uint16_t x = (uint16_t)v;
        memcpy(field, &x, sizeof x);
    } else {
        uint8_t x = (uint8_t)v;
        memcpy(field, &x, sizeof x);
    }
}

static uint64_t load_uint(const void *field, size_t size)
{
    uint64_t v64 = 0;
    uint32_t v32 = 0;
    uint16_t v16 = 0;
    uint8_t v8 = 0;
    switch (size) {
    case sizeof(uint64_t):
        memcpy(&v64, field, size);
        return v64;
    case sizeof(uint32_t):
        memcpy(&v32, field, size);
        return v32;
    case sizeof(uint16_t):
        memcpy(&v16, field, size);
        return v16;
    default:
        memcpy(&v8, field, 1);
        return v8;
    }
}

/* What an option accepts, for messages. */
static void accepted(const struct lib_opt *o, char *buf, size_t len)
{
    size_t n = 0;
    if (o->range) {
        snprintf(buf, len, "%s", o->range);
        return;
    }
    switch (o->kind) {
    case LO_UINT:
    case LO_BYTES:
        snprintf(buf, len, "%" PRIu64 " to %" PRIu64, o->lo, o->hi);
        return;
    case LO_DOUBLE:
        snprintf(buf, len, "%g to %g", o->dlo, o->dhi);
        return;
    case LO_FLAG:
        snprintf(buf, len, "0 or 1");
        return;
    case LO_CHOICE:
        buf[0] = '\0';
        for (size_t i = 0; o->choices[i] && n < len; i++)
            n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", o->choices[i]);
        return;
    default:
        snprintf(buf, len, "text");
    }
}

static int bad_value(const gensvd_options *opt, const struct lib_opt *o, const char *value)
{
    char acc[256];
    accepted(o, acc, sizeof acc);
    return lib_fail(GSVD_EINVAL, "%s option '%s': invalid value '%s' (%s)",
                    analysis_name(opt->analysis), o->name, value, acc);
}

static int unknown(const gensvd_options *opt, const char *name)
{
    return lib_fail(GSVD_EINVAL, "%s has no option '%s'", analysis_name(opt->analysis),
                    name ? name : "(null)");
}

static int set_text(gensvd_options *opt, const char *name, const char *value)
{
    const struct lib_opt *o = lib_opt_find(opt, name);
    void *field;
    uint64_t u;
    double d;
    int k;

    if (name && !strcmp(name, command_name)) {
        char *copy = value ? gsvd_strdup(value) : NULL;
        if (value && !copy)
            return GSVD_ENOMEM;
        gsvd_free(opt->command);
        opt->command = copy;
        return GSVD_OK;
    }
    if (!o)
        return unknown(opt, name);
    if (!value)
        value = "";
    field = field_of(opt, o);
    switch (o->kind) {
    case LO_UINT:
        if (gsvd_parse_uint(value, o->lo, o->hi, o->si, &u) < 0)
            return bad_value(opt, o, value);
        store_uint(field, o->size, u);
        return GSVD_OK;
    case LO_BYTES:
        if (gsvd_parse_size(value, &u) < 0 || u < o->lo || u > o->hi)
            return bad_value(opt, o, value);
        store_uint(field, o->size, u);
        return GSVD_OK;
    case LO_DOUBLE:
        if (gsvd_parse_double(value, o->dlo, o->dhi, &d) < 0)
            return bad_value(opt, o, value);
        memcpy(field, &d, sizeof d);
        return GSVD_OK;
    case LO_FLAG: {
        static const char *const words[] = {"0", "1", "false", "true", "no", "yes", NULL};
        if ((k = gsvd_parse_choice(value, words)) < 0)
            return bad_value(opt, o, value);
        k %= 2;
        memcpy(field, &k, sizeof k);
        return GSVD_OK;
    }
    case LO_CHOICE:
        if ((k = gsvd_parse_choice(value, o->choices)) < 0)
            return bad_value(opt, o, value);
        memcpy(field, &k, sizeof k);
        return GSVD_OK;
    case LO_CALL:
        return o->parse(value, field) < 0 ? bad_value(opt, o, value) : GSVD_OK;
    case LO_STRING: {
        char *copy = *value ? gsvd_strdup(value) : NULL, *old;
        if (*value && !copy)
            return GSVD_ENOMEM;
        memcpy(&old, field, sizeof old);
        gsvd_free(old);
        memcpy(field, &copy, sizeof copy);
        return GSVD_OK;
    }
    }
    return GSVD_EINTERNAL;
}

int gensvd_options_set_string(gensvd_options *opt, const char *name, const char *value)
{
    const struct gsvd_scope *prev;
    if (!opt)
        return GENSVD_EINVAL;
    prev = lib_begin(opt->ctx);
    return lib_end(opt->ctx, prev, set_text(opt, name, value), "gensvd_options_set_string");
}

static int set_int(gensvd_options *opt, const char *name, int64_t value)
{
    const struct lib_opt *o = lib_opt_find(opt, name);
    char text[32];

    if (!o)
        return name && !strcmp(name, command_name)
                   ? lib_fail(GSVD_EINVAL, "option 'command' takes text")
                   : unknown(opt, name);
    snprintf(text, sizeof text, "%lld", (long long)value);
    switch (o->kind) {
    case LO_UINT:
    case LO_BYTES:
        if (value < 0 || (uint64_t)value < o->lo || (uint64_t)value > o->hi)
            return bad_value(opt, o, text);
        store_uint(field_of(opt, o), o->size, (uint64_t)value);
        return GSVD_OK;
    case LO_FLAG:
    case LO_DOUBLE:
    case LO_CALL: /* a number in an option with a text form ("cache", "min-kinship") */
        return set_text(opt, name, text);
    default:
        return lib_fail(GSVD_EINVAL, "%s option '%s' takes text (gensvd_options_set_string)",
                        analysis_name(opt->analysis), o->name);
    }
}

int gensvd_options_set_int(gensvd_options *opt, const char *name, int64_t value)
{
    const struct gsvd_scope *prev;
    if (!opt)
        return GENSVD_EINVAL;
    prev = lib_begin(opt->ctx);
    return lib_end(opt->ctx, prev, set_int(opt, name, value), "gensvd_options_set_int");
}

static int set_double(gensvd_options *opt, const char *name, double value)
{
    const struct lib_opt *o = lib_opt_find(opt, name);
    char text[40];

    if (!o)
        return unknown(opt, name);
    snprintf(text, sizeof text, "%.17g", value);
    if (o->kind == LO_CALL && isfinite(value))
        return set_text(opt, name, text);
    if (o->kind != LO_DOUBLE)
        return lib_fail(GSVD_EINVAL, "%s option '%s' is not a real number (%s)",
                        analysis_name(opt->analysis), o->name,
                        o->kind == LO_UINT || o->kind == LO_BYTES || o->kind == LO_FLAG
                            ? "gensvd_options_set_int"
                            : "gensvd_options_set_string");
    if (!(value >= o->dlo && value <= o->dhi))
        return bad_value(opt, o, text);
    memcpy(field_of(opt, o), &value, sizeof value);
    return GSVD_OK;
}

int gensvd_options_set_double(gensvd_options *opt, const char *name, double value)
{
    const struct gsvd_scope *prev;
    if (!opt)
        return GENSVD_EINVAL;
    prev = lib_begin(opt->ctx);
    return lib_end(opt->ctx, prev, set_double(opt, name, value), "gensvd_options_set_double");
}

static int set_strings(gensvd_options *opt, const char *name, const char *const *items, size_t n)
{
    struct gsvd_strlist l = GSVD_STRLIST_INIT;
    int rc = GSVD_OK;

    if (opt->analysis != GENSVD_PCA || !name || strcmp(name, "fit-samples") != 0)
        return lib_fail(GSVD_EINVAL, "%s has no list option '%s' (the lists: pca's fit-samples)",
                        analysis_name(opt->analysis), name ? name : "(null)");
    for (size_t i = 0; i < n; i++) {
        if (!items || !items[i] || !*items[i]) {
            rc = lib_fail(GSVD_EINVAL, "pca option 'fit-samples': item %zu is empty", i);
            goto out;
        }
        GSVD_TRY(gsvd_strlist_push(&l, items[i]));
    }
    gsvd_strlist_free(&opt->u.pca.fit_ids);
    opt->u.pca.fit_ids = l;
    opt->u.pca.fit_set = n > 0;
    l = (struct gsvd_strlist)GSVD_STRLIST_INIT;
out:
    gsvd_strlist_free(&l);
    return rc;
}

int gensvd_options_set_strings(gensvd_options *opt, const char *name, const char *const *items,
                               size_t n)
{
    const struct gsvd_scope *prev;
    if (!opt)
        return GENSVD_EINVAL;
    prev = lib_begin(opt->ctx);
    return lib_end(opt->ctx, prev, set_strings(opt, name, items, n), "gensvd_options_set_strings");
}

/* ---- introspection ------------------------------------------------------------------------ */

const char *gensvd_options_name(const gensvd_options *opt, size_t i)
{
    if (!opt)
        return NULL;
    if (i < opt->n_table)
        return opt->table[i].name;
    return i == opt->n_table ? command_name : NULL;
}

int gensvd_options_type(const gensvd_options *opt, const char *name)
{
    const struct lib_opt *o;
    if (!opt || !name)
        return GENSVD_EINVAL;
    if (!strcmp(name, command_name))
        return GENSVD_OPTION_STRING;
    if (!(o = lib_opt_find(opt, name)))
        return GENSVD_EINVAL;
    switch (o->kind) {
    case LO_UINT:
    case LO_BYTES:
        return GENSVD_OPTION_INT;
    case LO_DOUBLE:
        return GENSVD_OPTION_DOUBLE;
    case LO_FLAG:
        return GENSVD_OPTION_FLAG;
    default:
        return GENSVD_OPTION_STRING;
    }
}

const char *gensvd_options_value(gensvd_options *opt, const char *name)
{
    const struct lib_opt *o;
    const void *field;
    char *s;
    double d;
    int k;

    if (!opt || !name)
        return NULL;
    if (!strcmp(name, command_name))
        return opt->command ? opt->command : "";
    if (!(o = lib_opt_find(opt, name)))
        return NULL;
    field = (const char *)&opt->u + o->offset;
    switch (o->kind) {
    case LO_UINT:
    case LO_BYTES:
        snprintf(opt->value, sizeof opt->value, "%" PRIu64, load_uint(field, o->size));
        break;
    case LO_DOUBLE:
        memcpy(&d, field, sizeof d);
        snprintf(opt->value, sizeof opt->value, "%.17g", d);
        break;
    case LO_FLAG:
    case LO_CHOICE:
        memcpy(&k, field, sizeof k);
        snprintf(opt->value, sizeof opt->value, "%s",
                 o->kind == LO_FLAG ? (k ? "1" : "0") : o->choices[k]);
        break;
    case LO_CALL:
        o->format(field, opt->value, sizeof opt->value);
        break;
    case LO_STRING:
        memcpy(&s, field, sizeof s);
        snprintf(opt->value, sizeof opt->value, "%s", s ? s : "");
        break;
    }
    return opt->value;
}

int gensvd_options_set_pcs(gensvd_options *opt, const gensvd_result *pcs)
{
    const struct gsvd_scope *prev;
    int rc = GSVD_OK;
    if (!opt)
        return GENSVD_EINVAL;
    prev = lib_begin(opt->ctx);
    if (opt->analysis != GENSVD_PROJECT)
        rc = lib_fail(GSVD_EINVAL, "gensvd_options_set_pcs: the options are not GENSVD_PROJECT's");
    else if (pcs && (pcs->analysis != GENSVD_PCA || !pcs->model))
        rc = lib_fail(GSVD_EINVAL, "gensvd_options_set_pcs: not a GENSVD_PCA result with "
                                   "loadings (option \"loadings\")");
    else
        opt->pcs_result = pcs;
    return lib_end(opt->ctx, prev, rc, "gensvd_options_set_pcs");
}

int gensvd_options_set_rows_callback(gensvd_options *opt, gensvd_rows_fn fn, void *user)
{
    const struct gsvd_scope *prev;
    int rc = GSVD_OK;
    if (!opt)
        return GENSVD_EINVAL;
    prev = lib_begin(opt->ctx);
    if (opt->analysis != GENSVD_PDIST)
        rc = lib_fail(GSVD_EINVAL,
                      "gensvd_options_set_rows_callback: the options are not GENSVD_PDIST's");
    else
        opt->rows_fn = fn, opt->rows_user = user;
    return lib_end(opt->ctx, prev, rc, "gensvd_options_set_rows_callback");
}
