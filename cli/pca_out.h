/* cli/pca_out.h - what `gensvd pca` prints and writes besides its Zarr group, from plain
 * arrays and numbers: the text outputs (cli/pca_text.c: the TSV of the scores on stdout, plink2's
 * .eigenvec/.eigenval, smartpca's .evec, --outlier-out) and the summary on stderr
 * (cli/pca_summary.c: the lines of the run, the Tracy-Widom table, the outlier rounds, the closing
 * "wrote" line).  Names nothing of gensvd's internals: the command fills these from its run
 * (cli/cmd_pca.c). Thread safety: main thread only. */
#ifndef GSVD_CLI_PCA_OUT_H
#define GSVD_CLI_PCA_OUT_H
#include <stddef.h>
#include <stdint.h>

/* The scores on stdout: a "sample_id PC1 .. PCk" header, then per sample its ID and its k
 * scores (scores[i * k + q], U S; or scores NULL: u[i * k + q] * s[q] from the n x k unit
 * vectors u and the k singular values s) as %.17g, tab-separated.  GENSVD_OK, or GENSVD_EIO
 * (reported) when stdout failed. */
int gsvd_cli_pca_tsv(size_t n, size_t k, const char *const *ids, const double *scores,
                     const double *u, const double *s);

/* PREFIX.eigenvec (#IID, PC1..PCk: the unit eigenvectors U, %g) and PREFIX.eigenval
 * (s^2 / m_used per component, %g), as plink2 --pca writes them, each written under a
 * temporary name and renamed into place.  u: n x k unit vectors, or NULL: scores / s, from
 * scores (n x k, U S).  GENSVD_OK, or GENSVD_EIO after reporting the file. */
int gsvd_cli_pca_plink(const char *prefix, size_t n, size_t k, const char *const *ids,
                       const double *u, const double *scores, const double *s, uint64_t m_used);

/* The variants of plink2's allele weights: m each (borrowed), row j used when included[j]. */
struct gsvd_cli_pca_variants {
    size_t m;
    const char *const *contig, *const *alleles; /* alleles "REF,ALT[,...]" */
    const char *const *name;                    /* the input's IDs, or NULL */
    const int64_t *pos;
    const uint8_t *included;
};

/* PREFIX.eigenvec.allele as plink2 --pca allele-wts writes it: "#CHROM ID REF ALT A1 PC1..PCk",
 * per biallelic included variant a REF row and an ALT row with weights -/+ v[j * k + q]
 * sqrt(m_used) / 2 (%g), so that plink2 --score ... variance-standardize sums to sqrt(m_used)
 * times the scores of --scaler hwe; the ID is the variant's name, or CONTIG:POS:REF:ALT
 * without names.  *n_multi counts the included variants with more than two alleles, which have
 * no rows.  Written as gsvd_cli_pca_plink writes its files.  GENSVD_OK, or GENSVD_EIO after
 * reporting it. */
int gsvd_cli_pca_allele_wts(const char *prefix, const struct gsvd_cli_pca_variants *var, size_t k,
                            const double *v, uint64_t m_used, size_t *n_multi);

/* --outlier-out: "#sample_id iter pc sigmage", then the removed samples round by round
 * (1..n_rounds), each round in the order of ids (round[i] 0: kept), sigma as %.3f; written
 * as gsvd_cli_pca_plink writes its files.  GENSVD_OK, or GENSVD_EIO after reporting it. */
int gsvd_cli_pca_outlier_file(const char *path, size_t n, const char *const *ids,
                              const int64_t *round, const int64_t *pc, const double *sigma,
                              size_t n_rounds);

/* An EIGENSTRAT .ind file (smartpca's indivname): per line a sample ID, its sex and its label
 * (population, Case or Control), separated by white space. */
struct gsvd_cli_ind_row {
    const char *id, *label; /* into the lines */
};
struct gsvd_cli_ind {
    char **lines; /* n_lines, owned (gsvd_cli_read_id_list's), cut in place */
    size_t n_lines;
    struct gsvd_cli_ind_row *rows; /* n (the lines not blank), owned, by strcmp order of id */
    size_t n;
};

/* Read `path` into *ind (zeroed first; free with gsvd_cli_ind_free, also after a failure).
 * Lines of blanks only are skipped.  GENSVD_OK; GENSVD_EIO (reported: "PATH: REASON"),
 * GENSVD_EFORMAT (reported: a line without three columns, an ID listed twice, no samples),
 * GENSVD_ENOMEM (reported). */
int gsvd_cli_ind_read(const char *path, struct gsvd_cli_ind *ind);
void gsvd_cli_ind_free(struct gsvd_cli_ind *ind);

/* PREFIX.evec as smartpca writes it with hiprecision: a "#eigvals:" line with the k eigenvalues
 * in smartpca's scale (summing to n_fit - 1 over all of them: (n_fit - 1) ratio[q], n_fit the
 * samples the PCs are of, ratio the explained variance ratio), then per sample (n) its ID, its
 * k entries u[i * k + q] (%12.6f) and its label from ind ("???" when ind is NULL or lacks the
 * ID).  Written as gsvd_cli_pca_plink writes its files.  GENSVD_OK, or GENSVD_EIO after
 * reporting. */
int gsvd_cli_pca_eigensoft(const char *prefix, size_t n, size_t n_fit, size_t k,
                           const char *const *ids, const double *u, const double *ratio,
                           const struct gsvd_cli_ind *ind);
/* PREFIX.eval as smartpca writes it: every eigenvalue (n, the samples the PCs are of, w the
 * Gram's descending) on smartpca's scale, (n - 1) w[j] / sum(w), one per line (%12.6f).
 * Written as gsvd_cli_pca_eigensoft writes the .evec.  GENSVD_OK, or GENSVD_EIO after
 * reporting. */
int gsvd_cli_pca_eval(const char *prefix, size_t n, const double *w);
/* PREFIX.snpwt as smartpca writes its snpweightoutname file (hiprecision): per included
 * variant its ID (the input's name, or CONTIG:POS:REF:ALT), smartpca's chromosome number (the
 * contig without "chr", X 23, Y 24, MT 90, XY 91; other names as they are), its position and
 * its k weights sqrt(m_scale) v[j * k + q] ("%20s %2d %12d", " %12.6f" each): the loadings
 * with unit mean square over smartpca's m_scale SNPs.  Written as gsvd_cli_pca_eigensoft
 * writes the .evec.  GENSVD_OK, or GENSVD_EIO after reporting. */
int gsvd_cli_pca_snpwt(const char *prefix, const struct gsvd_cli_pca_variants *var, size_t k,
                       const double *v, uint64_t m_scale);

/* A run as the summary reports it (all borrowed). */
struct gsvd_cli_pca_summary {
    size_t n, k; /* the samples the PCs are of, the components */
    /* the variants: kept of the range, and why the others were dropped */
    uint64_t m_kept, m_range, m_no_calls, m_zero_var, m_maf, m_missing, m_mask;
    uint64_t m_hwe;         /* dropped by --hwe */
    int hwe;                /* --hwe was given */
    uint64_t missing_calls; /* calls set to the mean */
    const char *method;     /* the method run: "exact", "randomized", "krylov", "subspace" */
    int exact;              /* method is exact */
    double gram_error;      /* > 0: exact from int8 tiles, weights within this */
    int subspace_stop;      /* an iterative method stopped by the subspace rule */
    size_t iterations;
    int converged;      /* 1, 0, or -1 for a fixed pass count (--power-iter) */
    double convergence; /* the final 1 - MEV */
    const double *s, *error_bound, *error_estimate; /* k each */
    double trace; /* the sum of all squared singular values (not finite: unknown) */
    /* the command's settings */
    int bulk;             /* --accuracy bulk */
    const char *accuracy; /* "fast" or "bulk" */
    double tol;
    size_t max_iter; /* the passes the run stopped at when not converged: --max-iter, or
                        --power-iter */
    /* --tw: k each, or tw_stat NULL */
    const double *tw_stat, *tw_pvalue, *tw_neff;
    size_t tw_m; /* the eigenvalues the statistics are over */
    /* --outlier-iter: the starting set's n_start samples, round[i] the round that removed
     * sample i (0: kept); round NULL: no outlier removal */
    const int64_t *round;
    size_t n_start, n_removed, n_rounds;
};

/* The summary on stderr at the default level (nothing under -q): what was used, how it was
 * solved, the singular values (with their error bounds or estimates when not exact), the
 * variance each PC explains, the outlier rounds and the Tracy-Widom table. */
void gsvd_cli_pca_report(const struct gsvd_cli_pca_summary *r);

/* The summary's last line: where the results went (-o `output`, --plink `plink` with
 * `plink_alleles` its .eigenvec.allele, --eigensoft `eigensoft` with the files of
 * `eigensoft_more` (GSVD_CLI_EIGENSOFT_* bits) besides its .evec, --outlier-out `outlier_out`,
 * each NULL when not given; `tsv`: the scores on stdout), and the time the run took. */
#define GSVD_CLI_EIGENSOFT_EVAL 1u  /* PREFIX.eval */
#define GSVD_CLI_EIGENSOFT_SNPWT 2u /* PREFIX.snpwt */
void gsvd_cli_pca_done(const char *output, const char *plink, int plink_alleles,
                       const char *eigensoft, unsigned eigensoft_more, const char *outlier_out,
                       int tsv);

#endif /* GSVD_CLI_PCA_OUT_H */
