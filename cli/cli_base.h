/* cli/cli_base.h - the pieces of the command-line layer that name no type of gensvd's
 * internals: exit codes, messages in the style of docs/man/gensvd.md, checked number parsing,
 * the options every command accepts, the progress line, and the glue between a parsed command
 * line and the public API of include/gensvd.h (a context, a source, a destination).  The
 * commands ported onto include/gensvd.h include only this header, cli/opts.h,
 * cli/opts_source.h and include/gensvd.h (tests/check_sources.sh checks it).
 * Only cli/ prints for users and decides exit codes.  Thread safety: main thread only, except
 * where a function says otherwise. */
#ifndef GSVD_CLI_CLI_BASE_H
#define GSVD_CLI_CLI_BASE_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "cli/opts.h"
#include "include/gensvd.h"

#if defined(__GNUC__) || defined(__clang__)
#define GSVD_CLI_NODISCARD __attribute__((warn_unused_result))
#define GSVD_CLI_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define GSVD_CLI_NODISCARD
#define GSVD_CLI_PRINTF(fmt, args)
#endif
/* The number of elements of an array. */
#define GSVD_CLI_LEN(a) (sizeof(a) / sizeof((a)[0]))

enum gsvd_exit {
    GSVD_EXIT_OK = 0,
    GSVD_EXIT_FAIL = 1,        /* runtime failure */
    GSVD_EXIT_USAGE = 2,       /* bad usage */
    GSVD_EXIT_UNAVAILABLE = 3, /* not built in, or no usable device */
    GSVD_EXIT_INTERNAL = 70,   /* a bug */
};

/* Map an enum gensvd_error (include/gensvd.h) to the process exit status (docs/man/gensvd.md,
 * "Exit codes"); a positive value counts as success. */
int gsvd_cli_exit_code(int rc);

/* ---- messages on stderr (cli/cli_msg.c; the style: docs/man/gensvd.md, "Messages") ---- */

/* Name the command in every message ("gensvd CMD: error: ..."; NULL: "gensvd: ...") and make
 * the library's process-wide log callback (gensvd_set_default_log: the messages no context
 * hears) write in that style at the level of gsvd_cli_msg_level; the first call also starts
 * the run's clock.  main() calls it before threads start. */
void gsvd_cli_msg_init(const char *cmd);
/* The level messages are shown at (gsvd_cli_common_apply sets it from -v/-q; warnings by
 * default), also the process-wide callback's.  Before threads start. */
void gsvd_cli_msg_level(enum gensvd_log_level level);
/* A distributed run's rank, named in every line ("rank R: "; -1: none, the default); rank > 0
 * also leaves usage errors to rank 0.  main() sets it after gensvd_mpi_init, before threads
 * start. */
void gsvd_cli_msg_rank(int rank);
const char *gsvd_cli_msg_cmd(void); /* the name given to gsvd_cli_msg_init, or NULL */
/* From now on only the calling thread's messages are printed: the interrupt path, whose
 * cleanup makes the work of other threads fail in ways not worth telling. */
void gsvd_cli_msg_mute_others(void);
/* The number of error lines printed so far (any thread). */
int gsvd_cli_msg_errors(void);
/* "gensvd CMD: " into out (n > 0 bytes); returns its length. */
int gsvd_cli_msg_prefix(char *out, size_t n);

/* Print "gensvd CMD: error: message" and "Try 'gensvd CMD --help'." on stderr (in a
 * distributed run, rank 0 only); returns GSVD_EXIT_USAGE.  cmd NULL: "gensvd: error: ...". */
int gsvd_cli_usage_error(const char *cmd, const char *fmt, ...) GSVD_CLI_PRINTF(2, 3);
/* The process's exit status, from main(): exit code 2 always ends with the "Try" line, also
 * when the library reported the usage error (GSVD_EINVAL, logged as an error). */
int gsvd_cli_finish(int exit_code);

/* "gensvd CMD: message" on stderr at the default level (not under -q): summaries. */
void gsvd_cli_note(const char *fmt, ...) GSVD_CLI_PRINTF(1, 2);
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

/* ---- the command line's text (cli/cli_parse.c: libc only; the library parses the same forms
 * for its options by name, and both sides accept the same strings) ---- */

/* Checked parsers: the whole string must be consumed; GENSVD_EINVAL on garbage or out of
 * range, GENSVD_OK otherwise.  parse_uint: an unsigned decimal in [lo, hi], no sign, no leading
 * space; with `suffix` 1, k/K, m/M, g/G multiply by powers of 1000.  parse_size: a number
 * (strtod's forms: "1.5", "2e3") with an optional K, M, G or T (powers of 1024, either case,
 * optionally followed by B or b), truncated to an integer below 2^64.  parse_double: a finite
 * number in [lo, hi]. */
GSVD_CLI_NODISCARD int gsvd_cli_parse_uint(const char *s, uint64_t lo, uint64_t hi, int suffix,
                                           uint64_t *out);
GSVD_CLI_NODISCARD int gsvd_cli_parse_size(const char *s, uint64_t *out);
GSVD_CLI_NODISCARD int gsvd_cli_parse_double(const char *s, double lo, double hi, double *out);
/* Index of s in the NULL-terminated names, or -1. */
GSVD_CLI_NODISCARD int gsvd_cli_parse_choice(const char *s, const char *const *names);

/* "A:B", "A:" or ":B" (each an unsigned with k/M/G suffixes, A shorter than 32 characters) into
 * [*a, *b) (*b = 0: to the end; ":" is everything); 0, or -1 if malformed or empty. */
int gsvd_cli_parse_range(const char *s, uint64_t *a, uint64_t *b);
/* An LD window: "INT" (variants, 2 to 2^40), "INTkb" or "INTbp" (1 to 2^40 kb or bp) into
 * *variants or *bp (the other 0); 0, or -1 if bad. */
int gsvd_cli_parse_window(const char *s, uint64_t *variants, uint64_t *bp);
/* --device DEV for commands with a compute backend: "auto", "cpu" or "gpu".  Returns GENSVD_OK
 * with *out set to the same name (a static string), or GENSVD_EINVAL (nothing printed; the
 * caller reports the usage error). */
GSVD_CLI_NODISCARD int gsvd_cli_parse_device(const char *s, const char **out);
/* The full command line as one string, "gensvd ARG ARG..." (for attributes); NULL when out of
 * memory.  Free with gsvd_cli_free (NULL accepted). */
char *gsvd_cli_command_line(int argc, char **argv);
void gsvd_cli_free(void *p);
/* Read one ID per line from `path` ("-": standard input; blank lines and '#' lines skipped,
 * '\r' stripped) into a new array of *n strings (caller frees with gsvd_cli_free_id_list;
 * on failure *ids is NULL and *n 0).  GENSVD_EIO (reported: "PATH: REASON") if unreadable,
 * GENSVD_EFORMAT (reported: "PATH: no sample IDs", "PATH: NUL byte in a sample ID") if it
 * holds no ID or a NUL byte, GENSVD_ENOMEM (reported). */
GSVD_CLI_NODISCARD int gsvd_cli_read_id_list(const char *path, char ***ids, size_t *n);
void gsvd_cli_free_id_list(char **ids, size_t n);

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
 * SIGTERM and SIGHUP remove the unfinished outputs (gensvd_abandon_outputs) and exit with
 * 128 + the signal number; SIGXFSZ is ignored, so writes past `ulimit -f` fail with EFBIG.
 * Returns 0, or -1 (errno set) when the pipe, the thread or a handler cannot be set up. */
int gsvd_cli_signals_init(void);

/* Run once more (execv of /proc/self/exe with argv) with OPENBLAS_NUM_THREADS=1 under a finite
 * `ulimit -v` unless it is set, and with OPENBLAS_CORETYPE when OpenBLAS runs its generic
 * kernels on a CPU it does not know (gensvd_build_info's "blas core fix"); then, under the
 * limit, check that some headroom is left after the libraries loaded (gensvd_blas_reserve); if
 * not, print an out-of-memory message and _exit(1) at once (OpenBLAS's threads would keep
 * exit() from returning).  Called first thing in main() (after gsvd_cli_msg_init, so that the
 * message has the style), before anything parses argv; returns only when the check passed. */
void gsvd_cli_blas_start(char **argv);

/* Apply verbosity to the log level (gsvd_cli_msg_level; GENSVD_LOG_LEVEL without -v/-q; errors
 * only on ranks > 0); resolve threads (0 -> the node's cores over its processes) and progress
 * (-1 -> isatty; off under -q and on ranks > 0).  The remote settings go to each command's
 * context (gsvd_cli_ctx). */
void gsvd_cli_common_apply(struct gsvd_cli_common *c);

/* Zarr output options of the commands that write (--zarr-format, --shard: the group
 * gsvd_opts_zarr_out). */
struct gsvd_cli_zarr_out {
    int format;        /* 0: not given */
    uint64_t shard[2]; /* --shard; 0: not given */
};
/* After parsing: either option without a Zarr output (`output`, -o: NULL), or --shard with
 * --zarr-format 2 (GSVD_EXIT_USAGE, reported); 0 otherwise. */
int gsvd_cli_zarr_out_check(const char *cmd, const struct gsvd_cli_zarr_out *z, const char *output);
/* Once the input's Zarr format is known (2 or 3; 0: the command has no Zarr input and writes
 * format 2 by default): --shard needs a format 3 output, from --zarr-format or else the
 * input's.  GENSVD_OK, or GENSVD_EINVAL (exit 2) after reporting the usage error. */
GSVD_CLI_NODISCARD int
gsvd_cli_zarr_out_check_input(const char *cmd, const struct gsvd_cli_zarr_out *z, int input_format);
/* A progress line on stderr: "\rgensvd CMD: STAGE: done/total UNIT (pct%), RATE UNIT/s, ETA 12 s"
 * at most ten times a second, and a newline when a stage completes (done == total).  The
 * state lives in the caller's struct, which must outlive the work. */
struct gsvd_cli_bar {
    const char *unit; /* borrowed: what done and total count ("variants"), or NULL */
    double t0, shown; /* stage start, last draw (seconds) */
    char what[64];    /* current stage */
};

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

/* ---- the library's messages and progress (cli/cli_msg.c, cli/cli_util.c) ---- */

/* The level messages are shown at (gsvd_cli_msg_level), as the library names it. */
enum gensvd_log_level gsvd_cli_log_level(void);
/* One message of the library as a line in the style above (error, warning, plain, debug); any
 * thread. */
void gsvd_cli_msg_log(enum gensvd_log_level level, const char *msg);
/* A progress line: set up `bar` counting `unit` (a plural noun, or NULL), then draw with
 * gsvd_cli_bar_draw, a gensvd_progress_fn whose `user` is the bar. */
void gsvd_cli_bar_init(struct gsvd_cli_bar *bar, const char *unit);
void gsvd_cli_bar_draw(void *bar, const char *what, uint64_t done, uint64_t total);

/* ---- the public API's objects from a parsed command line (cli/cli_lib.c) ---- */
/* Each returns GENSVD_OK or the library's error, reported on stderr (the log callback). */

/* A context for a command: threads and the remote settings of the common options (after
 * gsvd_cli_common_apply), `device` (NULL: the default, auto), the library's messages on stderr
 * in the command line's style at its level, and, with bar non-NULL, the progress line in
 * `bar` (counting `unit`) when the common options turn it on.  bar must outlive the context.
 * The caller frees *out with gensvd_ctx_free. */
GSVD_CLI_NODISCARD int gsvd_cli_ctx(const struct gsvd_cli_common *c, const char *device,
                                    struct gsvd_cli_bar *bar, const char *unit, gensvd_ctx **out);
/* The Zarr output -o `url` with --force and --zarr-format (z), checked at once (before any
 * input is read): messages "OUT: output exists (...)", "cannot create the output in
 * directory ...".  --shard is set later, by gsvd_cli_dest_shard. */
GSVD_CLI_NODISCARD int gsvd_cli_dest(gensvd_ctx *ctx, const char *url, int force,
                                     const struct gsvd_cli_zarr_out *z, gensvd_dest **out);
/* --shard on d, once gsvd_cli_zarr_out_check_input has accepted it for an input of Zarr
 * format `input_format` (0: no input). */
GSVD_CLI_NODISCARD int gsvd_cli_dest_shard(gensvd_dest *d, const struct gsvd_cli_zarr_out *z,
                                           int input_format);
/* INPUT as a source with the input options: the --samples file (`samples_file`, read first),
 * then the store, then `geno` and the masks (STORE[/ARRAY] specs; NULL: none). */
struct gsvd_cli_geno;
GSVD_CLI_NODISCARD int gsvd_cli_source(gensvd_ctx *ctx, const char *input,
                                       const struct gsvd_cli_geno *geno, const char *samples_file,
                                       const char *variant_mask, const char *sample_mask,
                                       gensvd_source **out);
/* Hand every option of `spec` with a library name (`.lib`, cli/opts.h) from `target` (the
 * command's parsed options struct) to opt. */
GSVD_CLI_NODISCARD int gsvd_cli_forward(const struct gsvd_cmd_spec *spec, const void *target,
                                        gensvd_options *opt);
/* A number among the result's attributes, 0 when absent (the library reported it): the
 * summaries' counts. */
double gsvd_cli_attr(const gensvd_result *res, const char *name);
/* New options of analysis `an` with gsvd_cli_forward's values and the command line recorded
 * as the output's "command" attribute (`command` may be NULL). */
GSVD_CLI_NODISCARD int gsvd_cli_options(gensvd_ctx *ctx, enum gensvd_analysis an,
                                        const struct gsvd_cmd_spec *spec, const void *target,
                                        const char *command, gensvd_options **out);

/* One ported command's run: the public API's objects made in the order every command needs
 * them (context, destination before any input, source, --shard once the input's format is
 * known, options) and freed together.  The command fills the first part, calls
 * gsvd_cli_run_open, sets what its table does not forward, calls gensvd_run(r.ctx, r.opt,
 * r.src, r.dest, &r.res), formats its outputs from r.res, and calls gsvd_cli_run_close. */
struct gsvd_cli_geno;
struct gsvd_cli_run {
    /* given by the command (borrowed) */
    const char *cmd;                      /* its name, for --shard's usage error */
    enum gensvd_analysis analysis;        /* what gensvd_run computes */
    const struct gsvd_cmd_spec *spec;     /* the option table: forwarded by `.lib` name... */
    const void *target;                   /* ...from this parsed options struct */
    const char *command;                  /* the command line, as the output records it */
    const struct gsvd_cli_common *common; /* threads, remote settings, progress */
    const char *device;                   /* NULL: the library's default (auto) */
    const char *unit;                     /* what the progress line counts */
    const char *output;                   /* -o, NULL: none */
    int force;
    const struct gsvd_cli_zarr_out *zout;
    const char *input; /* INPUT (NULL: an analysis that reads none) and its options */
    const struct gsvd_cli_geno *geno;
    const char *samples_file, *variant_mask, *sample_mask;
    const char *const *files; /* text outputs (NULL-terminated, or NULL), checked after -o
                                 with --force (gensvd_file_check) before any input is read */
    /* made by gsvd_cli_run_open, freed by gsvd_cli_run_close */
    gensvd_ctx *ctx;
    gensvd_dest *dest;
    gensvd_source *src;
    gensvd_options *opt;
    gensvd_result *res;
    struct gsvd_cli_bar bar;
};
/* Make r's objects (each failure reported on stderr).  r must stay where it is until
 * gsvd_cli_run_close (the context draws the progress line into r->bar). */
GSVD_CLI_NODISCARD int gsvd_cli_run_open(struct gsvd_cli_run *r);
/* Free everything gsvd_cli_run_open and gensvd_run made (safe after a failed open). */
void gsvd_cli_run_close(struct gsvd_cli_run *r);
/* The summary's last line: "OUTPUT", "WHAT to standard output" or "OUTPUT and WHAT to
 * standard output" (output or what NULL: not written). */
void gsvd_cli_done_to(const char *output, const char *what);
/* Standard output flushed and checked once the text is written: GENSVD_EIO (reported,
 * "standard output: write failed") when a write failed, as on a full disk or a closed pipe.
 * main() checks again at the end (help texts; a command that failed without a message). */
GSVD_CLI_NODISCARD int gsvd_cli_stdout_done(void);

#endif /* GSVD_CLI_CLI_BASE_H */
