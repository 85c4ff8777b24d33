/* gensvd.h - the gensvd library: principal components, pairwise distances, LD pruning, KING
 * kinship and unrelated sets, projection onto saved PCs, and simulation of genotype data stored
 * as Zarr (v2 or v3; a local directory or zip archive, https://, gs://, s3://) or held in memory.
 *
 * Five kinds of object, all opaque (curl's easy API and zstd's parameters are the models):
 *
 *   gensvd_ctx      where calls run: threads, device, a log callback, a progress callback, a
 *                   cancel flag, remote-store settings, and the message of the last failure.
 *   gensvd_source   the genotypes to analyse: a store's path or URL, or arrays in memory (read
 *                   in place, never copied whole) or delivered chunk by chunk by a callback;
 *                   with the selection to read (variant range, samples, masks, filters).
 *   gensvd_options  one analysis and its parameters, starting from the documented defaults
 *                   (those of the command line: `man gensvd-pca`, ...), set by name.
 *   gensvd_result   what an analysis produced: named arrays (dtype, shape, dimension names)
 *                   and attributes, exactly the arrays and attributes `gensvd CMD -o` writes.
 *   gensvd_dest     a Zarr output (v2 or v3, local, zip-free directory, gs:// or s3://),
 *                   checked before any work starts and written staged, so that a failed or
 *                   cancelled run leaves nothing behind.
 *
 * A typical run:
 *
 *     gensvd_ctx *ctx = gensvd_ctx_new();
 *     gensvd_source *src = NULL;
 *     gensvd_options *opt = NULL;
 *     gensvd_result *res = NULL;
 *     int rc = gensvd_source_open(ctx, "cohort.vcz", &src);
 *     if (rc == GENSVD_OK)
 *         rc = gensvd_options_new(ctx, GENSVD_PCA, &opt);
 *     if (rc == GENSVD_OK)
 *         rc = gensvd_options_set_int(opt, "components", 10);
 *     if (rc == GENSVD_OK)
 *         rc = gensvd_run(ctx, opt, src, NULL, &res);
 *     if (rc != GENSVD_OK)
 *         fprintf(stderr, "pca: %s\n", gensvd_ctx_last_error(ctx));
 *     ... gensvd_result_array(res, "sample_pca_projection", &view) ...
 *     gensvd_result_free(res); gensvd_options_free(opt); gensvd_source_free(src);
 *     gensvd_ctx_free(ctx);
 *
 * Rules that hold for every function:
 *   - Functions returning int return GENSVD_OK (0) or a negative enum gensvd_error; on failure
 *     the context's last error (gensvd_ctx_last_error) says what went wrong for a person
 *     ("cohort.vcz/call_genotype/3.0: corrupt chunk: ..."), and pointer out-parameters are NULL.
 *   - The library never writes to stdout or stderr and never exits: messages go to the log
 *     callback, if one is set (a context's, or for what no context hears the process-wide one
 *     of gensvd_set_default_log), and the last error is kept in the context.  Messages name
 *     an option as the command line spells it: `--chr 'chr99'` is the source option "chr",
 *     `pca option 'components'` the options' "components" (a binding may reword them: the
 *     Python package writes `chr='chr99'` and `argument n_components`).
 *   - Objects made from a context (sources, options, results, destinations) must not outlive
 *     it; *_free functions accept NULL.
 *   - Thread safety: one call at a time per context and per object made from it; different
 *     contexts share nothing and may run at the same time in different threads (each call runs
 *     its own worker threads).  gensvd_ctx_cancel may be called from any thread or a signal
 *     handler.  The process-wide settings the library makes are OpenBLAS's thread count, which
 *     it sets to 1 (gensvd runs BLAS on its own threads; a program's own OpenBLAS calls then
 *     run on one thread too), and, at the first gensvd_ctx_new, cJSON's allocation hooks
 *     (malloc and free, through the library's out-of-memory reporting: a program that uses
 *     cJSON with hooks of its own installs them after that call).
 *   - Strings passed in are copied unless a comment says "borrowed"; strings and arrays
 *     returned are owned by the object they come from and valid until it is freed.
 *   - Setters take the option names of the command line (without the leading "--"): the
 *     options of `gensvd pca --help` are those of GENSVD_PCA, with the same defaults and the
 *     same accepted values.  Adding an option or a setter never changes the ABI.
 *
 * Link with -lgensvd (pkg-config gensvd). */
#ifndef GENSVD_H
#define GENSVD_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && !defined(GENSVD_STATIC_DEFINE)
#define GENSVD_API __attribute__((visibility("default")))
#else
#define GENSVD_API
#endif

/* ---- version ------------------------------------------------------------------------------ */

#define GENSVD_VERSION_MAJOR 0
#define GENSVD_VERSION_MINOR 1
#define GENSVD_VERSION_PATCH 0
#define GENSVD_VERSION_STRING "0.1.0"
#define GENSVD_VERSION_NUMBER                                                                      \
    (GENSVD_VERSION_MAJOR * 10000 + GENSVD_VERSION_MINOR * 100 + GENSVD_VERSION_PATCH)

/* The version of the library linked at run time: "0.1.0" (static), and as a number. */
GENSVD_API const char *gensvd_version(void);
GENSVD_API unsigned gensvd_version_number(void);

/* What this build and this machine offer, one line of text each (static, never NULL; "" for an
 * unknown key): "backends", "cuda", "mpi", "stores", "codecs", "plot", "libraries", "blas",
 * "cpu kernels" (the lines of `gensvd --version`).  "blas" names the OPENBLAS_CORETYPE to set
 * before the program starts where OpenBLAS runs generic kernels on a CPU it does not know
 * (the gensvd binary sets it itself: the same kernels give the binary's bytes).  For a program
 * that does the same: "blas core", the kernel set OpenBLAS runs in this process ("Haswell",
 * "SkylakeX", "Prescott" for its generic ones), and "blas core fix", the set to give
 * OPENBLAS_CORETYPE before starting again ("" when OpenBLAS knows the CPU, when
 * OPENBLAS_CORETYPE is set already, or when no better set fits).  Thread safety: any thread. */
GENSVD_API const char *gensvd_build_info(const char *key);

/* ---- errors ------------------------------------------------------------------------------- */

/* Released values are frozen: codes are appended, never reused. */
enum gensvd_error {
    GENSVD_OK = 0,
    GENSVD_ENOMEM = -1,       /* out of memory (or over a --memory cap) */
    GENSVD_EINVAL = -2,       /* a bad argument or option value: the caller's fault */
    GENSVD_EIO = -3,          /* a read or write failed (local file, or a rejected request) */
    GENSVD_ENOTFOUND = -4,    /* a store, array or key does not exist */
    GENSVD_EFORMAT = -5,      /* malformed metadata or a corrupt chunk */
    GENSVD_EINCONSIST = -6,   /* well-formed inputs that disagree (shapes, samples, variants) */
    GENSVD_EUNSUPPORTED = -7, /* valid Zarr that gensvd does not handle (codec, dtype) */
    GENSVD_ECODEC = -8,       /* decompression failed, or a chunk of the wrong size */
    GENSVD_ENET = -9,         /* a transport failure after every retry */
    GENSVD_EAUTH = -10,       /* HTTP 401/403: missing or rejected credentials */
    GENSVD_EDEGENERATE = -11, /* nothing to analyse: no variant left, rank below k, ... */
    GENSVD_EGPU = -12,        /* a CUDA failure at run time */
    GENSVD_ENODEVICE = -13,   /* a GPU was asked for and none is usable */
    GENSVD_ENOTBUILT = -14,   /* a feature this build lacks (CUDA, MPI, remote stores, PNG) */
    GENSVD_EINTERNAL = -15,   /* a bug: please report it */
    GENSVD_ECANCELED = -16,   /* the call was cancelled (gensvd_ctx_cancel) */
    GENSVD_EPEER = -17,       /* another process of a distributed run failed */
};

/* A short name for any code ("out of memory", ...; "unknown error" for other values). */
GENSVD_API const char *gensvd_strerror(int code);

/* ---- the context -------------------------------------------------------------------------- */

typedef struct gensvd_ctx gensvd_ctx;
typedef struct gensvd_source gensvd_source;
typedef struct gensvd_options gensvd_options;
typedef struct gensvd_result gensvd_result;
typedef struct gensvd_dest gensvd_dest;

/* A new context with the defaults: every core, device "auto", no log or progress callback,
 * remote settings from the environment (AWS_*, GOOGLE_OAUTH_ACCESS_TOKEN, STORAGE_EMULATOR_HOST,
 * GENSVD_*; `man gensvd`).  NULL when out of memory. */
GENSVD_API gensvd_ctx *gensvd_ctx_new(void);
GENSVD_API void gensvd_ctx_free(gensvd_ctx *ctx);

/* The message of the last failed call on this context or an object made from it ("" when
 * there was none): one line for a person, naming the file, key or URL and what is wrong. */
GENSVD_API const char *gensvd_ctx_last_error(const gensvd_ctx *ctx);

enum gensvd_log_level {
    GENSVD_LOG_OFF = 0,
    GENSVD_LOG_ERROR = 1, /* why a call failed (also kept as the last error) */
    GENSVD_LOG_WARN = 2,  /* something the caller should know: dropped variants, retries */
    GENSVD_LOG_INFO = 3,  /* the plan and progress of a run (what `gensvd -v` prints) */
    GENSVD_LOG_DEBUG = 4, /* detail for developers */
};

/* Called for every message at or below `level`, from any thread of the call (possibly several
 * at once: it must be thread-safe); `message` has no prefix or newline, borrowed for the call. */
typedef void (*gensvd_log_fn)(void *user, enum gensvd_log_level level, const char *message);
/* fn NULL: no callback (the default).  Returns GENSVD_OK, or GENSVD_EINVAL for a bad level. */
GENSVD_API int gensvd_ctx_set_log(gensvd_ctx *ctx, gensvd_log_fn fn, void *user,
                                  enum gensvd_log_level level);

/* The process-wide callback for the messages no context hears: those of the calls that take no
 * context (gensvd_mpi_init, gensvd_blas_reserve), of the process-wide set-up the first
 * gensvd_ctx_new makes, and a new context's warnings about GENSVD_* environment values it
 * ignores.  Every message at or below `level`, as gensvd_log_fn says (from any thread: fn must
 * be thread-safe; `user` borrowed until replaced).  fn NULL: none, the default: such messages
 * are dropped.  Process-wide: call it from one thread while no other calls the library (at
 * start, as gensvd_mpi_init).  Returns GENSVD_OK, or GENSVD_EINVAL for a bad level (nothing
 * changes). */
GENSVD_API int gensvd_set_default_log(gensvd_log_fn fn, void *user, enum gensvd_log_level level);

/* Called as a run advances: `what` names the stage ("pass 3", "Gram", "pass 2/5", "writing",
 * borrowed), `done` of `total` units (total 0: unknown; done == total closes the stage), from
 * the thread that called the run.  Cheap calls only: it may be called thousands of times a
 * second. */
typedef void (*gensvd_progress_fn)(void *user, const char *what, uint64_t done, uint64_t total);
GENSVD_API void gensvd_ctx_set_progress(gensvd_ctx *ctx, gensvd_progress_fn fn, void *user);

/* Ask the running call (or, when none runs, the next one) to stop: it returns GENSVD_ECANCELED
 * within about a second, having removed anything it staged, and the request is cleared.  Safe
 * from any thread and from a signal handler. */
GENSVD_API void gensvd_ctx_cancel(gensvd_ctx *ctx);

/* Context settings by name.
 *   int:    "threads" (0: every core; the default), "concurrency" (remote requests in flight,
 *           1..1024 [32]), "retries" (0..100 [8]), "timeout" (seconds a stalled transfer waits
 *           before a retry [60]), "no-sign-request" (0/1: anonymous S3 requests)
 *   string: "device" ("auto", "cpu", "gpu" ["auto"]), "endpoint" (an S3 endpoint URL),
 *           "s3-addressing" ("auto", "path", "virtual"), "gcs-token-file", "gcs-token" (an
 *           OAuth2 access token), "aws-access-key-id", "aws-secret-access-key",
 *           "aws-session-token", "aws-region", "cache-dir" (where PCA's genotype cache spills)
 * Returns GENSVD_OK, or GENSVD_EINVAL for an unknown name, a wrong type or a bad value;
 * "device" "gpu" is checked when set: GENSVD_ENOTBUILT (no GPU backend in this build) or
 * GENSVD_ENODEVICE (no usable device), before any input is read. */
GENSVD_API int gensvd_ctx_set_int(gensvd_ctx *ctx, const char *name, int64_t value);
GENSVD_API int gensvd_ctx_set_string(gensvd_ctx *ctx, const char *name, const char *value);

/* ---- element types ------------------------------------------------------------------------ */

enum gensvd_dtype {
    GENSVD_DTYPE_BOOL = 1, /* one byte, 0 or 1 */
    GENSVD_DTYPE_INT8,
    GENSVD_DTYPE_INT16,
    GENSVD_DTYPE_INT32,
    GENSVD_DTYPE_INT64,
    GENSVD_DTYPE_UINT8,
    GENSVD_DTYPE_UINT16,
    GENSVD_DTYPE_UINT32,
    GENSVD_DTYPE_UINT64,
    GENSVD_DTYPE_FLOAT32,
    GENSVD_DTYPE_FLOAT64,
    GENSVD_DTYPE_STRING, /* elements are `const char *` (UTF-8, NUL-terminated) */
    /* What gensvd_array_read_blocks hands over from arrays of these stored types: */
    GENSVD_DTYPE_FLOAT16, /* IEEE 754 half precision (the 2 bytes as stored, native order) */
    GENSVD_DTYPE_BYTES,   /* fixed-width byte strings padded with NUL bytes (NumPy "S") */
    GENSVD_DTYPE_UTF32,   /* fixed-width text: UTF-32 code units padded with 0 (NumPy "U") */
};

/* Size in bytes of one element (sizeof(const char *) for strings), 0 for an unknown dtype and
 * for GENSVD_DTYPE_BYTES and _UTF32, whose width is the array's (gensvd_array_get_int,
 * "item-size"). */
GENSVD_API size_t gensvd_dtype_size(enum gensvd_dtype dtype);

#define GENSVD_MAX_DIMS 8

/* An array: returned by gensvd_result_array (everything borrowed from the result).  This
 * struct is frozen: it never gains fields (the ABI would change). */
struct gensvd_array_view {
    const void *data; /* C order, native byte order */
    enum gensvd_dtype dtype;
    size_t ndim;
    uint64_t shape[GENSVD_MAX_DIMS];
    const char *dims[GENSVD_MAX_DIMS]; /* dimension names ("samples", "components", ...) */
};

/* ---- sources ------------------------------------------------------------------------------ */

/* A store: a local directory or zip file, file://, https://, gs:// or s3:// URL, naming a
 * group (VCF-Zarr from bio2zarr or sgkit, scikit-allel's calldata/GT) or an array.  The
 * metadata is read now (so a missing store fails here); the genotype array is chosen at the
 * run (option "array" of the source, else auto-detected).  GENSVD_ENOTFOUND, GENSVD_EFORMAT
 * (not Zarr: the message says how to convert VCF, BCF, PLINK or BGEN files), GENSVD_EAUTH,
 * GENSVD_ENET, GENSVD_ENOTBUILT (a remote scheme in a build without libcurl). */
GENSVD_API int gensvd_source_open(gensvd_ctx *ctx, const char *url, gensvd_source **out);

/* An empty in-memory source, filled with gensvd_source_add_array / _add_chunked, in the names
 * and layout of VCF-Zarr (sgkit's): "call_genotype" (variants x samples x ploidy, any integer
 * dtype, -1 missing, -2 padding) or a 2-D dosage array (variants x samples, integer with
 * negative = missing, or float with NaN = missing; name it with the source option "array"),
 * and optionally "sample_id" (strings), "variant_contig" (integer indices into "contig_id"),
 * "contig_id" (strings), "variant_position" (integer), "variant_allele" (variants x alleles,
 * strings).  Messages and the output's attributes name it "memory" (source option "name");
 * the arrays are read in chunks of "chunk-variants" variants (by default up to 4 MiB).
 * Returns GENSVD_OK or GENSVD_ENOMEM. */
GENSVD_API int gensvd_source_new(gensvd_ctx *ctx, gensvd_source **out);

/* How to convert a genotype file that is not Zarr into a store, from its name (VCF, BCF, PLINK 1
 * and 2, BGEN), in the words of gensvd_source_open's error ("gensvd reads Zarr: convert a VCF
 * file with bio2zarr (vcf2zarr convert x.vcf.gz x.vcz)"), into out (cap bytes); "" for any
 * other name, or one too long to quote.  Returns out. */
GENSVD_API const char *gensvd_convert_hint(const char *path, char *out, size_t cap);

/* A numeric matrix from a TSV or CSV file (path "-": standard input), `pdist`'s matrix input
 * (what `gensvd pca --format tsv` and spreadsheets write): one row per item, tab- or
 * comma-separated, an optional header line and ID column (detected), empty fields, "nan" and
 * "NA" missing.  It is read and parsed now; messages name it by its path ("standard input"
 * for "-").  Only GENSVD_PDIST runs on it, with the rows as its items (the source's "ploidy"
 * scales ibs [2]; no other selection applies).  GENSVD_EIO (unreadable), GENSVD_EFORMAT (the
 * message names the line and column), GENSVD_ENOMEM. */
GENSVD_API int gensvd_source_open_text(gensvd_ctx *ctx, const char *path, gensvd_source **out);

/* Add an array read in place: `data` (borrowed: it must stay valid and unchanged until the
 * source is freed) with `ndim` axes of `shape`, and `strides` in bytes per axis (NULL: C
 * order; negative and zero strides are allowed).  Nothing is copied now; a run reads it block
 * by block.  Strings: data points to `const char *` elements.  GENSVD_EINVAL for a bad dtype,
 * shape or name, GENSVD_EINCONSIST when its lengths disagree with the arrays already added
 * (variants, samples). */
GENSVD_API int gensvd_source_add_array(gensvd_source *src, const char *name, const void *data,
                                       enum gensvd_dtype dtype, size_t ndim, const uint64_t *shape,
                                       const int64_t *strides);

/* Fill one chunk: write the chunk at grid position chunk[0..ndim) into `dst` (C order, the
 * full chunk shape, edge chunks padded with anything), `dst_bytes` long.  Called from worker
 * threads, possibly several at once, each chunk at most once per pass (a run may make several
 * passes).  Return 0, or nonzero to fail the run (it then returns GENSVD_EIO with the message
 * the callback logged, or GENSVD_ECANCELED if the context was cancelled). */
typedef int (*gensvd_chunk_fn)(void *user, const uint64_t *chunk, void *dst, size_t dst_bytes);

/* Add an array delivered chunk by chunk (a dask array, a file format of the caller's): shape
 * and chunk shape per axis; `user` is borrowed.  Errors as gensvd_source_add_array. */
GENSVD_API int gensvd_source_add_chunked(gensvd_source *src, const char *name,
                                         enum gensvd_dtype dtype, size_t ndim,
                                         const uint64_t *shape, const uint64_t *chunks,
                                         gensvd_chunk_fn fn, void *user);

/* What to read, by the command line's input option names.
 *   int:    "transpose" (0/1: the 2-D array is samples x variants), "ploidy" (of a 2-D dosage
 *           array [2]), "variant-start", "variant-stop" (the range [start, stop) of variant
 *           indices; stop 0: the end), "all-contigs" (0/1: KING counts every contig),
 *           "var-filter" (0/1: only variants whose VCF FILTER, the arrays variant_filter and
 *           filter_id, is PASS or missing; plink2's --var-filter),
 *           "autosome" (0/1: only contigs 1-22; plink2's --autosome; not with "chr"),
 *           "autosome-par" (0/1: "autosome" and XY), "from-bp", "to-bp" (positions, both
 *           included, on the one contig "chr" must name; plink2's --from-bp/--to-bp),
 *           "chunk-variants" (in memory: variants per chunk read; 0: automatic)
 *   double: "maf", "max-missing", "mind" (leave out the samples missing more than this
 *           fraction of the selected variants' calls, plink2's --mind; one more pass),
 *           "hwe" (drop the variants whose Hardy-Weinberg exact test
 *           p-value is below it, plink2's --hwe; X, Y and MT are not tested; "hwe-midp" 0/1
 *           takes the mid-p value; pca and ldprune)
 *   string: "array" (the genotype array's path in the store), "variants" ("A:B"),
 *           "variant-mask", "sample-mask" (STORE[/ARRAY]: a 1-D bool array, nonzero = keep),
 *           "chr" (the contigs to keep, comma-separated names or ranges as plink2's --chr
 *           takes them: "1-22", "1-22,X", "2L,2R"), "not-chr" (the contigs to leave out),
 *           "var-filter-except" (comma-separated filter names a variant may fail and still
 *           pass "var-filter", which a non-empty list turns on),
 *           "extract", "exclude" (a file of variant IDs: only, or all but, the variants whose
 *           variant_id it lists; every whitespace-separated word is an ID, as plink2 reads
 *           --extract), "extract-bed", "exclude-bed" (a BED file of ranges CONTIG START END,
 *           0-based half-open: only, or all but, the variants whose variant_contig /
 *           variant_position lie inside; plink2's --extract bed0), "extract-range",
 *           "exclude-range" (the same, 1-based closed; plink2's bed1, PLINK 1.9's range);
 *           "keep", "remove" (a sample-ID file as plink2's --keep/--remove read it: only, or
 *           all but, the samples whose IID it lists; a "#FID IID" or "#IID" header names the
 *           columns, else FID IID lines or one ID a line);
 *           each file is read when the option is set (an unreadable or malformed file fails
 *           the call, naming it and the line); "" clears the option,
 *           "name" (in memory: the source's name in messages and attributes ["memory"])
 *   Any int or double setting may also be given as text with _string.
 * Errors: GENSVD_EINVAL (unknown name, wrong type, bad value). */
GENSVD_API int gensvd_source_set_int(gensvd_source *src, const char *name, int64_t value);
GENSVD_API int gensvd_source_set_double(gensvd_source *src, const char *name, double value);
GENSVD_API int gensvd_source_set_string(gensvd_source *src, const char *name, const char *value);

/* Keep only these samples, by ID, in this order (copied; n 0 clears the selection).
 * GENSVD_EINVAL for a duplicate or empty ID; unknown IDs fail the run (GENSVD_EINCONSIST). */
GENSVD_API int gensvd_source_set_samples(gensvd_source *src, const char *const *ids, size_t n);

/* A mask in memory (copied): "variant-mask" (one entry per variant of the array) or
 * "sample-mask" (one per sample), nonzero = keep.  n 0 clears it.  GENSVD_EINVAL for another
 * name; a length that differs from the array's fails the run (GENSVD_EINCONSIST). */
GENSVD_API int gensvd_source_set_mask(gensvd_source *src, const char *name, const uint8_t *mask,
                                      size_t n);

/* The Zarr format of a store source (2 or 3; the default format of its outputs), 0 for an
 * in-memory source (whose outputs default to format 2) or NULL. */
GENSVD_API int gensvd_source_zarr_format(const gensvd_source *src);

GENSVD_API void gensvd_source_free(gensvd_source *src);

/* ---- analyses and their options ----------------------------------------------------------- */

enum gensvd_analysis {
    GENSVD_PCA = 1,        /* `gensvd pca` */
    GENSVD_PROJECT = 2,    /* `gensvd project`: needs "pcs" (a path) or gensvd_options_set_pcs */
    GENSVD_PDIST = 3,      /* `gensvd pdist` */
    GENSVD_LDPRUNE = 4,    /* `gensvd ldprune` */
    GENSVD_RELATED = 5,    /* `gensvd related` */
    GENSVD_SIMULATE = 6,   /* `gensvd simulate`: runs without a source, into a dest */
    GENSVD_PLOT_PCA = 7,   /* `gensvd plot pca`: gensvd_plot only */
    GENSVD_PLOT_PDIST = 8, /* `gensvd plot pdist`: gensvd_plot only */
};

/* Options of one analysis with the documented defaults.  GENSVD_EINVAL for an unknown
 * analysis, GENSVD_ENOMEM. */
GENSVD_API int gensvd_options_new(gensvd_ctx *ctx, enum gensvd_analysis analysis,
                                  gensvd_options **out);
GENSVD_API void gensvd_options_free(gensvd_options *opt);

/* Set an option by its command-line name ("components", "method", "tol", "metric", "r2",
 * "window", "king-cutoff", ...): integers (and sizes in bytes, e.g. "memory") with _int, real
 * numbers with _double (an _int value is taken for a real option too), names and text forms
 * with _string ("method" "randomized", "window" "500kb", "ld-prune" "0.2,500kb").  Flags are
 * ints (0/1).  _string takes every option in its command-line form; an option whose default is
 * a word ("cache" "auto", "min-kinship" "": every pair) takes numbers with _int or _double too.
 * pca's "max-iter" is 0 by default: the command's default, 8 passes (60 with "accuracy" "bulk").
 * Every analysis also takes "command" (text): what the output's "command" attribute records
 * (the gensvd binary gives its command line; empty by default).  Returns GENSVD_OK, or
 * GENSVD_EINVAL (an unknown name, a wrong type, a value out of range: the last error says
 * which and what is accepted). */
GENSVD_API int gensvd_options_set_int(gensvd_options *opt, const char *name, int64_t value);
GENSVD_API int gensvd_options_set_double(gensvd_options *opt, const char *name, double value);
GENSVD_API int gensvd_options_set_string(gensvd_options *opt, const char *name, const char *value);

/* A list-valued option, the items copied (n 0 clears it): GENSVD_PCA's "fit-samples" (the IDs
 * of the samples to fit on; the others are projected onto their PCs), instead of a file of IDs
 * given with _string.  GENSVD_EINVAL for another name or an empty item. */
GENSVD_API int gensvd_options_set_strings(gensvd_options *opt, const char *name,
                                          const char *const *items, size_t n);

/* The options an analysis takes, for bindings and documentation: the i-th option's name, or
 * NULL past the last; its type (GENSVD_OPTION_*) and current value as text ("10", "auto",
 * "1e-04"; borrowed until the next call on opt). */
enum gensvd_option_type {
    GENSVD_OPTION_INT = 1,
    GENSVD_OPTION_DOUBLE = 2,
    GENSVD_OPTION_STRING = 3,
    GENSVD_OPTION_FLAG = 4,
};
GENSVD_API const char *gensvd_options_name(const gensvd_options *opt, size_t i);
GENSVD_API int gensvd_options_type(const gensvd_options *opt, const char *name);
GENSVD_API const char *gensvd_options_value(gensvd_options *opt, const char *name);

/* GENSVD_PROJECT: the reference PCs from an earlier GENSVD_PCA result with loadings (borrowed:
 * it must outlive the run), instead of the option "pcs" (a path or URL). */
GENSVD_API int gensvd_options_set_pcs(gensvd_options *opt, const gensvd_result *pcs);

/* ---- results and destinations ------------------------------------------------------------- */

/* A Zarr output at `url` (a local directory, gs:// or s3://), with settings by name:
 *   int:    "force" (0/1: replace an existing output), "zarr-format" (2 or 3; 0, the default:
 *           the input's format, else 2)
 *   string: "shard" ("ROWS[,COLS]", format 3 only)
 * and checked by gensvd_dest_check, which every run and write call first: the output does
 * not exist (or "force" is set), its parent directory exists and is writable, a bucket is
 * reachable with the context's credentials (one request).  Nothing is created before a run's
 * end: a run writes into a staging location moved into place when complete. */
GENSVD_API int gensvd_dest_new(gensvd_ctx *ctx, const char *url, gensvd_dest **out);
GENSVD_API int gensvd_dest_set_int(gensvd_dest *dest, const char *name, int64_t value);
GENSVD_API int gensvd_dest_set_string(gensvd_dest *dest, const char *name, const char *value);
/* GENSVD_OK, or GENSVD_EIO (exists without "force", parent missing or not writable),
 * GENSVD_EAUTH, GENSVD_ENET, GENSVD_EINVAL (bad settings), GENSVD_ENOTBUILT. */
GENSVD_API int gensvd_dest_check(gensvd_dest *dest);
GENSVD_API void gensvd_dest_free(gensvd_dest *dest);
/* A file a program writes beside a run's outputs (a text table, a .eigenvec), checked the way
 * gensvd_dest_check checks a Zarr output, so that a bad path fails before any input is read:
 * path is not a directory, does not exist unless overwrite is nonzero, and a file can be made
 * in its directory (one is created and removed).  In a distributed run rank 0 checks and every
 * rank gets its verdict.  GENSVD_OK, or GENSVD_EIO (the message names the path and what is
 * wrong), GENSVD_EINVAL (an empty path), GENSVD_ENOMEM. */
GENSVD_API int gensvd_file_check(gensvd_ctx *ctx, const char *path, int overwrite);

/* Run an analysis on src (NULL for GENSVD_SIMULATE and for GENSVD_PDIST's "finalize").  With
 * dest (else NULL) the output is written there as the run produces it (pdist's bands and
 * simulate's chunks are never held whole in memory; such arrays are then absent from the
 * result) and committed before the call returns; dest is checked first, before any input is
 * read.  GENSVD_SIMULATE and pdist's "part" write as they go and need a dest (GENSVD_EINVAL
 * without one); pdist's "min-kinship" without one holds the kept pairs (the arrays along
 * "pairs" its pair list has: 36 bytes a pair) in the result.  *out gets the result (caller
 * owns; gensvd_result_free).  Errors: any of enum gensvd_error, with the last error set;
 * GENSVD_ECANCELED after gensvd_ctx_cancel (nothing is left at dest). */
GENSVD_API int gensvd_run(gensvd_ctx *ctx, const gensvd_options *opt, gensvd_source *src,
                          gensvd_dest *dest, gensvd_result **out);

/* Write a result to dest (checked first) with the bytes `gensvd CMD -o` writes for it. */
GENSVD_API int gensvd_result_write(gensvd_ctx *ctx, const gensvd_result *res, gensvd_dest *dest);

GENSVD_API enum gensvd_analysis gensvd_result_analysis(const gensvd_result *res);

/* The result's arrays: the i-th name (NULL past the last) and an array by name (GENSVD_OK, or
 * GENSVD_ENOTFOUND).  The names and dimensions are those of the output schema on the
 * command's manual page (sgkit's names: sample_pca_projection, ...).
 * A GENSVD_LDPRUNE result also holds the table of the variants it scanned (the range of
 * "variant-start" and "variant-stop"), found by name only: gensvd_result_array_name does not
 * list these arrays and no destination receives them.  "variant_index" (UINT64, each
 * variant's index in the genotype array), "variant_contig" (INT64, the input's
 * variant_contig, 0 without one) and "variant_position" (INT64; absent when the input has no
 * variant_position), each with one element per variant of the range, and "contig_id"
 * (STRING, the input's contig_id beside its genotypes, which variant_contig indexes; absent
 * when the input has none).  A GENSVD_PDIST result also holds its run's plan, found by name
 * only, each UINT64 with one element: "n_bands" (the bands of rows computed), "n_scans" (the
 * passes that read the input), "peak_bytes" (the planned working set), "n_segments" and
 * "n_segments_complete" (the bit-plane kernel's segments of features counted on the host, and
 * those of them without a missing call; 0 for other kernels), "n_segments_apart" (KING and
 * ibs0: segments whose few missing calls were counted apart); on the process of rank 0 under
 * MPI.
 * A GENSVD_PCA result also holds, found by name only in the same way, what `gensvd pca`
 * prints besides its group: "fit_sample_id" (STRING, the samples the PCs are of, in their
 * order: that of "fit-samples", or the kept ones after outlier removal) and
 * "fit_sample_vector" (FLOAT64, those samples x components: their unit eigenvectors U),
 * "singular_value_error_bound" and "singular_value_error_estimate" (FLOAT64 per component,
 * unrounded; the attributes of the same names hold them to 6 digits, -1 for a non-finite
 * one), "gram_error" (FLOAT64, one element), "converged" (INT64, one element: 1, 0, or -1
 * for a fixed pass count), "variant_counts" (UINT64, 9 elements: the variants used, those
 * of the range, those dropped without calls, for zero variance, by "maf", by "max-missing"
 * and by a variant mask, then the missing calls set to the mean, then the variants dropped
 * by "hwe") and, with
 * "outlier-iter", "outlier_sample_id" (STRING), "outlier_round", "outlier_pc" (INT64) and
 * "outlier_sigma" (FLOAT64): the starting set in its order, with the round that removed each
 * sample (0: kept), the PC and its distance in standard deviations (NaN: kept); with the flag
 * "smartpca-rows" (an option of the library only: `gensvd pca --eigensoft` sets it to write
 * smartpca's .evec), "smartpca_sample_id" (STRING) and "smartpca_row" (FLOAT64, those samples
 * x components): the rows smartpca's .evec holds, its least-squares fits on its scale (the
 * unit eigenvectors on complete data), for the samples the PCs are of and, with
 * "fit-samples", the others, in the output's order (on every process under MPI); with the flag
 * "all-eigenvalues" (an option of the library only: `gensvd pca --eigensoft` sets it to write
 * smartpca's .eval) and the exact method, "gram_eigenvalue" (FLOAT64, one per sample the PCs
 * are of: every eigenvalue of the Gram Z^T Z, descending; the first k are the squared singular
 * values to their rounding; one more dense reduction of the Gram, values only; the iterative
 * methods compute k eigenvalues and leave it out).  The views
 * are borrowed from the result, as every view. */
GENSVD_API const char *gensvd_result_array_name(const gensvd_result *res, size_t i);
GENSVD_API int gensvd_result_array(const gensvd_result *res, const char *name,
                                   struct gensvd_array_view *out);

/* The group's attributes as a JSON object text (what .zattrs holds), and one numeric or
 * string attribute by name (GENSVD_ENOTFOUND when absent or of another type). */
GENSVD_API const char *gensvd_result_attrs_json(const gensvd_result *res);
GENSVD_API int gensvd_result_attr_double(const gensvd_result *res, const char *name, double *out);
GENSVD_API const char *gensvd_result_attr_string(const gensvd_result *res, const char *name);

/* The attributes of one array as a JSON object text, what its .zattrs holds besides the
 * dimension names (sample_unrelated's "king_cutoff", ...): "{}" when it has none, NULL when the
 * result has no array of that name.  Also for an array written to a destination as it was
 * computed (absent from gensvd_result_array). */
GENSVD_API const char *gensvd_result_array_attrs_json(const gensvd_result *res, const char *name);

GENSVD_API void gensvd_result_free(gensvd_result *res);

/* GENSVD_PDIST without a dest: instead of holding the N x N matrix in the result, hand each
 * finished band of rows to fn, in row order, as it was computed: rows [row0, row0 + n_rows)
 * against columns [row0, n) of the square "distance" matrix (n_rows x (n - row0), float64,
 * row-major; the columns left of row0 are the mirror of earlier bands) and the same block of
 * "n_sites" (uint32).  A nonzero return stops the run (GENSVD_ECANCELED when the context was
 * cancelled, else GENSVD_EIO).  fn NULL: back to the in-memory result. */
typedef int (*gensvd_rows_fn)(void *user, uint64_t row0, uint64_t n_rows,
                              const struct gensvd_array_view *distance,
                              const struct gensvd_array_view *n_sites);
GENSVD_API int gensvd_options_set_rows_callback(gensvd_options *opt, gensvd_rows_fn fn, void *user);

/* The callbacks below (and the rows callback above, with a dest too: each band is handed to fn
 * once it is written there) let a caller format pdist's outputs as the run goes, as the
 * command line's text outputs are made.  Each is called from the thread that called the run,
 * on the process of rank 0 only under MPI (gensvd_mpi_init) but for the items callback, which
 * every process hears.  A nonzero return stops the run (GENSVD_ECANCELED when the context was
 * cancelled, else GENSVD_EIO); fn NULL removes the callback.  GENSVD_EINVAL for options of
 * another analysis.
 *
 * The items: called once they are known, before any band is computed (and before the pairs
 * callback's first call), with their number and IDs (the samples' sample_id, their haplotypes'
 * IDs, the variants' indices as text with "axis" "variants", or a text source's row IDs;
 * borrowed until the run returns, so that the other callbacks may name the items). */
typedef int (*gensvd_items_fn)(void *user, uint64_t n, const char *const *ids);
GENSVD_API int gensvd_options_set_items_callback(gensvd_options *opt, gensvd_items_fn fn,
                                                 void *user);

/* The square matrix's complete rows, once every band is done (and after a dest is written):
 * one call per row, in order, row0 = i, n_rows 1, `distance` 1 x n (float64: row i against
 * every column), n_sites NULL.  The run holds the n x n distances for it meanwhile (8 bytes a
 * pair, counted against "memory" as the bands are planned).  Not with "layout" "condensed" or
 * "min-kinship" (GENSVD_EINVAL at the run). */
GENSVD_API int gensvd_options_set_matrix_callback(gensvd_options *opt, gensvd_rows_fn fn,
                                                  void *user);

/* One pair of "min-kinship"'s list (i < j, the items' indices) with its KING counts over the
 * sites called in both: the row of the pair list's arrays (pair_i, pair_j, kinship, n_sites,
 * hethet, ibs0, het1_hom2, het2_hom1).  This struct is frozen. */
struct gensvd_king_pair {
    uint64_t i, j;
    double kinship;
    uint32_t n_sites, hethet, ibs0, het1_hom2, het2_hom1;
};
/* "min-kinship" without a dest: instead of holding the kept pairs in the result, hand them to
 * fn as they are found: once with n 0 when the list starts (before the first band is
 * computed), then after each band with the band's kept pairs in row order of the upper
 * triangle (n may be 0; `pairs` borrowed for the call).  The result then holds the pair list's
 * attributes ("n_pairs" among them) and no arrays. */
typedef int (*gensvd_pairs_fn)(void *user, const struct gensvd_king_pair *pairs, size_t n);
GENSVD_API int gensvd_options_set_pairs_callback(gensvd_options *opt, gensvd_pairs_fn fn,
                                                 void *user);

/* ---- plots -------------------------------------------------------------------------------- */

/* Draw a pca output (GENSVD_PLOT_PCA: a PC scatter plot) or a pdist output (GENSVD_PLOT_PDIST:
 * a heatmap) read from input_url, into output_path, with the options of `gensvd plot
 * pca|pdist` ("color-by", "pcs", "title", ...; "format" "auto" draws PNG for a name ending in
 * .png, any case, else SVG).  This is the command: its checks, its warnings about the labels
 * (the log, GENSVD_LOG_WARN) and its bytes.  The output's directory is checked before the
 * input is read; the file is written through a temporary name and renamed (an existing file
 * is replaced).  GENSVD_EINVAL (bad options), GENSVD_EINCONSIST (components or labels the
 * input lacks), GENSVD_ENOTBUILT (PNG without librsvg), GENSVD_EIO (the output cannot be
 * written there), or the input's errors. */
GENSVD_API int gensvd_plot(gensvd_ctx *ctx, const gensvd_options *opt, const char *input_url,
                           const char *output_path);

/* ---- distributed runs --------------------------------------------------------------------- */

/* Under mpirun or srun: join the job's processes (MPI is process-wide: call once, from the
 * main thread, before any run; argc/argv may be NULL).  Afterwards runs of GENSVD_PCA,
 * GENSVD_PDIST, GENSVD_PROJECT, GENSVD_RELATED and GENSVD_LDPRUNE (whole contigs per process)
 * share their work between the processes and give every process the same bytes as one process
 * would (the result on every rank; a dest is written by rank 0).  Returns
 * GENSVD_OK (also when not launched by mpirun: then one process), GENSVD_ENOTBUILT (a build
 * without MPI, launched by mpirun), GENSVD_EPEER. */
GENSVD_API int gensvd_mpi_init(int *argc, char ***argv);
GENSVD_API int gensvd_mpi_rank(void); /* 0 without MPI */
GENSVD_API int gensvd_mpi_size(void); /* 1 without MPI */
/* The processes of the run on this node (1 without MPI), which share its cores: a program that
 * sets "threads" itself divides the node's cores by it. */
GENSVD_API int gensvd_mpi_local_size(void);
GENSVD_API void gensvd_mpi_finalize(void);
/* For a process of a distributed run that is about to end with a failure (exit status
 * `status`, not 0), before gensvd_mpi_finalize: when no agreement of the run has reported a
 * failure yet, the others may be waiting for this process in a collective step and would wait
 * for ever, so every process of the run is ended now (MPI_Abort with `status`: this call does
 * not return).  When an agreement has reported a failure (every process has heard of it and
 * ends too), without MPI, or with status 0, it returns at once.  A usage error that every
 * process finds alike, before any collective step, need not call it. */
GENSVD_API void gensvd_mpi_fail(int status);

/* ---- process-wide guards ------------------------------------------------------------------ */

/* Under a finite address-space limit (RLIMIT_AS, `ulimit -v`): make room for OpenBLAS now.
 * OpenBLAS maps a buffer of about 129 MiB for each thread that runs BLAS, and retries for ever
 * when the mapping fails: so this stops its thread pool for good (gensvd runs BLAS on its own
 * threads) and maps the calling thread's buffer at once, and the library's runs then check
 * that the buffers of their threads fit before starting them (GENSVD_ENOMEM, not a hang).
 * Without a limit it does nothing.  Call it once from the main thread at start, before any
 * other thread runs and before large allocations.  Returns GENSVD_OK, or GENSVD_ENOMEM when
 * not even one buffer fits (the message, naming the limit, goes to gensvd_set_default_log's
 * callback); the program should then exit at once, with _exit: OpenBLAS's threads may keep
 * exit() from returning. */
GENSVD_API int gensvd_blas_reserve(void);

/* Abandon every unfinished output of the process: remove what the calls still writing have
 * staged locally (a destination's staging directory, gensvd_plot's temporary file,
 * gensvd_file_check's probe), so that nothing half-written is left, for a program about to
 * exit on a signal (SIGINT, SIGTERM).
 * Afterwards no output may be committed or abandoned: calls that try block until the process
 * exits, which the caller must make it do (_exit).  Safe from any thread, and while runs go
 * on in others; not async-signal-safe (it locks, allocates and removes directories): call it
 * from a thread a signal handler wakes (a self-pipe), never from the handler.  Returns the
 * number of outputs removed (0: none was unfinished).  Remote outputs (gs://, s3://) cannot be
 * staged and are not counted: their objects stay until their run closes them. */
GENSVD_API size_t gensvd_abandon_outputs(void);

/* ---- stores ------------------------------------------------------------------------------- */

/* The tree of groups and arrays under url (what `gensvd info` shows) as a JSON text (caller
 * frees with gensvd_free): {"zarr_format": 2, "consolidated": true, "groups": [PATH...],
 * "arrays": [{"path", "shape", "chunks", "dtype", "codecs", "zarr_format", "stored_bytes",
 * "raw_bytes" (not for strings), "dims", "order", "chunk_count", "shard_count",
 * "stored_objects"}...]}: the facts of gensvd_array_get_int / _get_string and
 * gensvd_array_stored_bytes.  Without the stored sizes (which list the store): the walk of
 * gensvd_source_node and gensvd_array_open. */
GENSVD_API int gensvd_store_info(gensvd_ctx *ctx, const char *url, char **json_out);

/* Read an array (or the hyperslab [start, stop) per axis; NULL: all) of a store into a new
 * result holding that one array under its own name. */
GENSVD_API int gensvd_store_read(gensvd_ctx *ctx, const char *url, const char *array,
                                 const uint64_t *start, const uint64_t *stop, gensvd_result **out);

/* Free memory the library returned (JSON texts). */
GENSVD_API void gensvd_free(void *p);

/* ---- reading stores: their tree and their arrays, block by block ------------------------- */

/* What `gensvd info` and `gensvd dump` read, for programs that browse a store or stream an array
 * of any size: the groups and arrays under a source's node (a store's; an in-memory source's
 * arrays read the same way), an array's layout, and its values block by block, never whole.
 * Paths are relative to the source's node ("" or NULL: the node itself). */

enum gensvd_node_kind {
    GENSVD_NODE_GROUP = 1,
    GENSVD_NODE_ARRAY = 2,
};

/* Facts of a source by name: "zarr-format" (2 or 3; 0 in memory), "consolidated" (1 when its
 * metadata is read from consolidated metadata, else 0).  GENSVD_OK, or GENSVD_EINVAL for
 * another name. */
GENSVD_API int gensvd_source_get_int(const gensvd_source *src, const char *name, int64_t *out);
/* Text facts of a source by name: "store" (the store holding the hierarchy, as opened:
 * "cohort.vcz" for "cohort.vcz/call_genotype"), "node" (the path inside it of the node the
 * source names, "" for the store's root).  Borrowed from src; NULL for another name and for an
 * in-memory source. */
GENSVD_API const char *gensvd_source_get_string(const gensvd_source *src, const char *name);

/* The kind of the node at `path`: GENSVD_NODE_GROUP, GENSVD_NODE_ARRAY, 0 when there is
 * neither, or a negative error (GENSVD_EFORMAT for a path with empty, "." or ".." components
 * or for malformed metadata; the store's errors). */
GENSVD_API int gensvd_source_node_kind(gensvd_source *src, const char *path);

/* The groups and arrays under the source's node in the order `gensvd info` lists them (the node
 * itself, then depth first, each group's members sorted by name): the i-th one's path
 * (borrowed from src until it is freed), depth (0 for the node itself) and kind; depth and kind
 * may be NULL.  The tree is read as far as i asks (a group's members are listed when the walk
 * enters it), so the first nodes of a large tree come before the rest is read.  Returns
 * GENSVD_OK; GENSVD_OK with *path NULL past the last node; or GENSVD_ENOTFOUND (nothing at the
 * source's node), GENSVD_EUNSUPPORTED (a store that cannot be listed and has no consolidated
 * metadata), the store's errors. */
GENSVD_API int gensvd_source_node(gensvd_source *src, size_t i, const char **path, unsigned *depth,
                                  enum gensvd_node_kind *kind);

/* An array of a source opened for reading. */
typedef struct gensvd_array gensvd_array;

/* The most axes an array has. */
#define GENSVD_ARRAY_MAX_DIMS 32

/* Open the array at `path`, reading its metadata.  src is borrowed and must outlive the array;
 * the caller closes *out with gensvd_array_close.  GENSVD_ENOTFOUND (no array there: nothing,
 * or a group), GENSVD_EFORMAT (a malformed path or metadata), GENSVD_EUNSUPPORTED (a data type,
 * codec or layout gensvd does not read), the store's errors. */
GENSVD_API int gensvd_array_open(gensvd_source *src, const char *path, gensvd_array **out);
GENSVD_API void gensvd_array_close(gensvd_array *arr);

/* The number of axes (0 for a scalar), and per axis the shape and the chunk shape (a sharded
 * array's inner chunks), borrowed from arr; shape and chunks may be NULL. */
GENSVD_API size_t gensvd_array_shape(const gensvd_array *arr, const uint64_t **shape,
                                     const uint64_t **chunks);
/* The type of the elements gensvd_array_read_blocks hands over: the stored type, strings of
 * variable length as GENSVD_DTYPE_STRING. */
GENSVD_API enum gensvd_dtype gensvd_array_dtype(const gensvd_array *arr);
/* The i-th dimension name (_ARRAY_DIMENSIONS, or a Zarr v3 array's dimension_names; borrowed
 * from arr), NULL past the last. */
GENSVD_API const char *gensvd_array_dim_name(const gensvd_array *arr, size_t i);

/* Numbers of an array by name:
 *   "zarr-format"  2 or 3
 *   "item-size"    bytes per element handed over (for _BYTES and _UTF32 the fixed width)
 *   "chunk-count"  the chunks of its grid (inner chunks, when sharded)
 *   "shard-count"  the shards of its grid (0: not sharded)
 * GENSVD_OK, or GENSVD_EINVAL for another name. */
GENSVD_API int gensvd_array_get_int(const gensvd_array *arr, const char *name, int64_t *out);
/* Text of an array by name (borrowed from arr; NULL for another name):
 *   "dtype"   the stored type as a NumPy type string ("<i4", ">f8", "|b1", "|S5", "<U3", "|O")
 *   "codecs"  its codec chain as `gensvd info` prints it ("blosc(zstd:7, shuffle)", "none")
 *   "order"   the layout inside a chunk: "C", "F", or "P" (a Zarr v3 transpose that is
 *             neither) */
GENSVD_API const char *gensvd_array_get_string(const gensvd_array *arr, const char *name);

/* What the store holds of the array: the bytes of its chunks (of its shards, when sharded) and
 * their number, missing ones aside.  Lists the store, or asks for each object's size where it
 * cannot list (a request per chunk).  GENSVD_ECANCELED, the store's errors. */
GENSVD_API int gensvd_array_stored_bytes(gensvd_array *arr, uint64_t *bytes, uint64_t *objects);

/* One block of a region, from gensvd_array_read_blocks: the index of its first element and its
 * extent per axis (ndim values each), and its values in C order and native byte order, of the
 * array's dtype (missing chunks read as the fill value); all borrowed for the call.  Return 0,
 * or nonzero to stop the read. */
typedef int (*gensvd_block_fn)(void *user, const uint64_t *start, const uint64_t *count,
                               const void *data);

/* Read the region [start, stop) of the array (start NULL: from 0; stop NULL: to the end of each
 * axis) block by block: one block per chunk row of axis 0 that the region crosses, the first
 * and last cut to it (a scalar is one block, an empty region none), handed to fn in order from
 * the calling thread.  The context's threads fetch and decode blocks ahead of fn, at most two
 * per thread, whatever the region's size; the context's progress callback hears "reading",
 * blocks done of blocks.  Returns GENSVD_OK, GENSVD_EINVAL (a region outside the array),
 * GENSVD_ECANCELED (gensvd_ctx_cancel: checked between blocks), GENSVD_EIO when fn stopped the
 * read (fn says why), the store's and the codecs' errors (GENSVD_ECODEC, GENSVD_EFORMAT, ...). */
GENSVD_API int gensvd_array_read_blocks(gensvd_array *arr, const uint64_t *start,
                                        const uint64_t *stop, gensvd_block_fn fn, void *user);

#ifdef __cplusplus
}
#endif
#endif /* GENSVD_H */
