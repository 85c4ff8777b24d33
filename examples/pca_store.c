/* examples/pca_store.c - principal components of a genotype store, written as Zarr.
 *
 *   pca_store STORE OUT [K]
 *
 * Reads STORE (a VCF-Zarr directory, zip or URL), computes K principal components (10) and
 * writes them to OUT with the arrays and attributes `gensvd pca -k K -o OUT STORE` writes;
 * prints the singular values.  Build: cc pca_store.c $(pkg-config --cflags --libs gensvd) */
#include <gensvd.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    gensvd_ctx *ctx = gensvd_ctx_new();
    gensvd_source *src = NULL;
    gensvd_options *opt = NULL;
    gensvd_dest *out = NULL;
    gensvd_result *res = NULL;
    struct gensvd_array_view s;
    int rc;

    if (argc < 3 || !ctx) {
        fprintf(stderr, "usage: pca_store STORE OUT [K]\n");
        return 2;
    }
    rc = gensvd_source_open(ctx, argv[1], &src);
    if (rc == GENSVD_OK)
        rc = gensvd_options_new(ctx, GENSVD_PCA, &opt);
    if (rc == GENSVD_OK && argc > 3)
        rc = gensvd_options_set_string(opt, "components", argv[3]);
    if (rc == GENSVD_OK)
        rc = gensvd_dest_new(ctx, argv[2], &out);
    if (rc == GENSVD_OK) /* checks OUT first, reads STORE, writes OUT when done */
        rc = gensvd_run(ctx, opt, src, out, &res);
    if (rc == GENSVD_OK)
        rc = gensvd_result_array(res, "sample_pca_singular_value", &s);
    if (rc == GENSVD_OK)
        for (uint64_t q = 0; q < s.shape[0]; q++)
            printf("PC%llu\t%.6g\n", (unsigned long long)q + 1, ((const double *)s.data)[q]);
    else
        fprintf(stderr, "pca_store: %s\n", gensvd_ctx_last_error(ctx));
    gensvd_result_free(res);
    gensvd_dest_free(out);
    gensvd_options_free(opt);
    gensvd_source_free(src);
    gensvd_ctx_free(ctx);
    return rc == GENSVD_OK ? 0 : 1;
}
