/* common/pipeline.c - worker threads (started and joined by common/parallel.h) fill slots in block
 * order; the caller consumes in order. State per slot: FREE (may be claimed for block b if b %
 * depth == slot), BUSY (a worker is producing), READY (produced, waiting for the consumer).  One
 * mutex and two condition variables: `produced` wakes the consumer, `freed` wakes workers waiting
 * for a slot.  With caller_helps the caller is the last producer: it claims and produces blocks
 * only while the block it must consume next is not ready, so a busy consumer keeps its core and
 * an idle one decodes. */
#include "gsvd_config.h"
#include "common/pipeline.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "common/parallel.h"

enum slot_state { SLOT_FREE = 0, SLOT_BUSY, SLOT_READY };

struct pipe {
    const struct gsvd_pipeline_params *p;
    uint64_t n_blocks;
    gsvd_pipe_produce_fn produce;
    void *ctx;
    pthread_mutex_t mu;
    pthread_cond_t produced, freed;
    uint64_t next_block;    /* next block a worker claims */
    uint64_t *slot_block;   /* block held by each slot */
    enum slot_state *state; /* per slot */
    int rc;                 /* first error, GSVD_OK while running */
};

/* Claim the next block if its slot is free: *b and *s, and 1; 0 when there is none to claim
 * now.  Called with the mutex held. */
static int claim_next(struct pipe *pp, uint64_t *b, size_t *s)
{
    size_t depth = pp->p->depth;
    if (pp->rc < 0 || pp->next_block >= pp->n_blocks)
        return 0;
    *b = pp->next_block;
    *s = (size_t)(*b % depth);
    if (pp->state[*s] != SLOT_FREE)
        return 0;
    pp->next_block++;
    pp->state[*s] = SLOT_BUSY;
    pp->slot_block[*s] = *b;
    return 1;
}

/* Produce the claimed block b into slot s as producer `id`; called with the mutex held, which
 * it releases around produce. */
static void produce_claimed(struct pipe *pp, size_t id, uint64_t b, size_t s)
{
    pthread_mutex_unlock(&pp->mu);
    int rc = pp->produce(pp->ctx, id, b, pp->p->slots[s]);
    pthread_mutex_lock(&pp->mu);
    if (rc < 0 && pp->rc == GSVD_OK)
        pp->rc = rc;
    pp->state[s] = SLOT_READY;
    pthread_cond_broadcast(&pp->produced);
}

static void worker_main(void *arg, size_t id)
{
    struct pipe *pp = arg;

    pthread_mutex_lock(&pp->mu);
    while (pp->rc == GSVD_OK && pp->next_block < pp->n_blocks) {
        uint64_t b;
        size_t s;
        if (claim_next(pp, &b, &s))
            produce_claimed(pp, id, b, s);
        else
            pthread_cond_wait(&pp->freed, &pp->mu);
    }
    pthread_mutex_unlock(&pp->mu);
}

size_t gsvd_ncpu(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (size_t)n : 1;
}

int gsvd_pipeline_run(const struct gsvd_pipeline_params *p, uint64_t n_blocks,
                      gsvd_pipe_produce_fn produce, gsvd_pipe_consume_fn consume, void *ctx)
{
    struct pipe pp = {0};
    struct gsvd_thread *threads = NULL;
    size_t n_started = 0, depth = p->depth, n_threads;
    int rc = GSVD_OK;

    if (p->n_workers == 0 || depth == 0 || !p->slots) {
        gsvd_log_error("internal error: a pipeline needs at least one worker and one slot");
        return GSVD_EINVAL;
    }
    n_threads = p->n_workers - (p->caller_helps != 0); /* the caller is the last producer */
    pp.p = p;
    pp.n_blocks = n_blocks;
    pp.produce = produce;
    pp.ctx = ctx;
    pthread_mutex_init(&pp.mu, NULL);
    pthread_cond_init(&pp.produced, NULL);
    pthread_cond_init(&pp.freed, NULL);
    pp.slot_block = gsvd_calloc(depth, sizeof *pp.slot_block);
    pp.state = gsvd_calloc(depth, sizeof *pp.state);
    threads = gsvd_calloc(n_threads ? n_threads : 1, sizeof *threads);
    if (!pp.slot_block || !pp.state || !threads) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    n_started = gsvd_threads_start(threads, n_threads, worker_main, &pp);
    if (n_started < n_threads) {
        int e = errno; /* gsvd_threads_start: pthread_create's error */
        /* EAGAIN: no room for the thread's stack (ulimit -v) or the thread limit */
        gsvd_log_error("%scannot start worker thread %zu: %s", e == EAGAIN ? "out of memory: " : "",
                       n_started, strerror(e));
        pthread_mutex_lock(&pp.mu);
        pp.rc = e == EAGAIN ? GSVD_ENOMEM : GSVD_EINTERNAL;
        pthread_cond_broadcast(&pp.freed);
        pthread_mutex_unlock(&pp.mu);
    }
    /* consume in order */
    for (uint64_t b = 0; b < n_blocks; b++) {
        size_t s = (size_t)(b % depth);
        pthread_mutex_lock(&pp.mu);
        while (pp.rc == GSVD_OK && !(pp.state[s] == SLOT_READY && pp.slot_block[s] == b)) {
            uint64_t hb;
            size_t hs;
            if (p->caller_helps && claim_next(&pp, &hb, &hs))
                produce_claimed(&pp, p->n_workers - 1, hb, hs);
            else
                pthread_cond_wait(&pp.produced, &pp.mu);
        }
        int err = pp.rc;
        pthread_mutex_unlock(&pp.mu);
        if (err < 0)
            break;
        int crc = consume(ctx, b, p->slots[s]);
        pthread_mutex_lock(&pp.mu);
        if (crc < 0 && pp.rc == GSVD_OK)
            pp.rc = crc;
        pp.state[s] = SLOT_FREE;
        pthread_cond_broadcast(&pp.freed);
        pthread_mutex_unlock(&pp.mu);
        if (crc < 0)
            break;
    }
    pthread_mutex_lock(&pp.mu);
    if (pp.rc == GSVD_OK && n_started < n_threads)
        pp.rc = GSVD_EINTERNAL;
    pp.next_block = n_blocks; /* all consumed, or stopping on an error: hand out nothing */
    pthread_cond_broadcast(&pp.freed);
    pthread_mutex_unlock(&pp.mu);
    gsvd_threads_join(threads, n_started);
    rc = pp.rc;
out:
    gsvd_free(threads);
    gsvd_free(pp.slot_block);
    gsvd_free(pp.state);
    pthread_cond_destroy(&pp.produced);
    pthread_cond_destroy(&pp.freed);
    pthread_mutex_destroy(&pp.mu);
    return rc;
}
