/* plot/cluster.c - average-linkage (UPGMA) clustering by the nearest-neighbour chain: the
 * chain grows by nearest neighbours until two clusters are each other's nearest, which are
 * then merged (average linkage is reducible, so this gives the same tree as the greedy
 * algorithm) and their row becomes the size-weighted mean (Lance-Williams).  O(n^2) time,
 * O(n) memory beside the matrix. */
#include "gsvd_config.h"

#include "plot/heatmap.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"

/* Leaves of the tree in depth-first order, left child first. */
static void leaf_order(size_t n, const size_t *ma, const size_t *mb, size_t *stack, size_t *order)
{
    size_t top = 0, k = 0;
    stack[top++] = 2 * n - 2; /* the root: the last merge */
    while (top) {
        size_t v = stack[--top];
        if (v < n) {
            order[k++] = v;
            continue;
        }
        stack[top++] = mb[v - n]; /* right below left, so left pops first */
        stack[top++] = ma[v - n];
    }
}

int gsvd_plot_cluster(float *d, size_t n, size_t *order, size_t *merge_a, size_t *merge_b,
                      double *height)
{
    size_t *chain = NULL, *size = NULL, *node = NULL, n_chain = 0, t = 0;
    unsigned char *active = NULL;
    int rc = GSVD_OK;

    if (n < 2) {
        if (n == 1)
            order[0] = 0;
        return GSVD_OK;
    }
    chain = gsvd_calloc(2 * n, sizeof *chain);
    size = gsvd_calloc(n, sizeof *size);
    node = gsvd_calloc(n, sizeof *node);
    active = gsvd_calloc(n, 1);
    if (!chain || !size || !node || !active) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        size[i] = 1;
        node[i] = i;
        active[i] = 1;
    }
    while (t < n - 1) {
        size_t a, prev, b;
        double best = INFINITY;
        if (n_chain == 0) {
            size_t i = 0;
            while (!active[i])
                i++;
            chain[n_chain++] = i;
        }
        a = chain[n_chain - 1];
        prev = n_chain >= 2 ? chain[n_chain - 2] : SIZE_MAX;
        b = prev;
        if (prev != SIZE_MAX)
            best = d[a * n + prev]; /* ties keep the previous link: the chain must end */
        for (size_t x = 0; x < n; x++)
            if (active[x] && x != a && (b == SIZE_MAX || d[a * n + x] < best)) {
                best = d[a * n + x];
                b = x;
            }
        if (b != prev) {
            chain[n_chain++] = b;
            continue;
        }
        n_chain -= 2;
        merge_a[t] = node[a];
        merge_b[t] = node[b];
        height[t] = best;
        for (size_t x = 0; x < n; x++)
            if (active[x] && x != a && x != b) {
                double v = ((double)size[a] * d[a * n + x] + (double)size[b] * d[b * n + x]) /
                           (double)(size[a] + size[b]);
                d[a * n + x] = d[x * n + a] = (float)v;
            }
        size[a] += size[b];
        active[b] = 0;
        node[a] = n + t;
        t++;
    }
    leaf_order(n, merge_a, merge_b, chain, order);
out:
    gsvd_free(chain);
    gsvd_free(size);
    gsvd_free(node);
    gsvd_free(active);
    return rc;
}
