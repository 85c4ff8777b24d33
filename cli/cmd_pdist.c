/* cli/cmd_pdist.c - `gensvd pdist`: pairwise distances between samples, run by the library
 * (include/gensvd.h, GENSVD_PDIST), as a Zarr group or a square TSV matrix (from the library's
 * matrix callback: the complete rows once the bands are done), a TSV pair list (the rows
 * callback's bands, condensed) or, with --min-kinship, a table like plink2's .kin0 (the pairs
 * callback, as the pairs are found); a TSV/CSV numeric matrix as input is a text source. */
#include "gsvd_config.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli_base.h"
#include "cli/opts_source.h"
#include "include/gensvd.h"

/* --part I/N as given (the first member: what the library's "part" takes) and as numbers. */
struct pdist_part {
    const char *text;
    size_t i, n;
};

struct pdist_opts {
    const char *input, *output, *format, *samples_file, *device, *finalize;
    const char *metric, *dtype; /* the library's names ("euclidean", "f8") */
    int force, counts, axis_variants, condensed, missing, kernel;
    int haplotypes;     /* --haplotypes: each haplotype an item */
    int ignore_phase;   /* --ignore-phase */
    double min_kinship; /* --min-kinship; NaN: not given */
    double p;           /* --p */
    uint64_t memory;    /* --memory; 0: no cap */
    struct pdist_part part;
    struct gsvd_cli_geno geno;
    struct gsvd_cli_zarr_out zout;          /* --zarr-format, --shard */
    const char *variant_mask, *sample_mask; /* STORE[/ARRAY] */
    struct gsvd_cli_common common;
};

static const char *const missing_names[] = {"pairwise", "scale", "error", NULL};
static const char *const axis_names[] = {"samples", "variants", NULL};
static const char *const layout_names[] = {"square", "condensed", NULL};
static const char *const kernel_names[] = {"auto", "bitplane", "gram", "generic", NULL};

/* The --metric names the library takes (its "metric"), for the parser and completion;
 * tests/cli/test_install.sh checks them against the parser's error. */
static const char *const metric_names[] = {"euclidean", "sqeuclidean", "cityblock",   "minkowski",
                                           "chebyshev", "cosine",      "correlation", "hamming",
                                           "jaccard",   "braycurtis",  "canberra",    "ibs",
                                           "king",      "ibs0",        "p-distance",  NULL};

static int parse_metric(const char *cmd, const char *arg, void *field)
{
    char list[256] = "";
    int k = gsvd_cli_parse_choice(arg, metric_names);
    if (k < 0) {
        for (size_t i = 0; metric_names[i]; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                     metric_names[i]);
        return gsvd_cli_usage_error(cmd, "invalid --metric '%s' (%s)", arg, list);
    }
    memcpy(field, &metric_names[k], sizeof metric_names[k]);
    return 0;
}
static const char *const dtype_names[] = {"f8", "f4", NULL}; /* offered; aliases accepted too */

static int parse_dtype(const char *cmd, const char *arg, void *field)
{
    static const char *const names[] = {"f8", "f4", "float64", "float32", NULL};
    int k = gsvd_cli_parse_choice(arg, names);
    if (k < 0)
        return gsvd_cli_usage_error(cmd, "invalid --dtype '%s' (f8, f4)", arg);
    memcpy(field, &dtype_names[k % 2], sizeof dtype_names[k % 2]);
    return 0;
}

/* --part I/N: the text (what the library takes: the field's first member) and its numbers. */
static int parse_part(const char *cmd, const char *arg, void *field)
{
    struct pdist_part p = {.text = arg};
    int end = 0;
    if (sscanf(arg, "%zu/%zu%n", &p.i, &p.n, &end) != 2 || arg[end] != '\0' || p.i < 1 || p.n < 1 ||
        p.i > p.n || p.n > 100000)
        return gsvd_cli_usage_error(cmd, "invalid --part '%s' (I/N, 1 <= I <= N)", arg);
    memcpy(field, &p, sizeof p);
    return 0;
}

#define PD(field) GSVD_OPT_FIELD(struct pdist_opts, field)
static const struct gsvd_opt pdist_options[] = {
    {.name = "metric",
     .key = 'm',
     .type = GSVD_OPT_CALL,
     PD(metric),
     .lib = "metric",
     .arg = "NAME",
     .parse = parse_metric,
     .choices = metric_names,
     .help = "euclidean, sqeuclidean, cityblock, minkowski, chebyshev,\ncosine, correlation, "
             "hamming, jaccard, braycurtis, canberra,\nibs (PLINK 1.9 1-ibs: sum |g_i - g_j| / "
             "(ploidy n_ij)),\nking (KING-robust kinship, plink2 --make-king: a similarity,\n0.5 "
             "on the diagonal; diploid calls only) or ibs0 (fraction\nof jointly called sites "
             "with opposite homozygotes), p-distance (VCF2Dis's: the\nfraction of differing "
             "haplotypes, h against h, over the\nsites called in both; phased calls)\n"
             "[euclidean]"},
    {.name = "haplotypes",
     .type = GSVD_OPT_FLAG,
     PD(haplotypes),
     .lib = "haplotypes",
     .value = 1,
     .help = "each haplotype of the phased calls is an item (ID_0, ID_1,\n...; values 1 "
             "for a non-reference allele, 0 for the\nreference), with any metric but king "
             "and ibs0"},
    {.name = "ignore-phase",
     .type = GSVD_OPT_FLAG,
     PD(ignore_phase),
     .lib = "ignore-phase",
     .value = 1,
     .help = "with p-distance or --haplotypes: take each call's alleles\nin their stored order "
             "(else an unphased heterozygous call,\nor no call_genotype_phased, is an error)"},
    {.name = "min-kinship",
     .type = GSVD_OPT_DOUBLE,
     PD(min_kinship),
     .arg = "X",
     .dlo = -1,
     .dhi = 0.5,
     .range = "a kinship in [-1, 0.5]",
     .help = "with -m king: only the pairs with kinship >= X (-1..0.5), as\na table like "
             "plink2's .kin0 (#ID1 ID2 NSNP HETHET IBS0\nKINSHIP; --counts: counts and HET1_HOM2 "
             "HET2_HOM1) or, with\n-o, Zarr arrays along \"pairs\" (pair_i, pair_j, kinship,\n"
             "n_sites, hethet, ibs0, het1_hom2, het2_hom1); bands of\n--memory [1G], never the "
             "N x N matrix"},
    {.name = "all-contigs",
     .type = GSVD_OPT_FLAG,
     PD(geno.all_contigs),
     .value = 1,
     .help = "with -m king or ibs0: count every contig; by default, as\nplink2's --make-king, "
             "variants on X, Y and MT (by contig_id:\nX, 23, Y, 24, MT, M, 26, with or without "
             "chr) are left out"},
    {.name = "p",
     .key = 'p',
     .type = GSVD_OPT_DOUBLE,
     PD(p),
     .lib = "p",
     .arg = "X",
     .dlo = 1e-300,
     .dhi = 1e300,
     .range = "a number > 0",
     .help = "minkowski order (> 0) [2]"},
    {.name = "missing",
     .type = GSVD_OPT_CHOICE,
     PD(missing),
     .lib = "missing",
     .arg = "MODE",
     .choices = missing_names,
     .help = "pairwise: only sites called in both samples (NaN when none);\nscale: also "
             "multiply additive metrics by M / n_ij (PLINK\nflat-missing); error: fail on a "
             "missing call [pairwise]"},
    {.name = "axis",
     .type = GSVD_OPT_CHOICE,
     PD(axis_variants),
     .lib = "axis",
     .arg = "AXIS",
     .choices = axis_names,
     .help = "samples: distances between samples; variants: between\nvariants (features are "
             "then the samples) [samples]"},
    GSVD_OPT_OUTPUT(struct pdist_opts, "Zarr group: distance (N x N f8), n_sites (uint32, when "
                                       "there\nare missing calls or with --counts), sample_id\n"
                                       "(variant_index with --axis variants)"),
    GSVD_OPT_FORCE(struct pdist_opts),
};
static const struct gsvd_opt layout_options[] = {
    {.name = "counts",
     .type = GSVD_OPT_FLAG,
     PD(counts),
     .lib = "counts",
     .value = 1,
     .help = "always write n_sites"},
    {.name = "layout",
     .type = GSVD_OPT_CHOICE,
     PD(condensed),
     .lib = "layout",
     .arg = "L",
     .choices = layout_names,
     .help = "square (N x N) or condensed (scipy's 1-D upper triangle;\nwith --format tsv: one "
             "line per pair) [square]"},
    {.name = "dtype",
     .type = GSVD_OPT_CALL,
     PD(dtype),
     .lib = "dtype",
     .arg = "T",
     .parse = parse_dtype,
     .choices = dtype_names,
     .help = "f8 or f4 for the distance array [f8]"},
    GSVD_OPT_FORMAT_TSV(struct pdist_opts, "the matrix on stdout (default without -o)"),
    {.name = "memory",
     .type = GSVD_OPT_BYTES,
     PD(memory),
     .lib = "memory",
     .arg = "SIZE",
     .lo = 1,
     .range = "e.g. 2G",
     .help = "cap the working set (e.g. 2G): pairs are computed in bands\nof rows, one pass "
             "over the input per band, and written as\nthey finish [no cap]"},
    {.name = "kernel",
     .type = GSVD_OPT_CHOICE,
     PD(kernel),
     .lib = "kernel",
     .arg = "K",
     .choices = kernel_names,
     .help = "auto, bitplane, gram or generic (for tests) [auto]"},
    {.name = "device",
     .key = 'd',
     .type = GSVD_OPT_CALL,
     PD(device),
     .arg = "DEV",
     .parse = gsvd_opt_parse_device,
     .choices = gsvd_opt_device_names,
     .help = "auto, cpu or gpu [auto]\n(gpu: bit-plane counts and float64 sums on the device,\n"
             "identical results; the gram kernel stays on the CPU)"},
    {.name = "part",
     .type = GSVD_OPT_CALL,
     PD(part),
     .lib = "part",
     .arg = "I/N",
     .parse = parse_part,
     .help = "compute only part I of N of the pairs (a job array without\nMPI) into "
             "OUT.gensvd-parts/ (needs -o OUT, a local or shared\npath, and the square layout "
             "or --min-kinship); start every\npart with the same input and options (an existing "
             "OUT:\n--force, here and at --finalize)"},
    {.name = "finalize",
     .type = GSVD_OPT_STRING,
     PD(finalize),
     .arg = "OUT",
     .flags = GSVD_OPTF_FILE,
     .help = "gather the N parts into OUT once all are done (no INPUT; Zarr\nformat 2, as "
             "the parts)"},
};
static const struct gsvd_opt input_options[] = {
    GSVD_OPT_IN_ARRAY(struct pdist_opts),
    GSVD_OPT_IN_TRANSPOSE(struct pdist_opts),
    GSVD_OPT_IN_PLOIDY(struct pdist_opts),
    GSVD_OPT_IN_VARIANTS(struct pdist_opts),
    GSVD_OPT_IN_SAMPLES(struct pdist_opts),
    GSVD_OPT_IN_KEEP_REMOVE(struct pdist_opts),
    GSVD_OPT_IN_MIND(struct pdist_opts),
    GSVD_OPT_IN_VARIANT_MASK(struct pdist_opts),
    GSVD_OPT_IN_SAMPLE_MASK(struct pdist_opts),
    GSVD_OPT_IN_CHR(struct pdist_opts),
    GSVD_OPT_IN_VAR_LISTS(struct pdist_opts),
    GSVD_OPT_IN_VAR_FILTER(struct pdist_opts),
    GSVD_OPT_IN_VAR_FILTER_EXCEPT(struct pdist_opts),
};
static const struct gsvd_opt_group pdist_group = GSVD_OPT_GROUP(NULL, pdist_options);
static const struct gsvd_opt_group layout_group = GSVD_OPT_GROUP(NULL, layout_options);
static const struct gsvd_opt_group input_group = GSVD_OPT_GROUP(NULL, input_options);
static const struct gsvd_opt_bind pdist_groups[] = {
    {&pdist_group, 0},
    {&gsvd_opts_zarr_out, offsetof(struct pdist_opts, zout)},
    {&layout_group, 0},
    {&input_group, 0},
    GSVD_OPTS_BIND_COMMON(struct pdist_opts),
};
const struct gsvd_cmd_spec gsvd_cmd_pdist_spec = {
    .name = "pdist",
    .intro = "Usage: gensvd pdist [options] INPUT\n"
             "Pairwise distances between the samples (or variants) of the genotype matrix in "
             "INPUT (a VCF-Zarr\nstore, a scikit-allel layout, or a 2-D dosage array named with "
             "--array), with\nscipy's definitions; on data without missing calls the values "
             "equal\nscipy.spatial.distance.pdist on the dosage matrix (samples x variants).\n"
             "INPUT may also be a TSV/CSV numeric matrix (a file, or '-' / no INPUT for standard"
             "\ninput): one row per item, optional header line and ID column, empty / nan / NA\n"
             "missing; e.g. gensvd pca X --format tsv | gensvd pdist\n",
    .groups = pdist_groups,
    .n_groups = GSVD_CLI_LEN(pdist_groups),
    .opts_size = sizeof(struct pdist_opts),
    .footer = "Exit status: 0 success, 1 failure, 2 usage error, 3 device or feature "
              "unavailable.\n",
};

/* Which metric o names. */
static int metric_is(const struct pdist_opts *o, const char *name)
{
    return strcmp(o->metric, name) == 0;
}

static int king_metric(const struct pdist_opts *o)
{
    return metric_is(o, "king") || metric_is(o, "ibs0");
}

/* What the text outputs need while the library runs: its callbacks' state. */
struct pdist_text {
    gensvd_ctx *ctx;
    const struct pdist_opts *o;
    int square; /* the square TSV (matrix callback), else the condensed one (rows callback) */
    const char *const *ids; /* the items (borrowed from the run, items callback) */
    uint64_t n;
    int header;       /* its header is out */
    int write_failed; /* a write to standard output failed: the run was cancelled */
    int too_big;      /* the square TSV would hold more than half of --memory */
};

static void print_number(double v)
{
    if (isnan(v))
        fputs("nan", stdout);
    else if (isinf(v))
        fputs(v < 0 ? "-inf" : "inf", stdout);
    else
        printf("%.17g", v);
}

/* A failed write ends the run (cancelled: the library says nothing); the command says it. */
static int stop_on_write_error(struct pdist_text *t)
{
    if (!ferror(stdout))
        return 0;
    t->write_failed = 1;
    gensvd_ctx_cancel(t->ctx);
    return 1;
}

static int on_items(void *user, uint64_t n, const char *const *ids)
{
    struct pdist_text *t = user;
    const struct pdist_opts *o = t->o;
    uint64_t bytes = n * n * sizeof(double);

    t->ids = ids;
    t->n = n;
    /* the square TSV holds the matrix until the end: at most half of --memory */
    if (t->square && o->memory && bytes > o->memory / 2) {
        char msg[512];
        snprintf(msg, sizeof msg,
                 "--format tsv holds the %llu x %llu matrix (%llu bytes), more than half of "
                 "--memory; write Zarr (-o) or use --layout condensed",
                 (unsigned long long)n, (unsigned long long)n, (unsigned long long)bytes);
        if (gensvd_mpi_rank() == 0)
            gsvd_cli_msg_log(GENSVD_LOG_ERROR, msg);
        t->too_big = 1;
        gensvd_ctx_cancel(t->ctx);
        return 1;
    }
    return 0;
}

/* The square matrix's header line. */
static void square_header(struct pdist_text *t)
{
    fputs(t->o->axis_variants ? "variant_index" : "sample_id", stdout);
    for (uint64_t i = 0; i < t->n; i++)
        printf("\t%s", t->ids[i]);
    putchar('\n');
    t->header = 1;
}

/* The square TSV, a complete row at a time (the library's matrix callback). */
static int on_matrix_row(void *user, uint64_t row0, uint64_t n_rows,
                         const struct gensvd_array_view *d, const struct gensvd_array_view *c)
{
    struct pdist_text *t = user;
    const double *v = d->data;
    (void)n_rows;
    (void)c;
    if (!t->header)
        square_header(t);
    fputs(t->ids[row0], stdout);
    for (uint64_t j = 0; j < d->shape[1]; j++) {
        putchar('\t');
        print_number(v[j]);
    }
    putchar('\n');
    return 0; /* a failed write is found once, at the end (gsvd_cli_stdout_done) */
}

/* The condensed TSV, one line per pair, band by band (the library's rows callback). */
static int on_band(void *user, uint64_t row0, uint64_t n_rows, const struct gensvd_array_view *d,
                   const struct gensvd_array_view *c)
{
    struct pdist_text *t = user;
    const double *dist = d->data;
    const uint32_t *ns = c->data;
    uint64_t ld = d->shape[1];

    if (row0 == 0)
        fputs(t->o->axis_variants ? "variant_i\tvariant_j\tdistance\tn_sites\n"
                                  : "sample_i\tsample_j\tdistance\tn_sites\n",
              stdout);
    for (uint64_t r = 0; r < n_rows; r++)
        for (uint64_t k = r + 1; k < ld; k++) {
            printf("%s\t%s\t", t->ids[row0 + r], t->ids[row0 + k]);
            print_number(dist[r * ld + k]);
            printf("\t%u\n", ns[r * ld + k]);
        }
    return stop_on_write_error(t);
}

/* --min-kinship's table like plink2's .kin0, as the pairs are found (the pairs callback). */
static int on_pairs(void *user, const struct gensvd_king_pair *p, size_t n)
{
    struct pdist_text *t = user;

    if (!t->header) {
        fputs(t->o->counts ? "#ID1\tID2\tNSNP\tHETHET\tIBS0\tHET1_HOM2\tHET2_HOM1\tKINSHIP\n"
                           : "#ID1\tID2\tNSNP\tHETHET\tIBS0\tKINSHIP\n",
              stdout);
        t->header = 1;
    }
    for (size_t k = 0; k < n; k++) {
        printf("%s\t%s\t%u\t", t->ids[p[k].i], t->ids[p[k].j], p[k].n_sites);
        if (t->o->counts) {
            printf("%u\t%u\t%u\t%u\t", p[k].hethet, p[k].ibs0, p[k].het1_hom2, p[k].het2_hom1);
        } else {
            print_number(p[k].n_sites ? (double)p[k].hethet / p[k].n_sites : NAN);
            putchar('\t');
            print_number(p[k].n_sites ? (double)p[k].ibs0 / p[k].n_sites : NAN);
            putchar('\t');
        }
        print_number(p[k].kinship);
        putchar('\n');
    }
    return stop_on_write_error(t);
}

/* A number the result holds beside its arrays (the run's plan: include/gensvd.h). */
static uint64_t plan(const gensvd_result *res, const char *name)
{
    struct gensvd_array_view v;
    return gensvd_result_array(res, name, &v) == GENSVD_OK ? ((const uint64_t *)v.data)[0] : 0;
}

/* A line at -v (the library's level for its plan). */
static void info(const char *fmt, ...) GSVD_CLI_PRINTF(1, 2);
static void info(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    if (gsvd_cli_log_level() < GENSVD_LOG_INFO)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    gsvd_cli_msg_log(GENSVD_LOG_INFO, msg);
}

/* The summary of a distance run (rank 0). */
static void summary(const struct pdist_opts *o, const gensvd_result *res, int text_input)
{
    const char *kernel = gensvd_result_attr_string(res, "kernel");
    const char *device = gensvd_result_attr_string(res, "device");

    gsvd_cli_note("%.0f %s, %.0f %s, %s, %.0f missing values", gsvd_cli_attr(res, "N"),
                  o->axis_variants ? "variants"
                  : text_input     ? "rows"
                                   : "samples",
                  gsvd_cli_attr(res, "M"),
                  o->axis_variants ? "samples"
                  : text_input     ? "columns"
                                   : "variants",
                  o->metric, gsvd_cli_attr(res, "n_missing"));
    info("%s kernel on %s, %llu band(s), %llu pass(es) over the input, planned working set %.1f MB",
         kernel ? kernel : "none", device ? device : "cpu",
         (unsigned long long)plan(res, "n_bands"), (unsigned long long)plan(res, "n_scans"),
         (double)plan(res, "peak_bytes") / 1e6);
    if (plan(res, "n_segments"))
        info("%llu of %llu bit-plane segments without missing calls",
             (unsigned long long)plan(res, "n_segments_complete"),
             (unsigned long long)plan(res, "n_segments"));
    if (plan(res, "n_segments_apart"))
        info("%llu of %llu bit-plane segments with their few missing calls counted apart",
             (unsigned long long)plan(res, "n_segments_apart"),
             (unsigned long long)plan(res, "n_segments"));
}

/* A regular file that is neither a zipped store (".zip", as the stores take it) nor a genotype
 * file in another format (VCF, PLINK, BGEN: the source's error says how to convert it) is a
 * TSV/CSV matrix, as is standard input. */
static int is_text(const char *input)
{
    struct stat sb;
    size_t len = strlen(input);
    char hint[1024];

    return strcmp(input, "-") == 0 || (stat(input, &sb) == 0 && S_ISREG(sb.st_mode) &&
                                       !(len >= 4 && strcasecmp(input + len - 4, ".zip") == 0) &&
                                       !*gensvd_convert_hint(input, hint, sizeof hint));
}

/* A text matrix holds rows of numbers: what needs genotype calls or a store is refused before
 * it is read. */
static int check_text(const struct pdist_opts *o)
{
    const char *where = strcmp(o->input, "-") == 0 ? "standard input" : o->input;
    char msg[1024];

    if (king_metric(o) || metric_is(o, "p-distance") || o->haplotypes) {
        snprintf(msg, sizeof msg,
                 "%s: %s %s needs genotype calls from a Zarr store, not a numeric "
                 "matrix",
                 where, o->haplotypes ? "--haplotypes" : "--metric",
                 o->haplotypes ? "" : o->metric);
        gsvd_cli_msg_log(GENSVD_LOG_ERROR, msg);
        return GENSVD_EUNSUPPORTED;
    }
    if (o->samples_file || o->geno.var_start || o->geno.var_stop || o->geno.array ||
        o->geno.transpose || o->axis_variants || o->variant_mask || o->sample_mask) {
        snprintf(msg, sizeof msg,
                 "%s: --samples, --variants, --array, --transpose, --axis and "
                 "the masks apply to Zarr input",
                 where);
        gsvd_cli_msg_log(GENSVD_LOG_ERROR, msg);
        return GENSVD_EINVAL;
    }
    return GENSVD_OK;
}

/* The part a job array's process writes: OUT.gensvd-parts/part-I-of-N.zarr. */
static void part_path(const struct pdist_opts *o, char *out, size_t cap)
{
    snprintf(out, cap, "%s.gensvd-parts/part-%zu-of-%zu.zarr", o->output, o->part.i, o->part.n);
}

/* Where the distances or pairs went, on the summary's last line (rank 0). */
static void report(const struct pdist_opts *o, int tsv)
{
    char part[4096];
    const char *output = o->output;

    if (o->part.n) {
        part_path(o, part, sizeof part);
        output = part;
    }
    if (!isnan(o->min_kinship)) /* the pair list */
        gsvd_cli_done_to(output, output ? NULL : "the pairs");
    else
        gsvd_cli_done_to(output, tsv ? "the matrix" : NULL);
}

/* A run of pdist on INPUT: the library's run with the text outputs' callbacks, then the
 * summary.  `tsv`: the matrix (or pairs) on standard output. */
static int run(struct pdist_opts *o, int tsv, const char *command)
{
    int text = is_text(o->input), pairs = !isnan(o->min_kinship);
    struct gsvd_cli_run r = {.cmd = "pdist",
                             .analysis = GENSVD_PDIST,
                             .spec = &gsvd_cmd_pdist_spec,
                             .target = o,
                             .command = command,
                             .common = &o->common,
                             .device = o->device,
                             .unit = pairs              ? "variants"
                                     : o->axis_variants ? "samples"
                                     : text             ? "columns"
                                                        : "variants",
                             .output = o->output,
                             .force = o->force,
                             .zout = &o->zout,
                             .input = text ? NULL : o->input,
                             .geno = &o->geno,
                             .samples_file = o->samples_file,
                             .variant_mask = o->variant_mask,
                             .sample_mask = o->sample_mask};
    struct pdist_text t = {.o = o, .square = tsv && !o->condensed && !pairs};
    int rc = gsvd_cli_run_open(&r), me = gensvd_mpi_rank();

    t.ctx = r.ctx;
    if (rc == GENSVD_OK && text && (rc = check_text(o)) == GENSVD_OK) {
        rc = gensvd_source_open_text(r.ctx, o->input, &r.src);
        if (rc == GENSVD_OK && o->geno.ploidy)
            rc = gensvd_source_set_int(r.src, "ploidy", (int64_t)o->geno.ploidy);
    }
    /* parts are Zarr v2 groups (the finalizer reads their .zarray documents) */
    if (rc == GENSVD_OK && o->part.n &&
        (o->zout.format == 3 || (!o->zout.format && gensvd_source_zarr_format(r.src) == 3))) {
        gsvd_cli_msg_log(GENSVD_LOG_ERROR, "--part writes Zarr v2 parts; add --zarr-format 2");
        rc = GENSVD_EINVAL;
    }
    if (rc == GENSVD_OK && pairs)
        rc = gensvd_options_set_double(r.opt, "min-kinship", o->min_kinship);
    if (rc == GENSVD_OK)
        rc = gensvd_options_set_items_callback(r.opt, on_items, &t);
    if (rc == GENSVD_OK && tsv && pairs)
        rc = gensvd_options_set_pairs_callback(r.opt, on_pairs, &t);
    else if (rc == GENSVD_OK && t.square)
        rc = gensvd_options_set_matrix_callback(r.opt, on_matrix_row, &t);
    else if (rc == GENSVD_OK && tsv)
        rc = gensvd_options_set_rows_callback(r.opt, on_band, &t);
    if (rc == GENSVD_OK)
        rc = gensvd_run(r.ctx, r.opt, r.src, r.dest, &r.res);
    if (rc == GENSVD_ECANCELED && t.too_big)
        rc = GENSVD_ENOMEM; /* said by on_items */
    else if (rc == GENSVD_ECANCELED && t.write_failed)
        rc = gsvd_cli_stdout_done(); /* "standard output: write failed" */
    if (rc == GENSVD_OK && t.square && !t.header && me == 0)
        square_header(&t); /* no item: the header alone */
    /* a distributed run that wrote its output in parts has no summary (each process's
     * numbers are its part's): the result holds no attributes */
    if (rc == GENSVD_OK && me == 0 && strcmp(gensvd_result_attrs_json(r.res), "{}") != 0) {
        if (pairs)
            gsvd_cli_note("%.0f samples, %.0f variants, king: %.0f pairs with kinship >= %g",
                          gsvd_cli_attr(r.res, "N"), gsvd_cli_attr(r.res, "M"),
                          gsvd_cli_attr(r.res, "n_pairs"), o->min_kinship);
        else
            summary(o, r.res, text);
    }
    if (rc == GENSVD_OK && me == 0 && tsv)
        rc = gsvd_cli_stdout_done();
    if (rc == GENSVD_OK && me == 0)
        report(o, tsv);
    gsvd_cli_run_close(&r);
    if (rc == GENSVD_OK && o->part.n)
        info("part %zu of %zu done; `gensvd pdist --finalize %s` once every part is", o->part.i,
             o->part.n, o->output);
    return rc;
}

/* --finalize OUT: a job array's parts gathered into OUT (checked first: it may exist only with
 * --force). */
static int finalize(struct pdist_opts *o)
{
    struct gsvd_cli_run r = {.cmd = "pdist",
                             .analysis = GENSVD_PDIST,
                             .spec = &gsvd_cmd_pdist_spec,
                             .target = o,
                             .common = &o->common,
                             .device = o->device,
                             .output = o->finalize,
                             .force = o->force,
                             .zout = &o->zout};
    int rc = gsvd_cli_run_open(&r);

    if (rc == GENSVD_OK)
        rc = gensvd_options_set_string(r.opt, "finalize", o->finalize);
    if (rc == GENSVD_OK)
        rc = gensvd_run(r.ctx, r.opt, NULL, r.dest, &r.res);
    if (rc == GENSVD_OK && gensvd_mpi_rank() == 0)
        gsvd_cli_done_to(o->finalize, NULL);
    gsvd_cli_run_close(&r);
    return rc;
}

/* The combinations of options the command refuses (exit 2), before anything is read. */
static int check_usage(const struct pdist_opts *o, int first, int argc)
{
    int pairs = !isnan(o->min_kinship);

    if (o->part.n) {
        if (!o->output || strstr(o->output, "://"))
            return gsvd_cli_usage_error("pdist", "--part needs -o OUT, a local or shared path");
        if (o->format || o->condensed)
            return gsvd_cli_usage_error("pdist", "--part writes the square Zarr layout (no "
                                                 "--format tsv, no --layout condensed)");
        if (gensvd_mpi_size() > 1)
            return gsvd_cli_usage_error("pdist", "--part is for job arrays; under mpirun the "
                                                 "ranks share the work themselves");
    }
    if (o->samples_file && o->sample_mask)
        return gsvd_cli_usage_error("pdist", "--samples and --sample-mask cannot be combined");
    if (o->variant_mask && o->axis_variants)
        return gsvd_cli_usage_error("pdist", "--variant-mask applies to --axis samples");
    if ((o->geno.var_filter || o->geno.var_filter_except) && o->axis_variants)
        return gsvd_cli_usage_error("pdist", "--var-filter applies to --axis samples");
    if (o->geno.chr && o->axis_variants)
        return gsvd_cli_usage_error("pdist", "--chr applies to --axis samples");
    for (size_t k = 0; k < GSVD_CLI_VAR_LISTS; k++)
        if (o->geno.var_list[k] && o->axis_variants)
            return gsvd_cli_usage_error("pdist", "--%s applies to --axis samples",
                                        gsvd_cli_var_list_names[k]);
    if (first < argc - 1)
        return gsvd_cli_usage_error("pdist", "too many arguments");
    if (king_metric(o)) {
        if (o->axis_variants || strcmp(missing_names[o->missing], "scale") == 0)
            return gsvd_cli_usage_error("pdist",
                                        "--metric %s is between samples over their "
                                        "jointly called sites (no --axis variants, no "
                                        "--missing scale)",
                                        o->metric);
        if (o->haplotypes)
            return gsvd_cli_usage_error("pdist",
                                        "--metric %s compares diploid calls, not "
                                        "haplotypes (no --haplotypes)",
                                        o->metric);
    } else if (o->geno.all_contigs) {
        return gsvd_cli_usage_error("pdist", "--all-contigs applies to --metric king and ibs0");
    }
    if (metric_is(o, "p-distance") && o->axis_variants)
        return gsvd_cli_usage_error("pdist", "--metric p-distance is between samples (or "
                                             "haplotypes): no --axis variants");
    if (o->ignore_phase && !o->haplotypes && !metric_is(o, "p-distance"))
        return gsvd_cli_usage_error("pdist",
                                    "--ignore-phase applies to p-distance and --haplotypes");
    if (pairs) {
        if (!metric_is(o, "king"))
            return gsvd_cli_usage_error("pdist", "--min-kinship needs --metric king");
        if (o->condensed || strcmp(o->dtype, "f8") != 0 || o->format)
            return gsvd_cli_usage_error("pdist", "--min-kinship writes its own pair list (TSV, "
                                                 "or Zarr with -o): no --layout, --dtype or "
                                                 "--format");
    }
    if (gsvd_cli_zarr_out_check("pdist", &o->zout, o->output) != 0)
        return GSVD_EXIT_USAGE;
    if (first == argc && isatty(STDIN_FILENO))
        return gsvd_cli_usage_error("pdist", "missing INPUT (a Zarr store, a TSV/CSV file, or -)");
    if (strcmp(o->input, "-") == 0 && gensvd_mpi_size() > 1)
        return gsvd_cli_usage_error("pdist", "under mpirun every rank reads INPUT: give a file or "
                                             "a store, not standard input");
    return 0;
}

int gsvd_cmd_pdist(int argc, char **argv)
{
    struct pdist_opts o = {.device = "auto",
                           .metric = "euclidean",
                           .dtype = "f8",
                           .min_kinship = NAN,
                           .p = 2,
                           .geno = GSVD_CLI_GENO_DEFAULT,
                           .common = GSVD_CLI_COMMON_DEFAULT};
    char *command;
    int first, rc = gsvd_opts_parse(&gsvd_cmd_pdist_spec, argc, argv, &o, &first);

    if (rc != 0)
        return rc == GSVD_OPTS_HELP ? GSVD_EXIT_OK : rc;
    if (o.finalize) {
        if (first < argc)
            return gsvd_cli_usage_error("pdist", "--finalize OUT takes no INPUT");
        if (o.zout.format == 3 || o.zout.shard[0])
            return gsvd_cli_usage_error("pdist", "--finalize gathers the parts as they are, in "
                                                 "Zarr format 2 (no --zarr-format 3, no --shard)");
        gsvd_cli_common_apply(&o.common);
        return gsvd_cli_exit_code(finalize(&o));
    }
    o.input = first < argc ? argv[first] : "-";
    if ((rc = check_usage(&o, first, argc)) != 0)
        return rc;
    gsvd_cli_common_apply(&o.common);
    command = gsvd_cli_command_line(argc, argv);
    rc = run(&o, o.format || !o.output, command);
    gsvd_cli_free(command);
    return gsvd_cli_exit_code(rc);
}
