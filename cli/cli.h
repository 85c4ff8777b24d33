/* cli/cli.h - shared pieces of the command-line layer: exit codes, usage errors, checked number
 * parsing, the options every command accepts, and input opening.
 * Only cli/ prints for users and decides exit codes.  Thread safety: main thread only. */
#ifndef GSVD_CLI_CLI_H
#define GSVD_CLI_CLI_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "cli/opts.h"
#include "common/buf.h"
#include "common/comm.h"
#include "common/gsvd_defs.h"
#include "common/progress.h"
#include "zarr/array.h"
#include "zarr/store.h"
#include "zarr/tree.h"
#include "zarr/writer.h"

enum gsvd_exit {
    GSVD_EXIT_OK = 0,
    GSVD_EXIT_FAIL = 1,        /* runtime failure */
    GSVD_EXIT_USAGE = 2,       /* bad usage */
    GSVD_EXIT_UNAVAILABLE = 3, /* not built in, or no usable device */
    GSVD_EXIT_INTERNAL = 70,   /* a bug */
};

/* Map a gsvd_err to the process exit status (docs/man/gensvd.md, "Exit codes"). */
int gsvd_cli_exit_code(int rc);

/* ---- messages on stderr (cli/cli_msg.c; the style: docs/man/gensvd.md, "Messages") ---- */

/* Name the command in every message ("gensvd CMD: error: ..."; NULL: "gensvd: ...") and make
 * the process default's log sink (common/scope.h) write the library's messages in that style;
 * the first call also starts the run's clock.  main() calls it before threads start. */
void gsvd_cli_msg_init(const char *cmd);
const char *gsvd_cli_msg_cmd(void); /* the name given to gsvd_cli_msg_init, or NULL */
/* From now on only the calling thread's messages are printed: the interrupt path, whose
 * cleanup makes the work of other threads fail in ways not worth telling. */
void gsvd_cli_msg_mute_others(void);
/* "gensvd CMD: " into out (n > 0 bytes); returns its length. */
int gsvd_cli_msg_prefix(char *out, size_t n);

/* Print "gensvd CMD: error: message" and "Try 'gensvd CMD --help'." on stderr (in a
 * distributed run, rank 0 only); returns GSVD_EXIT_USAGE.  cmd NULL: "gensvd: error: ...". */
int gsvd_cli_usage_error(const char *cmd, const char *fmt, ...) GSVD_PRINTF(2, 3);
/* The process's exit status, from main(): exit code 2 always ends with the "Try" line, also
 * when the library reported the usage error (GSVD_EINVAL, logged as an error). */
int gsvd_cli_finish(int exit_code);

/* "gensvd CMD: message" on stderr at the default level (not under -q): summaries. */
void gsvd_cli_note(const char *fmt, ...) GSVD_PRINTF(1, 2);
/* The summary's last line: "gensvd CMD: wrote WHERE in 3.2 s" (the time since
 * gsvd_cli_msg_init), through gsvd_cli_note. */
void gsvd_cli_done(const char *where);
/* Seconds: CLOCK_MONOTONIC now, and since gsvd_cli_msg_init; a duration as "3.2 s",
 * "4 min 12 s" or "2 h 5 min". */
double gsvd_cli_now(void);
double gsvd_cli_elapsed(void);
void gsvd_cli_duration(double s, char *out, size_t n);

/* The progress line's state, shared with the sink: a message ends an open line first.
 * take returns 1 (and clears it) when a line was open; open marks it so. */
int gsvd_cli_bar_take(void);
void gsvd_cli_bar_open(int open);

/* The nearest of cands[0..n) to `word` when it is a slip (the optimal string alignment
 * distance, Damerau-Levenshtein's with adjacent swaps, is at most 1 for words of up to 4
 * characters, 2 up to 8, else 3): "; did you mean OPENpdistCLOSE?" (up to three equally near,
 * "or" between them) into out, else "". */
void gsvd_cli_nearest(const char *word, const char *const *cands, size_t n, const char *open,
                      const char *close, char *out, size_t cap);

/* Checked parsers: the whole string must be consumed; GSVD_EINVAL on garbage or out of range.
 * parse_size accepts K, M, G, T suffixes (powers of 1024), parse_uint accepts k/K, m/M, g/G as
 * powers of 1000 when `suffix` is 1. */
GSVD_NODISCARD int gsvd_cli_parse_uint(const char *s, uint64_t lo, uint64_t hi, int suffix,
                                       uint64_t *out);
GSVD_NODISCARD int gsvd_cli_parse_size(const char *s, uint64_t *out);
GSVD_NODISCARD int gsvd_cli_parse_double(const char *s, double lo, double hi, double *out);
/* Index of s in the NULL-terminated names, or -1. */
GSVD_NODISCARD int gsvd_cli_parse_choice(const char *s, const char *const *names);

/* "A:B", "A:" or ":B" into [*a, *b) (*b = 0: to the end); -1 if malformed or empty. */
int gsvd_cli_parse_range(const char *s, uint64_t *a, uint64_t *b);

/* Read one ID per line from `path` (blank lines and '#' lines skipped, '\r' stripped) into out.
 * GSVD_EIO (logged) if unreadable, GSVD_EFORMAT (logged) if it holds no ID or a NUL byte. */
GSVD_NODISCARD int gsvd_cli_read_ids(const char *path, struct gsvd_strlist *out);

/* Options every command takes. */
struct gsvd_cli_common {
    int verbosity;  /* -v adds one, -q subtracts one */
    size_t threads; /* --threads; 0 = all cores */
    int progress;   /* 1 on, 0 off, -1 auto (stderr is a TTY) */
    /* remote stores (gsvd_opts_remote); 0 / NULL = not given on the command line */
    unsigned concurrency, retries_plus1, timeout_s;
    const char *endpoint, *s3_addressing, *gcs_token_file; /* borrowed from argv */
    int no_sign_request;
};
#define GSVD_CLI_COMMON_DEFAULT                                                                    \
    {                                                                                              \
        .verbosity = 0, .threads = 0, .progress = -1                                               \
    }

/* Shared option groups (cli/opts_groups.c): -v/-q/-h, --progress/--no-progress and --threads
 * (bound to a struct gsvd_cli_common), the remote stores' settings (the same struct), and
 * --zarr-format/--shard (a struct gsvd_cli_zarr_out). */
extern const struct gsvd_opt_group gsvd_opts_basic, gsvd_opts_progress, gsvd_opts_threads,
    gsvd_opts_remote, gsvd_opts_zarr_out;

/* Process-wide signal setup, once from main() before a command runs (cli/signals.c): SIGINT,
 * SIGTERM and SIGHUP run the cleanup registry (common/cleanup.h) and exit with 128 + the
 * signal number; SIGXFSZ is ignored, so writes past `ulimit -f` fail with EFBIG.  Returns 0,
 * or -1 (errno set) when the pipe, the thread or a handler cannot be set up. */
int gsvd_cli_signals_init(void);

/* Run once more (execv of /proc/self/exe with argv) with OPENBLAS_NUM_THREADS=1 under a finite
 * `ulimit -v` unless it is set, and with OPENBLAS_CORETYPE when OpenBLAS runs its generic
 * kernels on a CPU it does not know (analysis/cpu/blas_room.h, gsvd_blas_core_fix); then, under
 * the limit, check that some headroom is left after the libraries loaded; if not, print an
 * out-of-memory message and _exit(1) at once (OpenBLAS's threads would keep exit() from
 * returning).  Called first thing in main() (after gsvd_cli_msg_init, so that the message has
 * the style), before anything parses argv; returns only when the check passed. */
void gsvd_cli_blas_start(char **argv);

/* The distributed run's communicator (common/comm.h), or NULL for one process: set by main()
 * when an MPI launcher started the process (GENSVD_MPI builds); borrowed, main() owns it. */
gsvd_comm *gsvd_cli_world(void);
void gsvd_cli_set_world(gsvd_comm *w);

/* Apply verbosity to the log level; resolve threads (0 -> cores) and progress (-1 -> isatty;
 * off under -q). */
void gsvd_cli_common_apply(struct gsvd_cli_common *c);

/* --device DEV for commands with a compute backend: "auto", "cpu" or "gpu".  Returns GSVD_OK
 * with *out set to the same name (a static string), or GSVD_EINVAL (nothing printed; the
 * caller reports the usage error). */
GSVD_NODISCARD int gsvd_cli_parse_device(const char *s, const char **out);

/* An opened input: the store, its hierarchy and the node the user named. */
struct gsvd_cli_input {
    gsvd_store *store; /* owned */
    gsvd_tree *tree;   /* owned */
    char *node;        /* owned; path of the named node inside the store ("" = root) */
};

/* Zarr output options of the commands that write (--zarr-format, --shard: the group
 * gsvd_opts_zarr_out). */
struct gsvd_cli_zarr_out {
    int format;        /* 0: not given */
    uint64_t shard[2]; /* --shard; 0: not given */
};
/* After parsing: --shard with --zarr-format 2 (GSVD_EXIT_USAGE, reported); 0 otherwise. */
int gsvd_cli_zarr_out_check(const char *cmd, const struct gsvd_cli_zarr_out *z);
/* Once the input's Zarr format is known (2 or 3; 0: the command has no Zarr input and writes
 * format 2 by default): --shard needs a format 3 output, from --zarr-format or else the
 * input's.  GSVD_OK, or GSVD_EINVAL (exit 2) after reporting the usage error. */
GSVD_NODISCARD int gsvd_cli_zarr_out_check_input(const char *cmd, const struct gsvd_cli_zarr_out *z,
                                                 int input_format);
/* The writer parameters, `input_format` (2 or 3) being the default format. */
struct gsvd_writer_params gsvd_cli_zarr_out_params(const struct gsvd_cli_zarr_out *z,
                                                   int input_format);

/* Check a command's outputs before it reads any input (zarr/dest.h): the Zarr output `zarr`
 * (-o; NULL: none) and the plain files files[0..] (up to a NULL entry; `files` may be NULL),
 * each may exist only with `force` (plain files: `files_force`).  In a distributed run rank 0
 * checks and every rank returns the verdict (gsvd_comm_agree; call on every rank).  Errors
 * are logged; returns a gsvd_err (GSVD_EIO for an output that exists or cannot be created). */
GSVD_NODISCARD int gsvd_cli_check_outputs(const char *zarr, int force, const char *const *files,
                                          int files_force);

/* Open INPUT (path or URL; `array` from --array, may be NULL, is joined to the node).
 * Errors are logged; returns a gsvd_err. */
GSVD_NODISCARD int gsvd_cli_open_input(const char *input, const char *array,
                                       struct gsvd_cli_input *in);
void gsvd_cli_close_input(struct gsvd_cli_input *in); /* accepts a zeroed struct */

/* A progress line on stderr: "\rgensvd CMD: STAGE: done/total UNIT (pct%), RATE UNIT/s, ETA 12 s"
 * at most ten times a second, and a newline when a stage completes (done == total).  The
 * state lives in the caller's struct, which must outlive the work. */
struct gsvd_cli_bar {
    const char *unit; /* borrowed: what done and total count ("variants"), or NULL */
    double t0, shown; /* stage start, last draw (seconds) */
    char what[64];    /* current stage */
};
/* The sink for a library's params: draws into `bar` when on is 1, reports nothing when 0;
 * `unit` names what the reports count (a plural noun: "variants", "points"). */
struct gsvd_progress gsvd_cli_progress(struct gsvd_cli_bar *bar, const char *unit, int on);

/* The full command line as one string (for attributes).  Caller owns. */
char *gsvd_cli_command_line(int argc, char **argv);

/* Commands. */
int gsvd_cmd_pca(int argc, char **argv);
int gsvd_cmd_pdist(int argc, char **argv);
int gsvd_cmd_related(int argc, char **argv);
int gsvd_cmd_project(int argc, char **argv);
int gsvd_cmd_plot(int argc, char **argv);
int gsvd_cmd_info(int argc, char **argv);
int gsvd_cmd_dump(int argc, char **argv);
int gsvd_cmd_simulate(int argc, char **argv);
int gsvd_cmd_ldprune(int argc, char **argv);

/* The commands' option tables (cli/opts.h), each in its cmd_*.c; read by gsvd_opts_parse and by
 * tests/fuzz/fuzz_opts.c, which drives every table with hostile command lines. */
struct gsvd_cmd_spec;
extern const struct gsvd_cmd_spec gsvd_cmd_pca_spec, gsvd_cmd_pdist_spec, gsvd_cmd_related_spec,
    gsvd_cmd_project_spec, gsvd_cmd_plot_spec, gsvd_cmd_info_spec, gsvd_cmd_dump_spec,
    gsvd_cmd_simulate_spec, gsvd_cmd_ldprune_spec;

/* LD pruning shared by `ldprune` and `pca --ld-prune` (cli/cmd_ldprune.c). */
struct gsvd_ldprune_params;
struct gsvd_ldprune_result;
struct gsvd_geno_params;
/* "INT" (variants, >= 2), "INTkb" or "INTbp" into *variants or *bp (the other 0); -1 if bad. */
int gsvd_cli_parse_window(const char *s, uint64_t *variants, uint64_t *bp);
/* "R2,WINDOW[,STEP]" (pca --ld-prune) into p's r2, window and step; -1 if bad. */
int gsvd_cli_parse_ld_prune(const char *s, struct gsvd_ldprune_params *p);
/* Prune the genotypes of `in` under `geno` (its filters; the scaler is replaced) into *out
 * (caller frees with gsvd_ldprune_result_free); errors are logged. */
GSVD_NODISCARD int gsvd_cli_ldprune_mask(struct gsvd_cli_input *in,
                                         const struct gsvd_geno_params *geno,
                                         const struct gsvd_ldprune_params *lp,
                                         struct gsvd_ldprune_result *out);

#endif /* GSVD_CLI_CLI_H */
