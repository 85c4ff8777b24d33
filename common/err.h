/* common/err.h - the one error enum of gensvd.
 * 0 is success, failures are negative.  Released values are frozen: codes are appended, never
 * reused.  Thread safety: everything here is reentrant. */
#ifndef GSVD_COMMON_ERR_H
#define GSVD_COMMON_ERR_H
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

enum gsvd_err {
    GSVD_OK = 0,
    GSVD_ENOMEM = -1,       /* allocation failed */
    GSVD_EINVAL = -2,       /* bad argument or option value: the caller's fault */
    GSVD_EIO = -3,          /* read or write failed (local file, or a rejected remote request) */
    GSVD_ENOTFOUND = -4,    /* key absent; returned without logging, the caller decides */
    GSVD_EFORMAT = -5,      /* malformed metadata or chunk */
    GSVD_EINCONSIST = -6,   /* well-formed inputs that disagree (shapes, dtypes, samples) */
    GSVD_EUNSUPPORTED = -7, /* valid Zarr that gensvd does not handle (codec, dtype) */
    GSVD_ECODEC = -8,       /* decompression failed or decoded size differs from .zarray */
    GSVD_ENET = -9,         /* transport failure after retries */
    GSVD_EAUTH = -10,       /* HTTP 401/403, missing or rejected credentials */
    GSVD_EDEGENERATE = -11, /* zero variance, rank below k, no jointly called sites */
    GSVD_EGPU = -12,        /* CUDA, cuBLAS or cuSOLVER failure at run time */
    GSVD_ENODEVICE = -13,   /* CUDA built in, no usable device */
    GSVD_ENOTBUILT = -14,   /* feature not compiled into this build */
    GSVD_EINTERNAL = -15,   /* invariant violated: a bug */
    GSVD_ECANCELED = -16,   /* stopped on request (another worker failed first, or a signal) */
    GSVD_EPEER = -17,       /* another process of a distributed run failed (it says why) */
};

/* Static, never NULL: a short name for any value, "unknown error" for values not in the enum. */
const char *gsvd_strerror(int rc);

/* One rc per function, one exit label `out`. */
#define GSVD_TRY(e)                                                                                \
    do {                                                                                           \
        rc = (e);                                                                                  \
        if (rc < 0)                                                                                \
            goto out;                                                                              \
    } while (0)

GSVD_EXTERN_C_END
#endif /* GSVD_COMMON_ERR_H */
