/* python/ext/source.c - Source: a store by URL, or arrays read in place through the
 * buffer protocol (numpy arrays with their own strides: nothing is copied), strings (encoded
 * once, small), and arrays delivered chunk by chunk by a Python callable (dask), with the
 * selection setters. */
#include "ext.h"

#include <string.h>

static PyObject *Source_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    ExtSource *self = (ExtSource *)type->tp_alloc(type, 0);
    (void)args;
    (void)kwds;
    if (!self)
        return NULL;
    if (!(self->keep = PyList_New(0))) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

/* Source(ctx, url=None): a store opened now (its metadata read), or an empty in-memory one. */
static int Source_init(ExtSource *self, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"ctx", "url", NULL};
    PyObject *ctxobj;
    const char *url = NULL;
    gensvd_source *src = NULL;
    int rc;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|z:Source", kw, &ctxobj, &url))
        return -1;
    if (self->src || !ext_ctx_check(ctxobj))
        return self->src ? 0 : -1;
    Py_XSETREF(self->ctx, (ExtContext *)Py_NewRef(ctxobj));
    if (url) {
        PyThreadState *ts = PyEval_SaveThread(); /* a remote store answers slowly */
        rc = gensvd_source_open(self->ctx->ctx, url, &src);
        PyEval_RestoreThread(ts);
    } else {
        rc = gensvd_source_new(self->ctx->ctx, &src);
    }
    if (rc != GENSVD_OK) {
        ext_raise(rc, gensvd_ctx_last_error(self->ctx->ctx));
        return -1;
    }
    self->src = src;
    return 0;
}

static void Source_dealloc(ExtSource *self)
{
    gensvd_source_free(self->src); /* first: it borrows the buffers below */
    self->src = NULL;
    for (size_t i = 0; i < self->n_views; i++)
        PyBuffer_Release(&self->views[i]);
    PyMem_Free(self->views);
    Py_CLEAR(self->keep);
    Py_CLEAR(self->chunk_error);
    Py_CLEAR(self->ctx);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int fail(ExtSource *self, int rc)
{
    ext_raise(rc, gensvd_ctx_last_error(self->ctx->ctx));
    return -1;
}

/* The library's dtype of a buffer's format (struct module syntax, as numpy exports it), or 0
 * with TypeError set: native byte order only. */
static int buffer_dtype(const Py_buffer *v)
{
    const char *f = v->format ? v->format : "B";
    char c;
    static const int sints[] = {
        0, GENSVD_DTYPE_INT8, GENSVD_DTYPE_INT16, 0, GENSVD_DTYPE_INT32, 0, 0,
        0, GENSVD_DTYPE_INT64};
    static const int uints[] = {
        0, GENSVD_DTYPE_UINT8, GENSVD_DTYPE_UINT16, 0, GENSVD_DTYPE_UINT32, 0, 0,
        0, GENSVD_DTYPE_UINT64};
    int little = 1;

    little = *(const char *)&little;
    if (*f == '@' || *f == '=' || (*f == '<' && little) || (*f == '>' && !little))
        f++;
    c = f[0];
    if (c && !f[1] && v->itemsize >= 1 && v->itemsize <= 8) {
        if (strchr("bhilq", c) && sints[v->itemsize])
            return sints[v->itemsize];
        if (strchr("BHILQ", c) && uints[v->itemsize])
            return uints[v->itemsize];
        if (c == '?' && v->itemsize == 1)
            return GENSVD_DTYPE_BOOL;
        if (c == 'f' && v->itemsize == 4)
            return GENSVD_DTYPE_FLOAT32;
        if (c == 'd' && v->itemsize == 8)
            return GENSVD_DTYPE_FLOAT64;
    }
    PyErr_Format(PyExc_TypeError,
                 "an array of format '%s' (itemsize %zd): gensvd reads integers, bool, float32 "
                 "and float64 in the machine's byte order",
                 v->format ? v->format : "B", v->itemsize);
    return 0;
}

/* add_array(name, obj): obj's buffer read in place (kept until the source is freed). */
static PyObject *Source_add_array(ExtSource *self, PyObject *args)
{
    const char *name;
    PyObject *obj;
    Py_buffer view;
    Py_buffer *views;
    uint64_t shape[GENSVD_MAX_DIMS];
    int64_t strides[GENSVD_MAX_DIMS];
    int dtype, rc;

    if (!PyArg_ParseTuple(args, "sO:add_array", &name, &obj))
        return NULL;
    if (PyObject_GetBuffer(obj, &view, PyBUF_STRIDED_RO | PyBUF_FORMAT) < 0)
        return NULL;
    if (!(dtype = buffer_dtype(&view)))
        goto fail;
    if (view.ndim < 1 || view.ndim > GENSVD_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "array '%s': %d axes (1 to %d)", name, view.ndim,
                     GENSVD_MAX_DIMS);
        goto fail;
    }
    for (int d = 0; d < view.ndim; d++) {
        shape[d] = (uint64_t)view.shape[d];
        strides[d] = (int64_t)view.strides[d];
    }
    views = PyMem_Realloc(self->views, (self->n_views + 1) * sizeof *views);
    if (!views) {
        PyErr_NoMemory();
        goto fail;
    }
    self->views = views;
    rc = gensvd_source_add_array(self->src, name, view.buf, (enum gensvd_dtype)dtype,
                                 (size_t)view.ndim, shape, strides);
    if (rc != GENSVD_OK) {
        fail(self, rc);
        goto fail;
    }
    self->views[self->n_views++] = view; /* released after gensvd_source_free */
    Py_RETURN_NONE;
fail:
    PyBuffer_Release(&view);
    return NULL;
}

/* add_strings(name, items, shape): a string array (C order) from a sequence of str. */
static PyObject *Source_add_strings(ExtSource *self, PyObject *args)
{
    const char *name;
    PyObject *items, *seq = NULL, *table = NULL;
    PyObject *shape_obj;
    uint64_t shape[GENSVD_MAX_DIMS];
    Py_ssize_t n, nd, total = 1;
    const char **ptrs;
    int rc;

    if (!PyArg_ParseTuple(args, "sOO:add_strings", &name, &items, &shape_obj))
        return NULL;
    if (!(shape_obj = PySequence_Tuple(shape_obj)))
        return NULL;
    nd = PyTuple_GET_SIZE(shape_obj);
    if (nd < 1 || nd > GENSVD_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "array '%s': %zd axes (1 to %d)", name, nd, GENSVD_MAX_DIMS);
        goto out;
    }
    for (Py_ssize_t d = 0; d < nd; d++) {
        Py_ssize_t s = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape_obj, d));
        if (s < 0) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "a negative extent");
            goto out;
        }
        shape[d] = (uint64_t)s;
        total *= s;
    }
    if (!(seq = PySequence_Fast(items, "add_strings: items must be a sequence")))
        goto out;
    n = PySequence_Fast_GET_SIZE(seq);
    if (n != total) {
        PyErr_Format(PyExc_ValueError, "array '%s': %zd strings for %zd elements", name, n, total);
        goto out;
    }
    /* the pointer table lives in a bytes object kept with the source; the strings' UTF-8
     * forms are cached by the str objects, which seq keeps */
    if (!(table = PyBytes_FromStringAndSize(NULL, (n ? n : 1) * (Py_ssize_t)sizeof(char *))))
        goto out;
    ptrs = (const char **)PyBytes_AS_STRING(table);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *s = PySequence_Fast_GET_ITEM(seq, i);
        Py_ssize_t len;
        if (!PyUnicode_Check(s)) {
            PyErr_Format(PyExc_TypeError, "array '%s': element %zd is not a str", name, i);
            goto out;
        }
        if (!(ptrs[i] = PyUnicode_AsUTF8AndSize(s, &len)))
            goto out;
        if ((size_t)len != strlen(ptrs[i])) {
            PyErr_Format(PyExc_ValueError, "array '%s': element %zd holds a NUL character", name,
                         i);
            goto out;
        }
    }
    rc = gensvd_source_add_array(self->src, name, n ? (const void *)ptrs : (const void *)"",
                                 GENSVD_DTYPE_STRING, (size_t)nd, shape, NULL);
    if (rc != GENSVD_OK) {
        fail(self, rc);
        goto out;
    }
    if (PyList_Append(self->keep, seq) < 0 || PyList_Append(self->keep, table) < 0)
        goto out;
    Py_DECREF(shape_obj);
    Py_DECREF(seq);
    Py_DECREF(table);
    Py_RETURN_NONE;
out:
    Py_DECREF(shape_obj);
    Py_XDECREF(seq);
    Py_XDECREF(table);
    return NULL;
}

/* ---- chunk callbacks ---------------------------------------------------------------------- */

struct chunk_user {
    ExtSource *src; /* borrowed: the source outlives its runs */
    PyObject *fn;   /* fn(index_tuple, memoryview) fills the chunk */
    size_t ndim;
};

static void chunk_user_free(PyObject *capsule)
{
    struct chunk_user *u = PyCapsule_GetPointer(capsule, "gensvd.chunk");
    if (u) {
        Py_XDECREF(u->fn);
        PyMem_Free(u);
    }
}

/* From the library's worker threads: take the GIL, call fn; an exception is kept (the first
 * one) for run() to raise, and fails the run. */
static int chunk_trampoline(void *user, const uint64_t *chunk, void *dst, size_t dst_bytes)
{
    struct chunk_user *u = user;
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *index = NULL, *mv = NULL, *r = NULL;
    int ok = 0;

    if (u->src->chunk_error)
        goto out; /* an earlier chunk failed: fail this one too, quickly */
    if (!(index = PyTuple_New((Py_ssize_t)u->ndim)))
        goto out;
    for (size_t d = 0; d < u->ndim; d++) {
        PyObject *i = PyLong_FromUnsignedLongLong((unsigned long long)chunk[d]);
        if (!i)
            goto out;
        PyTuple_SET_ITEM(index, (Py_ssize_t)d, i);
    }
    if (!(mv = PyMemoryView_FromMemory(dst, (Py_ssize_t)dst_bytes, PyBUF_WRITE)))
        goto out;
    r = PyObject_CallFunctionObjArgs(u->fn, index, mv, NULL);
    ok = r != NULL;
out:
    if (!ok && PyErr_Occurred() && !u->src->chunk_error)
        u->src->chunk_error = ext_fetch_exception();
    PyErr_Clear();
    if (mv) { /* dst is the library's: no view of it may outlive the call */
        PyObject *rel = PyObject_CallMethod(mv, "release", NULL);
        Py_XDECREF(rel);
        PyErr_Clear();
    }
    Py_XDECREF(r);
    Py_XDECREF(mv);
    Py_XDECREF(index);
    PyGILState_Release(g);
    return ok ? 0 : 1;
}

/* add_chunked(name, dtype, shape, chunks, fn) */
static PyObject *Source_add_chunked(ExtSource *self, PyObject *args)
{
    const char *name;
    int dtype, rc;
    PyObject *shape_obj, *chunks_obj, *fn, *capsule = NULL;
    PyObject *st = NULL, *ct = NULL;
    uint64_t shape[GENSVD_MAX_DIMS], chunks[GENSVD_MAX_DIMS];
    struct chunk_user *u = NULL;
    Py_ssize_t nd;

    if (!PyArg_ParseTuple(args, "siOOO:add_chunked", &name, &dtype, &shape_obj, &chunks_obj, &fn))
        return NULL;
    if (!PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "add_chunked: fn must be callable");
        return NULL;
    }
    if (!(st = PySequence_Tuple(shape_obj)) || !(ct = PySequence_Tuple(chunks_obj)))
        goto out;
    nd = PyTuple_GET_SIZE(st);
    if (nd < 1 || nd > GENSVD_MAX_DIMS || PyTuple_GET_SIZE(ct) != nd) {
        PyErr_Format(PyExc_ValueError, "array '%s': shape and chunks of 1 to %d axes", name,
                     GENSVD_MAX_DIMS);
        goto out;
    }
    for (Py_ssize_t d = 0; d < nd; d++) {
        shape[d] = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(st, d));
        chunks[d] = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(ct, d));
        if (PyErr_Occurred())
            goto out;
    }
    if (!(u = PyMem_Calloc(1, sizeof *u))) {
        PyErr_NoMemory();
        goto out;
    }
    u->src = self;
    u->fn = Py_NewRef(fn);
    u->ndim = (size_t)nd;
    if (!(capsule = PyCapsule_New(u, "gensvd.chunk", chunk_user_free))) {
        Py_DECREF(u->fn);
        PyMem_Free(u);
        goto out;
    }
    if (PyList_Append(self->keep, capsule) < 0)
        goto out;
    rc = gensvd_source_add_chunked(self->src, name, (enum gensvd_dtype)dtype, (size_t)nd, shape,
                                   chunks, chunk_trampoline, u);
    if (rc != GENSVD_OK) {
        fail(self, rc);
        goto out;
    }
    Py_DECREF(capsule);
    Py_DECREF(st);
    Py_DECREF(ct);
    Py_RETURN_NONE;
out:
    Py_XDECREF(capsule);
    Py_XDECREF(st);
    Py_XDECREF(ct);
    return NULL;
}

PyObject *ext_source_take_error(ExtSource *s)
{
    PyObject *e = s->chunk_error;
    s->chunk_error = NULL;
    return e;
}

/* ---- the selection ------------------------------------------------------------------------ */

static PyObject *Source_set_int(ExtSource *self, PyObject *args)
{
    const char *name;
    long long v;
    int rc;
    if (!PyArg_ParseTuple(args, "sL:set_int", &name, &v))
        return NULL;
    if ((rc = gensvd_source_set_int(self->src, name, (int64_t)v)) != GENSVD_OK)
        return fail(self, rc), NULL;
    Py_RETURN_NONE;
}

static PyObject *Source_set_double(ExtSource *self, PyObject *args)
{
    const char *name;
    double v;
    int rc;
    if (!PyArg_ParseTuple(args, "sd:set_double", &name, &v))
        return NULL;
    if ((rc = gensvd_source_set_double(self->src, name, v)) != GENSVD_OK)
        return fail(self, rc), NULL;
    Py_RETURN_NONE;
}

static PyObject *Source_set_string(ExtSource *self, PyObject *args)
{
    const char *name, *v;
    int rc;
    if (!PyArg_ParseTuple(args, "ss:set_string", &name, &v))
        return NULL;
    if ((rc = gensvd_source_set_string(self->src, name, v)) != GENSVD_OK)
        return fail(self, rc), NULL;
    Py_RETURN_NONE;
}

/* A sequence of str as a table of UTF-8 pointers (borrowed from seq's items) in *out, a new
 * PyMem block; -1 with an exception set. */
static int utf8_table(PyObject *seq, const char ***out, Py_ssize_t *n)
{
    const char **t;
    *n = PySequence_Fast_GET_SIZE(seq);
    if (!(t = PyMem_Calloc((size_t)(*n ? *n : 1), sizeof *t))) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < *n; i++) {
        PyObject *s = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyUnicode_Check(s)) {
            PyErr_Format(PyExc_TypeError, "item %zd is not a str", i);
            PyMem_Free(t);
            return -1;
        }
        if (!(t[i] = PyUnicode_AsUTF8(s))) {
            PyMem_Free(t);
            return -1;
        }
    }
    *out = t;
    return 0;
}

static PyObject *Source_set_samples(ExtSource *self, PyObject *items)
{
    PyObject *seq = PySequence_Fast(items, "set_samples: expected a sequence of str");
    const char **t = NULL;
    Py_ssize_t n;
    int rc;
    if (!seq)
        return NULL;
    if (utf8_table(seq, &t, &n) < 0) {
        Py_DECREF(seq);
        return NULL;
    }
    rc = gensvd_source_set_samples(self->src, t, (size_t)n); /* copied */
    PyMem_Free(t);
    Py_DECREF(seq);
    if (rc != GENSVD_OK)
        return fail(self, rc), NULL;
    Py_RETURN_NONE;
}

/* set_mask(name, buffer of uint8/bool) */
static PyObject *Source_set_mask(ExtSource *self, PyObject *args)
{
    const char *name;
    Py_buffer b;
    int rc;
    if (!PyArg_ParseTuple(args, "sy*:set_mask", &name, &b))
        return NULL;
    rc = gensvd_source_set_mask(self->src, name, b.buf, (size_t)b.len); /* copied */
    PyBuffer_Release(&b);
    if (rc != GENSVD_OK)
        return fail(self, rc), NULL;
    Py_RETURN_NONE;
}

static PyMethodDef Source_methods[] = {
    {"add_array", (PyCFunction)Source_add_array, METH_VARARGS,
     "add_array(name, obj): an array read in place (buffer protocol)"},
    {"add_strings", (PyCFunction)Source_add_strings, METH_VARARGS,
     "add_strings(name, items, shape): a string array"},
    {"add_chunked", (PyCFunction)Source_add_chunked, METH_VARARGS,
     "add_chunked(name, dtype, shape, chunks, fn): fn(index, memoryview) fills one chunk"},
    {"set_int", (PyCFunction)Source_set_int, METH_VARARGS, "set_int(name, value)"},
    {"set_double", (PyCFunction)Source_set_double, METH_VARARGS, "set_double(name, value)"},
    {"set_string", (PyCFunction)Source_set_string, METH_VARARGS, "set_string(name, value)"},
    {"set_samples", (PyCFunction)Source_set_samples, METH_O, "set_samples(ids)"},
    {"set_mask", (PyCFunction)Source_set_mask, METH_VARARGS, "set_mask(name, bytes)"},
    {NULL, NULL, 0, NULL},
};

PyTypeObject ExtSource_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gensvd._gensvd.Source",
    .tp_basicsize = sizeof(ExtSource),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Source(ctx, url=None): genotypes to analyse (gensvd_source)",
    .tp_new = Source_new,
    .tp_init = (initproc)Source_init,
    .tp_dealloc = (destructor)Source_dealloc,
    .tp_methods = Source_methods,
};

int ext_source_type_ready(PyObject *module)
{
    if (PyType_Ready(&ExtSource_Type) < 0)
        return -1;
    return PyModule_AddObjectRef(module, "Source", (PyObject *)&ExtSource_Type);
}
