/* cli/pca_text.c - `gensvd pca`'s text outputs (cli/pca_out.h): the scores on stdout, plink2's
 * .eigenvec/.eigenval, smartpca's .evec (with the labels of an EIGENSTRAT .ind file) and
 * --outlier-out, each file written under a temporary name and renamed into place. */
#include "gsvd_config.h"
#include "cli/pca_out.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_base.h"
#include "include/gensvd.h"

/* Longer names than this fail to open anyway (PATH_MAX): they are reported as too long. */
#define PCA_TEXT_PATH 8192

int gsvd_cli_pca_tsv(size_t n, size_t k, const char *const *ids, const double *scores,
                     const double *u, const double *s)
{
    printf("sample_id");
    for (size_t q = 0; q < k; q++)
        printf("\tPC%zu", q + 1);
    putchar('\n');
    for (size_t i = 0; i < n; i++) {
        fputs(ids[i], stdout);
        for (size_t q = 0; q < k; q++)
            printf("\t%.17g", scores ? scores[i * k + q] : u[i * k + q] * s[q]);
        putchar('\n');
    }
    return gsvd_cli_stdout_done(); /* before the summary says where the scores went */
}

/* "PREFIXEXT[SUFFIX]" into out (PCA_TEXT_PATH bytes); 0, or -1 when it does not fit. */
static int text_path(char *out, const char *prefix, const char *ext, const char *suffix)
{
    int w = snprintf(out, PCA_TEXT_PATH, "%s%s%s", prefix, ext, suffix);
    return w >= 0 && w < PCA_TEXT_PATH ? 0 : -1;
}

/* "PREFIXEXT.tmp: cannot write: REASON" as an error line. */
static void write_failed(const char *prefix, const char *ext, int err)
{
    char msg[2048];
    snprintf(msg, sizeof msg, "%s%s.tmp: cannot write: %s", prefix, ext, strerror(err));
    gsvd_cli_msg_log(GENSVD_LOG_ERROR, msg);
}

/* A text file being written: PREFIXEXT.tmp, renamed to PREFIXEXT by text_close. */
struct text_file {
    const char *prefix, *ext;
    char tmp[PCA_TEXT_PATH];
    FILE *fp;
};

static int text_open(struct text_file *t, const char *prefix, const char *ext)
{
    t->prefix = prefix;
    t->ext = ext;
    t->fp = NULL;
    if (text_path(t->tmp, prefix, ext, ".tmp") < 0) {
        write_failed(prefix, ext, ENAMETOOLONG);
        return GENSVD_EIO;
    }
    if (!(t->fp = fopen(t->tmp, "w"))) {
        write_failed(prefix, ext, errno);
        return GENSVD_EIO;
    }
    return GENSVD_OK;
}

/* Close the file and rename it into place; on a failure, report it and remove the temporary
 * file (an unopened one is left alone). */
static int text_close(struct text_file *t)
{
    char path[PCA_TEXT_PATH], msg[2048];
    int bad, err;

    if (!t->fp)
        return GENSVD_EIO;
    bad = ferror(t->fp);
    err = errno;
    if (fclose(t->fp) != 0) {
        bad = 1;
        err = errno;
    }
    t->fp = NULL;
    if (bad) {
        write_failed(t->prefix, t->ext, err);
        remove(t->tmp);
        return GENSVD_EIO;
    }
    if (text_path(path, t->prefix, t->ext, "") < 0 || rename(t->tmp, path) != 0) {
        snprintf(msg, sizeof msg, "%s%s: cannot rename into place: %s", t->prefix, t->ext,
                 strerror(errno));
        gsvd_cli_msg_log(GENSVD_LOG_ERROR, msg);
        remove(t->tmp);
        return GENSVD_EIO;
    }
    return GENSVD_OK;
}

/* A header line: the leading columns, then PC1 .. PCk, tab-separated. */
static void pc_header(FILE *fp, const char *lead, size_t k)
{
    fputs(lead, fp);
    for (size_t q = 0; q < k; q++)
        fprintf(fp, "\tPC%zu", q + 1);
    fputc('\n', fp);
}

int gsvd_cli_pca_plink(const char *prefix, size_t n, size_t k, const char *const *ids,
                       const double *u, const double *scores, const double *s, uint64_t m_used)
{
    struct text_file t;
    int rc = text_open(&t, prefix, ".eigenvec");

    if (rc != GENSVD_OK)
        return rc;
    pc_header(t.fp, "#IID", k);
    for (size_t i = 0; i < n; i++) {
        fputs(ids[i], t.fp);
        for (size_t q = 0; q < k; q++)
            fprintf(t.fp, "\t%g", u ? u[i * k + q] : scores[i * k + q] / s[q]);
        fputc('\n', t.fp);
    }
    rc = text_close(&t);
    if (rc == GENSVD_OK)
        rc = text_open(&t, prefix, ".eigenval");
    if (rc != GENSVD_OK)
        return rc;
    for (size_t q = 0; q < k; q++)
        fprintf(t.fp, "%g\n", s[q] * s[q] / (double)m_used);
    return text_close(&t);
}

/* One row of the allele weights of variant j: its columns (alleles a: REF of length nr, a comma,
 * ALT), allele A1 (a + a1, of length n1) and its k weights w v[q]. */
static void allele_row(FILE *fp, const struct gsvd_cli_pca_variants *var, size_t j, int nr,
                       size_t a1, int n1, size_t k, const double *v, double w)
{
    const char *a = var->alleles[j];

    fprintf(fp, "%s\t", var->contig[j]);
    if (var->name)
        fputs(var->name[j], fp);
    else
        fprintf(fp, "%s:%lld:%.*s:%s", var->contig[j], (long long)var->pos[j], nr, a, a + nr + 1);
    fprintf(fp, "\t%.*s\t%s\t%.*s", nr, a, a + nr + 1, n1, a + a1);
    for (size_t q = 0; q < k; q++)
        fprintf(fp, "\t%g", w * v[q]);
    fputc('\n', fp);
}

int gsvd_cli_pca_allele_wts(const char *prefix, const struct gsvd_cli_pca_variants *var, size_t k,
                            const double *v, uint64_t m_used, size_t *n_multi)
{
    struct text_file t;
    double half = sqrt((double)m_used) / 2;
    int rc = text_open(&t, prefix, ".eigenvec.allele");

    *n_multi = 0;
    if (rc != GENSVD_OK)
        return rc;
    pc_header(t.fp, "#CHROM\tID\tREF\tALT\tA1", k);
    for (size_t j = 0; j < var->m; j++) {
        const char *a = var->alleles[j], *comma = strchr(a, ',');
        size_t nr = comma ? (size_t)(comma - a) : 0;
        if (!var->included[j])
            continue;
        if (!comma || strchr(comma + 1, ',') || nr > INT_MAX || strlen(comma + 1) > INT_MAX) {
            ++*n_multi; /* not two alleles: no rows */
            continue;
        }
        allele_row(t.fp, var, j, (int)nr, 0, (int)nr, k, v + j * k, -half);
        allele_row(t.fp, var, j, (int)nr, nr + 1, (int)strlen(comma + 1), k, v + j * k, half);
    }
    return text_close(&t);
}

int gsvd_cli_pca_outlier_file(const char *path, size_t n, const char *const *ids,
                              const int64_t *round, const int64_t *pc, const double *sigma,
                              size_t n_rounds)
{
    struct text_file t;
    int rc = text_open(&t, path, "");

    if (rc != GENSVD_OK)
        return rc;
    fputs("#sample_id\titer\tpc\tsigmage\n", t.fp);
    for (size_t r = 1; r <= n_rounds; r++)
        for (size_t i = 0; i < n; i++)
            if (round[i] == (int64_t)r)
                fprintf(t.fp, "%s\t%zu\t%lld\t%.3f\n", ids[i], r, (long long)pc[i], sigma[i]);
    return text_close(&t);
}

/* ---- smartpca's .evec ------------------------------------------------------------------------ */

/* "PATH: " and a message as an error line. */
static void ind_error(const char *path, const char *fmt, ...) GSVD_CLI_PRINTF(2, 3);
static void ind_error(const char *path, const char *fmt, ...)
{
    char what[1024], msg[2048];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(msg, sizeof msg, "%.1000s: %s", path, what);
    gsvd_cli_msg_log(GENSVD_LOG_ERROR, msg);
}

/* The next white-space separated field of *s (NUL-terminated in place), or NULL at the end. */
static char *next_field(char **s)
{
    char *p = *s, *f;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!*p)
        return NULL;
    f = p;
    while (*p && *p != ' ' && *p != '\t')
        p++;
    if (*p)
        *p++ = '\0';
    *s = p;
    return f;
}

static int ind_order(const void *a, const void *b)
{
    return strcmp(((const struct gsvd_cli_ind_row *)a)->id,
                  ((const struct gsvd_cli_ind_row *)b)->id);
}

int gsvd_cli_ind_read(const char *path, struct gsvd_cli_ind *ind)
{
    int rc;

    memset(ind, 0, sizeof *ind);
    if ((rc = gsvd_cli_read_id_list(path, &ind->lines, &ind->n_lines)) != GENSVD_OK)
        return rc;
    if (!(ind->rows = calloc(ind->n_lines, sizeof *ind->rows))) {
        gsvd_cli_msg_log(GENSVD_LOG_ERROR, "out of memory");
        return GENSVD_ENOMEM;
    }
    for (size_t i = 0; i < ind->n_lines; i++) { /* the fields, NUL-terminated in place */
        char *rest = ind->lines[i];
        struct gsvd_cli_ind_row *r = &ind->rows[ind->n];
        if (!(r->id = next_field(&rest)))
            continue; /* blanks only */
        ind->n++;
        if (!next_field(&rest) || !(r->label = next_field(&rest))) {
            ind_error(path,
                      "the line of \"%.200s\" has fewer than three columns (sample ID, sex, "
                      "label), as an EIGENSTRAT .ind needs",
                      r->id);
            return GENSVD_EFORMAT;
        }
    }
    if (ind->n == 0) {
        ind_error(path, "no samples");
        return GENSVD_EFORMAT;
    }
    qsort(ind->rows, ind->n, sizeof *ind->rows, ind_order);
    for (size_t i = 1; i < ind->n; i++)
        if (strcmp(ind->rows[i - 1].id, ind->rows[i].id) == 0) {
            ind_error(path, "sample ID \"%.200s\" is listed twice", ind->rows[i].id);
            return GENSVD_EFORMAT;
        }
    return GENSVD_OK;
}

void gsvd_cli_ind_free(struct gsvd_cli_ind *ind)
{
    gsvd_cli_free_id_list(ind->lines, ind->n_lines);
    free(ind->rows);
    memset(ind, 0, sizeof *ind);
}

static const char *ind_label(const struct gsvd_cli_ind *ind, const char *id)
{
    size_t lo = 0, hi = ind ? ind->n : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(ind->rows[mid].id, id);
        if (c == 0)
            return ind->rows[mid].label;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return "???";
}

int gsvd_cli_pca_eigensoft(const char *prefix, size_t n, size_t n_fit, size_t k,
                           const char *const *ids, const double *u, const double *ratio,
                           const struct gsvd_cli_ind *ind)
{
    struct text_file t;
    int rc = text_open(&t, prefix, ".evec");

    if (rc != GENSVD_OK)
        return rc;
    fprintf(t.fp, "%20s ", "#eigvals:");
    for (size_t q = 0; q < k; q++)
        fprintf(t.fp, "%9.3f ", (double)(n_fit - 1) * ratio[q]);
    fputc('\n', t.fp);
    for (size_t i = 0; i < n; i++) {
        fprintf(t.fp, "%20s ", ids[i]);
        for (size_t q = 0; q < k; q++)
            fprintf(t.fp, "%12.6f  ", u[i * k + q]);
        fprintf(t.fp, "%15s\n", ind_label(ind, ids[i]));
    }
    return text_close(&t);
}

int gsvd_cli_pca_eval(const char *prefix, size_t n, const double *w)
{
    struct text_file t;
    double sum = 0;
    int rc = text_open(&t, prefix, ".eval");

    if (rc != GENSVD_OK)
        return rc;
    for (size_t j = 0; j < n; j++)
        sum += w[j];
    for (size_t j = 0; j < n; j++)
        fprintf(t.fp, "%12.6f\n", sum > 0 ? (double)(n - 1) * w[j] / sum : 0.0);
    return text_close(&t);
}

/* smartpca's chromosome number: "chr" dropped, X 23, Y 24, MT 90, XY 91 (its numchrom 22,
 * MTCHROM, XYCHROM), a number as it is; -1 for other names. */
static long eigensoft_chrom(const char *c)
{
    char *end;
    long v;

    if (strncmp(c, "chr", 3) == 0)
        c += 3;
    if (!strcmp(c, "X") || !strcmp(c, "x"))
        return 23;
    if (!strcmp(c, "Y") || !strcmp(c, "y"))
        return 24;
    if (!strcmp(c, "MT") || !strcmp(c, "mt"))
        return 90;
    if (!strcmp(c, "XY") || !strcmp(c, "xy"))
        return 91;
    errno = 0;
    v = strtol(c, &end, 10);
    return *c >= '0' && *c <= '9' && !*end && !errno ? v : -1;
}

int gsvd_cli_pca_snpwt(const char *prefix, const struct gsvd_cli_pca_variants *var, size_t k,
                       const double *v, uint64_t m_scale)
{
    struct text_file t;
    double scale = sqrt((double)m_scale);
    int rc = text_open(&t, prefix, ".snpwt");

    if (rc != GENSVD_OK)
        return rc;
    for (size_t j = 0; j < var->m; j++) {
        const char *a = var->alleles[j], *comma = strchr(a, ',');
        long chrom = eigensoft_chrom(var->contig[j]);
        char id[512];

        if (!var->included[j])
            continue;
        if (var->name)
            fprintf(t.fp, "%20s", var->name[j]);
        else {
            int nr = comma ? (int)(comma - a) : (int)strlen(a);
            snprintf(id, sizeof id, "%s:%lld:%.*s:%s", var->contig[j], (long long)var->pos[j], nr,
                     a, comma ? comma + 1 : "");
            fprintf(t.fp, "%20s", id);
        }
        if (chrom >= 0)
            fprintf(t.fp, " %2ld", chrom);
        else
            fprintf(t.fp, " %2s", var->contig[j]);
        fprintf(t.fp, " %12lld", (long long)var->pos[j]);
        for (size_t q = 0; q < k; q++)
            fprintf(t.fp, " %12.6f", scale * v[j * k + q]);
        fputc('\n', t.fp);
    }
    return text_close(&t);
}
