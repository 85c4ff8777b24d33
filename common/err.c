/* common/err.c - names of the error codes. */
#include "gsvd_config.h"
#include "common/err.h"

const char *gsvd_strerror(int rc)
{
    switch (rc) {
    case GSVD_OK:
        return "success";
    case GSVD_ENOMEM:
        return "out of memory";
    case GSVD_EINVAL:
        return "invalid argument";
    case GSVD_EIO:
        return "input/output error";
    case GSVD_ENOTFOUND:
        return "not found";
    case GSVD_EFORMAT:
        return "malformed data";
    case GSVD_EINCONSIST:
        return "inconsistent inputs";
    case GSVD_EUNSUPPORTED:
        return "unsupported";
    case GSVD_ECODEC:
        return "decompression failed";
    case GSVD_ENET:
        return "network failure";
    case GSVD_EAUTH:
        return "authentication failed";
    case GSVD_EDEGENERATE:
        return "degenerate data";
    case GSVD_EGPU:
        return "GPU failure";
    case GSVD_ENODEVICE:
        return "no usable device";
    case GSVD_ENOTBUILT:
        return "not built in";
    case GSVD_EINTERNAL:
        return "internal error";
    case GSVD_ECANCELED:
        return "canceled";
    case GSVD_EPEER:
        return "another process failed";
    default:
        return "unknown error";
    }
}
