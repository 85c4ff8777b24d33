/* tests/lib/test_lib_process.c - the process-wide calls of include/gensvd.h: the default log
 * callback (a new context's warning about a bad GENSVD_CONCURRENCY reaches it at its level,
 * and nothing without one), the node's process count, OpenBLAS's kernel set (the documented
 * rule), gensvd_blas_reserve under a finite RLIMIT_AS (ENOMEM naming the limit without room,
 * OK with room) and gensvd_abandon_outputs during a run (counted, nothing left beside the
 * output's directory), the last two in child processes, which exit after them.  It writes its
 * report to the file named by its first argument: its driver (test_lib_silent.sh) checks that
 * nothing at all reached stdout or stderr, the library's included.
 * Usage: test_lib_process REPORT HAPMAP3.vcz SCRATCH_DIR (the store is not read) */
#include <gensvd.h>

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "lib_check.h"

static char dflt[4][512]; /* what the default callback heard: "LEVEL message" */
static int n_dflt;
static void keep_default(void *user, enum gensvd_log_level level, const char *msg)
{
    (void)user;
    if (n_dflt < 4)
        snprintf(dflt[n_dflt], sizeof dflt[0], "%d %s", (int)level, msg);
    n_dflt++;
}

/* A new context reads GENSVD_CONCURRENCY and ignores a bad value with a warning that no
 * context hears: the default callback's, at its level; without one it goes nowhere (the
 * driver checks that stderr stayed empty). */
static void default_log(void)
{
    static const char want[] = "2 ignoring GENSVD_CONCURRENCY='many' (expected 1 to 1024)";

    setenv("GENSVD_CONCURRENCY", "many", 1);
    gensvd_ctx_free(gensvd_ctx_new()); /* no callback yet: dropped */
    check(gensvd_set_default_log(keep_default, NULL, (enum gensvd_log_level)7) == GENSVD_EINVAL,
          "set_default_log level 7: EINVAL");
    gensvd_ctx_free(gensvd_ctx_new()); /* the refused call installed nothing */
    check(n_dflt == 0, "set_default_log: nothing heard before one is set (%d)", n_dflt);
    check(gensvd_set_default_log(keep_default, NULL, GENSVD_LOG_WARN) == GENSVD_OK,
          "set_default_log warn");
    gensvd_ctx_free(gensvd_ctx_new());
    check(n_dflt == 1 && !strcmp(dflt[0], want), "set_default_log: the warning heard ('%s')",
          n_dflt ? dflt[0] : "");
    check(gensvd_set_default_log(keep_default, NULL, GENSVD_LOG_ERROR) == GENSVD_OK,
          "set_default_log error");
    gensvd_ctx_free(gensvd_ctx_new());
    check(n_dflt == 1, "set_default_log error: the warning is below the level");
    check(gensvd_set_default_log(NULL, NULL, GENSVD_LOG_DEBUG) == GENSVD_OK,
          "set_default_log NULL");
    gensvd_ctx_free(gensvd_ctx_new());
    check(n_dflt == 1, "set_default_log NULL: dropped again");
    unsetenv("GENSVD_CONCURRENCY");
}

static void process_facts(void)
{
    const char *core = gensvd_build_info("blas core"), *fix = gensvd_build_info("blas core fix");

    check(gensvd_mpi_local_size() == 1 && gensvd_mpi_size() == 1 && gensvd_mpi_rank() == 0,
          "mpi: one process on this node without mpirun");
    check(*core && strstr(gensvd_build_info("blas"), core), "build_info blas core '%s' in '%s'",
          core, gensvd_build_info("blas"));
    /* the documented rule: a set only for OpenBLAS's generic Prescott kernels, never over the
     * user's OPENBLAS_CORETYPE */
    check((!*fix || ((!strcmp(fix, "SkylakeX") || !strcmp(fix, "Haswell")) &&
                     !strcasecmp(core, "Prescott") && !getenv("OPENBLAS_CORETYPE"))),
          "build_info blas core fix '%s' (core %s)", fix, core);
}

/* Entries of a directory besides . and .., -1 when it cannot be read. */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    if (!d)
        return -1;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* The child's progress callback: once the run has staged its output, abandon it from here
 * (the run's own thread) and exit 0 when it was counted and nothing is left beside it. */
static void abandon_now(void *user, const char *what, uint64_t done, uint64_t total)
{
    const char *dir = user;
    (void)what;
    (void)done;
    (void)total;
    if (entries(dir) > 0) {
        size_t n = gensvd_abandon_outputs();
        _exit(n >= 1 && entries(dir) == 0 ? 0 : 1);
    }
}

/* Run `child` in a child process; its exit status, or -1. */
static int in_child(int (*child)(const char *), const char *arg)
{
    int st = 0;
    pid_t pid;

    fflush(rep);
    pid = fork();
    if (pid == 0)
        _exit(child(arg));
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

static char abandon_dir[4096];

/* Nothing staged: 0 (and the process exits, as it must). */
static int child_abandon_none(const char *unused)
{
    (void)unused;
    gensvd_ctx_free(gensvd_ctx_new());
    return (int)gensvd_abandon_outputs();
}

static int child_abandon(const char *dir)
{
    gensvd_ctx *ctx = gensvd_ctx_new();
    gensvd_options *opt = NULL;
    gensvd_dest *dest = NULL;
    gensvd_result *res = NULL;
    char out[4096];

    if (!ctx)
        return 4;
    snprintf(out, sizeof out, "%s/sim.zarr", dir);
    snprintf(abandon_dir, sizeof abandon_dir, "%s", dir);
    gensvd_ctx_set_progress(ctx, abandon_now, abandon_dir);
    if (gensvd_options_new(ctx, GENSVD_SIMULATE, &opt) || gensvd_dest_new(ctx, out, &dest) ||
        gensvd_options_set_int(opt, "variants", 50000) ||
        gensvd_options_set_int(opt, "samples", 64))
        return 5;
    gensvd_run(ctx, opt, NULL, dest, &res);
    return 3; /* the run ended without the callback seeing its staging */
}

/* Under a limit that leaves no room for one OpenBLAS buffer: ENOMEM, and the message naming
 * the limit reaches the default callback (the documented contract); under a roomy one: OK,
 * silently. */
static int child_reserve(const char *room)
{
    struct rlimit rl;
    long pages = 0, page = sysconf(_SC_PAGESIZE);
    FILE *f = fopen("/proc/self/statm", "r");

    if (!f || fscanf(f, "%ld", &pages) != 1)
        return 6;
    fclose(f);
    /* the address space in use and 4 GiB more, or 64 MiB more: less than one buffer (129 MiB),
     * enough for what a sanitizer's allocator maps meanwhile */
    rl.rlim_cur = rl.rlim_max =
        (rlim_t)pages * (rlim_t)page + (room[0] == '1' ? 1ull << 32 : 64ull << 20);
    if (setrlimit(RLIMIT_AS, &rl) != 0)
        return 7;
    gensvd_set_default_log(keep_default, NULL, GENSVD_LOG_ERROR);
    n_dflt = 0;
    int rc = gensvd_blas_reserve();
    if (room[0] == '1')
        return rc == GENSVD_OK && n_dflt == 0 ? 0 : 1;
    return rc == GENSVD_ENOMEM && n_dflt == 1 && strstr(dflt[0], "1 out of memory") == dflt[0] &&
                   strstr(dflt[0], "ulimit -v")
               ? 0
               : 1;
}

static void process_guards(const char *scratch)
{
    char dir[4096];
    int st;

    snprintf(dir, sizeof dir, "%s/abandon", scratch);
    check(mkdir(dir, 0777) == 0, "mkdir %s", dir);
    st = in_child(child_abandon, dir);
    check(st == 0 && entries(dir) == 0,
          "abandon_outputs during a simulate run: counted and removed (child exit %d, %d left)", st,
          entries(dir));
    st = in_child(child_abandon_none, "");
    check(st == 0, "abandon_outputs with nothing staged: 0 (child exit %d)", st);
    st = in_child(child_reserve, "0");
    check(st == 0, "blas_reserve without room: ENOMEM naming the limit (child exit %d)", st);
    st = in_child(child_reserve, "1");
    check(st == 0, "blas_reserve with 4 GiB of room: OK (child exit %d)", st);
}

int main(int argc, char **argv)
{
    if (argc != 4 || !(rep = fopen(argv[1], "w")))
        return 2;
    process_guards(argv[3]); /* first: the children start from a process with no run behind */
    default_log();
    process_facts();
    fprintf(rep, "%d passed, %d failed\n", passed, failed);
    fclose(rep);
    return failed != 0;
}
