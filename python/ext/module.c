/* python/ext/module.c - the module gensvd._gensvd: run() and result_write() (the GIL
 * released while the library works), store_info / store_read, version and build information,
 * and the enums as constants. */
#include "ext.h"

#include <string.h>

/* ---- runs --------------------------------------------------------------------------------- */

/* After a run: the exception a callback raised wins over the library's code (the run failed
 * because of it). */
static PyObject *raise_run_error(ExtContext *ctx, ExtSource *src, int rc)
{
    PyObject *e = src ? ext_source_take_error(src) : NULL, *p;
    p = PyObject_CallMethod((PyObject *)ctx, "take_progress_error", NULL);
    if (p == Py_None)
        Py_CLEAR(p);
    if (e || p) {
        Py_XDECREF(e ? p : NULL);
        ext_restore_exception(e ? e : p);
        return NULL;
    }
    PyErr_Clear();
    return ext_raise(rc, gensvd_ctx_last_error(ctx->ctx));
}

/* run(ctx, options, source, dest) -> Result; source and dest may be None. */
static PyObject *mod_run(PyObject *m, PyObject *args)
{
    PyObject *ctxobj, *optobj, *srcobj, *destobj;
    ExtContext *ctx;
    ExtSource *src = NULL;
    gensvd_result *res = NULL;
    PyThreadState *ts;
    int rc;
    (void)m;

    if (!PyArg_ParseTuple(args, "OO!OO:run", &ctxobj, &ExtOptions_Type, &optobj, &srcobj, &destobj))
        return NULL;
    if (!(ctx = ext_ctx_check(ctxobj)))
        return NULL;
    if (srcobj != Py_None) {
        if (!PyObject_TypeCheck(srcobj, &ExtSource_Type))
            return PyErr_Format(PyExc_TypeError, "run: source must be a Source or None");
        src = (ExtSource *)srcobj;
    }
    if (destobj != Py_None && !PyObject_TypeCheck(destobj, &ExtDest_Type))
        return PyErr_Format(PyExc_TypeError, "run: dest must be a Dest or None");
    ts = PyEval_SaveThread();
    rc = gensvd_run(ctx->ctx, ((ExtOptions *)optobj)->opt, src ? src->src : NULL,
                    destobj != Py_None ? ((ExtDest *)destobj)->dest : NULL, &res);
    PyEval_RestoreThread(ts);
    if (rc != GENSVD_OK)
        return raise_run_error(ctx, src, rc);
    {
        PyObject *p = PyObject_CallMethod(ctxobj, "take_progress_error", NULL);
        int failed = p != Py_None;
        Py_XDECREF(p);
        if (failed) { /* cannot happen: a failing progress callback cancels the run */
            gensvd_result_free(res);
            return NULL;
        }
    }
    return ext_result_new(ctx, res);
}

/* store_info(ctx, url) -> JSON text */
static PyObject *mod_store_info(PyObject *m, PyObject *args)
{
    PyObject *ctxobj, *r;
    ExtContext *ctx;
    const char *url;
    char *json = NULL;
    PyThreadState *ts;
    int rc;
    (void)m;
    if (!PyArg_ParseTuple(args, "Os:store_info", &ctxobj, &url) || !(ctx = ext_ctx_check(ctxobj)))
        return NULL;
    ts = PyEval_SaveThread();
    rc = gensvd_store_info(ctx->ctx, url, &json);
    PyEval_RestoreThread(ts);
    if (rc != GENSVD_OK)
        return ext_raise(rc, gensvd_ctx_last_error(ctx->ctx));
    r = PyUnicode_FromString(json);
    gensvd_free(json);
    return r;
}

static int bounds(PyObject *obj, uint64_t *out, size_t *n)
{
    PyObject *t;
    if (obj == Py_None)
        return 0;
    if (!(t = PySequence_Tuple(obj)))
        return -1;
    *n = (size_t)PyTuple_GET_SIZE(t);
    if (*n > GENSVD_MAX_DIMS) {
        Py_DECREF(t);
        PyErr_SetString(PyExc_ValueError, "too many axes");
        return -1;
    }
    for (size_t d = 0; d < *n; d++)
        out[d] = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(t, (Py_ssize_t)d));
    Py_DECREF(t);
    return PyErr_Occurred() ? -1 : 1;
}

/* store_read(ctx, url, array, start=None, stop=None) -> Result holding that array */
static PyObject *mod_store_read(PyObject *m, PyObject *args)
{
    PyObject *ctxobj, *start_obj = Py_None, *stop_obj = Py_None;
    ExtContext *ctx;
    const char *url, *array;
    uint64_t start[GENSVD_MAX_DIMS], stop[GENSVD_MAX_DIMS];
    size_t n_start = 0, n_stop = 0;
    int has_start, has_stop, rc;
    gensvd_result *res = NULL;
    PyThreadState *ts;
    (void)m;
    if (!PyArg_ParseTuple(args, "Oss|OO:store_read", &ctxobj, &url, &array, &start_obj,
                          &stop_obj) ||
        !(ctx = ext_ctx_check(ctxobj)))
        return NULL;
    if ((has_start = bounds(start_obj, start, &n_start)) < 0 ||
        (has_stop = bounds(stop_obj, stop, &n_stop)) < 0)
        return NULL;
    ts = PyEval_SaveThread();
    rc = gensvd_store_read(ctx->ctx, url, array, has_start ? start : NULL, has_stop ? stop : NULL,
                           &res);
    PyEval_RestoreThread(ts);
    if (rc != GENSVD_OK)
        return ext_raise(rc, gensvd_ctx_last_error(ctx->ctx));
    return ext_result_new(ctx, res);
}

/* result_write(result, dest): the bytes `gensvd CMD -o` writes (dest checked first). */
static PyObject *mod_result_write(PyObject *m, PyObject *args)
{
    PyObject *resobj, *destobj;
    ExtDest *dest;
    PyThreadState *ts;
    int rc;
    (void)m;
    if (!PyArg_ParseTuple(args, "O!O!:result_write", &ExtResult_Type, &resobj, &ExtDest_Type,
                          &destobj))
        return NULL;
    dest = (ExtDest *)destobj;
    ts = PyEval_SaveThread();
    rc = gensvd_result_write(dest->ctx->ctx, ((ExtResult *)resobj)->res, dest->dest);
    PyEval_RestoreThread(ts);
    if (rc != GENSVD_OK)
        return ext_raise(rc, gensvd_ctx_last_error(dest->ctx->ctx));
    Py_RETURN_NONE;
}

static PyObject *mod_version(PyObject *m, PyObject *unused)
{
    (void)m;
    (void)unused;
    return Py_BuildValue("(sI)", gensvd_version(), gensvd_version_number());
}

static PyObject *mod_build_info(PyObject *m, PyObject *args)
{
    const char *key;
    (void)m;
    if (!PyArg_ParseTuple(args, "s:build_info", &key))
        return NULL;
    return PyUnicode_FromString(gensvd_build_info(key));
}

static PyObject *mod_strerror(PyObject *m, PyObject *args)
{
    int code;
    (void)m;
    if (!PyArg_ParseTuple(args, "i:strerror", &code))
        return NULL;
    return PyUnicode_FromString(gensvd_strerror(code));
}

/* raise_error(code, message): raise what a failing call with this code raises (tests). */
static PyObject *mod_raise_error(PyObject *m, PyObject *args)
{
    int code;
    const char *message;
    (void)m;
    if (!PyArg_ParseTuple(args, "is:raise_error", &code, &message))
        return NULL;
    return ext_raise(code, message);
}

static PyMethodDef module_methods[] = {
    {"run", mod_run, METH_VARARGS, "run(ctx, options, source, dest) -> Result"},
    {"result_write", mod_result_write, METH_VARARGS,
     "result_write(result, dest): as gensvd CMD -o writes it"},
    {"store_info", mod_store_info, METH_VARARGS, "store_info(ctx, url) -> JSON text"},
    {"store_read", mod_store_read, METH_VARARGS,
     "store_read(ctx, url, array, start=None, stop=None) -> Result"},
    {"version", mod_version, METH_NOARGS, "version() -> (text, number) of the library"},
    {"build_info", mod_build_info, METH_VARARGS, "build_info(key) -> text"},
    {"strerror", mod_strerror, METH_VARARGS, "strerror(code) -> short name"},
    {"raise_error", mod_raise_error, METH_VARARGS, "raise_error(code, message)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "gensvd._gensvd",
    .m_doc = "The gensvd library (libgensvd) for Python: the low-level types; use the functions "
             "of the gensvd package.",
    .m_size = -1,
    .m_methods = module_methods,
};

static int add_constants(PyObject *m)
{
    static const struct {
        const char *name;
        long value;
    } c[] = {
        {"PCA", GENSVD_PCA},
        {"PROJECT", GENSVD_PROJECT},
        {"PDIST", GENSVD_PDIST},
        {"LDPRUNE", GENSVD_LDPRUNE},
        {"RELATED", GENSVD_RELATED},
        {"SIMULATE", GENSVD_SIMULATE},
        {"OPTION_INT", GENSVD_OPTION_INT},
        {"OPTION_DOUBLE", GENSVD_OPTION_DOUBLE},
        {"OPTION_STRING", GENSVD_OPTION_STRING},
        {"OPTION_FLAG", GENSVD_OPTION_FLAG},
        {"DTYPE_BOOL", GENSVD_DTYPE_BOOL},
        {"DTYPE_INT8", GENSVD_DTYPE_INT8},
        {"DTYPE_INT16", GENSVD_DTYPE_INT16},
        {"DTYPE_INT32", GENSVD_DTYPE_INT32},
        {"DTYPE_INT64", GENSVD_DTYPE_INT64},
        {"DTYPE_UINT8", GENSVD_DTYPE_UINT8},
        {"DTYPE_UINT16", GENSVD_DTYPE_UINT16},
        {"DTYPE_UINT32", GENSVD_DTYPE_UINT32},
        {"DTYPE_UINT64", GENSVD_DTYPE_UINT64},
        {"DTYPE_FLOAT32", GENSVD_DTYPE_FLOAT32},
        {"DTYPE_FLOAT64", GENSVD_DTYPE_FLOAT64},
        {"LOG_ERROR", GENSVD_LOG_ERROR},
        {"LOG_WARN", GENSVD_LOG_WARN},
        {"LOG_INFO", GENSVD_LOG_INFO},
        {"LOG_DEBUG", GENSVD_LOG_DEBUG},
        {"ECANCELED", GENSVD_ECANCELED},
        {"EINVAL", GENSVD_EINVAL},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        if (PyModule_AddIntConstant(m, c[i].name, c[i].value) < 0)
            return -1;
    return 0;
}

PyMODINIT_FUNC PyInit__gensvd(void); /* the module's one exported symbol */

PyMODINIT_FUNC PyInit__gensvd(void)
{
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    if (ext_errors_init(m) < 0 || add_constants(m) < 0 || ext_ctx_type_ready(m) < 0 ||
        ext_source_type_ready(m) < 0 || ext_options_type_ready(m) < 0 ||
        ext_result_type_ready(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
