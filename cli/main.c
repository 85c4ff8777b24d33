/* cli/main.c - command table, top-level help and version, process-wide setup, dispatch. */
#include "gsvd_config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_base.h"
#include "cli/opts.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help; /* one line; NULL marks a section row */
};

static const struct command commands[] = {
    {"-- Analyses", NULL, NULL},
    {"pca", gsvd_cmd_pca, "principal components of a genotype matrix"},
    {"pdist", gsvd_cmd_pdist, "pairwise distances between samples"},
    {"ldprune", gsvd_cmd_ldprune, "variants in approximate linkage equilibrium (a mask array)"},
    {"related", gsvd_cmd_related, "a maximal unrelated sample set from KING kinship"},
    {"project", gsvd_cmd_project, "place samples on principal components saved by pca --loadings"},
    {"plot", gsvd_cmd_plot, "draw a pca or pdist output as SVG (PC scatter plot, heatmap)"},
    {"-- Zarr stores", NULL, NULL},
    {"info", gsvd_cmd_info, "tree of groups and arrays: shape, dtype, chunks, codecs, sizes"},
    {"dump", gsvd_cmd_dump, "array values (or a slice) as TSV on stdout"},
    {"simulate", gsvd_cmd_simulate, "structured genotypes (Balding-Nichols) as VCF-Zarr"},
};

static void usage(FILE *fp)
{
    fputs("Usage: gensvd <command> [options]\n"
          "PCA and pairwise distances on genotype data stored as Zarr.\n",
          fp);
    for (size_t i = 0; i < GSVD_CLI_LEN(commands); i++) {
        if (!commands[i].help)
            fprintf(fp, "\n%s\n", commands[i].name + 3);
        else
            fprintf(fp, "  %-10s %s\n", commands[i].name, commands[i].help);
    }
    fputs("\nOptions:\n"
          "  -h, --help     print this help and exit ('gensvd help CMD' for a command)\n"
          "      --version  print version and built-in features and exit\n"
          "Exit status: 0 success, 1 failure, 2 usage error, 3 feature or device unavailable,\n"
          "70 internal error.\n",
          fp);
}

/* The library's build lines (gensvd_build_info), and the binary's own choice of BLAS kernels
 * (gsvd_cli_blas_start restarts it with them). */
static void version(void)
{
    static const char *const keys[] = {"backends", "cuda", "mpi",      "stores",
                                       "codecs",   "plot", "libraries"};
    const char *was = getenv("GENSVD_BLAS_CORE_WAS");

    printf("gensvd %s\n", gensvd_version());
    for (size_t i = 0; i < GSVD_CLI_LEN(keys); i++)
        printf("%s: %s\n", keys[i], gensvd_build_info(keys[i]));
    printf("blas: %s%s%s%s\n", gensvd_build_info("blas"),
           was ? " (gensvd's choice: OpenBLAS did not know this CPU and chose " : "",
           was ? was : "", was ? ")" : "");
    printf("cpu kernels: %s\n", gensvd_build_info("cpu kernels"));
}

static const struct command *find(const char *name)
{
    for (size_t i = 0; i < GSVD_CLI_LEN(commands); i++)
        if (commands[i].help && strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

/* The commands as "pca, pdist, ..." (a static buffer). */
static const char *command_names(void)
{
    static char names[256];
    size_t at = 0;

    for (size_t i = 0; i < GSVD_CLI_LEN(commands) && at < sizeof names; i++)
        if (commands[i].help)
            at += (size_t)snprintf(names + at, sizeof names - at, "%s%s", at ? ", " : "",
                                   commands[i].name);
    return names;
}

/* "unknown command 'X'", with the nearest command when X looks like a slip of one. */
static int unknown_command(const char *name)
{
    const char *names[GSVD_CLI_LEN(commands)];
    char hint[160];
    size_t n = 0;

    for (size_t i = 0; i < GSVD_CLI_LEN(commands); i++)
        if (commands[i].help)
            names[n++] = commands[i].name;
    gsvd_cli_nearest(name, names, n, "'", "'", hint, sizeof hint);
    return gsvd_cli_usage_error(NULL, "unknown command '%s'%s", name, hint);
}

/* `gensvd help --spec [CMD]`, hidden, for scripts/make_completion.sh: without CMD the commands
 * as "NAME<TAB>HELP" lines, with CMD its options as gsvd_opts_spec lines (cli/opts.h); nothing
 * for a command not built in. */
static int spec(int argc, char **argv)
{
    const struct command *cmd;

    if (argc == 0) {
        for (size_t i = 0; i < GSVD_CLI_LEN(commands); i++)
            if (commands[i].help)
                printf("%s\t%s\n", commands[i].name, commands[i].help);
        return GSVD_EXIT_OK;
    }
    if (argc > 1)
        return gsvd_cli_usage_error(NULL, "help --spec takes one command");
    cmd = find(argv[0]);
    if (!cmd)
        return unknown_command(argv[0]);
    if (!cmd->run)
        return GSVD_EXIT_OK;
    char *spec_argv[] = {argv[0], (char *)GSVD_OPTS_SPEC_ARG, NULL};
    return cmd->run(2, spec_argv);
}

/* 1: the command runs distributed under mpirun or srun (the others refuse to start). */
static int distributed(const char *name)
{
    static const char *const names[] = {"pca", "pdist", "project", "related", "ldprune"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

/* The command, set up and run; returns its exit status. */
static int run_command(const struct command *cmd, int argc, char **argv)
{
    int rc;

    if (!cmd->run) {
        gsvd_cli_msg_log(GENSVD_LOG_ERROR, "this command is not built into this gensvd "
                                           "(gensvd --version lists what is)");
        return gsvd_cli_exit_code(GENSVD_ENOTBUILT);
    }
    if (gsvd_cli_signals_init() != 0) {
        char msg[256];
        snprintf(msg, sizeof msg, "cannot set up signal handling: %s", strerror(errno));
        gsvd_cli_msg_log(GENSVD_LOG_ERROR, msg);
        return GSVD_EXIT_INTERNAL;
    }
    /* under mpirun or srun the job's processes join through the library (lib/mpi.c), whose
     * communicator the distributed commands run on; a build without MPI runs each process
     * alone, as it always has.  The libraries' process-wide set-up (libcurl, c-blosc, cJSON)
     * is the library's, at its first context. */
    rc = gensvd_mpi_init(&argc, &argv);
    if (rc != GENSVD_OK && rc != GENSVD_ENOTBUILT)
        return GSVD_EXIT_FAIL;
    if (gensvd_mpi_size() > 1) {
        gsvd_cli_msg_rank(gensvd_mpi_rank());
        if (!distributed(cmd->name)) {
            int size = gensvd_mpi_size(), me = gensvd_mpi_rank();
            gensvd_mpi_finalize();
            if (me != 0)
                return GSVD_EXIT_USAGE;
            gsvd_cli_msg_rank(-1);
            return gsvd_cli_usage_error(cmd->name,
                                        "runs as one process; only pca, pdist, project, "
                                        "related and ldprune run distributed (%d processes "
                                        "were started)",
                                        size);
        }
    }
    rc = cmd->run(argc - 1, argv + 1);
    /* a failure the other processes have not heard of (one rank's device, network or memory
     * before their next agreement) ends them all, instead of leaving them waiting for this one;
     * a usage error every process finds alike ends each of them as usual */
    if (rc != 0 && rc != GSVD_EXIT_USAGE)
        gensvd_mpi_fail(rc);
    gensvd_mpi_finalize();
    return rc;
}

/* The top level: --help, --version, help, or a command; returns the exit status. */
static int dispatch(int argc, char **argv)
{
    const struct command *cmd;

    /* the messages' style first: the start-up check below may already report (out of memory
     * under `ulimit -v`); "gensvd: error: ..." until the command is known */
    cmd = argc > 1 ? find(argv[1]) : NULL;
    gsvd_cli_msg_init(cmd ? cmd->name : NULL);
    gsvd_cli_blas_start(argv);
    gsvd_cli_msg_init(NULL);
    if (argc < 2)
        return gsvd_cli_usage_error(NULL, "no command given (%s)", command_names());
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        usage(stdout);
        return GSVD_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        version();
        return GSVD_EXIT_OK;
    }
    if (strcmp(argv[1], "help") == 0) {
        if (argc < 3) {
            usage(stdout);
            return GSVD_EXIT_OK;
        }
        if (strcmp(argv[2], "--spec") == 0)
            return spec(argc - 3, argv + 3);
        cmd = find(argv[2]);
        if (!cmd)
            return unknown_command(argv[2]);
        if (!cmd->run) {
            printf("gensvd %s: %s\n", cmd->name, cmd->help);
            return GSVD_EXIT_OK;
        }
        char *help_argv[] = {argv[2], (char *)"--help", NULL};
        return cmd->run(2, help_argv);
    }
    if (argv[1][0] == '-') {
        const char *top[] = {"--help", "--version"};
        char hint[80];
        gsvd_cli_nearest(argv[1], top, GSVD_CLI_LEN(top), "", "", hint, sizeof hint);
        return gsvd_cli_usage_error(NULL, "invalid option '%s'%s", argv[1],
                                    *hint ? hint : " (a command's options go after it)");
    }
    cmd = find(argv[1]);
    if (!cmd)
        return unknown_command(argv[1]);
    gsvd_cli_msg_init(cmd->name);
    return gsvd_cli_finish(run_command(cmd, argc, argv));
}

int main(int argc, char **argv)
{
    int rc = dispatch(argc, argv);

    /* what went to standard output (a help text, a TSV) reached it: a full disk or a closed
     * pipe fails the run, said once (not again after a command's own error line) */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        if (gsvd_cli_msg_errors() == 0)
            gsvd_cli_msg_log(GENSVD_LOG_ERROR, "standard output: write failed");
        if (rc == GSVD_EXIT_OK)
            rc = GSVD_EXIT_FAIL;
    }
    return rc;
}
