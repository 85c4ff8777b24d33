/* examples/pdist_memory.c - pairwise distances of genotypes held in memory.
 *
 *   pdist_memory STORE OUT [METRIC]
 *
 * A program (or a Python or R binding) that already holds its genotypes in memory hands them
 * to gensvd in place, as VCF-Zarr's arrays: call_genotype (variants x samples x ploidy, int8,
 * -1 missing) and sample_id.  Here they come from STORE, read with gensvd_store_read for the
 * example's sake; any array with a pointer, a shape and strides would do.  The distances
 * (METRIC, default ibs) are written to OUT as `gensvd pdist -m METRIC -o OUT STORE` writes
 * them.  Build: cc pdist_memory.c $(pkg-config --cflags --libs gensvd) */
#include <gensvd.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    gensvd_ctx *ctx = gensvd_ctx_new();
    gensvd_result *gt = NULL, *ids = NULL, *res = NULL;
    struct gensvd_array_view g, s;
    gensvd_source *src = NULL;
    gensvd_options *opt = NULL;
    gensvd_dest *out = NULL;
    int rc;

    if (argc < 3 || !ctx) {
        fprintf(stderr, "usage: pdist_memory STORE OUT [METRIC]\n");
        return 2;
    }
    /* the caller's arrays */
    rc = gensvd_store_read(ctx, argv[1], "call_genotype", NULL, NULL, &gt);
    if (rc == GENSVD_OK)
        rc = gensvd_store_read(ctx, argv[1], "sample_id", NULL, NULL, &ids);
    if (rc == GENSVD_OK)
        rc = gensvd_result_array(gt, "call_genotype", &g);
    if (rc == GENSVD_OK)
        rc = gensvd_result_array(ids, "sample_id", &s);
    /* an in-memory source over them: nothing is copied (strides NULL: C order) */
    if (rc == GENSVD_OK)
        rc = gensvd_source_new(ctx, &src);
    if (rc == GENSVD_OK)
        rc = gensvd_source_add_array(src, "call_genotype", g.data, g.dtype, g.ndim, g.shape, NULL);
    if (rc == GENSVD_OK)
        rc = gensvd_source_add_array(src, "sample_id", s.data, s.dtype, s.ndim, s.shape, NULL);
    if (rc == GENSVD_OK) /* the input's name in the output's attributes */
        rc = gensvd_source_set_string(src, "name", argv[1]);
    if (rc == GENSVD_OK)
        rc = gensvd_options_new(ctx, GENSVD_PDIST, &opt);
    if (rc == GENSVD_OK)
        rc = gensvd_options_set_string(opt, "metric", argc > 3 ? argv[3] : "ibs");
    if (rc == GENSVD_OK)
        rc = gensvd_dest_new(ctx, argv[2], &out);
    if (rc == GENSVD_OK)
        rc = gensvd_run(ctx, opt, src, out, &res);
    if (rc != GENSVD_OK)
        fprintf(stderr, "pdist_memory: %s\n", gensvd_ctx_last_error(ctx));
    gensvd_result_free(res);
    gensvd_dest_free(out);
    gensvd_options_free(opt);
    gensvd_source_free(src); /* before the arrays it reads */
    gensvd_result_free(gt);
    gensvd_result_free(ids);
    gensvd_ctx_free(ctx);
    return rc == GENSVD_OK ? 0 : 1;
}
