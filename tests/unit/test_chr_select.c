/* tests/unit/test_chr_select.c - `--chr`'s contig lists (analysis/scan/chr_select.h) and KING's
 * autosome rule (autosomes.h) on names written the ways stores write them: numbers with and
 * without "chr" in any case, X/Y/XY/MT and their numbers, ranges, other names (with a dash, in
 * either case), and malformed lists.  The expected answers are plink2 2.00a3.5's for `--chr
 * LIST --allow-extra-chr` on a VCF with one variant per contig name, where plink2 answers
 * (it refuses "3-3" and "HLA-A" as lists, which gensvd takes as the obvious contig). */
#include "gsvd_config.h"

#include <stdio.h>
#include <string.h>

#include "analysis/scan/autosomes.h"
#include "analysis/scan/chr_select.h"
#include "gsvd_test.h"

struct chr_case {
    const char *list, *name;
    int want;
};

static void check_lists(void)
{
    static const struct chr_case cases[] = {
        {"1-22", "1", 1},
        {"1-22", "chr22", 1},
        {"1-22", "CHR7", 1},
        {"1-22", "23", 0},
        {"1-22", "X", 0},
        {"1-22", "0", 0},
        {"1-22", "01", 1},
        {"chr1-chr3", "2", 1},
        {"1-chr3", "chr3", 1},
        {"X", "chrX", 1},
        {"chrx", "X", 1},
        {"X", "XY", 0},
        {"2L,2R", "2l", 0},
        {"2L,2R", "2R", 1},
        {"2L,2R", "3L", 0},
        {"HLA-A", "HLA-A", 1},
        {"HLA-A", "HLA-B", 0},
        {"1-22,MT", "MT", 1},
        {"5", "5", 1},
        {"5", "15", 0},
        {"GL000192.1", "GL000192.1", 1},
        {"3-3", "3", 1},
        {"22-1", "5", -1},
        {"", "1", -1},
        {"1,,2", "1", -1},
        {"1,", "1", -1},
        {"chr", "1", -1},
        {"1-1000000000", "5", 0},
        {"a-b", "a-b", 1},
        {"1-22", "1-22", 0},
        {"X", "23", 1},
        {"chr23", "X", 1},
        {"y", "chrY", 1},
        {"1-24", "Y", 1},
        {"M", "MT", 1},
        {"1-22,MT", "chrM", 1},
        {"2l", "2l", 1},
        {"0", "0", 1},
        {"chr1-chr3", "chr4", 0},
        {"Un_gl", "chrUn_gl", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int got = gsvd_chr_chooses(cases[i].list, cases[i].name);
        if (got != cases[i].want)
            fprintf(stderr, "--chr '%s' on '%s': %d, want %d\n", cases[i].list, cases[i].name, got,
                    cases[i].want);
        GSVD_CHECK(got == cases[i].want);
    }
}

/* gsvd_chr_one: one contig, as plink2 wants --chr with --from-bp/--to-bp */
static void check_one(void)
{
    static const struct {
        const char *list;
        int want;
    } cases[] = {
        {"6", 1},   {"chr6", 1},   {"X", 1},   {"2L", 1}, {"HLA-A", 1}, {"3-3", 1},
        {"1-2", 0}, {"chr1-2", 0}, {"1,2", 0}, {"6,", 0}, {"", 0},      {"X-Y", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int got = gsvd_chr_one(cases[i].list);
        if (got != cases[i].want)
            fprintf(stderr, "gsvd_chr_one('%s'): %d, want %d\n", cases[i].list, got, cases[i].want);
        GSVD_CHECK(got == cases[i].want);
    }
}

static void check_autosomes(void)
{
    static const char *const counted[] = {"1",  "chr2", "22",         "XY",
                                          "25", "0",    "GL000192.1", "HLA-A"};
    static const char *const left_out[] = {"X",  "chrX", "x", "23",   "Y",
                                           "24", "MT",   "M", "chrM", "26"};
    for (size_t i = 0; i < sizeof counted / sizeof *counted; i++)
        GSVD_CHECK(gsvd_contig_is_autosomal(counted[i]) == 1);
    for (size_t i = 0; i < sizeof left_out / sizeof *left_out; i++)
        GSVD_CHECK(gsvd_contig_is_autosomal(left_out[i]) == 0);
}

int main(int argc, char **argv)
{
    int rc = gsvd_test_args(argc, argv, "test_chr_select");
    if (rc)
        return rc;
    check_lists();
    check_one();
    check_autosomes();
    return gsvd_test_report("test_chr_select");
}
