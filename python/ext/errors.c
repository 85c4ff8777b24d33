/* python/ext/errors.c - the exception classes (GensvdError and its subclasses) and how the
 * library's codes map onto them; exceptions kept across a run (a callback's) and raised again. */
#include "ext.h"

#include <stdio.h>

PyObject *ext_error_base, *ext_error_input, *ext_error_store, *ext_error_usage,
    *ext_error_capability, *ext_error_memory, *ext_error_cancelled;

/* ---- errors ------------------------------------------------------------------------------- */

static PyObject *error_class(int code)
{
    switch (code) {
    case GENSVD_EINVAL:
        return ext_error_usage;
    case GENSVD_EIO:
    case GENSVD_ENOTFOUND:
    case GENSVD_ENET:
    case GENSVD_EAUTH:
        return ext_error_store;
    case GENSVD_EFORMAT:
    case GENSVD_EINCONSIST:
    case GENSVD_EUNSUPPORTED:
    case GENSVD_ECODEC:
    case GENSVD_EDEGENERATE:
        return ext_error_input;
    case GENSVD_ENOTBUILT:
    case GENSVD_ENODEVICE:
        return ext_error_capability;
    case GENSVD_ENOMEM:
        return ext_error_memory;
    case GENSVD_ECANCELED:
        return ext_error_cancelled;
    default:
        return ext_error_base;
    }
}

PyObject *ext_raise(int code, const char *message)
{
    PyObject *cls = error_class(code), *exc, *v;
    const char *m = message && *message ? message : gensvd_strerror(code);

    exc = PyObject_CallFunction(cls, "s", m);
    if (!exc)
        return NULL;
    if (!(v = PyLong_FromLong(code)) || PyObject_SetAttrString(exc, "code", v) < 0) {
        Py_XDECREF(v);
        Py_DECREF(exc);
        return NULL;
    }
    Py_DECREF(v);
    PyErr_SetObject(cls, exc);
    Py_DECREF(exc);
    return NULL;
}

PyObject *ext_fetch_exception(void)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (!type)
        return NULL;
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb && value)
        PyException_SetTraceback(value, tb);
    Py_XDECREF(type);
    Py_XDECREF(tb);
    return value;
}

void ext_restore_exception(PyObject *exc)
{
    PyObject *tb = PyException_GetTraceback(exc);
    PyErr_Restore(Py_NewRef((PyObject *)Py_TYPE(exc)), exc, tb);
}

static PyObject *make_error(PyObject *module, const char *name, PyObject *bases, const char *doc)
{
    char full[96];
    PyObject *cls;
    snprintf(full, sizeof full, "gensvd.%s", name);
    cls = PyErr_NewExceptionWithDoc(full, doc, bases, NULL);
    if (cls && PyModule_AddObjectRef(module, name, cls) < 0)
        Py_CLEAR(cls);
    return cls;
}

int ext_errors_init(PyObject *m)
{
    PyObject *b;
    if (!(ext_error_base = make_error(m, "GensvdError", PyExc_Exception,
                                      "A gensvd failure: .code is the library's code, the message "
                                      "names the file, key or option and what is wrong.")))
        return -1;
#define SUB(var, name, other, doc)                                                                 \
    do {                                                                                           \
        b = other ? PyTuple_Pack(2, ext_error_base, other) : PyTuple_Pack(1, ext_error_base);      \
        if (!b || !(var = make_error(m, name, b, doc))) {                                          \
            Py_XDECREF(b);                                                                         \
            return -1;                                                                             \
        }                                                                                          \
        Py_DECREF(b);                                                                              \
    } while (0)
    SUB(ext_error_input, "InputError", NULL,
        "The input cannot be analysed: malformed or inconsistent data, an unsupported codec "
        "or dtype, nothing left to analyse.");
    SUB(ext_error_store, "StoreError", NULL,
        "A store could not be read or written: missing, refused credentials, network or disk.");
    SUB(ext_error_usage, "UsageError", PyExc_ValueError,
        "A bad option or argument (also a ValueError).");
    SUB(ext_error_capability, "CapabilityError", NULL,
        "A feature this build or this machine lacks (a GPU, a store kind).");
    SUB(ext_error_memory, "OutOfMemoryError", PyExc_MemoryError,
        "Out of memory, or over the memory cap (also a MemoryError).");
    SUB(ext_error_cancelled, "CancelledError", NULL, "The call was cancelled.");
#undef SUB
    return 0;
}
