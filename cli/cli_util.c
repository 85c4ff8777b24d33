/* cli/cli_util.c - exit codes, usage errors, number parsing, common options, input opening. */
#include "gsvd_config.h"
#include "cli/cli_base.h"

#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/cpu/blas_room.h"
#include "analysis/ldprune/ldprune.h"
#include "common/pipeline.h"
#include "common/alloc.h"
#include "common/buf.h"
#include "common/comm.h"
#include "common/err.h"
#include "common/log.h"
#include "common/parse.h"

int gsvd_cli_exit_code(int rc)
{
    switch (rc) {
    case GSVD_OK:
        return GSVD_EXIT_OK;
    case GSVD_EINVAL:
        return GSVD_EXIT_USAGE;
    case GSVD_ENOTBUILT:
    case GSVD_ENODEVICE:
        return GSVD_EXIT_UNAVAILABLE;
    case GSVD_EINTERNAL:
        return GSVD_EXIT_INTERNAL;
    default:
        return rc > 0 ? GSVD_EXIT_OK : GSVD_EXIT_FAIL;
    }
}

int gsvd_cli_parse_uint(const char *s, uint64_t lo, uint64_t hi, int suffix, uint64_t *out)
{
    return gsvd_parse_uint(s, lo, hi, suffix, out);
}

int gsvd_cli_parse_size(const char *s, uint64_t *out)
{
    return gsvd_parse_size(s, out);
}

int gsvd_cli_parse_choice(const char *s, const char *const *names)
{
    return gsvd_parse_choice(s, names);
}

int gsvd_cli_parse_double(const char *s, double lo, double hi, double *out)
{
    return gsvd_parse_double(s, lo, hi, out);
}

struct gsvd_comm *lib_world(void); /* lib/mpi.c: opened by gensvd_mpi_init in main() */

/* Remote-store settings: defaults, then GENSVD_* environment, then the command line. */
static void apply_remote(const struct gsvd_cli_common *c)
{
    struct gsvd_remote_params p = GSVD_REMOTE_PARAMS_DEFAULT;

    gsvd_remote_params_env(&p);
    if (c->concurrency)
        p.concurrency = c->concurrency;
    if (c->retries_plus1)
        p.retries = c->retries_plus1 - 1;
    if (c->timeout_s)
        p.timeout_s = c->timeout_s;
    if (c->endpoint)
        p.endpoint = c->endpoint;
    if (c->s3_addressing)
        p.s3_addressing = c->s3_addressing;
    p.no_sign_request = c->no_sign_request;
    if (c->gcs_token_file)
        p.gcs_token_file = c->gcs_token_file;
    gsvd_store_set_remote(&p);
}

void gsvd_cli_common_apply(struct gsvd_cli_common *c)
{
    int level = GSVD_LOG_WARN + c->verbosity;
    const char *env = getenv("GENSVD_LOG_LEVEL");
    if (env && c->verbosity == 0) {
        uint64_t v;
        if (gsvd_cli_parse_uint(env, 0, 4, 0, &v) == 0)
            level = (int)v;
    }
    if (level < GSVD_LOG_ERROR)
        level = GSVD_LOG_ERROR; /* -q keeps errors: failures always explain themselves */
    if (level > GSVD_LOG_DEBUG)
        level = GSVD_LOG_DEBUG;
    /* a distributed run: rank 0 speaks for all, the others only report their errors, and the
     * processes of a node share its cores */
    gsvd_comm *w = lib_world();
    if (gsvd_comm_rank(w) > 0)
        level = GSVD_LOG_ERROR;
    gsvd_log_set_level((enum gsvd_log_level)level);
    const char *was = getenv("GENSVD_BLAS_CORE_WAS");
    if (was)
        gsvd_log_info("OpenBLAS did not know this CPU and chose its %s kernels; running with "
                      "OPENBLAS_CORETYPE=%s instead (set OPENBLAS_CORETYPE to choose)",
                      was, gsvd_blas_core());
    if (c->threads == 0) {
        size_t per = gsvd_ncpu() / (size_t)gsvd_comm_local_size(w);
        c->threads = per ? per : 1;
    }
    if (c->progress < 0)
        c->progress = isatty(STDERR_FILENO);
    if (gsvd_comm_rank(w) > 0)
        c->progress = 0;
    if (c->verbosity < 0)
        c->progress = 0; /* -q: errors only, no bar even with --progress */
    apply_remote(c);
}

int gsvd_cli_parse_device(const char *s, const char **out)
{
    static const char *const names[] = {"auto", "cpu", "gpu"};
    for (size_t i = 0; i < GSVD_ARRAY_LEN(names); i++)
        if (strcmp(s, names[i]) == 0) {
            *out = names[i];
            return GSVD_OK;
        }
    return GSVD_EINVAL;
}

char *gsvd_cli_command_line(int argc, char **argv)
{
    struct gsvd_buf b = GSVD_BUF_INIT;
    if (gsvd_buf_puts(&b, "gensvd") < 0)
        return NULL;
    for (int i = 0; i < argc; i++)
        if (gsvd_buf_printf(&b, " %s", argv[i]) < 0) {
            gsvd_buf_free(&b);
            return NULL;
        }
    return b.data;
}

int gsvd_cli_parse_range(const char *s, uint64_t *a, uint64_t *b)
{
    return gsvd_parse_range(s, a, b);
}

int gsvd_cli_read_id_list(const char *path, char ***ids, size_t *n)
{
    struct gsvd_strlist l = GSVD_STRLIST_INIT;
    int rc = gsvd_read_ids(path, &l);

    *ids = rc == GSVD_OK ? l.items : NULL;
    *n = rc == GSVD_OK ? l.n : 0;
    if (rc != GSVD_OK)
        gsvd_strlist_free(&l);
    return rc;
}

void gsvd_cli_free_id_list(char **ids, size_t n)
{
    struct gsvd_strlist l = {ids, n, n};
    gsvd_strlist_free(&l);
}

void gsvd_cli_free(void *p)
{
    gsvd_free(p);
}

enum gensvd_log_level gsvd_cli_log_level(void)
{
    return (enum gensvd_log_level)gsvd_log_get_level();
}

int gsvd_cli_parse_window(const char *s, uint64_t *variants, uint64_t *bp)
{
    return gsvd_ldprune_parse_window(s, variants, bp) < 0 ? -1 : 0;
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
        return GSVD_OK;
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
    return GSVD_EINVAL;
}
