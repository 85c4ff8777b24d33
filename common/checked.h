/* common/checked.h - overflow-checked size arithmetic for untrusted sizes.
 * Each returns GSVD_OK and stores the result, or GSVD_EFORMAT (result untouched) on overflow:
 * sizes that overflow come from malformed input, so the caller logs which input. */
#ifndef GSVD_COMMON_CHECKED_H
#define GSVD_COMMON_CHECKED_H
#include <stddef.h>
#include <stdint.h>
#include "common/err.h"
GSVD_EXTERN_C_BEGIN

GSVD_NODISCARD static inline int gsvd_mul_size(size_t a, size_t b, size_t *out)
{
    size_t r;
    if (__builtin_mul_overflow(a, b, &r))
        return GSVD_EFORMAT;
    *out = r;
    return GSVD_OK;
}

GSVD_NODISCARD static inline int gsvd_add_size(size_t a, size_t b, size_t *out)
{
    size_t r;
    if (__builtin_add_overflow(a, b, &r))
        return GSVD_EFORMAT;
    *out = r;
    return GSVD_OK;
}

GSVD_NODISCARD static inline int gsvd_mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    uint64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        return GSVD_EFORMAT;
    *out = r;
    return GSVD_OK;
}

GSVD_EXTERN_C_END
#endif /* GSVD_COMMON_CHECKED_H */
