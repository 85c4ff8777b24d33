/* tests/unit/test_var_list.c - the files of `--extract`, `--exclude` and their -bed and -range
 * forms (analysis/scan/var_list.h): IDs as plink2 reads them (every word; duplicates once),
 * BED's 0-based half-open and the 1-based closed bounds, the lines skipped, the lines refused
 * (as plink2 2.00a3.5 refuses them: fewer than three columns, a bound that is not a whole
 * number, END before START, and for BED END = START), and contig names compared as `--chr`
 * compares them (gsvd_chr_same); and the sample-ID files of `--keep` and `--remove`
 * (sample_list.h) in the forms plink2 writes and reads them: "#FID IID" and "#IID" headers,
 * FID IID lines, one ID a line. */
#include "gsvd_config.h"

#include <stdio.h>
#include <string.h>

#include "analysis/scan/chr_select.h"
#include "analysis/scan/sample_list.h"
#include "analysis/scan/var_list.h"
#include "common/err.h"
#include "common/log.h"
#include "gsvd_test.h"

static int parse(const char *text, enum gsvd_var_list_kind kind, struct gsvd_var_list *l)
{
    return gsvd_var_list_parse(text, strlen(text), kind, 0, "f.txt", l);
}

static void check_ids(void)
{
    struct gsvd_var_list l;
    static const char *const want[] = {"#", "a", "b", "c", "rs1"};
    GSVD_CHECK(parse("b a\tc\r\n\n# rs1\n  a  \n", GSVD_VAR_LIST_IDS, &l) == GSVD_OK);
    GSVD_CHECK(l.ids.n == 5);
    for (size_t i = 0; i < l.ids.n && i < 5; i++)
        GSVD_CHECK(strcmp(l.ids.items[i], want[i]) == 0);
    gsvd_var_list_free(&l);
    GSVD_CHECK(parse("", GSVD_VAR_LIST_IDS, &l) == GSVD_OK && l.ids.n == 0);
    gsvd_var_list_free(&l);
    GSVD_CHECK(gsvd_var_list_parse("a\0b", 3, GSVD_VAR_LIST_IDS, 0, "f", &l) == GSVD_EFORMAT);
}

static void check_ranges(void)
{
    struct gsvd_var_list l;
    const char *text = "track name=x\nbrowser position chr1\n# comment\n\nchr6\t10\t20\tMHC\n"
                       "6 30 40\r\nchr6 50 60 x y z\n";
    GSVD_CHECK(parse(text, GSVD_VAR_LIST_BED0, &l) == GSVD_OK);
    GSVD_CHECK(l.n_range == 3 && l.contigs.n == 2);
    if (l.n_range == 3) {
        GSVD_CHECK(l.range[0].lo == 11 && l.range[0].hi == 20 && l.range[0].contig == 0);
        GSVD_CHECK(l.range[1].lo == 31 && l.range[1].hi == 40 && l.range[1].contig == 1);
        GSVD_CHECK(l.range[2].contig == 0);
    }
    gsvd_var_list_free(&l);
    GSVD_CHECK(parse(text, GSVD_VAR_LIST_BED1, &l) == GSVD_OK && l.n_range == 3);
    if (l.n_range == 3)
        GSVD_CHECK(l.range[0].lo == 10 && l.range[0].hi == 20);
    gsvd_var_list_free(&l);
    /* a one-position range: END = START is empty in BED, one position when closed */
    GSVD_CHECK(parse("1 5 5\n", GSVD_VAR_LIST_BED0, &l) == GSVD_EFORMAT);
    GSVD_CHECK(parse("1 5 5\n", GSVD_VAR_LIST_BED1, &l) == GSVD_OK && l.n_range == 1 &&
               l.range[0].lo == 5 && l.range[0].hi == 5);
    gsvd_var_list_free(&l);
    GSVD_CHECK(parse("1 0 4611686018427387904\n", GSVD_VAR_LIST_BED1, &l) == GSVD_OK);
    gsvd_var_list_free(&l);
    static const char *const refused[] = {
        "1 5\n",
        "1\n",
        "1 a 5\n",
        "1 5 b\n",
        "1 -1 5\n",
        "1 6 5\n",
        "1 1.5e3 9\n",
        "1 0x10 99\n",
        "1 +1 5\n",
        "1 0 4611686018427387905\n",
        "1 0 99999999999999999999\n",
        "ok 1 2\n1 2\n",
        "1 0 9223572036854775802\n",
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        GSVD_CHECK(parse(refused[i], GSVD_VAR_LIST_BED0, &l) == GSVD_EFORMAT);
        GSVD_CHECK(parse(refused[i], GSVD_VAR_LIST_BED1, &l) == GSVD_EFORMAT);
    }
}

static void check_same(void)
{
    GSVD_CHECK(gsvd_chr_same("chr6", "6") && gsvd_chr_same("CHR6", "chr6"));
    GSVD_CHECK(gsvd_chr_same("X", "23") && gsvd_chr_same("chrM", "MT"));
    GSVD_CHECK(!gsvd_chr_same("6", "16") && !gsvd_chr_same("X", "XY"));
    GSVD_CHECK(gsvd_chr_same("HLA-A", "HLA-A") && !gsvd_chr_same("HLA-A", "hla-a"));
    GSVD_CHECK(!gsvd_chr_same("chrUn_gl1", "Un_gl1") && !gsvd_chr_same("2L", "2"));
}

/* The IIDs of text, sorted, as one space-separated string (or "ERR"). */
static const char *iids(const char *text)
{
    static char out[256];
    struct gsvd_strlist l = GSVD_STRLIST_INIT;
    size_t at = 0;
    if (gsvd_sample_list_parse(text, strlen(text), "k.txt", &l) != GSVD_OK)
        return "ERR";
    out[0] = '\0';
    for (size_t i = 0; i < l.n && at + strlen(l.items[i]) + 2 < sizeof out; i++)
        at += (size_t)snprintf(out + at, sizeof out - at, "%s%s", i ? " " : "", l.items[i]);
    gsvd_strlist_free(&l);
    return out;
}

static void check_sample_lists(void)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"#FID\tIID\nf1\ta\nf2\tb\n", "a b"},
        {"#IID\tSEX\nb\t1\na\t2\n", "a b"},
        {"#FID IID PAT MAT\n0 x 0 0\n", "x"},
        {"a\nb\n\n# comment\nc\n", "a b c"},
        {"f1 a\nf2 b extra\nc\n", "a b c"},
        {"a\r\na\r\n", "a"},
        {"", ""},
        {"# only a comment\n", ""},
        {"x\n#FID IID\ny z\n", "x z"}, /* a header only as the first line */
        {"#FID\tPAT\na b\n", "ERR"},
        {"#FID IID\nonly\n", "ERR"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *got = iids(cases[i].text);
        if (strcmp(got, cases[i].want) != 0)
            fprintf(stderr, "sample list %zu: '%s', want '%s'\n", i, got, cases[i].want);
        GSVD_CHECK(strcmp(got, cases[i].want) == 0);
    }
}

int main(int argc, char **argv)
{
    int rc = gsvd_test_args(argc, argv, "test_var_list");
    if (rc)
        return rc;
    gsvd_log_set_level(GSVD_LOG_OFF);
    check_ids();
    check_ranges();
    check_same();
    check_sample_lists();
    return gsvd_test_report("test_var_list");
}
