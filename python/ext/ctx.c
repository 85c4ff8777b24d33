/* python/ext/ctx.c - Context: a gensvd_ctx with its settings, cancel flag,
 * progress callback (throttled to ~10 calls a second, plus each stage's start and end, so that
 * the GIL is taken rarely) and log messages (buffered from any thread, handed to Python's
 * logging after the run by gensvd._api). */
#include "ext.h"

#include <string.h>
#include <time.h>

#define PROGRESS_INTERVAL 0.1 /* seconds between two progress calls of one stage */

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

ExtContext *ext_ctx_check(PyObject *obj)
{
    if (!obj || !PyObject_TypeCheck(obj, &ExtContext_Type)) {
        PyErr_SetString(PyExc_TypeError, "expected a gensvd._gensvd.Context");
        return NULL;
    }
    return (ExtContext *)obj;
}

/* The library's log callback: any thread, possibly several at once; never Python. */
static void log_trampoline(void *user, enum gensvd_log_level level, const char *message)
{
    ExtContext *c = user;
    pthread_mutex_lock(&c->log_mu);
    if (c->n_log < EXT_LOG_MAX) {
        size_t n = strlen(message);
        char *copy = PyMem_RawMalloc(n + 1);
        if (copy) {
            memcpy(copy, message, n + 1);
            c->log_msgs[c->n_log] = copy;
            c->log_levels[c->n_log] = (int)level;
            c->n_log++;
        } else {
            c->n_log_dropped++;
        }
    } else {
        c->n_log_dropped++;
    }
    pthread_mutex_unlock(&c->log_mu);
}

/* The library's progress callback: the thread that called the run (GIL released). */
static void progress_trampoline(void *user, const char *what, uint64_t done, uint64_t total)
{
    ExtContext *c = user;
    double t = now_seconds();
    int same = strncmp(c->progress_what, what, sizeof c->progress_what - 1) == 0;
    PyGILState_STATE g;
    PyObject *r;

    if (same && done != total && done != 0 && t - c->progress_last < PROGRESS_INTERVAL)
        return;
    c->progress_last = t;
    snprintf(c->progress_what, sizeof c->progress_what, "%s", what);
    g = PyGILState_Ensure();
    if (c->progress && !c->progress_error) {
        r = PyObject_CallFunction(c->progress, "sKK", what, (unsigned long long)done,
                                  (unsigned long long)total);
        if (r) {
            Py_DECREF(r);
        } else { /* the callback failed: stop the run, raise its exception afterwards */
            c->progress_error = ext_fetch_exception();
            gensvd_ctx_cancel(c->ctx);
        }
    }
    PyGILState_Release(g);
}

static int Context_init(ExtContext *self, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, ":Context", kw))
        return -1;
    if (self->ctx)
        return 0;
    self->ctx = gensvd_ctx_new();
    if (!self->ctx) {
        PyErr_NoMemory();
        return -1;
    }
    /* warnings and errors by default; gensvd._api raises it to INFO or DEBUG with logging */
    gensvd_ctx_set_log(self->ctx, log_trampoline, self, GENSVD_LOG_WARN);
    return 0;
}

static PyObject *Context_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    ExtContext *self = (ExtContext *)type->tp_alloc(type, 0);
    (void)args;
    (void)kwds;
    if (self)
        pthread_mutex_init(&self->log_mu, NULL);
    return (PyObject *)self;
}

static void clear_log(ExtContext *self)
{
    for (size_t i = 0; i < self->n_log; i++)
        PyMem_RawFree(self->log_msgs[i]);
    self->n_log = 0;
    self->n_log_dropped = 0;
}

static void Context_dealloc(ExtContext *self)
{
    gensvd_ctx_free(self->ctx); /* every object made from it holds a reference: all gone */
    self->ctx = NULL;
    clear_log(self);
    pthread_mutex_destroy(&self->log_mu);
    Py_CLEAR(self->progress);
    Py_CLEAR(self->progress_error);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Context_set_int(ExtContext *self, PyObject *args)
{
    const char *name;
    long long value;
    int rc;
    if (!PyArg_ParseTuple(args, "sL:set_int", &name, &value))
        return NULL;
    if ((rc = gensvd_ctx_set_int(self->ctx, name, (int64_t)value)) != GENSVD_OK)
        return ext_raise(rc, gensvd_ctx_last_error(self->ctx));
    Py_RETURN_NONE;
}

static PyObject *Context_set_string(ExtContext *self, PyObject *args)
{
    const char *name, *value;
    int rc;
    if (!PyArg_ParseTuple(args, "ss:set_string", &name, &value))
        return NULL;
    if ((rc = gensvd_ctx_set_string(self->ctx, name, value)) != GENSVD_OK)
        return ext_raise(rc, gensvd_ctx_last_error(self->ctx));
    Py_RETURN_NONE;
}

static PyObject *Context_cancel(ExtContext *self, PyObject *unused)
{
    (void)unused;
    gensvd_ctx_cancel(self->ctx); /* safe from any thread; no need for the GIL's order */
    Py_RETURN_NONE;
}

static PyObject *Context_set_progress(ExtContext *self, PyObject *fn)
{
    if (fn != Py_None && !PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "progress: expected a callable or None");
        return NULL;
    }
    Py_XSETREF(self->progress, fn == Py_None ? NULL : Py_NewRef(fn));
    self->progress_what[0] = '\0';
    gensvd_ctx_set_progress(self->ctx, self->progress ? progress_trampoline : NULL, self);
    Py_RETURN_NONE;
}

static PyObject *Context_set_log_level(ExtContext *self, PyObject *arg)
{
    long level = PyLong_AsLong(arg);
    int rc;
    if (level == -1 && PyErr_Occurred())
        return NULL;
    rc = gensvd_ctx_set_log(self->ctx, log_trampoline, self, (enum gensvd_log_level)level);
    if (rc != GENSVD_OK)
        return ext_raise(rc, gensvd_ctx_last_error(self->ctx));
    Py_RETURN_NONE;
}

/* The messages logged since the last call: a list of (level, message), and how many were
 * dropped past EXT_LOG_MAX. */
static PyObject *Context_take_log(ExtContext *self, PyObject *unused)
{
    PyObject *list = PyList_New(0), *item;
    size_t dropped;
    (void)unused;
    if (!list)
        return NULL;
    pthread_mutex_lock(&self->log_mu);
    for (size_t i = 0; i < self->n_log; i++) {
        item = Py_BuildValue("(is)", self->log_levels[i], self->log_msgs[i]);
        if (!item || PyList_Append(list, item) < 0) {
            Py_XDECREF(item);
            Py_CLEAR(list);
            break;
        }
        Py_DECREF(item);
    }
    dropped = self->n_log_dropped;
    clear_log(self);
    pthread_mutex_unlock(&self->log_mu);
    if (!list)
        return NULL;
    return Py_BuildValue("(Nn)", list, (Py_ssize_t)dropped);
}

/* The exception the progress callback raised in the last run (cleared), or None. */
static PyObject *Context_take_progress_error(ExtContext *self, PyObject *unused)
{
    PyObject *e = self->progress_error;
    (void)unused;
    self->progress_error = NULL;
    return e ? e : Py_NewRef(Py_None);
}

static PyObject *Context_last_error(ExtContext *self, void *closure)
{
    (void)closure;
    return PyUnicode_DecodeUTF8(gensvd_ctx_last_error(self->ctx),
                                (Py_ssize_t)strlen(gensvd_ctx_last_error(self->ctx)), "replace");
}

static PyMethodDef Context_methods[] = {
    {"set_int", (PyCFunction)Context_set_int, METH_VARARGS, "set_int(name, value): a setting"},
    {"set_string", (PyCFunction)Context_set_string, METH_VARARGS,
     "set_string(name, value): a setting"},
    {"cancel", (PyCFunction)Context_cancel, METH_NOARGS,
     "cancel(): stop the running call (any thread)"},
    {"set_progress", (PyCFunction)Context_set_progress, METH_O,
     "set_progress(fn): fn(what, done, total) during runs, or None"},
    {"set_log_level", (PyCFunction)Context_set_log_level, METH_O,
     "set_log_level(level): keep messages at or above this severity (0 off .. 4 debug)"},
    {"take_log", (PyCFunction)Context_take_log, METH_NOARGS,
     "take_log() -> ([(level, message)...], dropped)"},
    {"take_progress_error", (PyCFunction)Context_take_progress_error, METH_NOARGS,
     "the exception the progress callback raised, or None"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Context_getset[] = {
    {"last_error", (getter)Context_last_error, NULL, "the last failure's message", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject ExtContext_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gensvd._gensvd.Context",
    .tp_basicsize = sizeof(ExtContext),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Context(): where calls run (gensvd_ctx)",
    .tp_new = Context_new,
    .tp_init = (initproc)Context_init,
    .tp_dealloc = (destructor)Context_dealloc,
    .tp_methods = Context_methods,
    .tp_getset = Context_getset,
};

int ext_ctx_type_ready(PyObject *module)
{
    if (PyType_Ready(&ExtContext_Type) < 0)
        return -1;
    return PyModule_AddObjectRef(module, "Context", (PyObject *)&ExtContext_Type);
}
