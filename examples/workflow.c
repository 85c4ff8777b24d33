/* examples/workflow.c - ancestry PCs in four steps: LD pruning, unrelated samples, PCA,
 * projection.
 *
 *   workflow STORE OUTDIR
 *
 * 1. ldprune   variants in approximate linkage equilibrium      OUTDIR/ldprune.zarr
 * 2. related   a maximal set of unrelated samples (KING)         OUTDIR/related.zarr
 * 3. pca       10 PCs of the unrelated samples on the kept variants, with loadings
 *                                                                OUTDIR/pca.zarr
 * 4. project   every sample placed on those PCs                  OUTDIR/project.zarr
 *
 * The masks pass from step to step in memory (gensvd_source_set_mask).  The outputs are those
 * of the command line's
 *   gensvd ldprune --r2 0.2 --window 500kb -o ldprune.zarr STORE
 *   gensvd related -o related.zarr STORE
 *   gensvd pca -k 10 --loadings --variant-mask ldprune.zarr --sample-mask related.zarr \
 *       -o pca.zarr STORE
 *   gensvd project --pcs OUTDIR/pca.zarr -o project.zarr STORE
 * Build: cc workflow.c $(pkg-config --cflags --libs gensvd) */
#include <gensvd.h>
#include <stdio.h>

/* Run one analysis on src with options given as name, value pairs (NULL-terminated), write it
 * to OUTDIR/NAME; *res gets the result. */
static int step(gensvd_ctx *ctx, enum gensvd_analysis an, gensvd_source *src, const char *outdir,
                const char *name, const char *const *opts, gensvd_result **res)
{
    gensvd_options *opt = NULL;
    gensvd_dest *out = NULL;
    char path[4096];
    int rc = gensvd_options_new(ctx, an, &opt);

    for (size_t i = 0; rc == GENSVD_OK && opts[i]; i += 2)
        rc = gensvd_options_set_string(opt, opts[i], opts[i + 1]);
    snprintf(path, sizeof path, "%s/%s", outdir, name);
    if (rc == GENSVD_OK)
        rc = gensvd_dest_new(ctx, path, &out);
    if (rc == GENSVD_OK)
        rc = gensvd_run(ctx, opt, src, out, res);
    if (rc != GENSVD_OK)
        fprintf(stderr, "workflow: %s: %s\n", name, gensvd_ctx_last_error(ctx));
    gensvd_dest_free(out);
    gensvd_options_free(opt);
    return rc;
}

/* A mask from a result's bool array, onto the source. */
static int mask(gensvd_source *src, const char *which, const gensvd_result *res, const char *array)
{
    struct gensvd_array_view v;
    int rc = gensvd_result_array(res, array, &v);
    if (rc == GENSVD_OK)
        rc = gensvd_source_set_mask(src, which, v.data, (size_t)v.shape[0]);
    return rc;
}

int main(int argc, char **argv)
{
    static const char *const ld_opts[] = {"r2", "0.2", "window", "500kb", NULL};
    static const char *const rel_opts[] = {NULL};
    static const char *const pca_opts[] = {"components", "10", "loadings", "1", NULL};
    const char *prj_opts[] = {"pcs", NULL, NULL};
    gensvd_ctx *ctx = gensvd_ctx_new();
    gensvd_source *src = NULL;
    gensvd_result *ld = NULL, *rel = NULL, *pcs = NULL, *prj = NULL;
    char pcs_path[4096];
    int rc;

    if (argc != 3 || !ctx) {
        fprintf(stderr, "usage: workflow STORE OUTDIR\n");
        return 2;
    }
    rc = gensvd_source_open(ctx, argv[1], &src);
    if (rc == GENSVD_OK)
        rc = step(ctx, GENSVD_LDPRUNE, src, argv[2], "ldprune.zarr", ld_opts, &ld);
    if (rc == GENSVD_OK)
        rc = step(ctx, GENSVD_RELATED, src, argv[2], "related.zarr", rel_opts, &rel);
    /* the PCs: kept variants, unrelated samples */
    if (rc == GENSVD_OK)
        rc = mask(src, "variant-mask", ld, "variant_ld_keep");
    if (rc == GENSVD_OK)
        rc = mask(src, "sample-mask", rel, "sample_unrelated");
    if (rc == GENSVD_OK)
        rc = step(ctx, GENSVD_PCA, src, argv[2], "pca.zarr", pca_opts, &pcs);
    /* every sample on them: the masks cleared */
    if (rc == GENSVD_OK)
        rc = gensvd_source_set_mask(src, "variant-mask", NULL, 0);
    if (rc == GENSVD_OK)
        rc = gensvd_source_set_mask(src, "sample-mask", NULL, 0);
    snprintf(pcs_path, sizeof pcs_path, "%s/pca.zarr", argv[2]);
    prj_opts[1] = pcs_path;
    if (rc == GENSVD_OK)
        rc = step(ctx, GENSVD_PROJECT, src, argv[2], "project.zarr", prj_opts, &prj);
    if (rc == GENSVD_OK) {
        double kept = 0, unrelated = 0;
        gensvd_result_attr_double(ld, "n_kept", &kept);
        gensvd_result_attr_double(rel, "n_unrelated", &unrelated);
        printf("%.0f variants kept, %.0f unrelated samples; PCs in %s\n", kept, unrelated,
               pcs_path);
    }
    gensvd_result_free(prj);
    gensvd_result_free(pcs);
    gensvd_result_free(rel);
    gensvd_result_free(ld);
    gensvd_source_free(src);
    gensvd_ctx_free(ctx);
    return rc == GENSVD_OK ? 0 : 1;
}
