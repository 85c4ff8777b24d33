/* cli/cli_lib.c - a parsed command line as the public API's objects (include/gensvd.h): the
 * context (threads, device, remote settings, messages in the command line's style, the
 * progress line), the destination of -o, the source of INPUT with its input options, and the
 * options of the analysis, forwarded by the library's names (cli/opts.h, `.lib`).
 * This file names nothing of gensvd's internals (tests/check_sources.sh). */
#include "gsvd_config.h"
#include "cli/cli_base.h"

#include <stdio.h>
#include <string.h>

#include "cli/opts_source.h"

/* The library's messages, in the style of every other line on stderr (any thread). */
static void on_log(void *user, enum gensvd_log_level level, const char *msg)
{
    (void)user;
    gsvd_cli_msg_log(level, msg);
}

/* A remote setting given on the command line (0 / NULL: not given, the environment's stays). */
static int set_remote(gensvd_ctx *ctx, const struct gsvd_cli_common *c)
{
    int rc = GENSVD_OK;
    if (rc == GENSVD_OK && c->concurrency)
        rc = gensvd_ctx_set_int(ctx, "concurrency", c->concurrency);
    if (rc == GENSVD_OK && c->retries_plus1)
        rc = gensvd_ctx_set_int(ctx, "retries", (int64_t)c->retries_plus1 - 1);
    if (rc == GENSVD_OK && c->timeout_s)
        rc = gensvd_ctx_set_int(ctx, "timeout", c->timeout_s);
    if (rc == GENSVD_OK && c->endpoint)
        rc = gensvd_ctx_set_string(ctx, "endpoint", c->endpoint);
    if (rc == GENSVD_OK && c->s3_addressing)
        rc = gensvd_ctx_set_string(ctx, "s3-addressing", c->s3_addressing);
    if (rc == GENSVD_OK && c->no_sign_request)
        rc = gensvd_ctx_set_int(ctx, "no-sign-request", 1);
    if (rc == GENSVD_OK && c->gcs_token_file)
        rc = gensvd_ctx_set_string(ctx, "gcs-token-file", c->gcs_token_file);
    return rc;
}

int gsvd_cli_ctx(const struct gsvd_cli_common *c, const char *device, struct gsvd_cli_bar *bar,
                 const char *unit, gensvd_ctx **out)
{
    gensvd_ctx *ctx = gensvd_ctx_new();
    int rc;

    *out = NULL;
    if (!ctx) {
        gsvd_cli_msg_log(GENSVD_LOG_ERROR, "out of memory");
        return GENSVD_ENOMEM;
    }
    rc = gensvd_ctx_set_log(ctx, on_log, NULL, gsvd_cli_log_level());
    if (rc == GENSVD_OK)
        rc = gensvd_ctx_set_int(ctx, "threads", (int64_t)c->threads);
    if (rc == GENSVD_OK && device)
        rc = gensvd_ctx_set_string(ctx, "device", device);
    if (rc == GENSVD_OK)
        rc = set_remote(ctx, c);
    if (rc != GENSVD_OK) {
        gensvd_ctx_free(ctx);
        return rc;
    }
    if (bar) {
        gsvd_cli_bar_init(bar, unit);
        if (c->progress > 0)
            gensvd_ctx_set_progress(ctx, gsvd_cli_bar_draw, bar);
    }
    *out = ctx;
    return GENSVD_OK;
}

int gsvd_cli_dest(gensvd_ctx *ctx, const char *url, int force, const struct gsvd_cli_zarr_out *z,
                  gensvd_dest **out)
{
    gensvd_dest *d = NULL;
    int rc = gensvd_dest_new(ctx, url, &d); /* "empty output path" for "" */

    if (rc == GENSVD_OK)
        rc = gensvd_dest_set_int(d, "force", force);
    if (rc == GENSVD_OK && z->format)
        rc = gensvd_dest_set_int(d, "zarr-format", z->format);
    if (rc == GENSVD_OK)
        rc = gensvd_dest_check(d);
    if (rc != GENSVD_OK) {
        gensvd_dest_free(d);
        d = NULL;
    }
    *out = d;
    return rc;
}

int gsvd_cli_dest_shard(gensvd_dest *d, const struct gsvd_cli_zarr_out *z, int input_format)
{
    char shard[48];
    int rc = GENSVD_OK;

    if (!z->shard[0])
        return GENSVD_OK;
    /* the check of gsvd_cli_zarr_out_check_input passed: the output is format 3 */
    if (!z->format && input_format == 3)
        rc = gensvd_dest_set_int(d, "zarr-format", 3);
    if (z->shard[1])
        snprintf(shard, sizeof shard, "%llu,%llu", (unsigned long long)z->shard[0],
                 (unsigned long long)z->shard[1]);
    else
        snprintf(shard, sizeof shard, "%llu", (unsigned long long)z->shard[0]);
    if (rc == GENSVD_OK)
        rc = gensvd_dest_set_string(d, "shard", shard);
    return rc;
}

int gsvd_cli_source(gensvd_ctx *ctx, const char *input, const struct gsvd_cli_geno *geno,
                    const char *samples_file, const char *variant_mask, const char *sample_mask,
                    gensvd_source **out)
{
    gensvd_source *src = NULL;
    int rc;

    *out = NULL;
    if (!*input) { /* the synopsis' word: the library says "empty source path" */
        gsvd_cli_msg_log(GENSVD_LOG_ERROR, "empty INPUT path");
        return GENSVD_ENOTFOUND;
    }
    if (samples_file) { /* read before the input is opened, as always */
        char **ids = NULL;
        size_t n = 0;
        rc = gsvd_cli_read_id_list(samples_file, &ids, &n);
        if (rc == GENSVD_OK && (rc = gensvd_source_open(ctx, input, &src)) == GENSVD_OK)
            rc = gensvd_source_set_samples(src, (const char *const *)ids, n);
        gsvd_cli_free_id_list(ids, n);
    } else {
        rc = gensvd_source_open(ctx, input, &src);
    }
    if (rc == GENSVD_OK && geno->array)
        rc = gensvd_source_set_string(src, "array", geno->array);
    if (rc == GENSVD_OK && geno->transpose)
        rc = gensvd_source_set_int(src, "transpose", 1);
    if (rc == GENSVD_OK && geno->ploidy)
        rc = gensvd_source_set_int(src, "ploidy", (int64_t)geno->ploidy);
    if (rc == GENSVD_OK && geno->var_start)
        rc = gensvd_source_set_int(src, "variant-start", (int64_t)geno->var_start);
    if (rc == GENSVD_OK && geno->var_stop)
        rc = gensvd_source_set_int(src, "variant-stop", (int64_t)geno->var_stop);
    if (rc == GENSVD_OK && geno->maf > 0)
        rc = gensvd_source_set_double(src, "maf", geno->maf);
    if (rc == GENSVD_OK && geno->max_missing < 1)
        rc = gensvd_source_set_double(src, "max-missing", geno->max_missing);
    if (rc == GENSVD_OK && geno->mind < 1)
        rc = gensvd_source_set_double(src, "mind", geno->mind);
    if (rc == GENSVD_OK && geno->hwe > 0)
        rc = gensvd_source_set_double(src, "hwe", geno->hwe);
    if (rc == GENSVD_OK && geno->hwe_midp)
        rc = gensvd_source_set_int(src, "hwe-midp", 1);
    if (rc == GENSVD_OK && geno->all_contigs)
        rc = gensvd_source_set_int(src, "all-contigs", 1);
    if (rc == GENSVD_OK && geno->chr)
        rc = gensvd_source_set_string(src, "chr", geno->chr);
    if (rc == GENSVD_OK && geno->not_chr)
        rc = gensvd_source_set_string(src, "not-chr", geno->not_chr);
    if (rc == GENSVD_OK && geno->autosome)
        rc = gensvd_source_set_int(src, geno->autosome == 2 ? "autosome-par" : "autosome", 1);
    if (rc == GENSVD_OK && geno->from_bp != GSVD_CLI_BP_UNSET)
        rc = gensvd_source_set_int(src, "from-bp", (int64_t)geno->from_bp);
    if (rc == GENSVD_OK && geno->to_bp != GSVD_CLI_BP_UNSET)
        rc = gensvd_source_set_int(src, "to-bp", (int64_t)geno->to_bp);
    if (rc == GENSVD_OK && geno->var_filter)
        rc = gensvd_source_set_int(src, "var-filter", 1);
    if (rc == GENSVD_OK && geno->var_filter_except)
        rc = gensvd_source_set_string(src, "var-filter-except", geno->var_filter_except);
    for (size_t k = 0; rc == GENSVD_OK && k < GSVD_CLI_VAR_LISTS; k++)
        if (geno->var_list[k])
            rc = gensvd_source_set_string(src, gsvd_cli_var_list_names[k], geno->var_list[k]);
    if (rc == GENSVD_OK && geno->keep)
        rc = gensvd_source_set_string(src, "keep", geno->keep);
    if (rc == GENSVD_OK && geno->remove)
        rc = gensvd_source_set_string(src, "remove", geno->remove);
    if (rc == GENSVD_OK && variant_mask)
        rc = gensvd_source_set_string(src, "variant-mask", variant_mask);
    if (rc == GENSVD_OK && sample_mask)
        rc = gensvd_source_set_string(src, "sample-mask", sample_mask);
    if (rc != GENSVD_OK) {
        gensvd_source_free(src);
        return rc;
    }
    *out = src;
    return GENSVD_OK;
}

/* One option's field handed to the library by its `.lib` name. */
static int forward_one(gensvd_options *opt, const struct gsvd_opt *o, const char *field)
{
    char text[32];
    uint64_t u = 0;
    double d;
    int i;
    const char *s;

    switch (o->type) {
    case GSVD_OPT_FLAG:
        memcpy(&i, field, sizeof i);
        return gensvd_options_set_int(opt, o->lib, i);
    case GSVD_OPT_UINT:
    case GSVD_OPT_BYTES: /* as text: a value above INT64_MAX (a seed) passes too */
        if (o->size == sizeof(uint64_t)) {
            memcpy(&u, field, sizeof u);
        } else if (o->size == sizeof(uint32_t)) {
            uint32_t v;
            memcpy(&v, field, sizeof v);
            u = v;
        } else {
            return GENSVD_EINTERNAL;
        }
        snprintf(text, sizeof text, "%llu", (unsigned long long)u);
        return gensvd_options_set_string(opt, o->lib, text);
    case GSVD_OPT_DOUBLE:
        memcpy(&d, field, sizeof d);
        return gensvd_options_set_double(opt, o->lib, d);
    case GSVD_OPT_CHOICE:
        memcpy(&i, field, sizeof i);
        return gensvd_options_set_string(opt, o->lib, o->choices[i]);
    case GSVD_OPT_STRING:
    case GSVD_OPT_CALL:
        memcpy(&s, field, sizeof s);
        return s ? gensvd_options_set_string(opt, o->lib, s) : GENSVD_OK;
    default:
        return GENSVD_EINTERNAL;
    }
}

int gsvd_cli_forward(const struct gsvd_cmd_spec *spec, const void *target, gensvd_options *opt)
{
    for (size_t g = 0; g < spec->n_groups; g++) {
        const struct gsvd_opt_group *grp = spec->groups[g].group;
        for (size_t k = 0; k < grp->n; k++) {
            const struct gsvd_opt *o = &grp->opts[k];
            int rc;
            if (!o->lib)
                continue;
            rc = forward_one(opt, o, (const char *)target + spec->groups[g].base + o->offset);
            if (rc != GENSVD_OK)
                return rc;
        }
    }
    return GENSVD_OK;
}

int gsvd_cli_options(gensvd_ctx *ctx, enum gensvd_analysis an, const struct gsvd_cmd_spec *spec,
                     const void *target, const char *command, gensvd_options **out)
{
    gensvd_options *opt = NULL;
    int rc = gensvd_options_new(ctx, an, &opt);

    if (rc == GENSVD_OK)
        rc = gsvd_cli_forward(spec, target, opt);
    if (rc == GENSVD_OK && command)
        rc = gensvd_options_set_string(opt, "command", command);
    if (rc != GENSVD_OK) {
        gensvd_options_free(opt);
        opt = NULL;
    }
    *out = opt;
    return rc;
}

int gsvd_cli_run_open(struct gsvd_cli_run *r)
{
    int format = 0;
    /* first: an unavailable device fails before any data is read */
    int rc = gsvd_cli_ctx(r->common, r->device, &r->bar, r->unit, &r->ctx);

    if (rc == GENSVD_OK && r->output) /* before any input */
        rc = gsvd_cli_dest(r->ctx, r->output, r->force, r->zout, &r->dest);
    for (size_t i = 0; rc == GENSVD_OK && r->files && r->files[i]; i++)
        rc = gensvd_file_check(r->ctx, r->files[i], r->force);
    if (rc == GENSVD_OK && r->input)
        rc = gsvd_cli_source(r->ctx, r->input, r->geno, r->samples_file, r->variant_mask,
                             r->sample_mask, &r->src);
    if (rc == GENSVD_OK && r->src)
        format = gensvd_source_zarr_format(r->src);
    if (rc == GENSVD_OK && r->dest &&
        (rc = gsvd_cli_zarr_out_check_input(r->cmd, r->zout, format)) == GENSVD_OK)
        rc = gsvd_cli_dest_shard(r->dest, r->zout, format);
    if (rc == GENSVD_OK)
        rc = gsvd_cli_options(r->ctx, r->analysis, r->spec, r->target, r->command, &r->opt);
    return rc;
}

void gsvd_cli_run_close(struct gsvd_cli_run *r)
{
    gensvd_result_free(r->res);
    gensvd_options_free(r->opt);
    gensvd_source_free(r->src);
    gensvd_dest_free(r->dest);
    gensvd_ctx_free(r->ctx);
    r->res = NULL;
    r->opt = NULL;
    r->src = NULL;
    r->dest = NULL;
    r->ctx = NULL;
}

void gsvd_cli_done_to(const char *output, const char *what)
{
    char where[1024];

    snprintf(where, sizeof where, "%s%s%s%s", output ? output : "", output && what ? " and " : "",
             what ? what : "", what ? " to standard output" : "");
    gsvd_cli_done(where);
}

int gsvd_cli_stdout_done(void)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        gsvd_cli_msg_log(GENSVD_LOG_ERROR, "standard output: write failed");
        return GENSVD_EIO;
    }
    return GENSVD_OK;
}

double gsvd_cli_attr(const gensvd_result *res, const char *name)
{
    double v = 0;
    return gensvd_result_attr_double(res, name, &v) == GENSVD_OK ? v : 0;
}
