/* analysis/cpu/blas_room.c - see blas_room.h.  The check is an mmap of /dev/zero with PROT_NONE:
 * it counts against RLIMIT_AS like OpenBLAS's own mapping but commits no memory (MAP_ANONYMOUS
 * is not POSIX.1-2008).  OpenBLAS 0.3.21 (pthread build; driver/others/memory.c and
 * blas_server.c) keeps its buffers in one table until exit, a caller takes the first free
 * slot, and each worker thread of its pool takes a slot for good when it starts, which it does
 * at load time, racing main(): a buffer mapped by main() and released could be taken by a late
 * worker, so that the next call of main() mapped another (and hung, `pca -t 1` under ulimit -v).
 * gensvd runs BLAS on one thread only (its own threads are the parallelism), so under a limit
 * gsvd_blas_room_init stops the pool (blas_thread_shutdown_ joins the workers, their buffers go
 * back to the table), then maps main()'s buffer; the pool is never restarted afterwards because
 * gsvd_blas_set_threads leaves it down (openblas_set_num_threads would restart it).  From then
 * on the count of mapped buffers is exact. */
#include "gsvd_config.h"
#include "analysis/cpu/blas_room.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cblas.h>

#include "common/err.h"
#include "common/log.h"
#include "common/parallel.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* Held for the whole of a region that needs a fixed thread count (gsvd_blas_region_begin), and
 * for each change of the count, so that no other thread changes it under such a region. */
static pthread_mutex_t regime = PTHREAD_MUTEX_INITIALIZER;
static size_t mapped; /* buffers known to be mapped, or known to fit */
static int pool_down; /* OpenBLAS's worker pool was stopped: never restart it */

/* OpenBLAS's own, not in cblas.h; weak so that a BLAS without it links (the pool stays). */
extern int blas_thread_shutdown_(void) __attribute__((weak));

/* 1 when a PROT_NONE mapping of `bytes` fits now. */
static int fits(size_t bytes)
{
    int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
    void *p;

    if (fd < 0)
        return 1; /* cannot tell: let OpenBLAS try */
    p = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return 0;
    munmap(p, bytes);
    return 1;
}

/* The finite RLIMIT_AS in *lim, or 0 when there is none. */
static int limited(unsigned long long *lim)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return 0;
    *lim = (unsigned long long)rl.rlim_cur;
    return 1;
}

/* The out-of-memory message, logged under the caller's name. */
#define LOG_NO_ROOM(lim, n)                                                                        \
    gsvd_log_error("out of memory: the virtual memory limit (ulimit -v %llu KiB) leaves no room "  \
                   "for the BLAS buffer%s of %zu thread%s (OpenBLAS maps %zu MiB for each "        \
                   "thread that calls it); raise the limit%s",                                     \
                   (lim) / 1024, (n) == 1 ? "" : "s", (n), (n) == 1 ? "" : "s",                    \
                   GSVD_BLAS_BUFFER_BYTES >> 20, (n) > 1 ? " or use fewer threads (-t)" : "")

/* Room for OpenBLAS at start: its pool's workers may not have mapped their buffers yet (the
 * shutdown below would wait for one that cannot), and main() needs one; when the workers have
 * mapped theirs this asks for more than is needed, which only a limit within that margin on a
 * machine with several cores notices (OPENBLAS_NUM_THREADS=1 leaves no workers). */
static size_t start_buffers(void)
{
    int pool = openblas_get_num_threads();
    return pool > 1 ? (size_t)pool - 1 : 1;
}

int gsvd_blas_room_init(void)
{
    unsigned long long lim;
    double a = 1.0, c = 0.0;
    size_t want;
    int rc = GSVD_OK;

    pthread_mutex_lock(&lock);
    if (mapped == 0 && limited(&lim)) {
        want = start_buffers();
        if (want > SIZE_MAX / GSVD_BLAS_BUFFER_BYTES || !fits(want * GSVD_BLAS_BUFFER_BYTES)) {
            int pool = openblas_get_num_threads();
            gsvd_log_error("out of memory: the virtual memory limit (ulimit -v %llu KiB) leaves "
                           "less than the %zu MiB OpenBLAS needs at start (%zu MiB per buffer, "
                           "%d thread%s); raise the limit%s",
                           lim / 1024, (want * GSVD_BLAS_BUFFER_BYTES) >> 20,
                           GSVD_BLAS_BUFFER_BYTES >> 20, pool, pool == 1 ? "" : "s",
                           pool > 2 ? " (or set OPENBLAS_NUM_THREADS=1)" : "");
            rc = GSVD_ENOMEM;
        } else {
            openblas_set_num_threads(1); /* before the shutdown: it would restart the pool */
            if (blas_thread_shutdown_) {
                blas_thread_shutdown_();
                pool_down = 1;
            }
            cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, 1, 1, 1.0, &a, 1, 0.0, &c, 1);
            mapped = 1;
        }
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

int gsvd_blas_get_threads(void)
{
    return openblas_get_num_threads();
}

static void set_threads(int n)
{
    pthread_mutex_lock(&lock);
    if (!pool_down)
        openblas_set_num_threads(n);
    pthread_mutex_unlock(&lock);
}

void gsvd_blas_set_threads(int n)
{
    pthread_mutex_lock(&regime);
    set_threads(n);
    pthread_mutex_unlock(&regime);
}

int gsvd_blas_region_begin(int n)
{
    int saved;
    pthread_mutex_lock(&regime);
    saved = openblas_get_num_threads();
    set_threads(n);
    return saved;
}

void gsvd_blas_region_end(int saved)
{
    set_threads(saved);
    pthread_mutex_unlock(&regime);
}

int gsvd_blas_room(size_t n_callers)
{
    unsigned long long lim;
    int rc = GSVD_OK;

    pthread_mutex_lock(&lock);
    if (n_callers > mapped && limited(&lim)) {
        size_t more = n_callers - mapped;
        if (more > SIZE_MAX / GSVD_BLAS_BUFFER_BYTES || !fits(more * GSVD_BLAS_BUFFER_BYTES)) {
            LOG_NO_ROOM(lim, n_callers);
            rc = GSVD_ENOMEM;
        }
    }
    if (rc == GSVD_OK && n_callers > mapped)
        mapped = n_callers;
    pthread_mutex_unlock(&lock);
    return rc;
}

int gsvd_blas_parallel(size_t n_shares, int (*fn)(void *ctx, size_t t), void *ctx)
{
    int rc = gsvd_blas_room(n_shares < GSVD_PARALLEL_MAX ? n_shares : GSVD_PARALLEL_MAX);

    if (rc < 0)
        return rc;
    return gsvd_parallel(n_shares, fn, ctx);
}

int gsvd_blas_parallel_tasks(size_t n_threads, size_t n_tasks,
                             int (*fn)(void *ctx, size_t worker, size_t task), void *ctx)
{
    size_t nw = gsvd_parallel_workers(n_threads);
    int rc = gsvd_blas_room(n_tasks < nw ? (n_tasks ? n_tasks : 1) : nw);

    if (rc < 0)
        return rc;
    return gsvd_parallel_tasks(n_threads, n_tasks, fn, ctx);
}

const char *gsvd_blas_core(void)
{
    const char *name = openblas_get_corename();
    return name ? name : "unknown";
}

const char *gsvd_blas_core_fix(void)
{
    if (getenv("OPENBLAS_CORETYPE") || strcasecmp(gsvd_blas_core(), "Prescott") != 0)
        return NULL;
#if defined(__x86_64__) && defined(__GNUC__)
    /* libgcc's probe checks XCR0 too: a feature the OS does not save counts as absent */
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl"))
        return "SkylakeX";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return "Haswell";
#endif
    return NULL;
}
