/* cli/signals.c - process-wide guards: signals and the address-space limit.
 * SIGINT, SIGTERM and SIGHUP end the run cleanly; SIGXFSZ is ignored.
 * The handler only writes the signal number to a pipe (async-signal-safe, and it works in
 * whichever thread the kernel picks, BLAS and libcurl threads included).  A thread that sleeps
 * on the pipe then removes the unfinished outputs (gensvd_abandon_outputs: the staging
 * directories of local outputs) in ordinary thread context, reports the signal and exits with
 * 128 + its number, as shells do (130 for SIGINT, 143 for SIGTERM).  SIGXFSZ (a write past
 * `ulimit -f`) is ignored so that the write fails with EFBIG, which the store reports naming
 * the file. */
#include "gsvd_config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_base.h"

static int pipe_fd[2] = {-1, -1};

static void on_signal(int sig)
{
    int saved = errno;
    unsigned char b = (unsigned char)sig;
    ssize_t n = write(pipe_fd[1], &b, 1); /* non-blocking: a full pipe already has one */
    (void)n;
    errno = saved;
}

static const char *signal_name(int sig)
{
    return sig == SIGINT    ? "SIGINT"
           : sig == SIGTERM ? "SIGTERM"
           : sig == SIGHUP  ? "SIGHUP"
                            : "a signal";
}

static void *waiter(void *arg)
{
    unsigned char b = 0;
    ssize_t n;

    (void)arg;
    do
        n = read(pipe_fd[0], &b, 1);
    while (n < 0 && errno == EINTR);
    if (n != 1)
        return NULL; /* the pipe broke: leave the default behaviour of the remaining run */
    gsvd_cli_msg_mute_others(); /* the removal makes writers fail: not worth a message */
    char msg[96];
    if (gensvd_abandon_outputs() > 0)
        snprintf(msg, sizeof msg, "interrupted by %s; the unfinished output was removed",
                 signal_name(b));
    else
        snprintf(msg, sizeof msg, "interrupted by %s", signal_name(b));
    gsvd_cli_msg_log(GENSVD_LOG_ERROR, msg);
    _exit(128 + b);
}

int gsvd_cli_signals_init(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa;
    pthread_t th;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGXFSZ, &sa, NULL) != 0)
        return -1;
    if (pipe(pipe_fd) != 0)
        return -1;
    for (int i = 0; i < 2; i++)
        if (fcntl(pipe_fd[i], F_SETFD, FD_CLOEXEC) != 0)
            return -1;
    if (fcntl(pipe_fd[1], F_SETFL, O_NONBLOCK) != 0)
        return -1;
    if (pthread_create(&th, NULL, waiter, NULL) != 0)
        return -1;
    pthread_detach(th);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        if (sigaction(sigs[i], &sa, NULL) != 0)
            return -1;
    return 0;
}

/* OpenBLAS starts its worker threads when the binary loads, and each maps a 128 MiB buffer;
 * when a mapping fails OpenBLAS retries forever (and exit() then waits for the thread in
 * OpenBLAS's destructor): under `ulimit -v` a little above what the libraries need, every
 * command, --version included, spun and never exited, and later the first BLAS call of a run
 * did the same.  So before anything else, with a finite RLIMIT_AS, the main thread's own BLAS
 * buffer is mapped now while it still fits (gensvd_blas_reserve; the library's parallel BLAS
 * sections check for their further buffers), else the run stops at once with a clear message.
 * OpenBLAS also picks its kernels at load time, and on a CPU model it does not know it runs
 * generic ones ~3x slower (gensvd_build_info's "blas core fix"): the program then runs once
 * more with the set that fits the CPU in OPENBLAS_CORETYPE, noted in GENSVD_BLAS_CORE_WAS for
 * -v. */
void gsvd_cli_blas_start(char **argv)
{
    struct rlimit as;
    int again = 0;

    /* The pool's threads map their buffers at load time, racing main(): under a limit that
     * leaves room for few buffers one of them could still be spinning (a hang seen in about 1
     * of 15 runs of `pdist -t 2` at a limit just above --version's).  So with a finite limit
     * the program runs once more with OPENBLAS_NUM_THREADS=1, where OpenBLAS starts no pool
     * (gensvd runs BLAS on its own threads; blas_room stops the pool there anyway). */
    if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY &&
        !getenv("OPENBLAS_NUM_THREADS") && setenv("OPENBLAS_NUM_THREADS", "1", 1) == 0)
        again = 1;
    const char *core = gensvd_build_info("blas core fix");
    if (!*core)
        core = NULL;
    if (core && setenv("GENSVD_BLAS_CORE_WAS", gensvd_build_info("blas core"), 1) == 0 &&
        setenv("OPENBLAS_CORETYPE", core, 1) == 0)
        again = 1;
    /* under valgrind /proc/self/exe is valgrind's tool, not gensvd: no restart there */
    const char *pre = getenv("LD_PRELOAD");
    if (again && !(pre && strstr(pre, "vgpreload")))
        execv("/proc/self/exe", argv); /* returns only on failure: go on as before */
    if (core) { /* not restarted: OpenBLAS keeps what it chose, and -v must not say otherwise */
        unsetenv("GENSVD_BLAS_CORE_WAS");
        unsetenv("OPENBLAS_CORETYPE");
    }
    if (gensvd_blas_reserve() == GENSVD_OK)
        return;
    fflush(stderr);
    _exit(GSVD_EXIT_FAIL); /* exit() would wait for OpenBLAS threads that never finish */
}
