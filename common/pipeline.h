/* common/pipeline.h - ordered, bounded producer/consumer pipeline over numbered blocks.
 * n_workers threads call produce(block) for blocks 0, 1, 2, ... (each block exactly once, in
 * increasing order of start), writing into one of `depth` caller-provided slots (block b uses
 * slot b % depth).  The calling thread runs consume(block) strictly in block order.  A slot is
 * reused only after its previous block was consumed, so memory in flight is bounded by depth
 * slots plus each worker's own scratch.  The first error wins: the pipeline stops handing out
 * blocks, waits for the workers, and returns that code.
 * Thread safety: produce runs on worker threads concurrently (for different blocks and slots),
 * and on the calling thread too with caller_helps; consume runs on the calling thread only. */
#ifndef GSVD_COMMON_PIPELINE_H
#define GSVD_COMMON_PIPELINE_H
#include <stddef.h>
#include <stdint.h>
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

/* Called on worker `worker` (0..n_workers-1) to fill `slot` with block `block`.  Returns GSVD_OK
 * or a negative gsvd_err (logged by the callee). */
typedef int (*gsvd_pipe_produce_fn)(void *ctx, size_t worker, uint64_t block, void *slot);
/* Called on the calling thread, in block order.  Returns GSVD_OK or a negative gsvd_err. */
typedef int (*gsvd_pipe_consume_fn)(void *ctx, uint64_t block, void *slot);

struct gsvd_pipeline_params {
    size_t n_workers; /* >= 1 producers (worker ids 0 .. n_workers - 1) */
    size_t depth;     /* >= 1 slots; 2 * n_workers keeps every worker busy */
    void **slots;     /* `depth` slot pointers, borrowed */
    /* 0: n_workers threads produce.  1: n_workers - 1 threads, and the calling thread is
     * producer n_workers - 1 while the block it must consume next is not ready (a consumer
     * that computes keeps its core; one that waits decodes; n_workers 1: it produces all) */
    int caller_helps;
};

/* Run the pipeline over blocks [0, n_blocks).  Returns GSVD_OK, the first error of produce or
 * consume, GSVD_EINVAL (bad params) or GSVD_ENOMEM/GSVD_EINTERNAL (thread creation). */
GSVD_NODISCARD int gsvd_pipeline_run(const struct gsvd_pipeline_params *p, uint64_t n_blocks,
                                     gsvd_pipe_produce_fn produce, gsvd_pipe_consume_fn consume,
                                     void *ctx);

/* Number of online CPUs (>= 1). */
size_t gsvd_ncpu(void);

GSVD_EXTERN_C_END
#endif /* GSVD_COMMON_PIPELINE_H */
