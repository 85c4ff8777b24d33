/* lib/lib_internal.h - for the .c files of lib/ only: the public handles' contents and the pieces
 * the library's files share.  Ownership follows include/gensvd.h: a context owns its settings and
 * its last error; a source, options, result or destination owns its copies and borrows its
 * context, which must outlive it.
 * Every public call that can fail enters its context's scope (common/scope.h) for its duration
 * with lib_begin/lib_end: messages then go to the caller's log callback, the first ERROR
 * message of the call becomes the context's last error, and the call's worker threads inherit
 * the cancel flag and the remote-store settings. */
#ifndef GSVD_LIB_LIB_INTERNAL_H
#define GSVD_LIB_LIB_INTERNAL_H
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "include/gensvd.h"
#include "analysis/backend.h"
#include "analysis/scan/genotype.h"
#include "analysis/ldprune/ldprune.h"
#include "analysis/pca/pca.h"
#include "analysis/pdist/pdist.h"
#include "analysis/pca/project.h"
#include "analysis/simulate.h"
#include "common/buf.h"
#include "common/remote.h"
#include "common/scope.h"
#include "common/textmatrix.h"
#include "zarr/result.h"
#include "zarr/store.h"
#include "zarr/store_view.h"
#include "zarr/tree.h"
#include "zarr/writer.h"

#define LIB_MSG_LEN 2048

/* The context's string settings, owned; remote.* point into them. */
enum lib_ctx_str {
    CS_DEVICE,
    CS_CACHE_DIR,
    CS_ENDPOINT,
    CS_S3_ADDRESSING,
    CS_GCS_TOKEN_FILE,
    CS_GCS_TOKEN,
    CS_AWS_KEY_ID,
    CS_AWS_SECRET,
    CS_AWS_SESSION,
    CS_AWS_REGION,
    CS_COUNT
};

struct gensvd_ctx {
    struct gsvd_scope scope; /* what calls on this context run under */
    atomic_int cancel;       /* gensvd_ctx_cancel sets it; a call that stops on it clears it */
    struct gsvd_remote_params remote;
    char *str[CS_COUNT]; /* enum lib_ctx_str */
    size_t threads;      /* 0: every core */
    gensvd_log_fn log_fn;
    void *log_user;
    enum gensvd_log_level log_level;
    gensvd_progress_fn progress_fn;
    void *progress_user;
    pthread_mutex_t mu;         /* guards call_msg (workers log too) */
    char call_msg[LIB_MSG_LEN]; /* the running call's first error message ("" none yet) */
    char last_error[LIB_MSG_LEN];
};

/* Enter ctx's scope for a call; returns the previous scope for lib_end. */
const struct gsvd_scope *lib_begin(gensvd_ctx *ctx);
/* Leave it: a failing rc records the call's first error message (or, when the call logged
 * none, the call in words and the code's: what "gensvd_result_write" and GSVD_ENOMEM give
 * "result write: out of memory") as the last error; GSVD_ECANCELED records "run: cancelled"
 * (the call's words) and clears the cancel request.  Returns rc. */
int lib_end(gensvd_ctx *ctx, const struct gsvd_scope *prev, int rc, const char *what);
/* Log an error (inside a call) and return rc. */
int lib_fail(int rc, const char *fmt, ...) GSVD_PRINTF(2, 3);
/* The thread count of the context's calls (0 resolved to the cores). */
size_t lib_threads(const gensvd_ctx *ctx);
/* The context's progress callback as the analyses take it. */
struct gsvd_progress lib_progress(const gensvd_ctx *ctx);
/* The context's device setting ("auto" when unset). */
const char *lib_device(const gensvd_ctx *ctx);
/* Process-wide set-up of the libraries under the store layer, once (pthread_once). */
int lib_global_init(void);

/* A store opened by URL (lib/store.c): the store holding the hierarchy, its tree, and the
 * node the URL names inside it ("cohort.vcz/call_genotype": node "call_genotype"). */
struct lib_store {
    gsvd_store *st;
    gsvd_tree *t;
    char *node;
};
/* GSVD_OK, or the store's and tree's errors (logged); *o is zeroed first, and closed with
 * lib_store_close in any case. */
GSVD_NODISCARD int lib_store_open(const char *url, struct lib_store *o);
void lib_store_close(struct lib_store *o);

/* ---- sources ------------------------------------------------------------------------------ */

struct lib_marray { /* an array added to an in-memory source (strings owned) */
    struct gsvd_view_array v;
    char *name;
};

/* The source options that choose variants by a file (lib/source.c's table). */
#define LIB_VAR_LISTS 6
struct gsvd_var_list;

struct gensvd_source {
    gensvd_ctx *ctx;
    char *url;        /* a store's URL as given; NULL for an in-memory source */
    char *name;       /* an in-memory source's name in messages and attributes (NULL:
                         "memory"; the option "name") */
    gsvd_store *st;   /* the store (a view store of the arrays: made at the first run) */
    gsvd_tree *tree;  /* its hierarchy */
    char *node;       /* the node named inside it ("" = root) */
    int input_format; /* 2 or 3: the default output format */
    struct lib_marray *arrays;
    size_t n_arrays, cap_arrays;
    /* the selection (the command line's input options) */
    char *array;
    int transpose, all_contigs;
    int var_filter;          /* "var-filter": VCF FILTER PASS or missing only */
    char *var_filter_except; /* "var-filter-except": filters tolerated (comma-separated) */
    char *chr;               /* "chr": the contigs to keep (analysis/scan/chr_select.h) */
    char *not_chr;           /* "not-chr": the contigs to leave out */
    int autosome;            /* "autosome" (1: contigs 1-22), "autosome-par" (2: and XY) */
    uint64_t from_bp, to_bp; /* "from-bp", "to-bp": positions on the one contig of "chr" */
    int from_bp_set, to_bp_set;
    /* "extract", "exclude", "extract-bed", "exclude-bed", "extract-range", "exclude-range":
       the files' lists, read when set (analysis/scan/var_list.h; owned, NULL: not given) */
    struct gsvd_var_list *var_list[LIB_VAR_LISTS];
    /* "keep", "remove": the sample IDs of plink2-style ID files (analysis/scan/sample_list.h),
       read when set (owned, NULL: not given), and the files' names for messages */
    struct gsvd_strlist *keep_ids, *remove_ids;
    char *keep_file, *remove_file;
    uint64_t chunk_variants; /* in memory: variants per chunk (0: up to 4 MiB a chunk) */
    size_t ploidy;
    uint64_t var_start, var_stop;
    double maf, max_missing;
    double hwe;   /* "hwe": the Hardy-Weinberg threshold (0: no test) */
    int hwe_midp; /* "hwe-midp" */
    double mind;  /* "mind": the largest missing call rate a sample may have (1: any) */
    char *variant_mask_spec, *sample_mask_spec; /* STORE[/ARRAY] */
    uint8_t *variant_mask, *sample_mask;        /* in memory (copied) */
    uint64_t variant_mask_n, sample_mask_n;
    struct gsvd_strlist samples; /* gensvd_source_set_samples */
    int samples_set;
    struct lib_walk *walk;        /* gensvd_source_node's walk so far (lib/tree.c; owned) */
    struct gsvd_textmatrix *text; /* gensvd_source_new_text's matrix (owned), else NULL */
};

/* 1 if a rule besides the range chooses variants by their annotations ("var-filter", "chr", the
 * variant lists): what pdist's axis variants and a text matrix cannot take. */
int lib_source_chooses_variants(const gensvd_source *src);

/* How messages and attributes name the source: its URL, else its name, else "memory". */
const char *lib_source_name(const gensvd_source *src);

/* The store path of `path` below the source's node (leading '/' dropped; NULL or "": the node)
 * into *out (caller frees); GSVD_EFORMAT (logged) for empty, "." or ".." components. */
GSVD_NODISCARD int lib_node_path(const gensvd_source *src, const char *path, char **out);

/* gensvd_source_node's walk (lib/tree.c), as far as it went.  One node the walk has reached:
 * its path below the source's node and where it sits. */
struct lib_walk_node {
    char *path; /* owned; "" for the source's node */
    unsigned depth;
    enum gensvd_node_kind kind;
};

/* A group the walk is inside: its node, its children (listed when the walk first needs them)
 * and the next child to visit. */
struct lib_walk_frame {
    size_t node; /* index into nodes */
    int listed;
    struct gsvd_strlist children;
    size_t next;
};

struct lib_walk {
    struct lib_walk_node *nodes; /* the nodes reached, in the walk's order */
    size_t n, cap;
    struct lib_walk_frame *stack; /* the groups entered, innermost last */
    size_t depth, cap_stack;
    int started;
};
/* Free a walk (lib/source.c, which frees the source); accepts NULL. */
void lib_walk_free(struct lib_walk *w);
/* The chunks (shards 0) or shards (1) of an array's grid (lib/store.c). */
uint64_t lib_grid_count(const struct gsvd_zarray *z, int shards);
/* The public dtype of a stored one (0 when it has none). */
enum gensvd_dtype lib_public_dtype(const struct gsvd_dtype *d);

/* Make the store and tree of an in-memory source (once its arrays are all added; again after
 * an array is added).  GSVD_OK, GSVD_EINVAL (no arrays), the view store's errors. */
GSVD_NODISCARD int lib_source_ready(gensvd_source *src);

/* The genotype parameters and masks of a source for one run: *geno from the selection (the
 * masks read from their stores or taken from memory, the sample list), held in *sel until
 * lib_sel_free; KING's autosome mask when `king`. */
struct lib_sel {
    struct gsvd_geno_params geno;
    struct gsvd_strlist ids; /* the samples a store's sample mask keeps (geno.samples) */
    void *autosomes;         /* lib/select.c's masks and KING's autosomes (owned) */
};
GSVD_NODISCARD int lib_sel_make(gensvd_source *src, int king, struct lib_sel *sel);
void lib_sel_free(struct lib_sel *sel);
/* A distributed --mind counts in collectives inside lib_sel_make, which every rank reaches
 * through this join (an agreement) exactly once per run: lib_sel_make calls it, with its error
 * when it fails before counting, and a run that fails before it calls lib_sel_make calls it in
 * lib_sel_make's place with its error, so the others are not left waiting.  Returns rc, or
 * GSVD_EPEER where another rank failed; without --mind or a distributed run, rc at once. */
GSVD_NODISCARD int lib_sel_join(gensvd_source *src, int rc);

/* ---- options ------------------------------------------------------------------------------ */

enum lib_opt_kind { LO_UINT = 1, LO_BYTES, LO_DOUBLE, LO_STRING, LO_CHOICE, LO_FLAG, LO_CALL };

struct lib_opt {
    const char *name;
    enum lib_opt_kind kind;
    size_t offset, size; /* the field in the analysis' options struct */
    uint64_t lo, hi;     /* LO_UINT / LO_BYTES range */
    double dlo, dhi;     /* LO_DOUBLE range */
    int si;              /* LO_UINT: k, M, G suffixes (x 1000) */
    const char *const *choices;
    const char *range; /* what is accepted, for messages */
    /* LO_CALL: parse text into the field (GSVD_OK or GSVD_EINVAL, nothing logged), and write
     * the field as text */
    int (*parse)(const char *text, void *field);
    void (*format)(const void *field, char *buf, size_t len);
};

struct lib_pca_opts {
    struct gsvd_pca_params pca;
    int scaler, missing_error;
    int gram_f64, gram_kernel, pass_kernel;
    uint64_t memory;
    uint64_t cache; /* UINT64_MAX: auto (a quarter of RAM for a store, 0 in memory) */
    char *fit_file; /* a file of IDs, or */
    struct gsvd_strlist fit_ids;
    int fit_set;
    struct gsvd_ldprune_params lp; /* "ld-prune" */
    int ld_prune;
    int outlier_project; /* "outlier-project": the removed samples onto the final PCs */
    int smartpca_rows;   /* "smartpca-rows": smartpca's .evec rows (gsvd_pca_smartpca_rows) */
};

struct lib_pdist_opts {
    struct gsvd_pdist_params pd;
    double min_kinship; /* NaN: not given */
    int axis_variants, condensed, f4, counts;
    int haplotypes;   /* "haplotypes": each haplotype an item */
    int ignore_phase; /* "ignore-phase": the calls' alleles in their stored order */
    char *finalize;
};

struct lib_ldprune_opts {
    struct gsvd_ldprune_params lp;
};

struct lib_related_opts {
    double cutoff;
    uint64_t memory;
};

struct lib_project_opts {
    char *pcs;
    size_t k;
    struct gsvd_project_params proj;
};

struct lib_plot_opts {
    int format; /* 0 auto (from the output's name), 1 svg, 2 png */
    double dpi;
    char *color_by, *label_column, *title, *pcs;
    size_t grid, max_cells;
    int order; /* 0 auto, then enum gsvd_plot_order + 1 */
};

struct gensvd_options {
    gensvd_ctx *ctx;
    enum gensvd_analysis analysis;
    const struct lib_opt *table; /* the analysis' options */
    size_t n_table;
    char *command;                   /* "command": recorded in the attributes */
    const gensvd_result *pcs_result; /* GENSVD_PROJECT: borrowed */
    gensvd_rows_fn rows_fn;          /* GENSVD_PDIST: the callbacks (include/gensvd.h) */
    void *rows_user;
    gensvd_items_fn items_fn;
    void *items_user;
    gensvd_rows_fn matrix_fn;
    void *matrix_user;
    gensvd_pairs_fn pairs_fn;
    void *pairs_user;
    char value[128]; /* gensvd_options_value's text */
    union {
        struct lib_pca_opts pca;
        struct lib_pdist_opts pdist;
        struct lib_ldprune_opts ldprune;
        struct lib_related_opts related;
        struct lib_project_opts project;
        struct gsvd_sim_params sim;
        struct lib_plot_opts plot;
    } u;
};

/* The option every analysis takes besides its table's: the recorded command line. */
#define LIB_OPTION_COMMAND "command"
/* "pca", "plot pdist", ...: an analysis' name in messages ("" for another value). */
const char *lib_analysis_name(enum gensvd_analysis an);

/* The option of opt's analysis called `name`, or NULL. */
const struct lib_opt *lib_opt_find(const gensvd_options *opt, const char *name);

/* ---- results and destinations ------------------------------------------------------------- */

struct gensvd_result {
    gensvd_ctx *ctx;
    enum gensvd_analysis analysis;
    gsvd_result *r;               /* the arrays and attributes */
    gsvd_result *held;            /* arrays beside them, found by name only, never listed nor
                                     written (GENSVD_LDPRUNE: the variant table; owned) */
    int input_format;             /* the default output format (the input's) */
    struct gsvd_pca_result *pca;  /* GENSVD_PCA: kept for a later GENSVD_PROJECT (owned) */
    struct gsvd_pca_model *model; /* ... as a model (owned) */
    struct gsvd_strlist *strings; /* gensvd_result_attr_string's answers: name, value pairs
                                     (owned; a cache, so written through a const result) */
};

struct gensvd_dest {
    gensvd_ctx *ctx;
    char *url;
    int force;
    int zarr_format; /* 0: the input's */
    uint64_t shard[2];
    int checked; /* gensvd_dest_check passed and nothing changed since: gensvd_run skips its own */
};

/* The writer parameters of dest for a result whose input had format input_format. */
struct gsvd_writer_params lib_dest_params(const gensvd_dest *d, int input_format);
/* gensvd_dest_check inside a call. */
GSVD_NODISCARD int lib_dest_check(gensvd_dest *d);

/* A new public result of `analysis` holding r (adopted, also on failure). */
GSVD_NODISCARD int lib_result_new(gensvd_ctx *ctx, enum gensvd_analysis an, gsvd_result *r,
                                  int input_format, gensvd_result **out);

/* ---- the runs (lib/run_*.c), called by gensvd_run inside the call --------------------------- */

struct lib_run {
    gensvd_ctx *ctx;
    const gensvd_options *opt;
    gensvd_source *src; /* NULL for simulate and pdist --finalize */
    gensvd_dest *dest;  /* NULL: in memory only */
    gensvd_result *out; /* made by the run */
};

GSVD_NODISCARD int lib_run_pca(struct lib_run *run);
GSVD_NODISCARD int lib_run_project(struct lib_run *run);
GSVD_NODISCARD int lib_run_pdist(struct lib_run *run);
GSVD_NODISCARD int lib_run_ldprune(struct lib_run *run);
GSVD_NODISCARD int lib_run_related(struct lib_run *run);
GSVD_NODISCARD int lib_run_simulate(struct lib_run *run);

/* The backend the context names, for threads `threads` (and pca's kernels when p is given). */
GSVD_NODISCARD int lib_backend(const gensvd_ctx *ctx, const struct gsvd_backend_params *p,
                               gsvd_backend **out);
/* Write r to the run's dest (when there is one), rank 0 only under MPI. */
GSVD_NODISCARD int lib_run_write(struct lib_run *run, const gsvd_result *r, int input_format);
/* A run's end: with rc GSVD_OK, *r written (lib_run_write); in a distributed run every rank then
 * learns how that and every rank's own result went (one rank's failure fails them all); on
 * success *r is adopted as run->out (lib_result_new; *r NULL afterwards, also when that fails).
 * On failure *r stays the caller's to free.  Returns the run's code. */
GSVD_NODISCARD int lib_run_finish(struct lib_run *run, int rc, enum gensvd_analysis an,
                                  gsvd_result **r);
/* The distributed run's communicator (gensvd_mpi_init), or NULL. */
struct gsvd_comm *lib_world(void);

#endif /* GSVD_LIB_LIB_INTERNAL_H */
