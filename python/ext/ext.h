/* python/ext/ext.h - the extension module gensvd._gensvd: thin Python types over
 * include/gensvd.h (Context, Source, Options, Dest, Result, ResultArray) that the pure-Python
 * layer (gensvd/_api.py) builds the user's functions on.  No numpy headers: arrays come in and
 * go out through the buffer protocol, so numpy wraps them without a copy.
 * Ownership: a Source, Options, Dest or Result holds a reference to its Context (the library's
 * objects must not outlive their context); a Source holds the buffers of the arrays it reads in
 * place until it is freed; a ResultArray holds its Result.
 * Threads: the library is called with the GIL released only in run(); callbacks from its
 * threads (progress, chunk delivery) take the GIL; the log callback only buffers. */
#ifndef GENSVD_PY_EXT_H
#define GENSVD_PY_EXT_H
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>

#include "gensvd.h"

/* ---- errors (errors.c) -------------------------------------------------------------------- */

/* The exception classes: GensvdError and its subclasses, created at module init. */
extern PyObject *ext_error_base, *ext_error_input, *ext_error_store, *ext_error_usage,
    *ext_error_capability, *ext_error_memory, *ext_error_cancelled;
/* Raise the exception that fits `code` with the context's last error as its message; returns
 * NULL (for `return ext_raise(...)`). */
PyObject *ext_raise(int code, const char *message);
/* The pending exception as one object (new reference, traceback attached; the error indicator
 * cleared), and raising it again. */
PyObject *ext_fetch_exception(void);
void ext_restore_exception(PyObject *exc); /* steals exc */
/* Create the classes and add them to the module; -1 with an exception set. */
int ext_errors_init(PyObject *module);

/* ---- the context (ctx.c) ------------------------------------------------------------------ */

#define EXT_LOG_MAX 256 /* messages kept per run; later ones are counted, not kept */

typedef struct {
    PyObject_HEAD gensvd_ctx *ctx;
    PyObject *progress;       /* a callable (what, done, total) or NULL */
    PyObject *progress_error; /* what it raised (the run is then cancelled), or NULL */
    /* progress throttling: the run's thread only (the library calls it from there) */
    double progress_last;
    char progress_what[64];
    /* log messages from any thread of a run, handed to Python afterwards */
    pthread_mutex_t log_mu;
    PyObject *log_list; /* list of (level, message), filled under the GIL after the run */
    char *log_msgs[EXT_LOG_MAX];
    int log_levels[EXT_LOG_MAX];
    size_t n_log, n_log_dropped;
} ExtContext;

extern PyTypeObject ExtContext_Type;
int ext_ctx_type_ready(PyObject *module);
/* The context of `obj` (an ExtContext), or NULL with TypeError set. */
ExtContext *ext_ctx_check(PyObject *obj);

/* ---- sources (source.c) ------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD ExtContext *ctx;
    gensvd_source *src;
    Py_buffer *views; /* the in-place arrays' buffers, released after the source is freed */
    size_t n_views;
    PyObject *keep;        /* list: strings' bytes, pointer tables and chunk callbacks */
    PyObject *chunk_error; /* the first exception a chunk callback raised (under the GIL) */
} ExtSource;

extern PyTypeObject ExtSource_Type;
int ext_source_type_ready(PyObject *module);
/* The exception a chunk callback raised during the last run (new reference, cleared), or NULL. */
PyObject *ext_source_take_error(ExtSource *s);

/* ---- options and destinations (options.c) ------------------------------------------------- */

typedef struct {
    PyObject_HEAD ExtContext *ctx;
    gensvd_options *opt;
    PyObject *pcs; /* the Result set with set_pcs (it must outlive the run) */
} ExtOptions;

typedef struct {
    PyObject_HEAD ExtContext *ctx;
    gensvd_dest *dest;
} ExtDest;

extern PyTypeObject ExtOptions_Type, ExtDest_Type;
int ext_options_type_ready(PyObject *module);

/* ---- results (result.c) ------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD ExtContext *ctx;
    gensvd_result *res;
} ExtResult;

extern PyTypeObject ExtResult_Type;
int ext_result_type_ready(PyObject *module);
/* A new Result owning `res` (freed with it). */
PyObject *ext_result_new(ExtContext *ctx, gensvd_result *res);

#endif /* GENSVD_PY_EXT_H */
