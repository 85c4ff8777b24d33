/* cli/pca_text.c - `gensvd pca`'s text outputs (cli/pca_out.h): the scores on stdout, plink2's
 * .eigenvec/.eigenval and --outlier-out, each file written under a temporary name and renamed
 * into place. */
#include "gsvd_config.h"
#include "cli/pca_out.h"

#include <errno.h>
#include <stdio.h>
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

int gsvd_cli_pca_plink(const char *prefix, size_t n, size_t k, const char *const *ids,
                       const double *u, const double *scores, const double *s, uint64_t m_used)
{
    struct text_file t;
    int rc = text_open(&t, prefix, ".eigenvec");

    if (rc != GENSVD_OK)
        return rc;
    fputs("#IID", t.fp);
    for (size_t q = 0; q < k; q++)
        fprintf(t.fp, "\tPC%zu", q + 1);
    fputc('\n', t.fp);
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
