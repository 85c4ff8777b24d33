/* cli/opts_groups.c - the option groups several commands share (cli_base.h): -v/-q/-h, progress,
 * threads, the remote stores' settings (all into struct gsvd_cli_common) and the Zarr output
 * format (struct gsvd_cli_zarr_out). */
#include "gsvd_config.h"

#include <stdlib.h>
#include <string.h>

#include "cli/cli_base.h"
#include "cli/opts.h"
#include "cli/opts_source.h"

#define COMMON(field) GSVD_OPT_FIELD(struct gsvd_cli_common, field)

static const struct gsvd_opt basic[] = {
    {.name = "verbose",
     .key = 'v',
     .type = GSVD_OPT_COUNT,
     COMMON(verbosity),
     .value = 1,
     .help = "more messages on stderr (repeatable)"},
    {.name = "quiet",
     .key = 'q',
     .type = GSVD_OPT_COUNT,
     COMMON(verbosity),
     .value = -1,
     .help = "errors only"},
    {.name = "help", .key = 'h', .type = GSVD_OPT_HELP, .help = "print this help and exit"},
};
const struct gsvd_opt_group gsvd_opts_basic = {NULL, basic, GSVD_CLI_LEN(basic), NULL};

static const struct gsvd_opt progress[] = {
    {.name = "progress",
     .type = GSVD_OPT_FLAG,
     COMMON(progress),
     .value = 1,
     .help = "progress on stderr [when stderr is a terminal]"},
    {.name = "no-progress",
     .type = GSVD_OPT_FLAG,
     COMMON(progress),
     .value = 0,
     .help = "no progress on stderr"},
};
const struct gsvd_opt_group gsvd_opts_progress = {NULL, progress, GSVD_CLI_LEN(progress), NULL};

static const struct gsvd_opt threads[] = {
    {.name = "threads",
     .key = 't',
     .type = GSVD_OPT_UINT,
     COMMON(threads),
     .arg = "INT",
     .lo = 0,
     .hi = 4096,
     .range = "0 = all cores, max 4096",
     .help = "worker threads [all cores]"},
};
const struct gsvd_opt_group gsvd_opts_threads = {NULL, threads, GSVD_CLI_LEN(threads), NULL};

static int parse_retries(const char *cmd, const char *arg, void *field)
{
    uint64_t v;
    unsigned u;
    if (gsvd_cli_parse_uint(arg, 0, 100, 0, &v) < 0)
        return gsvd_cli_usage_error(cmd, "invalid --retries '%s' (0 to 100)", arg);
    u = (unsigned)v + 1;
    memcpy(field, &u, sizeof u);
    return 0;
}

static int parse_endpoint(const char *cmd, const char *arg, void *field)
{
    if (!strstr(arg, "://"))
        return gsvd_cli_usage_error(cmd, "invalid --endpoint '%s' (a URL, e.g. https://HOST)", arg);
    memcpy(field, &arg, sizeof arg);
    return 0;
}

static const char *const addressing_names[] = {"auto", "path", "virtual", NULL};

static int parse_addressing(const char *cmd, const char *arg, void *field)
{
    if (strcmp(arg, "auto") && strcmp(arg, "path") && strcmp(arg, "virtual"))
        return gsvd_cli_usage_error(cmd, "invalid --s3-addressing '%s' (auto, path, virtual)", arg);
    memcpy(field, &arg, sizeof arg);
    return 0;
}

static const struct gsvd_opt remote[] = {
    {.name = "concurrency",
     .type = GSVD_OPT_UINT,
     COMMON(concurrency),
     .arg = "INT",
     .lo = 1,
     .hi = 1024,
     .help = "requests in flight [32]"},
    {.name = "retries",
     .type = GSVD_OPT_CALL,
     COMMON(retries_plus1),
     .arg = "INT",
     .parse = parse_retries,
     .help = "retries of a failed request (408, 429, 5xx, transport) [8]"},
    {.name = "timeout",
     .type = GSVD_OPT_UINT,
     COMMON(timeout_s),
     .arg = "SEC",
     .lo = 1,
     .hi = 86400,
     .range = "1 to 86400 seconds",
     .help = "retry a transfer stalled this long [60]"},
    {.name = "endpoint",
     .type = GSVD_OPT_CALL,
     COMMON(endpoint),
     .arg = "URL",
     .parse = parse_endpoint,
     .help = "S3 endpoint (path-style), e.g. http://127.0.0.1:9000"},
    {.name = "s3-addressing",
     .type = GSVD_OPT_CALL,
     COMMON(s3_addressing),
     .arg = "M",
     .parse = parse_addressing,
     .choices = addressing_names,
     .help = "auto, path or virtual [auto]"},
    {.name = "no-sign-request",
     .type = GSVD_OPT_FLAG,
     COMMON(no_sign_request),
     .value = 1,
     .help = "anonymous S3 requests (public buckets)"},
    {.name = "gcs-token-file",
     .type = GSVD_OPT_STRING,
     COMMON(gcs_token_file),
     .arg = "F",
     .flags = GSVD_OPTF_FILE,
     .help = "file holding a GCS OAuth2 access token"},
};
const struct gsvd_opt_group gsvd_opts_remote = {"Remote stores (http(s)://, gs://, s3://):", remote,
                                                GSVD_CLI_LEN(remote), NULL};

static int parse_shard(const char *cmd, const char *arg, void *field)
{
    const char *comma = strchr(arg, ',');
    char *rows = comma ? strndup(arg, (size_t)(comma - arg)) : strdup(arg);
    uint64_t shard[2] = {0, 0};
    int bad;

    if (!rows)
        return gsvd_cli_usage_error(cmd, "out of memory");
    bad = gsvd_cli_parse_uint(rows, 1, (uint64_t)1 << 40, 1, &shard[0]) < 0 ||
          (comma && gsvd_cli_parse_uint(comma + 1, 1, (uint64_t)1 << 40, 1, &shard[1]) < 0);
    free(rows);
    if (bad)
        return gsvd_cli_usage_error(cmd, "invalid --shard '%s' (ROWS[,COLS])", arg);
    memcpy(field, shard, sizeof shard);
    return 0;
}

static const struct gsvd_opt zarr_out[] = {
    {.name = "zarr-format",
     .type = GSVD_OPT_UINT,
     GSVD_OPT_FIELD(struct gsvd_cli_zarr_out, format),
     .arg = "2|3",
     .lo = 2,
     .hi = 3,
     .range = "2 or 3",
     .help = "Zarr format of the output [the input's, else 2]"},
    {.name = "shard",
     .type = GSVD_OPT_CALL,
     GSVD_OPT_FIELD(struct gsvd_cli_zarr_out, shard),
     .arg = "ROWS[,COLS]",
     .parse = parse_shard,
     .help = "Zarr v3 output (--zarr-format 3, or a v3 input): shards of\nROWS x COLS elements "
             "(COLS defaults to ROWS), multiples of\nthe chunks"},
};
const struct gsvd_opt_group gsvd_opts_zarr_out = {NULL, zarr_out, GSVD_CLI_LEN(zarr_out), NULL};

/* ---- parsers for the shared descriptors of cli/opts_source.h ----------------------------------
 */

int gsvd_opt_parse_variants(const char *cmd, const char *arg, void *field)
{
    uint64_t r[2];
    if (gsvd_cli_parse_range(arg, &r[0], &r[1]) < 0)
        return gsvd_cli_usage_error(cmd, "invalid --variants '%s' (START:STOP)", arg);
    memcpy(field, r, sizeof r);
    return 0;
}

/* A decimal number of 10^digits bases ("1.5" kb = 1500): *bp rounded up (a start) or down (an
 * end) to a whole base, as plink2 rounds --from-kb and --to-kb.  -1 if not a plain decimal
 * number or above 2^62 bases. */
static int decimal_bases(const char *s, int digits, int up, uint64_t *bp)
{
    uint64_t v = 0;
    int frac = -1, rest = 0, any = 0;
    for (; *s; s++) {
        if (*s == '.' && frac < 0) {
            frac = 0;
            continue;
        }
        if (*s < '0' || *s > '9')
            return -1;
        any = 1;
        if (frac >= digits) {
            rest |= *s != '0';
            continue;
        }
        if (v > ((uint64_t)1 << 62) / 10)
            return -1;
        v = v * 10 + (uint64_t)(*s - '0');
        if (frac >= 0)
            frac++;
    }
    for (frac = frac < 0 ? 0 : frac; frac < digits; frac++) {
        if (v > ((uint64_t)1 << 62) / 10)
            return -1;
        v *= 10;
    }
    v += (uint64_t)(up && rest);
    if (!any || v > (uint64_t)1 << 62)
        return -1;
    *bp = v;
    return 0;
}

/* --{from,to}-{bp,kb,mb}: digits 0, 3 or 6; up for a start. */
static int parse_bases(const char *cmd, const char *end, int digits, const char *arg, void *field)
{
    const char *unit = digits == 0 ? "bp" : digits == 3 ? "kb" : "mb";
    uint64_t n, had;
    int bad = digits == 0 ? gsvd_cli_parse_uint(arg, 0, (uint64_t)1 << 62, 0, &n)
                          : decimal_bases(arg, digits, !strcmp(end, "from"), &n);
    if (bad < 0)
        return gsvd_cli_usage_error(cmd, "invalid --%s-%s '%s' (%s)", end, unit, arg,
                                    digits == 0 ? "a position: a whole number from 0 to 2^62"
                                                : "a decimal number such as 1.5");
    memcpy(&had, field, sizeof had);
    if (had != GSVD_CLI_BP_UNSET)
        return gsvd_cli_usage_error(cmd,
                                    "--%s-%s: a %s position is given twice (one of --%s-bp, "
                                    "--%s-kb, --%s-mb, once)",
                                    end, unit, !strcmp(end, "from") ? "start" : "end", end, end,
                                    end);
    memcpy(field, &n, sizeof n);
    return 0;
}

int gsvd_opt_parse_from_bp(const char *cmd, const char *arg, void *field)
{
    return parse_bases(cmd, "from", 0, arg, field);
}

int gsvd_opt_parse_from_kb(const char *cmd, const char *arg, void *field)
{
    return parse_bases(cmd, "from", 3, arg, field);
}

int gsvd_opt_parse_from_mb(const char *cmd, const char *arg, void *field)
{
    return parse_bases(cmd, "from", 6, arg, field);
}

int gsvd_opt_parse_to_bp(const char *cmd, const char *arg, void *field)
{
    return parse_bases(cmd, "to", 0, arg, field);
}

int gsvd_opt_parse_to_kb(const char *cmd, const char *arg, void *field)
{
    return parse_bases(cmd, "to", 3, arg, field);
}

int gsvd_opt_parse_to_mb(const char *cmd, const char *arg, void *field)
{
    return parse_bases(cmd, "to", 6, arg, field);
}

const char *const gsvd_opt_device_names[] = {"auto", "cpu", "gpu", NULL};
const char *const gsvd_cli_var_list_names[GSVD_CLI_VAR_LISTS] = {
    "extract", "exclude", "extract-bed", "exclude-bed", "extract-range", "exclude-range"};
const char *const gsvd_opt_tsv_names[] = {"tsv", NULL};

int gsvd_opt_parse_device(const char *cmd, const char *arg, void *field)
{
    const char *dev;
    if (gsvd_cli_parse_device(arg, &dev) < 0)
        return gsvd_cli_usage_error(cmd, "invalid --device '%s' (auto, cpu, gpu)", arg);
    memcpy(field, &dev, sizeof dev);
    return 0;
}

int gsvd_opt_parse_tsv(const char *cmd, const char *arg, void *field)
{
    if (strcmp(arg, "tsv") != 0)
        return gsvd_cli_usage_error(cmd, "invalid --format '%s' (tsv)", arg);
    memcpy(field, &arg, sizeof arg);
    return 0;
}
