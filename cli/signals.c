/* cli/signals.c - process-wide guards: signals and the address-space limit.
 * SIGINT, SIGTERM and SIGHUP end the run cleanly; SIGXFSZ is ignored.
 * The handler only writes the signal number to a pipe (async-signal-safe, and it works in
 * whichever thread the kernel picks, BLAS and libcurl threads included).  A thread that sleeps
 * on the pipe then runs the cleanup registry (common/cleanup.h: staging directories of local
 * outputs) in ordinary thread context, reports the signal and exits with 128 + its number, as
 * shells do (130 for SIGINT, 143 for SIGTERM).  SIGXFSZ (a write past `ulimit -f`) is ignored so
 * that the write fails with EFBIG, which the store reports naming the file. */
#include "gsvd_config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/cleanup.h"

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
    gsvd_cleanup_run_and_hold();
    fprintf(stderr, "[E::main] interrupted by %s; unfinished output removed\n", signal_name(b));
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

/* OpenBLAS starts its worker threads when the binary loads, and each maps a 128 MiB buffer
 * (32 MiB on some builds); when the mapping fails the thread retries forever, and exit() then
 * waits for it in OpenBLAS's destructor: under `ulimit -v` a little above what the libraries
 * need, every gensvd command, --version included, spun and never exited.  So before anything
 * else: with a finite RLIMIT_AS, a PROT_NONE mapping of this size (reserved, never touched)
 * must fit, else the run stops at once with a clear message. */
#define ADDRESS_HEADROOM ((size_t)128 << 20) /* one OpenBLAS buffer */

void gsvd_cli_check_address_space(void)
{
    struct rlimit rl;
    void *p;
    int fd;

    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return;
    fd = open("/dev/zero", O_RDONLY | O_CLOEXEC); /* MAP_ANONYMOUS is not POSIX.1-2008 */
    if (fd < 0)
        return;
    p = mmap(NULL, ADDRESS_HEADROOM, PROT_NONE, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p != MAP_FAILED) {
        munmap(p, ADDRESS_HEADROOM);
        return;
    }
    fprintf(stderr,
            "[E::main] out of memory: the virtual memory limit (ulimit -v %llu KiB) leaves less "
            "than %zu MiB for gensvd after its libraries (OpenBLAS reserves up to 128 MiB per "
            "thread); raise the limit\n",
            (unsigned long long)(rl.rlim_cur / 1024), ADDRESS_HEADROOM >> 20);
    fflush(stderr);
    _exit(GSVD_EXIT_FAIL); /* exit() would wait for OpenBLAS threads that never finish */
}
