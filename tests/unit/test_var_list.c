/* tests/unit/test_var_list.c - the files of `--extract`, `--exclude` and their -bed and -range
 * forms (analysis/scan/var_list.h): IDs as plink2 reads them (every word; duplicates once),
 * BED's 0-based half-open and the 1-based closed bounds, the lines skipped, the lines refused
 * (as plink2 2.00a3.5 refuses them: fewer than three columns, a bound that is not a whole
 * number, END before START, and for BED END = START), and contig names compared as `--chr`
 * compares them (gsvd_chr_same). */
#include "gsvd_config.h"

#include <string.h>

#include "analysis/scan/chr_select.h"
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

int main(int argc, char **argv)
{
    int rc = gsvd_test_args(argc, argv, "test_var_list");
    if (rc)
        return rc;
    gsvd_log_set_level(GSVD_LOG_OFF);
    check_ids();
    check_ranges();
    check_same();
    return gsvd_test_report("test_var_list");
}
