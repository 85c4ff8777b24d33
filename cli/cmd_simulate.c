/* cli/cmd_simulate.c - `gensvd simulate`: Balding-Nichols genotypes as a VCF-Zarr group. */
#include "gsvd_config.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "analysis/simulate.h"
#include "cli/cli.h"
#include "cli/opts_input.h"
#include "common/alloc.h"
#include "common/err.h"

struct sim_opts {
    struct gsvd_sim_params p;
    struct gsvd_cli_zarr_out zout;
    struct gsvd_cli_common common;
};

/* --chunks V,S into p.chunk_variants, p.chunk_samples (adjacent uint64_t fields). */
_Static_assert(offsetof(struct gsvd_sim_params, chunk_samples) ==
                   offsetof(struct gsvd_sim_params, chunk_variants) + sizeof(uint64_t),
               "--chunks writes chunk_variants and chunk_samples as one uint64_t[2]");
static int parse_chunks(const char *cmd, const char *arg, void *field)
{
    const char *comma = strchr(arg, ',');
    char *v = comma ? gsvd_strndup(arg, (size_t)(comma - arg)) : NULL;
    uint64_t c[2];
    int bad = !v || gsvd_cli_parse_uint(v, 1, (uint64_t)1 << 31, 1, &c[0]) < 0 ||
              gsvd_cli_parse_uint(comma + 1, 1, (uint64_t)1 << 31, 1, &c[1]) < 0;

    gsvd_free(v);
    if (bad)
        return gsvd_cli_usage_error(cmd, "invalid --chunks '%s' (V,S)", arg);
    memcpy(field, c, sizeof c);
    return 0;
}

#define SIM(field) GSVD_OPT_FIELD(struct sim_opts, p.field)
static const struct gsvd_opt sim_options[] = {
    {.name = "variants",
     .key = 'm',
     .type = GSVD_OPT_UINT,
     SIM(n_variants),
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
     .arg = "INT",
     .lo = 1,
     .hi = UINT32_MAX,
     .flags = GSVD_OPTF_SI,
     .help = "samples [100]"},
    {.name = "populations",
     .key = 'K',
     .type = GSVD_OPT_UINT,
     SIM(n_pops),
     .arg = "INT",
     .lo = 1,
     .hi = UINT32_MAX,
     .help = "populations, contiguous blocks of samples [3]"},
    {.name = "fst",
     .key = 'F',
     .type = GSVD_OPT_DOUBLE,
     SIM(fst),
     .arg = "FLOAT",
     .dlo = 1e-9,
     .dhi = 1 - 1e-9,
     .range = "0 < F < 1",
     .help = "Fst between each population and the ancestor, (0,1) [0.05]"},
    {.name = "missing",
     .key = 'r',
     .type = GSVD_OPT_DOUBLE,
     SIM(missing),
     .arg = "FLOAT",
     .dlo = 0,
     .dhi = 0.999999,
     .range = "0 <= R < 1",
     .help = "probability that a call is missing, [0,1) [0]"},
    {.name = "seed",
     .key = 's',
     .type = GSVD_OPT_UINT,
     SIM(seed),
     .arg = "INT",
     .lo = 0,
     .hi = UINT64_MAX,
     .help = "random seed [42]"},
    {.name = "ploidy",
     .key = 'p',
     .type = GSVD_OPT_UINT,
     SIM(ploidy),
     .arg = "INT",
     .lo = 1,
     .hi = 8,
     .range = "1..8",
     .help = "alleles per call, 1..8 [2]"},
    {.name = "chunks",
     .key = 'c',
     .type = GSVD_OPT_CALL,
     SIM(chunk_variants),
     .arg = "V,S",
     .parse = parse_chunks,
     .help = "chunk size in variants and samples [1000,10000]"},
    {.name = "force",
     .key = 'f',
     .type = GSVD_OPT_FLAG,
     SIM(overwrite),
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
    .n_groups = GSVD_ARRAY_LEN(sim_groups),
    .opts_size = sizeof(struct sim_opts),
    .footer = "Exit status: 0 success, 1 failure, 2 usage error.\n",
};

int gsvd_cmd_simulate(int argc, char **argv)
{
    struct gsvd_cli_bar bar;
    struct sim_opts o = {.p = GSVD_SIM_PARAMS_DEFAULT, .common = GSVD_CLI_COMMON_DEFAULT};
    struct gsvd_sim_params *p = &o.p;
    char *cmdline = NULL;
    int first, rc = gsvd_opts_parse(&gsvd_cmd_simulate_spec, argc, argv, &o, &first);

    if (rc != 0)
        return rc == GSVD_OPTS_HELP ? GSVD_EXIT_OK : rc;
    if (first != argc - 1)
        return gsvd_cli_usage_error("simulate",
                                    first >= argc ? "missing OUT" : "too many arguments");
    if (p->n_pops > p->n_samples)
        return gsvd_cli_usage_error("simulate", "more populations (%zu) than samples (%llu)",
                                    p->n_pops, (unsigned long long)p->n_samples);
    if (gsvd_cli_zarr_out_check("simulate", &o.zout) != 0 ||
        gsvd_cli_zarr_out_check_input("simulate", &o.zout, 0) != GSVD_OK)
        return GSVD_EXIT_USAGE;
    gsvd_cli_common_apply(&o.common);
    if (p->chunk_samples > p->n_samples)
        p->chunk_samples = p->n_samples;
    if (p->chunk_variants > p->n_variants)
        p->chunk_variants = p->n_variants;
    p->writer = gsvd_cli_zarr_out_params(&o.zout, 2);
    {
        uint64_t shape[2] = {p->n_variants, p->n_samples};
        uint64_t chunks[2] = {p->chunk_variants, p->chunk_samples};
        if (gsvd_writer_shard_shape(&p->writer, "call_genotype", 2, shape, chunks, NULL) < 0)
            return gsvd_cli_usage_error(
                "simulate", "--shard must be a multiple of the chunks %llu,%llu",
                (unsigned long long)p->chunk_variants, (unsigned long long)p->chunk_samples);
    }
    /* as every command that writes, although nothing is read before the writer opens: the
     * same check, message and exit status */
    if ((rc = gsvd_cli_check_outputs(argv[first], p->overwrite, NULL, 0)) < 0)
        return gsvd_cli_exit_code(rc);
    cmdline = gsvd_cli_command_line(argc, argv);
    p->command = cmdline;
    p->n_threads = o.common.threads;
    p->progress = gsvd_cli_progress(&bar, "variants", o.common.progress);
    rc = gsvd_simulate(p, argv[first]);
    gsvd_free(cmdline);
    if (rc == GSVD_OK) {
        gsvd_cli_note("%llu variants, %llu samples, %zu population%s",
                      (unsigned long long)p->n_variants, (unsigned long long)p->n_samples,
                      p->n_pops, p->n_pops == 1 ? "" : "s");
        gsvd_cli_done(argv[first]);
    }
    return gsvd_cli_exit_code(rc);
}
