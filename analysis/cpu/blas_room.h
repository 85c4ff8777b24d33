/* analysis/cpu/blas_room.h - room in the address space for OpenBLAS's per-thread buffers.
 * OpenBLAS gives every thread that runs a level-3 routine a work buffer of its own (128 MiB and a
 * page, mapped on the thread's first call and kept until exit), and when that mapping fails it
 * retries for ever: under a `ulimit -v` that left room for one buffer, `pca -t 2` hung inside
 * cblas_ssyrk.  Code that calls BLAS from several threads at once starts them through
 * gsvd_blas_parallel, which first makes sure the buffers fit and otherwise fails cleanly.
 * Thread safety: any thread. */
#ifndef GSVD_ANALYSIS_CPU_BLAS_ROOM_H
#define GSVD_ANALYSIS_CPU_BLAS_ROOM_H
#include <stddef.h>

#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

/* Bytes one OpenBLAS thread buffer takes from RLIMIT_AS (Debian's pthread build, as mapped). */
#define GSVD_BLAS_BUFFER_BYTES ((size_t)129 << 20)

/* With a finite RLIMIT_AS: when one buffer fits, set OpenBLAS to one thread, stop its worker
 * pool for good (gensvd never uses it) and map the calling thread's buffer now (a 1 x 1
 * dsyrk), so that every later BLAS call on one thread reuses it and gsvd_blas_room counts it;
 * without a limit, nothing.  Call once at start, from main() before any other thread and
 * before the run allocates.  GSVD_OK, or GSVD_ENOMEM after logging an out-of-memory message
 * naming the limit. */
GSVD_NODISCARD int gsvd_blas_room_init(void);

/* openblas_get_num_threads / openblas_set_num_threads for the code that runs BLAS on one
 * thread and restores the count afterwards; set does nothing once gsvd_blas_room_init stopped
 * the pool (OpenBLAS would start it again).  Thread safety: as OpenBLAS's. */
int gsvd_blas_get_threads(void);
void gsvd_blas_set_threads(int n);

/* A region that needs exactly n BLAS threads (bytes that depend on it: the symmetric
 * eigensolver's dsymv), bracketed by these two from one thread: the count is set for the
 * region, and no other thread's gsvd_blas_set_threads or region changes it before
 * gsvd_blas_region_end(saved) restores it (they wait).  OpenBLAS's count is process-wide, so
 * this is what keeps two library calls on two threads from changing each other's bytes. */
int gsvd_blas_region_begin(int n);
void gsvd_blas_region_end(int saved);

/* Make sure that n_callers threads (the calling one among them) can hold a BLAS buffer at once:
 * with a finite RLIMIT_AS, a reservation (PROT_NONE, never touched, released at once) of one
 * buffer per caller beyond those known to be mapped (gsvd_blas_room_init's, and those an
 * earlier successful check counted) must fit.  GSVD_OK, or GSVD_ENOMEM after logging an
 * out-of-memory message that names the limit and the thread count. */
GSVD_NODISCARD int gsvd_blas_room(size_t n_callers);

/* gsvd_parallel (common/parallel.h) for share functions that call BLAS: gsvd_blas_room for the
 * threads it will start, then the run.  Same returns, plus GSVD_ENOMEM from the check. */
GSVD_NODISCARD int gsvd_blas_parallel(size_t n_shares, int (*fn)(void *ctx, size_t t), void *ctx);

/* gsvd_parallel_tasks (common/parallel.h) for task functions that call BLAS: gsvd_blas_room for
 * the workers it will run, then the run.  Same returns, plus GSVD_ENOMEM from the check. */
GSVD_NODISCARD int gsvd_blas_parallel_tasks(size_t n_threads, size_t n_tasks,
                                            int (*fn)(void *ctx, size_t worker, size_t task),
                                            void *ctx);

/* OpenBLAS's kernels.  OpenBLAS picks them by CPU model when it loads and falls back to its
 * generic "Prescott" set for a model it does not know: Debian 12's 0.3.21 on Intel Emerald
 * Rapids (family 6 model 207) runs sgemm ~3x slower so, every BLAS product of gensvd with it.
 * gsvd_blas_core_fix names the set to ask for instead (OPENBLAS_CORETYPE, read at load time,
 * so the process must start again: cli/signals.c): "SkylakeX" where the CPU and the OS have
 * AVX-512 F, CD, BW, DQ and VL, "Haswell" where they have AVX2 and FMA; NULL when OpenBLAS
 * chose a specific set, when OPENBLAS_CORETYPE is set already (the user's choice), or when the
 * CPU has neither.  gsvd_blas_core is the set OpenBLAS runs ("SkylakeX"); both strings are
 * static.  Thread safety: any thread. */
const char *gsvd_blas_core_fix(void);
const char *gsvd_blas_core(void);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_CPU_BLAS_ROOM_H */
