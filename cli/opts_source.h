/* cli/opts_source.h - option descriptors several commands share, written once (cli/opts.h):
 * the genotype input options and the resource options, for a command options struct T with
 * the members they name (`geno` with the members of struct gsvd_cli_geno, `samples_file`,
 * `variant_mask`, `sample_mask`, `device`, `output`, `force`, `format`), and the input options
 * as a ported command holds them (struct gsvd_cli_geno, handed to the library's source by
 * gsvd_cli_source, cli/cli_base.h).  Use them inside a command's `struct gsvd_opt` table.
 * Names nothing of gensvd's internals. */
#ifndef GSVD_CLI_OPTS_SOURCE_H
#define GSVD_CLI_OPTS_SOURCE_H
#include <stddef.h>
#include <stdint.h>
#include "cli/opts.h"

/* The options naming a file of variants (--extract, ...; gsvd_cli_var_list_names). */
#define GSVD_CLI_VAR_LISTS 6

/* The input options of a ported command, as parsed (0 / NULL: not given). */
struct gsvd_cli_geno {
    const char *array;             /* --array (borrowed from argv) */
    int transpose;                 /* --transpose */
    size_t ploidy;                 /* --ploidy; 0: the library's default (2) */
    uint64_t var_start, var_stop;  /* --variants A:B (adjacent: written as one uint64_t[2]) */
    double maf, max_missing;       /* --maf [0], --max-missing [1] */
    double hwe;                    /* --hwe P [0: no test] */
    double mind;                   /* --mind X [1: keep all] */
    int hwe_midp;                  /* --hwe-midp */
    int all_contigs;               /* --all-contigs (KING) */
    int var_filter;                /* --var-filter */
    const char *var_filter_except; /* --var-filter-except NAMES (borrowed from argv) */
    const char *chr;               /* --chr LIST (borrowed from argv) */
    const char *not_chr;           /* --not-chr LIST (borrowed from argv) */
    int autosome;                  /* --autosome 1, --autosome-par 2 */
    uint64_t from_bp, to_bp;       /* --from-bp/-kb/-mb, --to-bp/-kb/-mb in bases
                                      [GSVD_CLI_BP_UNSET: not given] */
    /* --extract, --exclude, --extract-bed, --exclude-bed, --extract-range, --exclude-range:
       FILE (borrowed from argv), in the library's option order (gsvd_cli_var_list_names) */
    const char *var_list[GSVD_CLI_VAR_LISTS];
    const char *keep, *remove; /* --keep FILE, --remove FILE (borrowed from argv) */
};
#define GSVD_CLI_BP_UNSET UINT64_MAX
#define GSVD_CLI_GENO_DEFAULT                                                                      \
    {                                                                                              \
        .max_missing = 1, .mind = 1, .from_bp = GSVD_CLI_BP_UNSET, .to_bp = GSVD_CLI_BP_UNSET      \
    }
_Static_assert(offsetof(struct gsvd_cli_geno, var_stop) ==
                   offsetof(struct gsvd_cli_geno, var_start) + sizeof(uint64_t),
               "--variants writes var_start and var_stop as one uint64_t[2]");

/* CALL parsers (cli/opts_groups.c): --variants A:B into geno.var_start and var_stop (adjacent
 * uint64_t), --device into a const char * (auto, cpu, gpu), --format tsv into a const char *. */
int gsvd_opt_parse_variants(const char *cmd, const char *arg, void *field);
int gsvd_opt_parse_device(const char *cmd, const char *arg, void *field);
int gsvd_opt_parse_tsv(const char *cmd, const char *arg, void *field);
/* --from-bp/--to-bp N (a whole number from 0 to 2^62) and their -kb/-mb forms (a decimal
 * number of kilobases or megabases: a start rounded up to a whole base, an end rounded down,
 * as plink2 does) into a uint64_t; one of the three forms each (a second is an error). */
int gsvd_opt_parse_from_bp(const char *cmd, const char *arg, void *field);
int gsvd_opt_parse_from_kb(const char *cmd, const char *arg, void *field);
int gsvd_opt_parse_from_mb(const char *cmd, const char *arg, void *field);
int gsvd_opt_parse_to_bp(const char *cmd, const char *arg, void *field);
int gsvd_opt_parse_to_kb(const char *cmd, const char *arg, void *field);
int gsvd_opt_parse_to_mb(const char *cmd, const char *arg, void *field);
/* What the two accept, as the options' `choices` for completion (NULL-terminated). */
extern const char *const gsvd_opt_device_names[]; /* auto cpu gpu */
extern const char *const gsvd_opt_tsv_names[];    /* tsv */

#define GSVD_OPT_IN_ARRAY(T)                                                                       \
    {                                                                                              \
        .name = "array", .key = 'a', .type = GSVD_OPT_STRING, GSVD_OPT_FIELD(T, geno.array),       \
        .arg = "PATH", .help = "genotype array inside INPUT"                                       \
    }
#define GSVD_OPT_IN_TRANSPOSE(T)                                                                   \
    {                                                                                              \
        .name = "transpose", .type = GSVD_OPT_FLAG, GSVD_OPT_FIELD(T, geno.transpose), .value = 1, \
        .help = "the 2-D array is samples x variants"                                              \
    }
#define GSVD_OPT_IN_PLOIDY(T)                                                                      \
    {                                                                                              \
        .name = "ploidy", .type = GSVD_OPT_UINT, GSVD_OPT_FIELD(T, geno.ploidy), .arg = "INT",     \
        .lo = 1, .hi = 100, .help = "dosage scale of a 2-D array [2]"                              \
    }
#define GSVD_OPT_IN_VARIANTS(T)                                                                    \
    {                                                                                              \
        .name = "variants", .type = GSVD_OPT_CALL, GSVD_OPT_FIELD(T, geno.var_start),              \
        .arg = "A:B", .parse = gsvd_opt_parse_variants,                                            \
        .help = "only variants A (inclusive) to B (exclusive)"                                     \
    }
#define GSVD_OPT_IN_SAMPLES(T)                                                                     \
    {                                                                                              \
        .name = "samples", .type = GSVD_OPT_STRING, GSVD_OPT_FIELD(T, samples_file),               \
        .arg = "FILE", .flags = GSVD_OPTF_FILE,                                                    \
        .help = "only these sample IDs (one per line), in this order"                              \
    }
#define GSVD_OPT_IN_KEEP_REMOVE(T)                                                                 \
    {.name = "keep",                                                                               \
     .type = GSVD_OPT_STRING,                                                                      \
     GSVD_OPT_FIELD(T, geno.keep),                                                                 \
     .arg = "FILE",                                                                                \
     .flags = GSVD_OPTF_FILE,                                                                      \
     .help = "only the samples FILE lists (plink2 --keep: IID\ncolumn, FID ignored)"},             \
    {                                                                                              \
        .name = "remove", .type = GSVD_OPT_STRING, GSVD_OPT_FIELD(T, geno.remove), .arg = "FILE",  \
        .flags = GSVD_OPTF_FILE, .help = "leave out the samples FILE lists (plink2 --remove)"      \
    }
#define GSVD_OPT_IN_MIND(T)                                                                        \
    {                                                                                              \
        .name = "mind", .type = GSVD_OPT_DOUBLE, GSVD_OPT_FIELD(T, geno.mind), .arg = "X",         \
        .dlo = 0, .dhi = 1, .range = "0..1",                                                       \
        .help = "leave out samples missing more than a fraction X\nof their calls (plink2 --mind)" \
    }
#define GSVD_OPT_IN_MAF(T)                                                                         \
    {                                                                                              \
        .name = "maf", .type = GSVD_OPT_DOUBLE, GSVD_OPT_FIELD(T, geno.maf), .arg = "X", .dlo = 0, \
        .dhi = 0.5, .range = "0..0.5", .help = "drop variants with minor allele frequency below X" \
    }
#define GSVD_OPT_IN_MAX_MISSING(T)                                                                 \
    {.name = "max-missing",                                                                        \
     .type = GSVD_OPT_DOUBLE,                                                                      \
     GSVD_OPT_FIELD(T, geno.max_missing),                                                          \
     .arg = "X",                                                                                   \
     .dlo = 0,                                                                                     \
     .dhi = 1,                                                                                     \
     .range = "0..1",                                                                              \
     .help = "drop variants with a missing fraction above X"},                                     \
    {                                                                                              \
        .name = "geno", .type = GSVD_OPT_DOUBLE, GSVD_OPT_FIELD(T, geno.max_missing), .arg = "X",  \
        .dlo = 0, .dhi = 1, .range = "0..1", .help = "--max-missing X (plink2's name for it)"      \
    }
#define GSVD_OPT_IN_HWE(T)                                                                         \
    {.name = "hwe",                                                                                \
     .type = GSVD_OPT_DOUBLE,                                                                      \
     GSVD_OPT_FIELD(T, geno.hwe),                                                                  \
     .arg = "P",                                                                                   \
     .dlo = 0,                                                                                     \
     .dhi = 1,                                                                                     \
     .range = "0..1",                                                                              \
     .help = "drop variants whose Hardy-Weinberg exact test\np-value is below P (plink2 --hwe)"},  \
    {                                                                                              \
        .name = "hwe-midp", .type = GSVD_OPT_FLAG, GSVD_OPT_FIELD(T, geno.hwe_midp), .value = 1,   \
        .help = "--hwe with the mid-p value (plink2's midp)"                                       \
    }
#define GSVD_OPT_IN_CHR(T)                                                                         \
    {.name = "chr",                                                                                \
     .type = GSVD_OPT_STRING,                                                                      \
     GSVD_OPT_FIELD(T, geno.chr),                                                                  \
     .arg = "LIST",                                                                                \
     .help = "only variants on these contigs: names or\nnumber ranges, e.g. 1-22 or 2L,2R,3L,3R"}, \
        {.name = "not-chr",                                                                        \
         .type = GSVD_OPT_STRING,                                                                  \
         GSVD_OPT_FIELD(T, geno.not_chr),                                                          \
         .arg = "LIST",                                                                            \
         .help = "leave out the variants on these contigs"},                                       \
        {.name = "autosome",                                                                       \
         .type = GSVD_OPT_FLAG,                                                                    \
         GSVD_OPT_FIELD(T, geno.autosome),                                                         \
         .value = 1,                                                                               \
         .help = "only variants on contigs 1-22 (chr1-chr22)"},                                    \
        {.name = "autosome-par",                                                                   \
         .type = GSVD_OPT_FLAG,                                                                    \
         GSVD_OPT_FIELD(T, geno.autosome),                                                         \
         .value = 2,                                                                               \
         .help = "--autosome, also keeping XY (the pseudo-autosomal\nregion as a contig)"},        \
        {.name = "autosome-xy",                                                                    \
         .type = GSVD_OPT_FLAG,                                                                    \
         GSVD_OPT_FIELD(T, geno.autosome),                                                         \
         .value = 2,                                                                               \
         .help = "--autosome-par (plink2's other name for it)"},                                   \
        GSVD_OPT_IN_BP(T, from, bp, "N", "at position N or after"),                                \
        GSVD_OPT_IN_BP(T, from, kb, "X", "at X kilobases or after"),                               \
        GSVD_OPT_IN_BP(T, from, mb, "X", "at X megabases or after"),                               \
        GSVD_OPT_IN_BP(T, to, bp, "N", "at position N or before"),                                 \
        GSVD_OPT_IN_BP(T, to, kb, "X", "at X kilobases or before"),                                \
        GSVD_OPT_IN_BP(T, to, mb, "X", "at X megabases or before")
#define GSVD_OPT_IN_BP(T, end, unit, a, what)                                                      \
    {                                                                                              \
        .name = #end "-" #unit, .type = GSVD_OPT_CALL, GSVD_OPT_FIELD(T, geno.end##_bp), .arg = a, \
        .parse = gsvd_opt_parse_##end##_##unit,                                                    \
        .help = "only variants " what ", on the\none contig --chr names"                           \
    }
#define GSVD_OPT_IN_VAR_FILTER(T)                                                                  \
    {                                                                                              \
        .name = "var-filter", .type = GSVD_OPT_FLAG, GSVD_OPT_FIELD(T, geno.var_filter),           \
        .value = 1, .help = "only variants whose VCF FILTER is PASS or missing"                    \
    }
#define GSVD_OPT_IN_VAR_FILTER_EXCEPT(T)                                                           \
    {                                                                                              \
        .name = "var-filter-except", .type = GSVD_OPT_STRING,                                      \
        GSVD_OPT_FIELD(T, geno.var_filter_except), .arg = "NAMES",                                 \
        .help = "--var-filter, also keeping variants that fail\nonly these filters "               \
                "(comma-separated)"                                                                \
    }
/* The six options naming a file of variant IDs or ranges, each passed to the library's source
 * option of the same name. */
extern const char *const gsvd_cli_var_list_names[GSVD_CLI_VAR_LISTS];
#define GSVD_OPT_IN_VAR_LIST(T, k, nm, what)                                                       \
    {                                                                                              \
        .name = nm, .type = GSVD_OPT_STRING, GSVD_OPT_FIELD(T, geno.var_list[k]), .arg = "FILE",   \
        .flags = GSVD_OPTF_FILE, .help = what                                                      \
    }
#define GSVD_OPT_IN_VAR_LISTS(T)                                                                   \
    GSVD_OPT_IN_VAR_LIST(T, 0, "extract", "only the variants whose IDs FILE lists"),               \
        GSVD_OPT_IN_VAR_LIST(T, 1, "exclude", "leave out the variants whose IDs FILE lists"),      \
        GSVD_OPT_IN_VAR_LIST(T, 2, "extract-bed",                                                  \
                             "only the variants in FILE's BED ranges\n(0-based, half-open)"),      \
        GSVD_OPT_IN_VAR_LIST(T, 3, "exclude-bed", "leave out the variants in FILE's BED ranges"),  \
        GSVD_OPT_IN_VAR_LIST(T, 4, "extract-range",                                                \
                             "only the variants in FILE's ranges\nCONTIG START END (1-based, "     \
                             "closed)"),                                                           \
        GSVD_OPT_IN_VAR_LIST(T, 5, "exclude-range",                                                \
                             "leave out the variants in FILE's 1-based "                           \
                             "ranges")
#define GSVD_OPT_IN_VARIANT_MASK(T)                                                                \
    {                                                                                              \
        .name = "variant-mask", .type = GSVD_OPT_STRING, GSVD_OPT_FIELD(T, variant_mask),          \
        .arg = "STORE[/ARRAY]", .flags = GSVD_OPTF_FILE,                                           \
        .help = "only variants whose entry is nonzero in this 1-D\nbool/int8/uint8 array "         \
                "[ARRAY: variant_ld_keep]"                                                         \
    }
#define GSVD_OPT_IN_SAMPLE_MASK(T)                                                                 \
    {                                                                                              \
        .name = "sample-mask", .type = GSVD_OPT_STRING, GSVD_OPT_FIELD(T, sample_mask),            \
        .arg = "STORE[/ARRAY]", .flags = GSVD_OPTF_FILE,                                           \
        .help =                                                                                    \
            "only samples whose entry is nonzero, matched by\nthe sample_id beside it, else by "   \
            "position\n[ARRAY: sample_unrelated]"                                                  \
    }
#define GSVD_OPT_DEVICE(T)                                                                         \
    {                                                                                              \
        .name = "device", .key = 'd', .type = GSVD_OPT_CALL, GSVD_OPT_FIELD(T, device),            \
        .arg = "DEV", .parse = gsvd_opt_parse_device, .choices = gsvd_opt_device_names,            \
        .help = "auto, cpu or gpu [auto]"                                                          \
    }
#define GSVD_OPT_OUTPUT(T, what)                                                                   \
    {                                                                                              \
        .name = "output", .key = 'o', .type = GSVD_OPT_STRING, GSVD_OPT_FIELD(T, output),          \
        .arg = "PATH", .flags = GSVD_OPTF_FILE, .help = what                                       \
    }
#define GSVD_OPT_FORCE(T)                                                                          \
    {                                                                                              \
        .name = "force", .key = 'f', .type = GSVD_OPT_FLAG, GSVD_OPT_FIELD(T, force), .value = 1,  \
        .help = "replace the output if it exists"                                                  \
    }
#define GSVD_OPT_FORMAT_TSV(T, what)                                                               \
    {                                                                                              \
        .name = "format", .type = GSVD_OPT_CALL, GSVD_OPT_FIELD(T, format), .arg = "tsv",          \
        .parse = gsvd_opt_parse_tsv, .choices = gsvd_opt_tsv_names, .help = what                   \
    }

/* A group of a command's own table, and the bindings of the shared groups every analysis
 * command ends with (--threads, --progress, -v/-q/-h, remote stores) for its struct T with a
 * `common` member. */
#define GSVD_OPT_GROUP(title, opts)                                                                \
    {                                                                                              \
        title, opts, sizeof(opts) / sizeof((opts)[0]), NULL                                        \
    }
#define GSVD_OPTS_BIND_COMMON(T)                                                                   \
    {&gsvd_opts_threads, offsetof(T, common)}, {&gsvd_opts_progress, offsetof(T, common)},         \
        {&gsvd_opts_basic, offsetof(T, common)},                                                   \
    {                                                                                              \
        &gsvd_opts_remote, offsetof(T, common)                                                     \
    }

#endif /* GSVD_CLI_OPTS_SOURCE_H */
