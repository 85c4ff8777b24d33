/* python/ext/options.c - Options (gensvd_options: an analysis and its parameters by
 * the command line's names, with introspection) and Dest (gensvd_dest: a Zarr output checked
 * before any work). */
#include "ext.h"

#include <string.h>

static int ctx_of(PyObject *ctxobj, ExtContext **out)
{
    if (!ext_ctx_check(ctxobj))
        return -1;
    *out = (ExtContext *)Py_NewRef(ctxobj);
    return 0;
}

/* ---- Options ------------------------------------------------------------------------------ */

static int Options_init(ExtOptions *self, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"ctx", "analysis", NULL};
    PyObject *ctxobj;
    int analysis, rc;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "Oi:Options", kw, &ctxobj, &analysis))
        return -1;
    if (self->opt)
        return 0;
    if (ctx_of(ctxobj, &self->ctx) < 0)
        return -1;
    rc = gensvd_options_new(self->ctx->ctx, (enum gensvd_analysis)analysis, &self->opt);
    if (rc != GENSVD_OK) {
        ext_raise(rc, gensvd_ctx_last_error(self->ctx->ctx));
        return -1;
    }
    return 0;
}

static void Options_dealloc(ExtOptions *self)
{
    gensvd_options_free(self->opt);
    self->opt = NULL;
    Py_CLEAR(self->pcs);
    Py_CLEAR(self->ctx);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *opt_fail(ExtOptions *self, int rc)
{
    return ext_raise(rc, gensvd_ctx_last_error(self->ctx->ctx));
}

static PyObject *Options_set_int(ExtOptions *self, PyObject *args)
{
    const char *name;
    long long v;
    int rc;
    if (!PyArg_ParseTuple(args, "sL:set_int", &name, &v))
        return NULL;
    if ((rc = gensvd_options_set_int(self->opt, name, (int64_t)v)) != GENSVD_OK)
        return opt_fail(self, rc);
    Py_RETURN_NONE;
}

static PyObject *Options_set_double(ExtOptions *self, PyObject *args)
{
    const char *name;
    double v;
    int rc;
    if (!PyArg_ParseTuple(args, "sd:set_double", &name, &v))
        return NULL;
    if ((rc = gensvd_options_set_double(self->opt, name, v)) != GENSVD_OK)
        return opt_fail(self, rc);
    Py_RETURN_NONE;
}

static PyObject *Options_set_string(ExtOptions *self, PyObject *args)
{
    const char *name, *v;
    int rc;
    if (!PyArg_ParseTuple(args, "ss:set_string", &name, &v))
        return NULL;
    if ((rc = gensvd_options_set_string(self->opt, name, v)) != GENSVD_OK)
        return opt_fail(self, rc);
    Py_RETURN_NONE;
}

static PyObject *Options_set_strings(ExtOptions *self, PyObject *args)
{
    const char *name;
    PyObject *items, *seq;
    const char **t;
    Py_ssize_t n;
    int rc;
    if (!PyArg_ParseTuple(args, "sO:set_strings", &name, &items))
        return NULL;
    if (!(seq = PySequence_Fast(items, "set_strings: expected a sequence of str")))
        return NULL;
    n = PySequence_Fast_GET_SIZE(seq);
    if (!(t = PyMem_Calloc((size_t)(n ? n : 1), sizeof *t))) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *s = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyUnicode_Check(s) || !(t[i] = PyUnicode_AsUTF8(s))) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "%s: item %zd is not a str", name, i);
            PyMem_Free(t);
            Py_DECREF(seq);
            return NULL;
        }
    }
    rc = gensvd_options_set_strings(self->opt, name, t, (size_t)n); /* copied */
    PyMem_Free(t);
    Py_DECREF(seq);
    if (rc != GENSVD_OK)
        return opt_fail(self, rc);
    Py_RETURN_NONE;
}

/* set_pcs(result): the reference PCs of a projection (kept while these options live). */
static PyObject *Options_set_pcs(ExtOptions *self, PyObject *res)
{
    int rc;
    if (!PyObject_TypeCheck(res, &ExtResult_Type)) {
        PyErr_SetString(PyExc_TypeError, "set_pcs: expected a Result");
        return NULL;
    }
    rc = gensvd_options_set_pcs(self->opt, ((ExtResult *)res)->res);
    if (rc != GENSVD_OK)
        return opt_fail(self, rc);
    Py_XSETREF(self->pcs, Py_NewRef(res));
    Py_RETURN_NONE;
}

/* list() -> [(name, type, value)...]: the options with their current values, as text. */
static PyObject *Options_list(ExtOptions *self, PyObject *unused)
{
    PyObject *list = PyList_New(0);
    const char *name;
    (void)unused;
    if (!list)
        return NULL;
    for (size_t i = 0; (name = gensvd_options_name(self->opt, i)) != NULL; i++) {
        int type = gensvd_options_type(self->opt, name);
        const char *value = gensvd_options_value(self->opt, name);
        PyObject *item = Py_BuildValue("(sis)", name, type, value ? value : "");
        if (!item || PyList_Append(list, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(item);
    }
    return list;
}

static PyObject *Options_value(ExtOptions *self, PyObject *args)
{
    const char *name, *v;
    if (!PyArg_ParseTuple(args, "s:value", &name))
        return NULL;
    if (!(v = gensvd_options_value(self->opt, name))) {
        PyErr_Format(PyExc_KeyError, "%s", name);
        return NULL;
    }
    return PyUnicode_FromString(v);
}

static PyMethodDef Options_methods[] = {
    {"set_int", (PyCFunction)Options_set_int, METH_VARARGS, "set_int(name, value)"},
    {"set_double", (PyCFunction)Options_set_double, METH_VARARGS, "set_double(name, value)"},
    {"set_string", (PyCFunction)Options_set_string, METH_VARARGS, "set_string(name, value)"},
    {"set_strings", (PyCFunction)Options_set_strings, METH_VARARGS, "set_strings(name, items)"},
    {"set_pcs", (PyCFunction)Options_set_pcs, METH_O, "set_pcs(result)"},
    {"list", (PyCFunction)Options_list, METH_NOARGS, "list() -> [(name, type, value)]"},
    {"value", (PyCFunction)Options_value, METH_VARARGS, "value(name) -> text"},
    {NULL, NULL, 0, NULL},
};

PyTypeObject ExtOptions_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gensvd._gensvd.Options",
    .tp_basicsize = sizeof(ExtOptions),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Options(ctx, analysis): an analysis and its options (gensvd_options)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Options_init,
    .tp_dealloc = (destructor)Options_dealloc,
    .tp_methods = Options_methods,
};

/* ---- Dest --------------------------------------------------------------------------------- */

static int Dest_init(ExtDest *self, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"ctx", "url", NULL};
    PyObject *ctxobj;
    const char *url;
    int rc;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "Os:Dest", kw, &ctxobj, &url))
        return -1;
    if (self->dest)
        return 0;
    if (ctx_of(ctxobj, &self->ctx) < 0)
        return -1;
    if ((rc = gensvd_dest_new(self->ctx->ctx, url, &self->dest)) != GENSVD_OK) {
        ext_raise(rc, gensvd_ctx_last_error(self->ctx->ctx));
        return -1;
    }
    return 0;
}

static void Dest_dealloc(ExtDest *self)
{
    gensvd_dest_free(self->dest);
    self->dest = NULL;
    Py_CLEAR(self->ctx);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Dest_set_int(ExtDest *self, PyObject *args)
{
    const char *name;
    long long v;
    int rc;
    if (!PyArg_ParseTuple(args, "sL:set_int", &name, &v))
        return NULL;
    if ((rc = gensvd_dest_set_int(self->dest, name, (int64_t)v)) != GENSVD_OK)
        return ext_raise(rc, gensvd_ctx_last_error(self->ctx->ctx));
    Py_RETURN_NONE;
}

static PyObject *Dest_set_string(ExtDest *self, PyObject *args)
{
    const char *name, *v;
    int rc;
    if (!PyArg_ParseTuple(args, "ss:set_string", &name, &v))
        return NULL;
    if ((rc = gensvd_dest_set_string(self->dest, name, v)) != GENSVD_OK)
        return ext_raise(rc, gensvd_ctx_last_error(self->ctx->ctx));
    Py_RETURN_NONE;
}

static PyObject *Dest_check(ExtDest *self, PyObject *unused)
{
    int rc;
    PyThreadState *ts;
    (void)unused;
    ts = PyEval_SaveThread();
    rc = gensvd_dest_check(self->dest);
    PyEval_RestoreThread(ts);
    if (rc != GENSVD_OK)
        return ext_raise(rc, gensvd_ctx_last_error(self->ctx->ctx));
    Py_RETURN_NONE;
}

static PyMethodDef Dest_methods[] = {
    {"set_int", (PyCFunction)Dest_set_int, METH_VARARGS, "set_int(name, value)"},
    {"set_string", (PyCFunction)Dest_set_string, METH_VARARGS, "set_string(name, value)"},
    {"check", (PyCFunction)Dest_check, METH_NOARGS, "check(): the output can be written"},
    {NULL, NULL, 0, NULL},
};

PyTypeObject ExtDest_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gensvd._gensvd.Dest",
    .tp_basicsize = sizeof(ExtDest),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Dest(ctx, url): a Zarr output (gensvd_dest)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Dest_init,
    .tp_dealloc = (destructor)Dest_dealloc,
    .tp_methods = Dest_methods,
};

int ext_options_type_ready(PyObject *module)
{
    if (PyType_Ready(&ExtOptions_Type) < 0 || PyType_Ready(&ExtDest_Type) < 0)
        return -1;
    if (PyModule_AddObjectRef(module, "Options", (PyObject *)&ExtOptions_Type) < 0)
        return -1;
    return PyModule_AddObjectRef(module, "Dest", (PyObject *)&ExtDest_Type);
}
