/* cli/opts.h - command-line options described once, as data.
 * Each option is one `struct gsvd_opt`: long and short name, type, the field it sets (offset and
 * size inside the options struct its group is bound to), range or choices, argument name and
 * help text.  Options come in groups (a title and a table); a command lists its groups, its own
 * and the shared ones (cli/opts_groups.c: input, output, common, remote), each bound to where
 * its struct lives inside the command's options.  One driver builds the getopt_long table,
 * parses and range-checks every value, reports errors naming the option ("gensvd CMD: invalid
 * --tol 'x' (0 to 1)"), and prints --help grouped by section; the man pages are generated from
 * that --help (scripts/make_man.sh), the bash and zsh completion from the machine-readable
 * listing of gsvd_opts_spec (`gensvd help --spec CMD`, scripts/make_completion.sh).
 * Thread safety: main thread only (getopt_long has global state). */
#ifndef GSVD_CLI_OPTS_H
#define GSVD_CLI_OPTS_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum gsvd_opt_type {
    GSVD_OPT_FLAG = 1, /* no argument: the int field is set to `value` */
    GSVD_OPT_COUNT,    /* no argument: `value` is added to the int field (-v, -q) */
    GSVD_OPT_UINT,     /* unsigned integer in [lo, hi] into an unsigned field of `size` bytes;
                          with GSVD_OPTF_SI, k/M/G suffixes (powers of 1000) */
    GSVD_OPT_BYTES,    /* byte count with K/M/G/T suffixes (powers of 1024), in [lo, hi]
                          (hi 0: no limit), into a uint64_t */
    GSVD_OPT_DOUBLE,   /* number in [dlo, dhi] into a double */
    GSVD_OPT_STRING,   /* the argument (borrowed from argv) into a const char * */
    GSVD_OPT_CHOICE,   /* one of `choices` (NULL-terminated); the int field = its index */
    GSVD_OPT_CALL,     /* `parse` takes the argument (or NULL for a flag: `arg` NULL) */
    GSVD_OPT_HELP,     /* prints the help and ends parsing (no field) */
};

#define GSVD_OPTF_SI 1u       /* GSVD_OPT_UINT: accept k/M/G (x 1000) suffixes */
#define GSVD_OPTF_NONEMPTY 2u /* GSVD_OPT_STRING: an empty argument is an error */
#define GSVD_OPTF_FILE 4u     /* the argument names a file, store or prefix (completion: files) */
#define GSVD_OPTF_DIR 8u      /* the argument names a directory (completion: directories) */

struct gsvd_opt {
    const char *name; /* long name without "--" */
    int key;          /* short option character, or 0 */
    enum gsvd_opt_type type;
    size_t offset, size;        /* the field, relative to the group's struct (GSVD_OPT_FIELD) */
    const char *arg;            /* argument name in --help ("INT"); NULL: takes no argument */
    const char *help;           /* help text; a '\n' continues on an indented line */
    uint64_t lo, hi;            /* UINT / BYTES range */
    double dlo, dhi;            /* DOUBLE range */
    int value;                  /* FLAG: value stored; COUNT: value added */
    unsigned flags;             /* GSVD_OPTF_* */
    const char *const *choices; /* CHOICE: the accepted values (NULL-terminated); CALL: the
                                   values `parse` accepts, for completion only (or NULL) */
    const char *range;          /* accepted values as messages describe them ("1 to 1024");
                                   NULL: made from lo..hi or the choices */
    /* CALL: parse `arg` into the field; 0, or GSVD_EXIT_USAGE after reporting through
     * gsvd_cli_usage_error (cli_base.h) */
    int (*parse)(const char *cmd, const char *arg, void *field);
    /* the option of the library's analysis (include/gensvd.h, gensvd_options_set_*) this value
     * is handed to by gsvd_cli_forward (cli/cli_base.h), or NULL: the command uses it itself.
     * FLAG, UINT, BYTES, DOUBLE, CHOICE and STRING options forward their field as the
     * library's int, double or text; a CALL option's field is text (a const char *) */
    const char *lib;
};

/* offset and size of `field` in `type`, for a gsvd_opt's .offset/.size */
#define GSVD_OPT_FIELD(type, field)                                                                \
    .offset = offsetof(type, field), .size = sizeof(((type *)0)->field)

struct gsvd_opt_group {
    const char *title; /* "Input:"; NULL: no heading */
    const struct gsvd_opt *opts;
    size_t n;
    const char *tail; /* printed after the group's options (extra notes), or NULL */
};

/* A group inside a command: where its struct lives in the command's options struct. */
struct gsvd_opt_bind {
    const struct gsvd_opt_group *group;
    size_t base;
};

struct gsvd_cmd_spec {
    const char *name;  /* "pca" */
    const char *intro; /* the usage line(s) and description, printed first */
    const struct gsvd_opt_bind *groups;
    size_t n_groups;
    size_t opts_size;         /* sizeof the options struct gsvd_opts_parse stores into */
    const char *footer;       /* printed last ("Exit status: ...") */
    const char *const *words; /* the words the first operand is one of (plot: pca, pdist),
                                 NULL-terminated, for completion; NULL: any */
};

/* Result of gsvd_opts_parse besides the exit codes of cli_base.h. */
#define GSVD_OPTS_HELP (-1) /* --help was given and printed: exit 0 */

/* Parse argv[1..] of a command into `target` (the command's options struct): every option is
 * range-checked and stored; operands are permuted to the end as GNU getopt does, and the index
 * of the first is put in *first.  Returns 0, GSVD_OPTS_HELP (help printed on stdout), or
 * GSVD_EXIT_USAGE after printing the error ("invalid option '--x'", "option '--o' needs an
 * argument (PATH)", "invalid --tol 'x' (...)"). */
int gsvd_opts_parse(const struct gsvd_cmd_spec *s, int argc, char **argv, void *target, int *first);

/* The help text: intro, then each group's title and options, aligned, then the footer. */
void gsvd_opts_help(const struct gsvd_cmd_spec *s, FILE *fp);

/* The hidden first argument that makes gsvd_opts_parse print gsvd_opts_spec on stdout and
 * return GSVD_OPTS_HELP (`gensvd help --spec CMD` runs `CMD --help-spec`). */
#define GSVD_OPTS_SPEC_ARG "--help-spec"

/* The options as data for the shell completion: one line per option, tab-separated fields
 *   --NAME  -K|-  TYPE  ARG|-  CHOICES|-  PATH  HELP
 * preceded, for a command with `words`, by "@1  -  operand  -  WORDS  -  the first operand".
 * TYPE is flag, count, uint, bytes, double, string, choice, call or help; ARG the argument
 * name ("-": takes none); CHOICES the accepted values separated by spaces ("-": any, or none
 * listed); PATH "file" or "dir" (GSVD_OPTF_FILE, GSVD_OPTF_DIR) or "-"; HELP the help text with its
 * line breaks as spaces, tabs never occur in it. */
void gsvd_opts_spec(const struct gsvd_cmd_spec *s, FILE *fp);

#endif /* GSVD_CLI_OPTS_H */
