/* cli/cmd_simulate.c - `gensvd simulate`: Balding-Nichols genotypes as a VCF-Zarr group. */
#include "gsvd_config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "analysis/simulate.h"
#include "cli/cli.h"
#include "common/alloc.h"
#include "common/err.h"

static void usage(FILE *fp)
{
    fputs("Usage: gensvd simulate [options] OUT\n"
          "Write structured genotypes from the Balding-Nichols model as a VCF-Zarr group:\n"
          "call_genotype (int8 variants x samples x ploidy, -1 missing), sample_id,\n"
          "sample_population, variant_position, variant_contig, contig_id, variant_allele and\n"
          "the true frequencies.  Output is staged and appears only when complete.\n"
          "  -m, --variants INT     variants (k, M, G suffixes) [10000]\n"
          "  -n, --samples INT      samples [100]\n"
          "  -K, --populations INT  populations, contiguous blocks of samples [3]\n"
          "  -F, --fst FLOAT        Fst between each population and the ancestor, (0,1) [0.05]\n"
          "  -r, --missing FLOAT    probability that a call is missing, [0,1) [0]\n"
          "  -s, --seed INT         random seed [42]\n"
          "  -p, --ploidy INT       alleles per call, 1..8 [2]\n"
          "  -c, --chunks V,S       chunk size in variants and samples [1000,10000]\n"
          "  -f, --force            replace OUT if it exists\n" GSVD_CLI_ZARR_OUT_HELP
          "  -t, --threads INT      worker threads [all cores]\n"
          "      --progress, --no-progress  progress on stderr [when stderr is a terminal]\n"
          "  -v, --verbose          more messages on stderr (repeatable)\n"
          "  -q, --quiet            errors only\n"
          "  -h, --help             print this help and exit\n" GSVD_CLI_REMOTE_HELP
          "Exit status: 0 success, 1 failure, 2 usage error.\n",
          fp);
}

int gsvd_cmd_simulate(int argc, char **argv)
{
    struct gsvd_cli_bar bar;
    static const struct option longopts[] = {
        {"variants", required_argument, NULL, 'm'},
        {"samples", required_argument, NULL, 'n'},
        {"populations", required_argument, NULL, 'K'},
        {"fst", required_argument, NULL, 'F'},
        {"missing", required_argument, NULL, 'r'},
        {"seed", required_argument, NULL, 's'},
        {"ploidy", required_argument, NULL, 'p'},
        {"chunks", required_argument, NULL, 'c'},
        {"force", no_argument, NULL, 'f'},
        {"threads", required_argument, NULL, 't'},
        GSVD_CLI_ZARR_OUT_LONGOPTS,
        GSVD_CLI_COMMON_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    struct gsvd_cli_common common = GSVD_CLI_COMMON_DEFAULT;
    struct gsvd_sim_params p = GSVD_SIM_PARAMS_DEFAULT;
    struct gsvd_cli_zarr_out zout = {0};
    uint64_t v;
    char *cmdline = NULL, *comma;
    int c, rc;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "m:n:K:F:r:s:p:c:ft:vqh", longopts, NULL)) != -1) {
        int r = gsvd_cli_common_option("simulate", c, optarg, &common);
        if (r == 0)
            r = gsvd_cli_zarr_out_option("simulate", c, optarg, &zout);
        if (r == GSVD_EXIT_USAGE)
            return r;
        if (r == 1)
            continue;
        switch (c) {
        case 'm':
            if (gsvd_cli_parse_uint(optarg, 1, (uint64_t)1 << 40, 1, &p.n_variants) < 0)
                return gsvd_cli_usage_error("simulate", "invalid --variants '%s'", optarg);
            break;
        case 'n':
            if (gsvd_cli_parse_uint(optarg, 1, UINT32_MAX, 1, &p.n_samples) < 0)
                return gsvd_cli_usage_error("simulate", "invalid --samples '%s'", optarg);
            break;
        case 'K':
            if (gsvd_cli_parse_uint(optarg, 1, UINT32_MAX, 0, &v) < 0)
                return gsvd_cli_usage_error("simulate", "invalid --populations '%s'", optarg);
            p.n_pops = (size_t)v;
            break;
        case 'F':
            if (gsvd_cli_parse_double(optarg, 1e-9, 1 - 1e-9, &p.fst) < 0)
                return gsvd_cli_usage_error("simulate", "invalid --fst '%s' (0 < F < 1)", optarg);
            break;
        case 'r':
            if (gsvd_cli_parse_double(optarg, 0, 0.999999, &p.missing) < 0)
                return gsvd_cli_usage_error("simulate", "invalid --missing '%s' (0 <= R < 1)",
                                            optarg);
            break;
        case 's':
            if (gsvd_cli_parse_uint(optarg, 0, UINT64_MAX, 0, &p.seed) < 0)
                return gsvd_cli_usage_error("simulate", "invalid --seed '%s'", optarg);
            break;
        case 'p':
            if (gsvd_cli_parse_uint(optarg, 1, 8, 0, &v) < 0)
                return gsvd_cli_usage_error("simulate", "invalid --ploidy '%s' (1..8)", optarg);
            p.ploidy = (size_t)v;
            break;
        case 'c':
            comma = strchr(optarg, ',');
            if (!comma)
                return gsvd_cli_usage_error("simulate", "invalid --chunks '%s' (V,S)", optarg);
            *comma = '\0';
            if (gsvd_cli_parse_uint(optarg, 1, (uint64_t)1 << 31, 1, &p.chunk_variants) < 0 ||
                gsvd_cli_parse_uint(comma + 1, 1, (uint64_t)1 << 31, 1, &p.chunk_samples) < 0) {
                *comma = ',';
                return gsvd_cli_usage_error("simulate", "invalid --chunks '%s' (V,S)", optarg);
            }
            *comma = ',';
            break;
        case 'f':
            p.overwrite = 1;
            break;
        case 'h':
            usage(stdout);
            return GSVD_EXIT_OK;
        default:
            return gsvd_cli_usage_error("simulate", "invalid option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return gsvd_cli_usage_error("simulate",
                                    optind >= argc ? "missing OUT" : "too many arguments");
    if (p.n_pops > p.n_samples)
        return gsvd_cli_usage_error("simulate", "more populations (%zu) than samples (%llu)",
                                    p.n_pops, (unsigned long long)p.n_samples);
    if (gsvd_cli_zarr_out_check("simulate", &zout) != 0)
        return GSVD_EXIT_USAGE;
    gsvd_cli_common_apply(&common);
    if (p.chunk_samples > p.n_samples)
        p.chunk_samples = p.n_samples;
    if (p.chunk_variants > p.n_variants)
        p.chunk_variants = p.n_variants;
    p.writer = gsvd_cli_zarr_out_params(&zout, 2);
    {
        uint64_t shape[2] = {p.n_variants, p.n_samples};
        uint64_t chunks[2] = {p.chunk_variants, p.chunk_samples};
        if (gsvd_writer_shard_shape(&p.writer, "call_genotype", 2, shape, chunks, NULL) < 0)
            return gsvd_cli_usage_error(
                "simulate", "--shard must be a multiple of the chunks %llu,%llu",
                (unsigned long long)p.chunk_variants, (unsigned long long)p.chunk_samples);
    }
    cmdline = gsvd_cli_command_line(argc, argv);
    p.command = cmdline;
    p.n_threads = common.threads;
    p.progress = gsvd_cli_progress(&bar, "simulate", common.progress);
    rc = gsvd_simulate(&p, argv[optind]);
    gsvd_free(cmdline);
    return gsvd_cli_exit_code(rc);
}
