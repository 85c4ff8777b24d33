/* cli/cmd_simulate.c - `gensvd simulate`: Balding-Nichols genotypes as a VCF-Zarr group,
 * through the library (include/gensvd.h, GENSVD_SIMULATE). */
#include "gsvd_config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_base.h"
#include "cli/opts_source.h"
#include "include/gensvd.h"

struct sim_opts {
    uint64_t n_variants, n_samples;
    size_t n_pops, ploidy;
    double fst, missing;
    uint64_t seed;
    uint64_t chunks[2]; /* --chunks V,S */
    int force;
    struct gsvd_cli_zarr_out zout;
    struct gsvd_cli_common common;
};

/* --chunks V,S into chunks[2]. */
static int parse_chunks(const char *cmd, const char *arg, void *field)
{
    const char *comma = strchr(arg, ',');
    char v[32];
    uint64_t c[2];
    int bad = !comma || (size_t)(comma - arg) >= sizeof v;

    if (!bad) {
        memcpy(v, arg, (size_t)(comma - arg));
        v[comma - arg] = '\0';
        bad = gsvd_cli_parse_uint(v, 1, (uint64_t)1 << 31, 1, &c[0]) < 0 ||
              gsvd_cli_parse_uint(comma + 1, 1, (uint64_t)1 << 31, 1, &c[1]) < 0;
    }
    if (bad)
        return gsvd_cli_usage_error(cmd, "invalid --chunks '%s' (V,S)", arg);
    memcpy(field, c, sizeof c);
    return 0;
}

#define SIM(field) GSVD_OPT_FIELD(struct sim_opts, field)
static const struct gsvd_opt sim_options[] = {
    {.name = "variants",
     .key = 'm',
     .type = GSVD_OPT_UINT,
     SIM(n_variants),
     .lib = "variants",
     .arg = "INT",
     .lo = 1,
     .hi = (uint64_t)1 << 40,
     .flags = GSVD_OPTF_SI,
     .range = "1 to 2^40",
     .help = "variants (k, M, G suffixes) [10000]"},
    {.name = "samples",
     .key = 'n',
     .type = GSVD_OPT_UINT,
     SIM(n_samples),
     .lib = "samples",
     .arg = "INT",
     .lo = 1,
     .hi = UINT32_MAX,
     .flags = GSVD_OPTF_SI,
     .help = "samples [100]"},
    {.name = "populations",
     .key = 'K',
     .type = GSVD_OPT_UINT,
     SIM(n_pops),
     .lib = "populations",
     .arg = "INT",
     .lo = 1,
     .hi = UINT32_MAX,
     .help = "populations, contiguous blocks of samples [3]"},
    {.name = "fst",
     .key = 'F',
     .type = GSVD_OPT_DOUBLE,
     SIM(fst),
     .lib = "fst",
     .arg = "FLOAT",
     .dlo = 1e-9,
     .dhi = 1 - 1e-9,
     .range = "0 < F < 1",
     .help = "Fst between each population and the ancestor, (0,1) [0.05]"},
    {.name = "missing",
     .key = 'r',
     .type = GSVD_OPT_DOUBLE,
     SIM(missing),
     .lib = "missing",
     .arg = "FLOAT",
     .dlo = 0,
     .dhi = 0.999999,
     .range = "0 <= R < 1",
     .help = "probability that a call is missing, [0,1) [0]"},
    {.name = "seed",
     .key = 's',
     .type = GSVD_OPT_UINT,
     SIM(seed),
     .lib = "seed",
     .arg = "INT",
     .lo = 0,
     .hi = UINT64_MAX,
     .help = "random seed [42]"},
    {.name = "ploidy",
     .key = 'p',
     .type = GSVD_OPT_UINT,
     SIM(ploidy),
     .lib = "ploidy",
     .arg = "INT",
     .lo = 1,
     .hi = 8,
     .range = "1..8",
     .help = "alleles per call, 1..8 [2]"},
    {.name = "chunks",
     .key = 'c',
     .type = GSVD_OPT_CALL,
     SIM(chunks),
     .arg = "V,S",
     .parse = parse_chunks,
     .help = "chunk size in variants and samples [1000,10000]"},
    {.name = "force",
     .key = 'f',
     .type = GSVD_OPT_FLAG,
     SIM(force),
     .value = 1,
     .help = "replace OUT if it exists"},
};
static const struct gsvd_opt_group sim_group = GSVD_OPT_GROUP(NULL, sim_options);
static const struct gsvd_opt_bind sim_groups[] = {
    {&sim_group, 0},
    {&gsvd_opts_zarr_out, offsetof(struct sim_opts, zout)},
    GSVD_OPTS_BIND_COMMON(struct sim_opts),
};
const struct gsvd_cmd_spec gsvd_cmd_simulate_spec = {
    .name = "simulate",
    .intro = "Usage: gensvd simulate [options] OUT\n"
             "Write structured genotypes from the Balding-Nichols model as a VCF-Zarr group:\n"
             "call_genotype (int8 variants x samples x ploidy, -1 missing), sample_id,\n"
             "sample_population, variant_position, variant_contig, contig_id, variant_allele and\n"
             "the true frequencies.  Output is staged and appears only when complete.\n",
    .groups = sim_groups,
    .n_groups = GSVD_CLI_LEN(sim_groups),
    .opts_size = sizeof(struct sim_opts),
    .footer = "Exit status: 0 success, 1 failure, 2 usage error.\n",
};

/* The writer's rule for --shard against the chunks (each axis of more than one chunk takes a
 * multiple of its chunk extent), checked before anything is written: a usage error. */
static int check_shard(const struct sim_opts *o)
{
    uint64_t shape[2] = {o->n_variants, o->n_samples};
    uint64_t want[2] = {o->zout.shard[0], o->zout.shard[1] ? o->zout.shard[1] : o->zout.shard[0]};

    for (size_t d = 0; d < 2 && want[0]; d++) {
        uint64_t grid = shape[d] / o->chunks[d] + (shape[d] % o->chunks[d] != 0);
        if (grid > 1 && want[d] % o->chunks[d] != 0) {
            char msg[160];
            snprintf(msg, sizeof msg,
                     "call_genotype: shard extent %llu on axis %zu is not a multiple of the "
                     "chunk extent %llu",
                     (unsigned long long)want[d], d, (unsigned long long)o->chunks[d]);
            gsvd_cli_msg_log(GENSVD_LOG_ERROR, msg);
            return gsvd_cli_usage_error(
                "simulate", "--shard must be a multiple of the chunks %llu,%llu",
                (unsigned long long)o->chunks[0], (unsigned long long)o->chunks[1]);
        }
    }
    return 0;
}

static int run(const struct sim_opts *o, const char *out, const char *command)
{
    /* a destination as every command that writes has (checked before the options, although
     * nothing is read): the same check, message and exit status */
    struct gsvd_cli_run r = {.cmd = "simulate",
                             .analysis = GENSVD_SIMULATE,
                             .spec = &gsvd_cmd_simulate_spec,
                             .target = o,
                             .command = command,
                             .common = &o->common,
                             .unit = "variants",
                             .output = out,
                             .force = o->force,
                             .zout = &o->zout};
    char chunks[64];
    int rc = gsvd_cli_run_open(&r);

    snprintf(chunks, sizeof chunks, "%llu,%llu", (unsigned long long)o->chunks[0],
             (unsigned long long)o->chunks[1]);
    if (rc == GENSVD_OK)
        rc = gensvd_options_set_string(r.opt, "chunks", chunks);
    if (rc == GENSVD_OK)
        rc = gensvd_run(r.ctx, r.opt, NULL, r.dest, &r.res);
    if (rc == GENSVD_OK) {
        gsvd_cli_note("%llu variants, %llu samples, %zu population%s",
                      (unsigned long long)o->n_variants, (unsigned long long)o->n_samples,
                      o->n_pops, o->n_pops == 1 ? "" : "s");
        gsvd_cli_done(out);
    }
    gsvd_cli_run_close(&r);
    return rc;
}

int gsvd_cmd_simulate(int argc, char **argv)
{
    struct sim_opts o = {.n_variants = 10000,
                         .n_samples = 100,
                         .n_pops = 3,
                         .ploidy = 2,
                         .fst = 0.05,
                         .seed = 42,
                         .chunks = {1000, 10000},
                         .common = GSVD_CLI_COMMON_DEFAULT};
    char *command;
    int first, rc = gsvd_opts_parse(&gsvd_cmd_simulate_spec, argc, argv, &o, &first);

    if (rc != 0)
        return rc == GSVD_OPTS_HELP ? GSVD_EXIT_OK : rc;
    if (first != argc - 1)
        return gsvd_cli_usage_error("simulate",
                                    first >= argc ? "missing OUT" : "too many arguments");
    if (o.n_pops > o.n_samples)
        return gsvd_cli_usage_error("simulate", "more populations (%zu) than samples (%llu)",
                                    o.n_pops, (unsigned long long)o.n_samples);
    if (gsvd_cli_zarr_out_check("simulate", &o.zout, argv[first]) != 0 ||
        gsvd_cli_zarr_out_check_input("simulate", &o.zout, 0) != GENSVD_OK)
        return GSVD_EXIT_USAGE;
    gsvd_cli_common_apply(&o.common);
    if (o.chunks[1] > o.n_samples) /* as the library clips them */
        o.chunks[1] = o.n_samples;
    if (o.chunks[0] > o.n_variants)
        o.chunks[0] = o.n_variants;
    if (check_shard(&o) != 0)
        return GSVD_EXIT_USAGE;
    command = gsvd_cli_command_line(argc, argv);
    rc = run(&o, argv[first], command);
    gsvd_cli_free(command);
    return gsvd_cli_exit_code(rc);
}
