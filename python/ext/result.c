/* python/ext/result.c - Result (gensvd_result: named arrays and attributes) and
 * ResultArray, one numeric array of a result exported through the buffer protocol, read-only
 * and without a copy: numpy.asarray(ResultArray) views the library's memory and keeps the
 * result alive.  String arrays come out as lists of str (small: IDs, names). */
#include "ext.h"

#include <stdint.h>
#include <string.h>

typedef struct {
    PyObject_HEAD PyObject *result; /* the ExtResult owning the data */
    struct gensvd_array_view view;
    Py_ssize_t shape[GENSVD_MAX_DIMS], strides[GENSVD_MAX_DIMS];
} ExtResultArray;

static PyTypeObject ExtResultArray_Type;

PyObject *ext_result_new(ExtContext *ctx, gensvd_result *res)
{
    ExtResult *r = PyObject_New(ExtResult, &ExtResult_Type);
    if (!r) {
        gensvd_result_free(res);
        return NULL;
    }
    r->ctx = (ExtContext *)Py_NewRef((PyObject *)ctx);
    r->res = res;
    return (PyObject *)r;
}

static void Result_dealloc(ExtResult *self)
{
    gensvd_result_free(self->res);
    self->res = NULL;
    Py_CLEAR(self->ctx);
    PyObject_Free(self);
}

static PyObject *Result_names(ExtResult *self, PyObject *unused)
{
    PyObject *list = PyList_New(0);
    const char *name;
    (void)unused;
    if (!list)
        return NULL;
    for (size_t i = 0; (name = gensvd_result_array_name(self->res, i)) != NULL; i++) {
        PyObject *s = PyUnicode_FromString(name);
        if (!s || PyList_Append(list, s) < 0) {
            Py_XDECREF(s);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(s);
    }
    return list;
}

/* The struct module's format of a dtype (the buffer protocol wants a char *), or NULL. */
static char *buffer_format(enum gensvd_dtype t)
{
    static char formats[][2] = {"?", "b", "h", "i", "q", "B", "H", "I", "Q", "f", "d"};
    if (t < GENSVD_DTYPE_BOOL || t > GENSVD_DTYPE_FLOAT64)
        return NULL;
    return formats[t - GENSVD_DTYPE_BOOL];
}

/* The strings of a string array, C order, as a list of str. */
static PyObject *string_list(const struct gensvd_array_view *v)
{
    uint64_t n = 1;
    PyObject *list;
    const char *const *s = v->data;
    for (size_t d = 0; d < v->ndim; d++)
        n *= v->shape[d];
    if (!(list = PyList_New((Py_ssize_t)n)))
        return NULL;
    for (uint64_t i = 0; i < n; i++) {
        const char *e = s[i] ? s[i] : "";
        PyObject *u = PyUnicode_DecodeUTF8(e, (Py_ssize_t)strlen(e), "surrogateescape");
        if (!u) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, u);
    }
    return list;
}

/* array(name) -> (data, dims, shape, kind): data a ResultArray (numeric, bool) or a list of str
 * (kind "str"), dims the dimension names. */
static PyObject *Result_array(ExtResult *self, PyObject *args)
{
    const char *name;
    struct gensvd_array_view v;
    PyObject *dims = NULL, *shape = NULL, *data = NULL;
    int rc;

    if (!PyArg_ParseTuple(args, "s:array", &name))
        return NULL;
    if ((rc = gensvd_result_array(self->res, name, &v)) != GENSVD_OK) {
        PyErr_Format(PyExc_KeyError, "%s", name);
        return NULL;
    }
    if (!(dims = PyTuple_New((Py_ssize_t)v.ndim)) || !(shape = PyTuple_New((Py_ssize_t)v.ndim)))
        goto fail;
    for (size_t d = 0; d < v.ndim; d++) {
        PyObject *s = PyUnicode_FromString(v.dims[d] ? v.dims[d] : "");
        PyObject *n = PyLong_FromUnsignedLongLong((unsigned long long)v.shape[d]);
        if (!s || !n) {
            Py_XDECREF(s);
            Py_XDECREF(n);
            goto fail;
        }
        PyTuple_SET_ITEM(dims, (Py_ssize_t)d, s);
        PyTuple_SET_ITEM(shape, (Py_ssize_t)d, n);
    }
    if (v.dtype == GENSVD_DTYPE_STRING) {
        if (!(data = string_list(&v)))
            goto fail;
        return Py_BuildValue("(NNNs)", data, dims, shape, "str");
    }
    if (!buffer_format(v.dtype)) {
        PyErr_Format(PyExc_TypeError, "result array '%s' has an unknown dtype %d", name,
                     (int)v.dtype);
        goto fail;
    }
    {
        ExtResultArray *a = PyObject_New(ExtResultArray, &ExtResultArray_Type);
        Py_ssize_t stride = (Py_ssize_t)gensvd_dtype_size(v.dtype);
        if (!a)
            goto fail;
        a->result = Py_NewRef((PyObject *)self);
        a->view = v;
        for (size_t d = v.ndim; d-- > 0;) {
            a->shape[d] = (Py_ssize_t)v.shape[d];
            a->strides[d] = stride;
            stride *= (Py_ssize_t)v.shape[d];
        }
        data = (PyObject *)a;
    }
    return Py_BuildValue("(NNNs)", data, dims, shape, "buffer");
fail:
    Py_XDECREF(dims);
    Py_XDECREF(shape);
    Py_XDECREF(data);
    return NULL;
}

static PyObject *Result_attrs_json(ExtResult *self, PyObject *unused)
{
    const char *j = gensvd_result_attrs_json(self->res);
    (void)unused;
    return PyUnicode_FromString(j ? j : "{}");
}

/* array_attrs_json(name): the array's own attributes (JSON text) */
static PyObject *Result_array_attrs_json(ExtResult *self, PyObject *args)
{
    const char *name, *j;
    if (!PyArg_ParseTuple(args, "s:array_attrs_json", &name))
        return NULL;
    if (!(j = gensvd_result_array_attrs_json(self->res, name))) {
        PyErr_Format(PyExc_KeyError, "%s", name);
        return NULL;
    }
    return PyUnicode_FromString(j);
}

static PyObject *Result_analysis(ExtResult *self, void *closure)
{
    (void)closure;
    return PyLong_FromLong((long)gensvd_result_analysis(self->res));
}

static PyMethodDef Result_methods[] = {
    {"names", (PyCFunction)Result_names, METH_NOARGS, "names() -> the arrays' names"},
    {"array", (PyCFunction)Result_array, METH_VARARGS, "array(name) -> (data, dims, shape, kind)"},
    {"attrs_json", (PyCFunction)Result_attrs_json, METH_NOARGS, "the group attributes (JSON)"},
    {"array_attrs_json", (PyCFunction)Result_array_attrs_json, METH_VARARGS,
     "array_attrs_json(name): the array's own attributes (JSON)"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Result_getset[] = {
    {"analysis", (getter)Result_analysis, NULL, "the analysis (GENSVD_PCA ...)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject ExtResult_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gensvd._gensvd.Result",
    .tp_basicsize = sizeof(ExtResult),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "what a run produced (gensvd_result); made by run() and store_read()",
    .tp_dealloc = (destructor)Result_dealloc,
    .tp_methods = Result_methods,
    .tp_getset = Result_getset,
};

/* ---- ResultArray: the buffer protocol, read-only ------------------------------------------ */

static int ResultArray_getbuffer(ExtResultArray *self, Py_buffer *b, int flags)
{
    if (flags & PyBUF_WRITABLE) {
        PyErr_SetString(PyExc_BufferError, "a gensvd result is read-only");
        b->obj = NULL;
        return -1;
    }
    static char empty[8];
    /* the buffer is read-only (readonly = 1): the const is the protocol's to keep */
    b->buf = self->view.data ? (void *)(uintptr_t)self->view.data : empty; /* or empty */
    b->obj = Py_NewRef((PyObject *)self);
    b->itemsize = (Py_ssize_t)gensvd_dtype_size(self->view.dtype);
    b->len = b->itemsize;
    for (size_t d = 0; d < self->view.ndim; d++)
        b->len *= self->shape[d];
    b->readonly = 1;
    b->ndim = (int)self->view.ndim;
    b->format = (flags & PyBUF_FORMAT) ? buffer_format(self->view.dtype) : NULL;
    b->shape = (flags & PyBUF_ND) ? self->shape : NULL;
    b->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? self->strides : NULL;
    b->suboffsets = NULL;
    b->internal = NULL;
    return 0;
}

static void ResultArray_dealloc(ExtResultArray *self)
{
    Py_CLEAR(self->result);
    PyObject_Free(self);
}

static PyObject *ResultArray_result(ExtResultArray *self, void *closure)
{
    (void)closure;
    return Py_NewRef(self->result);
}

static PyBufferProcs ResultArray_buffer = {
    .bf_getbuffer = (getbufferproc)ResultArray_getbuffer,
};

static PyGetSetDef ResultArray_getset[] = {
    {"result", (getter)ResultArray_result, NULL, "the Result holding the data", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject ExtResultArray_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gensvd._gensvd.ResultArray",
    .tp_basicsize = sizeof(ExtResultArray),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "one array of a Result, read-only through the buffer protocol",
    .tp_dealloc = (destructor)ResultArray_dealloc,
    .tp_as_buffer = &ResultArray_buffer,
    .tp_getset = ResultArray_getset,
};

int ext_result_type_ready(PyObject *module)
{
    if (PyType_Ready(&ExtResult_Type) < 0 || PyType_Ready(&ExtResultArray_Type) < 0)
        return -1;
    if (PyModule_AddObjectRef(module, "Result", (PyObject *)&ExtResult_Type) < 0)
        return -1;
    return PyModule_AddObjectRef(module, "ResultArray", (PyObject *)&ExtResultArray_Type);
}
