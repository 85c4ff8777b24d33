/* tests/unit/test_pipeline.c - common/pipeline.h against its contract: consume sees blocks
 * strictly in order, every block is produced exactly once into slot block % depth, a slot is
 * never produced into while its previous block is unconsumed, the first error of produce or
 * consume stops the run and is returned, n_blocks 0 works, bad parameters are GSVD_EINVAL; all
 * of it with the caller helping too, which produces (as the last worker) only on its own thread
 * and, with one worker, every block.  Producers sleep random microseconds so that workers
 * finish out of order. */
#include "gsvd_config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/pipeline.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "tests/gsvd_test.h"

#define MAX_DEPTH 8
#define MAX_WORKERS 4
#define N_BLOCKS 300

struct slot {
    uint64_t block; /* written by produce, checked by consume */
    uint64_t check; /* a value derived from the block */
};

struct ctx {
    size_t depth, n_workers;
    int helps;         /* caller_helps */
    pthread_t caller;  /* the thread that runs the pipeline */
    atomic_int helped; /* blocks produced on it */
    struct slot slots[MAX_DEPTH];
    atomic_int in_use[MAX_DEPTH];  /* 1 from produce start to consume end */
    atomic_int produced[N_BLOCKS]; /* times each block was produced */
    atomic_int bad_slot, bad_worker, overlap, started_after_stop;
    atomic_uint_least64_t seed;
    uint64_t next_consume; /* consume runs on one thread only */
    int out_of_order, bad_content, consumed_after_fail;
    uint64_t fail_produce_at, fail_consume_at; /* UINT64_MAX: never */
    atomic_int stop_seen;                      /* produce of fail_produce_at has returned */
    uint64_t max_consumed;
    int n_consumed;
};

static void sleep_us(long us)
{
    struct timespec ts = {0, us * 1000L};
    nanosleep(&ts, NULL);
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static int produce(void *vctx, size_t worker, uint64_t block, void *vslot)
{
    struct ctx *c = vctx;
    struct slot *s = vslot;
    size_t idx = (size_t)(s - c->slots);
    uint64_t r = mix(atomic_fetch_add(&c->seed, 1) + block);

    if (worker >= c->n_workers)
        atomic_store(&c->bad_worker, 1);
    if (pthread_equal(pthread_self(), c->caller)) {
        atomic_fetch_add(&c->helped, 1);
        if (!c->helps || worker != c->n_workers - 1)
            atomic_store(&c->bad_worker, 1);
    }
    if (block >= N_BLOCKS || idx >= c->depth || idx != block % c->depth) {
        atomic_store(&c->bad_slot, 1);
        return GSVD_OK;
    }
    if (atomic_exchange(&c->in_use[idx], 1) != 0)
        atomic_store(&c->overlap, 1);
    atomic_fetch_add(&c->produced[block], 1);
    sleep_us((long)(r % 200));
    s->block = block;
    s->check = mix(block);
    if (block == c->fail_produce_at) {
        atomic_store(&c->stop_seen, 1);
        return GSVD_ECODEC;
    }
    return GSVD_OK;
}

static int consume(void *vctx, uint64_t block, void *vslot)
{
    struct ctx *c = vctx;
    struct slot *s = vslot;
    size_t idx = (size_t)(s - c->slots);

    if (block != c->next_consume)
        c->out_of_order = 1;
    c->next_consume = block + 1;
    if (idx != block % c->depth || s->block != block || s->check != mix(block))
        c->bad_content = 1;
    if (c->fail_produce_at != UINT64_MAX && block >= c->fail_produce_at)
        c->consumed_after_fail = 1;
    c->n_consumed++;
    c->max_consumed = block;
    if (block % 7 == 0)
        sleep_us(50); /* a slow consumer now and then: workers wait for slots */
    if (idx < c->depth)
        atomic_store(&c->in_use[idx], 0);
    return block == c->fail_consume_at ? GSVD_EIO : GSVD_OK;
}

static int helps; /* the caller helps in the runs of ctx_init'ed contexts */

static void ctx_init(struct ctx *c, size_t n_workers, size_t depth, void **slots)
{
    memset(c, 0, sizeof *c);
    c->helps = helps;
    c->caller = pthread_self();
    c->n_workers = n_workers;
    c->depth = depth;
    c->fail_produce_at = UINT64_MAX;
    c->fail_consume_at = UINT64_MAX;
    for (size_t i = 0; i < MAX_DEPTH; i++)
        slots[i] = &c->slots[i];
}

static int run(struct ctx *c, void **slots, uint64_t n_blocks)
{
    struct gsvd_pipeline_params p = {c->n_workers, c->depth, slots, c->helps};
    return gsvd_pipeline_run(&p, n_blocks, produce, consume, c);
}

static void test_order(void)
{
    static struct ctx c;
    void *slots[MAX_DEPTH];
    int helped_beside_threads = 0;

    for (size_t nw = 1; nw <= MAX_WORKERS; nw++) {
        for (size_t depth = 1; depth <= MAX_DEPTH; depth++) {
            uint64_t n = depth == 3 ? N_BLOCKS : 97;
            int once = 1;
            ctx_init(&c, nw, depth, slots);
            atomic_store(&c.seed, nw * 131 + depth);
            GSVD_CHECK_RC(run(&c, slots, n), GSVD_OK);
            for (uint64_t b = 0; b < n; b++)
                once &= atomic_load(&c.produced[b]) == 1;
            for (uint64_t b = n; b < N_BLOCKS; b++)
                once &= atomic_load(&c.produced[b]) == 0;
            if (!once || c.out_of_order || c.overlap || c.bad_slot || c.bad_content ||
                c.bad_worker || c.n_consumed != (int)n)
                fprintf(stderr,
                        "workers %zu depth %zu: once %d order %d overlap %d slot %d "
                        "content %d worker %d consumed %d\n",
                        nw, depth, once, c.out_of_order, atomic_load(&c.overlap),
                        atomic_load(&c.bad_slot), c.bad_content, atomic_load(&c.bad_worker),
                        c.n_consumed);
            GSVD_CHECK(once);
            GSVD_CHECK(!c.out_of_order && c.next_consume == n);
            GSVD_CHECK(!atomic_load(&c.overlap));
            GSVD_CHECK(!atomic_load(&c.bad_slot) && !atomic_load(&c.bad_worker));
            GSVD_CHECK(!c.bad_content);
            /* the caller produces only when it helps; with one worker, every block */
            if (!helps)
                GSVD_CHECK(atomic_load(&c.helped) == 0);
            else if (nw == 1)
                GSVD_CHECK(atomic_load(&c.helped) == (int)n);
            else /* a fast consumer waits for the sleeping producers, and helps */
                helped_beside_threads += atomic_load(&c.helped);
        }
    }
    GSVD_CHECK(!helps || helped_beside_threads > 0);
}

static void test_errors(void)
{
    static struct ctx c;
    void *slots[MAX_DEPTH];
    struct gsvd_pipeline_params p;

    /* produce fails at block k: that code is returned, consume never sees k or later */
    for (size_t nw = 1; nw <= MAX_WORKERS; nw++) {
        for (size_t depth = 1; depth <= MAX_DEPTH; depth += 3) {
            for (uint64_t k = 0; k < 40; k += 13) {
                int extra = 0;
                ctx_init(&c, nw, depth, slots);
                c.fail_produce_at = k;
                GSVD_CHECK_RC(run(&c, slots, 200), GSVD_ECODEC);
                GSVD_CHECK(!c.consumed_after_fail && !c.out_of_order);
                GSVD_CHECK(!atomic_load(&c.overlap) && !c.bad_content);
                /* work after the failure is bounded: at most the slots in flight */
                for (uint64_t b = k + 1; b < N_BLOCKS; b++)
                    extra += atomic_load(&c.produced[b]);
                GSVD_CHECK(extra <= (int)(depth + nw));
                for (uint64_t b = 0; b < N_BLOCKS; b++)
                    extra += atomic_load(&c.produced[b]) > 1 ? 1000 : 0; /* twice: fails */
                GSVD_CHECK(extra <= (int)(depth + nw));
            }
        }
    }

    /* consume fails at block k: that code is returned, nothing is consumed after it */
    for (size_t nw = 1; nw <= MAX_WORKERS; nw++) {
        for (uint64_t k = 0; k < 30; k += 7) {
            ctx_init(&c, nw, 4, slots);
            c.fail_consume_at = k;
            GSVD_CHECK_RC(run(&c, slots, 200), GSVD_EIO);
            GSVD_CHECK(c.max_consumed == k && c.n_consumed == (int)k + 1);
            GSVD_CHECK(!c.out_of_order && !atomic_load(&c.overlap));
        }
    }

    /* the first error wins: consume fails at 5, produce at 150 (never reached) */
    ctx_init(&c, 2, 2, slots);
    c.fail_consume_at = 5;
    c.fail_produce_at = 150;
    GSVD_CHECK_RC(run(&c, slots, 200), GSVD_EIO);

    /* no blocks */
    ctx_init(&c, 3, 2, slots);
    GSVD_CHECK_RC(run(&c, slots, 0), GSVD_OK);
    GSVD_CHECK(c.n_consumed == 0 && atomic_load(&c.produced[0]) == 0);

    /* one block, more workers and slots than blocks */
    ctx_init(&c, 4, 8, slots);
    GSVD_CHECK_RC(run(&c, slots, 1), GSVD_OK);
    GSVD_CHECK(c.n_consumed == 1 && atomic_load(&c.produced[0]) == 1);

    /* bad parameters */
    ctx_init(&c, 1, 1, slots);
    p = (struct gsvd_pipeline_params){0, 2, slots, helps};
    GSVD_CHECK_RC(gsvd_pipeline_run(&p, 10, produce, consume, &c), GSVD_EINVAL);
    p = (struct gsvd_pipeline_params){2, 0, slots, helps};
    GSVD_CHECK_RC(gsvd_pipeline_run(&p, 10, produce, consume, &c), GSVD_EINVAL);
    p = (struct gsvd_pipeline_params){2, 2, NULL, helps};
    GSVD_CHECK_RC(gsvd_pipeline_run(&p, 10, produce, consume, &c), GSVD_EINVAL);
    GSVD_CHECK(c.n_consumed == 0 && atomic_load(&c.produced[0]) == 0);

    GSVD_CHECK(gsvd_ncpu() >= 1);
}

int main(int argc, char **argv)
{
    if (gsvd_test_args(argc, argv, "test_pipeline") != 0)
        return 2;
    for (helps = 0; helps <= 1; helps++) {
        test_order();
        test_errors();
    }
    return gsvd_test_report("test_pipeline");
}
