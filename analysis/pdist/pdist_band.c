/* analysis/pdist/pdist_band.c - helpers every pdist kernel uses (pdist_internal.h): band
 * accumulators, stripes as float64, haplotype columns as feature rows (p-distance).  Apart from the
 * engine (pdist.c), which names the kernels, so that the kernels depend on this file and not on the
 * engine. */
#include "gsvd_config.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "analysis/pdist/pdist_internal.h"
#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"

int gsvd_pd_band_acc(void **buf, size_t *cap, size_t n_rows, size_t n_cols, size_t per_pair,
                     size_t elem)
{
    size_t cells;
    if (gsvd_mul_size(n_rows, n_cols, &cells) < 0 || gsvd_mul_size(cells, per_pair, &cells) < 0 ||
        cells > SIZE_MAX / elem)
        return GSVD_ENOMEM;
    if (cells > *cap || !*buf) {
        gsvd_free(*buf);
        *buf = gsvd_alloc_large((cells ? cells : 1) * elem);
        *cap = *buf ? cells : 0;
        if (!*buf)
            return GSVD_ENOMEM;
    }
    memset(*buf, 0, cells * elem);
    return GSVD_OK;
}

int gsvd_pd_stripe_f64(const struct pd_stripe *s, size_t n, int item_major, double **buf,
                       size_t *cap)
{
    size_t nf = s->n_feat, cells;
    if (gsvd_mul_size(n, nf, &cells) < 0)
        return GSVD_ENOMEM;
    if (cells > *cap) {
        double *b = gsvd_realloc(*buf, cells * sizeof *b);
        if (!b)
            return GSVD_ENOMEM;
        *buf = b;
        *cap = cells;
    }
    for (size_t f = 0; f < nf; f++)
        for (size_t i = 0; i < n; i++)
            (*buf)[item_major ? i * nf + f : f * n + i] = pd_value(s, i, f);
    return GSVD_OK;
}

int gsvd_pd_haplotype_rows(const int8_t *blk, size_t rows, size_t n, size_t haps, int8_t **buf,
                           size_t *cap)
{
    size_t need;
    if (gsvd_mul_size(rows, n, &need) < 0 || gsvd_mul_size(need, haps, &need) < 0)
        return GSVD_ENOMEM;
    if (need > *cap) {
        gsvd_free(*buf);
        *cap = 0;
        *buf = gsvd_malloc(need ? need : 1);
        if (!*buf)
            return GSVD_ENOMEM;
        *cap = need;
    }
    for (size_t h = 0; h < haps; h++)
        for (size_t v = 0; v < rows; v++) {
            const int8_t *src = blk + v * n * haps + h;
            int8_t *dst = *buf + (h * rows + v) * n;
            for (size_t i = 0; i < n; i++)
                dst[i] = src[i * haps];
        }
    return GSVD_OK;
}
