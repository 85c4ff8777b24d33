/* cli/cli_util.c - exit codes, the common options (log level, threads, progress), the progress
 * line, the Zarr output checks.  Parsing is cli_parse.c's. */
#include "gsvd_config.h"
#include "cli/cli_base.h"

#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int gsvd_cli_exit_code(int rc)
{
    switch (rc) {
    case GENSVD_OK:
        return GSVD_EXIT_OK;
    case GENSVD_EINVAL:
        return GSVD_EXIT_USAGE;
    case GENSVD_ENOTBUILT:
    case GENSVD_ENODEVICE:
        return GSVD_EXIT_UNAVAILABLE;
    case GENSVD_EINTERNAL:
        return GSVD_EXIT_INTERNAL;
    default:
        return rc > 0 ? GSVD_EXIT_OK : GSVD_EXIT_FAIL;
    }
}

/* The remote settings (given, or GENSVD_* from the environment) are each command's context's
 * (cli/cli_lib.c, gsvd_cli_ctx); nothing here is process-wide but the messages' level. */
void gsvd_cli_common_apply(struct gsvd_cli_common *c)
{
    int level = GENSVD_LOG_WARN + c->verbosity;
    const char *env = getenv("GENSVD_LOG_LEVEL");
    if (env && c->verbosity == 0) {
        uint64_t v;
        if (gsvd_cli_parse_uint(env, 0, 4, 0, &v) == 0)
            level = (int)v;
    }
    if (level < GENSVD_LOG_ERROR)
        level = GENSVD_LOG_ERROR; /* -q keeps errors: failures always explain themselves */
    if (level > GENSVD_LOG_DEBUG)
        level = GENSVD_LOG_DEBUG;
    /* a distributed run: rank 0 speaks for all, the others only report their errors, and the
     * processes of a node share its cores */
    if (gensvd_mpi_rank() > 0)
        level = GENSVD_LOG_ERROR;
    gsvd_cli_msg_level((enum gensvd_log_level)level);
    const char *was = getenv("GENSVD_BLAS_CORE_WAS");
    if (was && level >= GENSVD_LOG_INFO) {
        char line[1024];
        snprintf(line, sizeof line,
                 "OpenBLAS did not know this CPU and chose its %s kernels; running with "
                 "OPENBLAS_CORETYPE=%s instead (set OPENBLAS_CORETYPE to choose)",
                 was, gensvd_build_info("blas core"));
        gsvd_cli_msg_log(GENSVD_LOG_INFO, line);
    }
    if (c->threads == 0) {
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        size_t per = (ncpu > 0 ? (size_t)ncpu : 1) / (size_t)gensvd_mpi_local_size();
        c->threads = per ? per : 1;
    }
    if (c->progress < 0)
        c->progress = isatty(STDERR_FILENO);
    if (gensvd_mpi_rank() > 0)
        c->progress = 0;
    if (c->verbosity < 0)
        c->progress = 0; /* -q: errors only, no bar even with --progress */
}

/* ---- progress line ----------------------------------------------------------------------------
 */

/* "12.3k": n with an SI suffix, into out (>= 16 bytes). */
static void bar_si(char *out, size_t n, double v)
{
    static const char *const suf[] = {"", "k", "M", "G", "T"};
    size_t i = 0;
    while (v >= 999.5 && i < 4) {
        v /= 1000.0;
        i++;
    }
    snprintf(out, n, "%.3g%s", v, suf[i]);
}

void gsvd_cli_bar_draw(void *bar, const char *what, uint64_t done, uint64_t total)
{
    struct gsvd_cli_bar *b = bar;
    double t = gsvd_cli_now();
    int end = total && done >= total;
    const char *unit = b->unit ? b->unit : "";
    const char *sp = b->unit ? " " : "";
    char pre[96];

    if (strncmp(b->what, what, sizeof b->what - 1) != 0) {
        if (gsvd_cli_bar_take())
            fputc('\n', stderr); /* the previous stage ended without its last report */
        snprintf(b->what, sizeof b->what, "%s", what);
        b->t0 = t;
        b->shown = 0;
    }
    if (!end && t - b->shown < 0.1)
        return;
    b->shown = t;
    gsvd_cli_msg_prefix(pre, sizeof pre);
    if (total) {
        double frac = (double)done / (double)total, el = t - b->t0;
        char rate[48] = "";
        if (el > 0) {
            bar_si(rate, 16, (double)done / el);
            snprintf(rate + strlen(rate), sizeof rate - strlen(rate), "%s%s/s", sp,
                     b->unit ? unit : "");
        }
        fprintf(stderr, "\r%s%s: %llu/%llu%s%s (%3.0f%%)", pre, what, (unsigned long long)done,
                (unsigned long long)total, sp, unit, 100.0 * frac);
        if (end)
            fprintf(stderr, " in %.1f s%s%s   ", el, rate[0] ? ", " : "", rate);
        else if (frac > 0.02 && el > 0.5)
            fprintf(stderr, ", %s, ETA %.0f s   ", rate, el * (1 - frac) / frac);
        else
            fputs("                          ", stderr);
    } else {
        fprintf(stderr, "\r%s%s: %llu%s%s", pre, what, (unsigned long long)done, sp, unit);
    }
    if (end) {
        fputc('\n', stderr);
        gsvd_cli_bar_open(0);
        b->what[0] = '\0';
    } else {
        gsvd_cli_bar_open(1);
    }
}

void gsvd_cli_bar_init(struct gsvd_cli_bar *bar, const char *unit)
{
    memset(bar, 0, sizeof *bar);
    bar->unit = unit;
}

int gsvd_cli_zarr_out_check(const char *cmd, const struct gsvd_cli_zarr_out *z, const char *output)
{
    if (!output && (z->format || z->shard[0]))
        return gsvd_cli_usage_error(cmd, "%s applies to the Zarr output: add -o OUT",
                                    z->format ? "--zarr-format" : "--shard");
    if (z->shard[0] && z->format == 2)
        return gsvd_cli_usage_error(cmd, "--shard needs --zarr-format 3, not 2");
    return 0;
}

int gsvd_cli_zarr_out_check_input(const char *cmd, const struct gsvd_cli_zarr_out *z,
                                  int input_format)
{
    if (!z->shard[0] || z->format == 3 || (z->format == 0 && input_format == 3))
        return GENSVD_OK;
    if (input_format == 0)
        gsvd_cli_usage_error(cmd,
                             "--shard needs --zarr-format 3 (%s writes Zarr format 2 "
                             "otherwise)",
                             cmd);
    else
        gsvd_cli_usage_error(cmd,
                             "--shard needs --zarr-format 3: the output takes the input's "
                             "Zarr format, and the input is format %d",
                             input_format);
    return GENSVD_EINVAL;
}
