/* common/parallel.h - run one function on several threads and wait for all of them.
 * Thread safety: fn must be safe to call concurrently with different t. */
#ifndef GSVD_COMMON_PARALLEL_H
#define GSVD_COMMON_PARALLEL_H
#include <stddef.h>
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

/* Most threads one call runs; callers that split work by t must clamp to it. */
#define GSVD_PARALLEL_MAX 256

/* Call fn(ctx, t) for every t in [0, n_threads) (at most GSVD_PARALLEL_MAX), t > 0 on new threads
 * and t = 0 on the caller's; a share whose thread cannot be started runs on the caller's thread.
 * Returns GSVD_OK or the first negative result in order of t. */
GSVD_NODISCARD int gsvd_parallel(size_t n_threads, int (*fn)(void *ctx, size_t t), void *ctx);

GSVD_EXTERN_C_END
#endif /* GSVD_COMMON_PARALLEL_H */
