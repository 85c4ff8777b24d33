/* common/parallel.h - run one function on several threads and wait for all of them.
 * Thread safety: fn must be safe to call concurrently with different t. */
#ifndef GSVD_COMMON_PARALLEL_H
#define GSVD_COMMON_PARALLEL_H
#include <stddef.h>
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

/* Most threads one call starts. */
#define GSVD_PARALLEL_MAX 256

/* Call fn(ctx, t) for every share t in [0, n_shares) on min(n_shares, GSVD_PARALLEL_MAX)
 * threads: thread k runs shares k, k + threads, ... (thread 0 is the caller's; a thread that
 * cannot be started has its shares run on the caller's).  A thread stops at its first failing
 * share.  Returns GSVD_OK or the failure of the lowest failing share. */
GSVD_NODISCARD int gsvd_parallel(size_t n_shares, int (*fn)(void *ctx, size_t t), void *ctx);

GSVD_EXTERN_C_END
#endif /* GSVD_COMMON_PARALLEL_H */
