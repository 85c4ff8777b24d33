/* analysis/related/related.c - see related.h.  The pairs above the cutoff are collected from the
 * pdist engine's bands as they finish; the selection keeps two lazy binary heaps (entries are
 * checked when they reach the top, so a degree change is one push): samples with exactly one
 * relative left, by index, and samples by (most relatives left, lowest index).  Degrees only
 * fall, so a stale entry is recognised by its degree.  O((N + P) log P) for P pairs. */
#include "gsvd_config.h"
#include "analysis/related/related.h"

#include <math.h>
#include <string.h>

#include "common/alloc.h"
#include "common/comm.h"
#include "common/err.h"
#include "common/log.h"

/* ---- the greedy selection ------------------------------------------------------------------ */

struct heap {
    uint64_t *v;
    size_t len, cap;
};

static int heap_push(struct heap *h, uint64_t key)
{
    size_t i;
    if (gsvd_grow(&h->v, &h->cap, h->len + 1, sizeof *h->v, 256) < 0)
        return GSVD_ENOMEM;
    for (i = h->len++; i > 0 && h->v[(i - 1) / 2] > key; i = (i - 1) / 2)
        h->v[i] = h->v[(i - 1) / 2];
    h->v[i] = key;
    return GSVD_OK;
}

static void heap_pop(struct heap *h)
{
    uint64_t last = h->v[--h->len];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->len)
            break;
        if (c + 1 < h->len && h->v[c + 1] < h->v[c])
            c++;
        if (h->v[c] >= last)
            break;
        h->v[i] = h->v[c];
        i = c;
    }
    if (h->len > 0)
        h->v[i] = last;
}

struct sel {
    size_t n;
    uint32_t *deg;   /* relatives left (0 once removed) */
    uint64_t *start; /* CSR: relatives of i are rel[start[i] .. start[i + 1]) */
    uint32_t *rel;
    uint8_t *alive;
    struct heap ones, most;
};

/* (most relatives, lowest index) first in a min-heap */
static uint64_t most_key(uint32_t deg, size_t i)
{
    return ((uint64_t)(UINT32_MAX - deg) << 32) | (uint64_t)i;
}

/* The heaps learn that sample i now has deg[i] relatives left. */
static int note_degree(struct sel *s, size_t i)
{
    int rc = GSVD_OK;
    if (s->deg[i] > 0)
        rc = heap_push(&s->most, most_key(s->deg[i], i));
    if (rc == GSVD_OK && s->deg[i] == 1)
        rc = heap_push(&s->ones, i);
    return rc;
}

static int drop(struct sel *s, size_t j)
{
    int rc = GSVD_OK;
    s->alive[j] = 0;
    s->deg[j] = 0;
    for (uint64_t e = s->start[j]; e < s->start[j + 1] && rc == GSVD_OK; e++) {
        uint32_t k = s->rel[e];
        if (s->alive[k] && s->deg[k] > 0) {
            s->deg[k]--;
            rc = note_degree(s, k);
        }
    }
    return rc;
}

/* Build the adjacency lists; GSVD_EINVAL for a bad pair. */
static int build(struct sel *s, const uint32_t *pairs, uint64_t n_pairs)
{
    size_t n = s->n;
    uint64_t *fill;
    for (uint64_t k = 0; k < n_pairs; k++) {
        uint32_t a = pairs[2 * k], b = pairs[2 * k + 1];
        if (a >= n || b >= n || a == b)
            return GSVD_EINVAL;
        s->start[a + 1]++;
        s->start[b + 1]++;
    }
    for (size_t i = 0; i < n; i++) {
        s->deg[i] = (uint32_t)s->start[i + 1];
        s->start[i + 1] += s->start[i];
    }
    if (!(fill = gsvd_malloc((n ? n : 1) * sizeof *fill)))
        return GSVD_ENOMEM;
    memcpy(fill, s->start, n * sizeof *fill);
    for (uint64_t k = 0; k < n_pairs; k++) {
        uint32_t a = pairs[2 * k], b = pairs[2 * k + 1];
        s->rel[fill[a]++] = b;
        s->rel[fill[b]++] = a;
    }
    gsvd_free(fill);
    return GSVD_OK;
}

/* The relative of the first sample with exactly one left (1), or none (0). */
static int next_single(struct sel *s, size_t *victim)
{
    while (s->ones.len > 0) {
        size_t i = (size_t)s->ones.v[0];
        if (!s->alive[i] || s->deg[i] != 1) {
            heap_pop(&s->ones);
            continue;
        }
        for (uint64_t e = s->start[i]; e < s->start[i + 1]; e++)
            if (s->alive[s->rel[e]]) {
                *victim = s->rel[e];
                return 1;
            }
        heap_pop(&s->ones); /* not reached: deg counts the live relatives */
    }
    return 0;
}

/* The first sample with the most relatives left (1), or none (0). */
static int next_most(struct sel *s, size_t *victim)
{
    while (s->most.len > 0) {
        uint64_t key = s->most.v[0];
        size_t i = (size_t)(key & 0xffffffffu);
        uint32_t d = UINT32_MAX - (uint32_t)(key >> 32);
        if (s->alive[i] && s->deg[i] == d && d > 0) {
            *victim = i;
            return 1;
        }
        heap_pop(&s->most);
    }
    return 0;
}

int64_t gsvd_related_select(size_t n, const uint32_t *pairs, uint64_t n_pairs, uint8_t *unrelated)
{
    struct sel s = {.n = n};
    int64_t removed = 0;
    int rc = GSVD_OK;

    if (n > UINT32_MAX || n_pairs > (UINT64_MAX / 2) / sizeof(uint32_t))
        return GSVD_EINVAL;
    s.deg = gsvd_calloc(n ? n : 1, sizeof *s.deg);
    s.start = gsvd_calloc(n + 1, sizeof *s.start);
    s.alive = gsvd_malloc(n ? n : 1);
    s.rel = gsvd_malloc((n_pairs ? 2 * n_pairs : 1) * sizeof *s.rel);
    if (!s.deg || !s.start || !s.alive || !s.rel) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    memset(s.alive, 1, n);
    GSVD_TRY(build(&s, pairs, n_pairs));
    for (size_t i = 0; i < n; i++)
        GSVD_TRY(note_degree(&s, i));
    for (;;) {
        size_t victim;
        if (!next_single(&s, &victim) && !next_most(&s, &victim))
            break;
        GSVD_TRY(drop(&s, victim));
        removed++;
    }
    memcpy(unrelated, s.alive, n);
out:
    gsvd_free(s.deg);
    gsvd_free(s.start);
    gsvd_free(s.alive);
    gsvd_free(s.rel);
    gsvd_free(s.ones.v);
    gsvd_free(s.most.v);
    return rc < 0 ? rc : removed;
}

/* ---- kinship pairs from the pdist engine --------------------------------------------------- */

struct collect {
    double cutoff;
    uint32_t *pairs; /* n_pairs pairs of sample indices, room for cap pairs */
    uint64_t n_pairs;
    size_t cap;
};

static int collect_band(void *ctx, const struct gsvd_pdist_band *b)
{
    struct collect *c = ctx;
    for (size_t r = 0; r < b->n_rows; r++)
        for (size_t k = r + 1; k < b->ld; k++) {
            double v = b->dist[r * b->ld + k];
            if (!(v > c->cutoff)) /* NaN (no jointly called site) is no relation */
                continue;
            if (gsvd_grow(&c->pairs, &c->cap, (size_t)c->n_pairs + 1, 2 * sizeof *c->pairs, 1024) <
                0)
                return GSVD_ENOMEM;
            c->pairs[2 * c->n_pairs] = (uint32_t)(b->row0 + r);
            c->pairs[2 * c->n_pairs + 1] = (uint32_t)(b->row0 + k);
            c->n_pairs++;
        }
    return GSVD_OK;
}

/* The selection from the pairs into keep[n], and the counts of *out. */
static int select_rank0(size_t n, const struct collect *c, const struct gsvd_pdist_summary *sum,
                        uint8_t *keep, struct gsvd_related_result *out)
{
    uint8_t *seen = NULL;
    int64_t removed = gsvd_related_select(n, c->pairs, c->n_pairs, keep);

    if (removed < 0)
        return (int)removed;
    out->n_unrelated = n - (size_t)removed;
    out->n_pairs = c->n_pairs;
    out->n_variants = sum->m;
    out->n_missing = sum->n_missing;
    if (!(seen = gsvd_calloc(n ? n : 1, 1)))
        return GSVD_ENOMEM;
    for (uint64_t k = 0; k < 2 * c->n_pairs; k++)
        seen[c->pairs[k]] = 1;
    for (size_t i = 0; i < n; i++)
        out->n_related += seen[i];
    gsvd_free(seen);
    return GSVD_OK;
}

/* A distributed run: rank 0's selection and counts to every rank (each then holds the
 * result), once every rank knows that each succeeded. */
static int share(gsvd_comm *comm, int rc, size_t n, uint8_t *keep, struct gsvd_related_result *out)
{
    uint64_t v[5] = {out->n_unrelated, out->n_pairs, out->n_related, out->n_variants,
                     out->n_missing};

    GSVD_TRY(gsvd_comm_agree(comm, rc, NULL));
    GSVD_TRY(gsvd_comm_bcast(comm, v, sizeof v, 0));
    GSVD_TRY(gsvd_comm_bcast(comm, keep, n, 0));
    out->n_unrelated = (size_t)v[0];
    out->n_pairs = v[1];
    out->n_related = (size_t)v[2];
    out->n_variants = v[3];
    out->n_missing = v[4];
out:
    return rc;
}

int gsvd_related_run(gsvd_geno *g, const struct gsvd_related_params *p,
                     struct gsvd_related_result *out)
{
    struct gsvd_pdist_params pd = p->pd;
    struct gsvd_pdist_summary sum = {0};
    struct collect c = {.cutoff = p->cutoff};
    size_t n = gsvd_geno_n_samples(g);
    uint8_t *keep = NULL;
    int me = gsvd_comm_rank(p->pd.comm), distributed = gsvd_comm_size(p->pd.comm) > 1;
    int rc = GSVD_OK;

    memset(out, 0, sizeof *out);
    if (!(p->cutoff >= -1 && p->cutoff < 0.5)) {
        gsvd_log_error("KING cutoff %g is outside [-1, 0.5)", p->cutoff);
        return GSVD_EINVAL;
    }
    if (gsvd_geno_is_float(g) || gsvd_geno_ploidy(g) != 2) {
        gsvd_log_error("%s: KING kinship needs diploid genotype calls (found %s, ploidy %zu)",
                       gsvd_geno_array_name(g), gsvd_geno_is_float(g) ? "float dosages" : "calls",
                       gsvd_geno_ploidy(g));
        return GSVD_EUNSUPPORTED;
    }
    pd.metric = GSVD_PDIST_KING;
    pd.missing = GSVD_PDIST_PAIRWISE;
    rc = gsvd_pdist_run(g, &pd, me == 0 ? collect_band : NULL, &c, &sum);
    if (distributed) {
        /* the others may wait in a send to rank 0: a failure there ends the run (its cause
         * logged); otherwise every rank learns whether the bands were computed */
        if (rc < 0 && me == 0)
            gsvd_comm_abort(pd.comm, 1);
        rc = gsvd_comm_agree(pd.comm, rc, NULL);
    }
    if (rc < 0)
        goto out;
    if (!(keep = gsvd_malloc(n ? n : 1)))
        rc = GSVD_ENOMEM;
    if (rc == GSVD_OK && me == 0) /* rank 0 has the pairs */
        rc = select_rank0(n, &c, &sum, keep, out);
    if (distributed)
        rc = share(pd.comm, rc, n, keep, out);
    if (rc < 0)
        goto out;
    out->n = n;
    out->unrelated = keep;
    keep = NULL;
out:
    gsvd_free(keep);
    gsvd_free(c.pairs);
    if (rc < 0)
        gsvd_related_result_clear(out);
    return rc;
}

void gsvd_related_result_clear(struct gsvd_related_result *r)
{
    if (!r)
        return;
    gsvd_free(r->unrelated);
    memset(r, 0, sizeof *r);
}
