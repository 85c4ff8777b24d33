/* common/ndcopy.c - N-d box copy with merged contiguous runs. */
#include "gsvd_config.h"
#include "common/ndcopy.h"

#include <string.h>

void gsvd_ndcopy(size_t nd, const uint64_t *ext, size_t esz, const void *src, struct gsvd_ndbox s,
                 void *dst, struct gsvd_ndbox d)
{
    const unsigned char *sp = src;
    unsigned char *dp = dst;
    uint64_t pos[GSVD_NDCOPY_MAX_DIMS] = {0};
    size_t sstride[GSVD_NDCOPY_MAX_DIMS], dstride[GSVD_NDCOPY_MAX_DIMS];
    size_t run = esz, outer;

    for (size_t i = 0; i < nd; i++)
        if (ext[i] == 0)
            return;
    if (nd == 0) {
        memcpy(dp, sp, esz);
        return;
    }
    /* element strides of both arrays */
    sstride[nd - 1] = dstride[nd - 1] = 1;
    for (size_t i = nd - 1; i-- > 0;) {
        sstride[i] = sstride[i + 1] * (size_t)s.shape[i + 1];
        dstride[i] = dstride[i + 1] * (size_t)d.shape[i + 1];
    }
    /* merge trailing axes covered whole in both arrays into the run */
    outer = nd;
    while (outer > 0) {
        size_t a = outer - 1;
        run *= (size_t)ext[a];
        outer = a;
        if (!(ext[a] == s.shape[a] && ext[a] == d.shape[a]))
            break;
    }
    size_t sbase = 0, dbase = 0;
    for (size_t i = 0; i < nd; i++) {
        sbase += (size_t)s.origin[i] * sstride[i];
        dbase += (size_t)d.origin[i] * dstride[i];
    }
    for (;;) {
        size_t so = sbase, doff = dbase;
        for (size_t i = 0; i < outer; i++) {
            so += (size_t)pos[i] * sstride[i];
            doff += (size_t)pos[i] * dstride[i];
        }
        memcpy(dp + doff * esz, sp + so * esz, run);
        size_t i = outer;
        while (i-- > 0) {
            if (++pos[i] < ext[i])
                break;
            pos[i] = 0;
        }
        if (i == (size_t)-1)
            break;
    }
}

void gsvd_fill_elems(void *dst, size_t n, const void *value, size_t esz)
{
    const unsigned char *v = value;
    unsigned char *p = dst;
    int same = 1;

    for (size_t j = 1; j < esz; j++)
        same &= v[j] == v[0];
    if (same) {
        memset(p, v[0], n * esz);
        return;
    }
    if (n == 0)
        return;
    memcpy(p, v, esz);
    /* double the filled prefix each step */
    for (size_t done = 1; done < n;) {
        size_t k = done < n - done ? done : n - done;
        memcpy(p + done * esz, p, k * esz);
        done += k;
    }
}

void gsvd_f_to_c(const void *src, void *dst, const uint64_t *c, size_t nd, size_t esz)
{
    const unsigned char *sp = src;
    unsigned char *dp = dst;
    size_t idx[GSVD_NDCOPY_MAX_DIMS] = {0}, fstride[GSVD_NDCOPY_MAX_DIMS];
    size_t total = 1, foff = 0;

    for (size_t d = 0; d < nd; d++) {
        fstride[d] = total;
        total *= (size_t)c[d];
    }
    for (size_t i = 0; i < total; i++) {
        memcpy(dp + i * esz, sp + foff * esz, esz);
        /* advance the C-order odometer (last axis fastest) and the F offset with it */
        for (size_t d = nd; d-- > 0;) {
            if (++idx[d] < c[d]) {
                foff += fstride[d];
                break;
            }
            foff -= (idx[d] - 1) * fstride[d];
            idx[d] = 0;
        }
    }
}
