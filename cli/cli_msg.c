/* cli/cli_msg.c - every line gensvd writes on stderr, in one style (docs/man/gensvd.md,
 * "Messages"):
 *   gensvd CMD: error: MESSAGE       why the run failed (always shown, also under -q)
 *   gensvd CMD: warning: MESSAGE     something to know; the run goes on (hidden by -q)
 *   gensvd CMD: MESSAGE              the summary at the default level, detail under -v
 *   gensvd CMD: debug: MESSAGE       -v -v
 * "gensvd: " before the command is known.  A distributed run adds "rank R: " after the tag.
 * The library's messages reach this file through the log callbacks: a command's context's
 * (cli/cli_lib.c) and, for what no context hears (start-up, gensvd_mpi_init), the process-wide
 * one (gensvd_set_default_log), installed with the command line's level.
 * Thread safety: a line is written with one fputs (stdio's lock keeps lines whole); the rest
 * runs on the main thread, before workers start or after they end. */
#include "gsvd_config.h"
#include "cli/cli_base.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const char *msg_cmd;     /* NULL: top level; set once by main() before threads start */
static double msg_t0;           /* the run's start (CLOCK_MONOTONIC seconds) */
static int msg_usage_hinted;    /* a "Try 'gensvd ... --help'." line was printed */
static atomic_int msg_bar_open; /* a progress line is drawn and not yet ended */
static atomic_int msg_muted;    /* set once: only msg_speaker prints from then on */
static atomic_int msg_errors;   /* error lines printed */
static pthread_t msg_speaker;
static int msg_level = GENSVD_LOG_WARN; /* gsvd_cli_msg_level; set before threads start */
static int msg_rank = -1;               /* gsvd_cli_msg_rank: -1, not a distributed run */

double gsvd_cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* "gensvd CMD: " into out; returns its length. */
static int prefix(char *out, size_t n)
{
    int k = snprintf(out, n, "gensvd%s%s: ", msg_cmd ? " " : "", msg_cmd ? msg_cmd : "");
    return k < 0 ? 0 : (size_t)k >= n ? (int)n - 1 : k;
}

/* One whole line on stderr: the prefix, the tag, the rank and msg.  A progress line still
 * open is ended first, so that the message starts a line of its own. */
static void put_line(enum gensvd_log_level level, const char *msg)
{
    static const char *const tags[] = {"", "error: ", "warning: ", "", "debug: "};
    char line[2400];
    int rank = msg_rank, at = 0;
    size_t len;

    if (atomic_load(&msg_muted) && !pthread_equal(pthread_self(), msg_speaker))
        return;
    if (level == GENSVD_LOG_ERROR)
        atomic_fetch_add(&msg_errors, 1);
    if (atomic_exchange(&msg_bar_open, 0))
        line[at++] = '\n';
    at += prefix(line + at, sizeof line - (size_t)at);
    snprintf(line + at, sizeof line - (size_t)at, "%s",
             level <= GENSVD_LOG_DEBUG ? tags[level] : "");
    len = strlen(line);
    if (rank >= 0)
        snprintf(line + len, sizeof line - len, "rank %d: ", rank);
    len = strlen(line);
    snprintf(line + len, sizeof line - len, "%s", msg);
    len = strlen(line);
    if (len >= sizeof line - 1)
        len = sizeof line - 2; /* truncated: keep the newline */
    line[len] = '\n';
    line[len + 1] = '\0';
    fputs(line, stderr);
}

void gsvd_cli_msg_log(enum gensvd_log_level level, const char *msg)
{
    if (level >= GENSVD_LOG_ERROR && level <= GENSVD_LOG_DEBUG)
        put_line(level, msg);
}

/* The library's messages that no context hears (the process-wide callback). */
static void on_default_log(void *user, enum gensvd_log_level level, const char *msg)
{
    (void)user;
    gsvd_cli_msg_log(level, msg);
}

void gsvd_cli_msg_init(const char *cmd)
{
    msg_cmd = cmd;
    if (msg_t0 == 0)
        msg_t0 = gsvd_cli_now();
    (void)gensvd_set_default_log(on_default_log, NULL, (enum gensvd_log_level)msg_level);
}

void gsvd_cli_msg_level(enum gensvd_log_level level)
{
    msg_level = level;
    (void)gensvd_set_default_log(on_default_log, NULL, level);
}

enum gensvd_log_level gsvd_cli_log_level(void)
{
    return (enum gensvd_log_level)msg_level;
}

void gsvd_cli_msg_rank(int rank)
{
    msg_rank = rank;
}

void gsvd_cli_msg_mute_others(void)
{
    msg_speaker = pthread_self();
    atomic_store(&msg_muted, 1);
}

const char *gsvd_cli_msg_cmd(void)
{
    return msg_cmd;
}

double gsvd_cli_elapsed(void)
{
    return gsvd_cli_now() - msg_t0;
}

void gsvd_cli_note(const char *fmt, ...)
{
    char msg[2048];
    va_list ap;

    if (msg_level < GENSVD_LOG_WARN)
        return; /* -q */
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    put_line(GENSVD_LOG_INFO, msg);
}

void gsvd_cli_duration(double s, char *out, size_t n)
{
    if (s < 60) {
        snprintf(out, n, "%.1f s", s);
        return;
    }
    unsigned long t = (unsigned long)(s + 0.5);
    if (t < 3600)
        snprintf(out, n, "%lu min %lu s", t / 60, t % 60);
    else
        snprintf(out, n, "%lu h %lu min", t / 3600, t / 60 % 60);
}

void gsvd_cli_done(const char *where)
{
    char took[32];

    gsvd_cli_duration(gsvd_cli_elapsed(), took, sizeof took);
    gsvd_cli_note("wrote %s in %s", where, took);
}

/* ---- usage errors ------------------------------------------------------------------------ */

static void try_line(const char *cmd)
{
    fprintf(stderr, "Try 'gensvd%s%s --help'.\n", cmd ? " " : "", cmd ? cmd : "");
    msg_usage_hinted = 1;
}

int gsvd_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    const char *saved = msg_cmd;

    if (msg_rank > 0)
        return GSVD_EXIT_USAGE; /* every rank has the same command line: rank 0 says it */
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    msg_cmd = cmd;
    put_line(GENSVD_LOG_ERROR, msg);
    msg_cmd = saved;
    try_line(cmd);
    return GSVD_EXIT_USAGE;
}

int gsvd_cli_finish(int exit_code)
{
    /* a usage error the library reported (GSVD_EINVAL): the same style; in a distributed run
     * rank 0 speaks for all */
    if (exit_code == GSVD_EXIT_USAGE && !msg_usage_hinted && msg_rank <= 0)
        try_line(msg_cmd);
    return exit_code;
}

/* ---- progress lines ---------------------------------------------------------------------- */

int gsvd_cli_bar_take(void)
{
    return atomic_exchange(&msg_bar_open, 0);
}

void gsvd_cli_bar_open(int open)
{
    atomic_store(&msg_bar_open, open);
}

int gsvd_cli_msg_errors(void)
{
    return atomic_load(&msg_errors);
}

int gsvd_cli_msg_prefix(char *out, size_t n)
{
    return prefix(out, n);
}

/* ---- nearest words ----------------------------------------------------------------------- */

/* Optimal string alignment distance (Damerau-Levenshtein with adjacent transpositions, no
 * substring edited twice) between a and b, or `cap` + 1 when it exceeds cap or either word is
 * longer than 63 characters. */
static size_t osa_distance(const char *a, const char *b, size_t cap)
{
    size_t n = strlen(a), m = strlen(b);
    size_t d[64][64];

    if (n > 63 || m > 63)
        return cap + 1;
    for (size_t i = 0; i <= n; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            size_t cost = a[i - 1] != b[j - 1], v = d[i - 1][j - 1] + cost;
            if (d[i - 1][j] + 1 < v)
                v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[n][m] > cap ? cap + 1 : d[n][m];
}

void gsvd_cli_nearest(const char *word, const char *const *cands, size_t n, const char *open,
                      const char *close, char *out, size_t cap)
{
    size_t len = strlen(word), best = SIZE_MAX, at = 0, shown = 0;
    /* close enough to be a slip: one edit in a short word, up to three in a long one */
    size_t allow = len <= 4 ? 1 : len <= 8 ? 2 : 3;

    out[0] = '\0';
    if (len == 0)
        return;
    for (size_t i = 0; i < n; i++) {
        size_t d = osa_distance(word, cands[i], allow);
        if (d < best)
            best = d;
    }
    if (best > allow)
        return;
    for (size_t i = 0; i < n && shown < 3 && at < cap; i++) {
        if (osa_distance(word, cands[i], allow) != best)
            continue;
        int k = snprintf(out + at, cap - at, "%s%s%s%s", shown ? " or " : "; did you mean ", open,
                         cands[i], close);
        if (k < 0)
            break;
        at += (size_t)k;
        shown++;
    }
    if (at < cap)
        snprintf(out + at, cap - at, "?");
}
