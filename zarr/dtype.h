/* zarr/dtype.h - Zarr v2 element types ("typestr": byte order, kind, size).
 * Thread safety: pure functions. */
#ifndef GSVD_ZARR_DTYPE_H
#define GSVD_ZARR_DTYPE_H
#include <stddef.h>
#include <stdint.h>
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

struct gsvd_dtype {
    char kind;      /* 'b' bool, 'i' signed, 'u' unsigned, 'f' float, 'S' bytes, 'U' UCS-4 text,
                       'O' object (vlen-utf8 strings) */
    char byteorder; /* '<' little, '>' big, '|' not applicable */
    size_t size;    /* bytes per element as stored: 1..8 numeric, S: n, U: 4*n, O: sizeof(char *) */
};

/* Parse a typestr such as "<f8", "|i1", "|S4", "<U5", "|O".  GSVD_EUNSUPPORTED (not logged) for
 * well-formed kinds gensvd does not handle (complex, datetime, void, structured),
 * GSVD_EFORMAT (not logged) for text that is no typestr.  The caller logs with its context. */
GSVD_NODISCARD int gsvd_dtype_parse(const char *s, struct gsvd_dtype *out);

/* Write the typestr into buf (at least 24 bytes). */
void gsvd_dtype_format(const struct gsvd_dtype *dt, char *buf, size_t len);

/* 1 if elements must be byte-swapped to native (little-endian) order. */
int gsvd_dtype_needs_swap(const struct gsvd_dtype *dt);

/* Storage for one numeric element in native byte order (any member; tests build values in it). */
union gsvd_dtype_elem {
    int8_t i1;
    int16_t i2;
    int32_t i4;
    int64_t i8;
    uint8_t u1;
    uint16_t u2;
    uint32_t u4;
    uint64_t u8;
    float f4;
    double f8;
};

/* One element at p (dt->size bytes, any alignment) in native byte order, as gsvd_reader_read
 * delivers it.  gsvd_dtype_elem_i64: of an integer or bool dtype, exactly (a uint64 above
 * INT64_MAX wraps).  gsvd_dtype_elem_f64: of a numeric dtype (bool 0/1, integers rounded to the
 * nearest double, float16/32/64 widened).  Other kinds are the caller's to refuse: the result
 * is then meaningless, never undefined. */
int64_t gsvd_dtype_elem_i64(const struct gsvd_dtype *dt, const void *p);
double gsvd_dtype_elem_f64(const struct gsvd_dtype *dt, const void *p);

/* Comma-separated list of supported typestr kinds, for error messages. */
const char *gsvd_dtype_supported(void);

GSVD_EXTERN_C_END
#endif /* GSVD_ZARR_DTYPE_H */
