/* zarr/dtype.c - Zarr v2 typestr parsing ("<f8", "|i1", "|S4", "<U5", "|O").
 * Parsing is strict: a typestr is a byte order, one kind letter and a decimal size without
 * leading zeros, nothing else.  Kinds gensvd does not handle but numpy writes (complex,
 * datetime, void, structured) are GSVD_EUNSUPPORTED so the caller can say "valid, not handled"
 * rather than "malformed". */
#include "gsvd_config.h"
#include "zarr/dtype.h"

#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "common/textnum.h"

/* Largest element size accepted for S and U kinds (bytes); bounds hostile metadata. */
#define DTYPE_MAX_ITEMSIZE ((size_t)1 << 20)

/* Parse a decimal size at *p (no sign, no leading zero, at most 9 digits) and advance *p.
 * Returns 0 and the value, or -1 if there is no well-formed number. */
static int parse_size(const char **p, size_t *out)
{
    const char *s = *p;
    size_t v = 0;
    int n_digits = 0;

    if (*s < '1' || *s > '9')
        return -1;
    while (*s >= '0' && *s <= '9') {
        if (++n_digits > 9)
            return -1;
        v = v * 10 + (size_t)(*s - '0');
        s++;
    }
    *p = s;
    *out = v;
    return 0;
}

/* Kinds numpy writes that gensvd does not handle: complex, datetime, timedelta, void.
 * Well-formed means a size follows (and, for M/m, an optional "[unit]"). */
static int parse_unsupported(char kind, const char *rest)
{
    size_t size;

    if (parse_size(&rest, &size) < 0)
        return GSVD_EFORMAT;
    if ((kind == 'M' || kind == 'm') && *rest == '[') {
        const char *end = strchr(rest, ']');
        if (!end || end == rest + 1)
            return GSVD_EFORMAT;
        rest = end + 1;
    }
    return *rest ? GSVD_EFORMAT : GSVD_EUNSUPPORTED;
}

static int numeric_size_ok(char kind, size_t size)
{
    switch (kind) {
    case 'b':
        return size == 1;
    case 'i':
    case 'u':
        return size == 1 || size == 2 || size == 4 || size == 8;
    case 'f':
        return size == 2 || size == 4 || size == 8;
    default:
        return 0;
    }
}

int gsvd_dtype_parse(const char *s, struct gsvd_dtype *out)
{
    struct gsvd_dtype dt = {0, 0, 0};
    const char *p;
    size_t n;

    if (!s || !*s)
        return GSVD_EFORMAT;
    if (s[0] == '[')
        return GSVD_EUNSUPPORTED; /* structured dtype spelled as JSON text */
    if (s[0] != '<' && s[0] != '>' && s[0] != '|')
        return GSVD_EFORMAT;
    dt.byteorder = s[0];
    dt.kind = s[1];
    p = s + 2;
    switch (dt.kind) {
    case 'b':
    case 'i':
    case 'u':
    case 'f':
        if (parse_size(&p, &n) < 0 || *p)
            return GSVD_EFORMAT;
        if (dt.kind == 'f' && (n == 12 || n == 16))
            return GSVD_EUNSUPPORTED; /* long double */
        if (!numeric_size_ok(dt.kind, n))
            return GSVD_EFORMAT;
        if (n == 1)
            dt.byteorder = '|'; /* numpy writes "|" for single bytes; accept "<" and ">" too */
        else if (dt.byteorder == '|')
            return GSVD_EFORMAT; /* multi-byte numbers need an order */
        dt.size = n;
        break;
    case 'S':
        if (parse_size(&p, &n) < 0 || *p || n > DTYPE_MAX_ITEMSIZE)
            return GSVD_EFORMAT;
        dt.byteorder = '|';
        dt.size = n;
        break;
    case 'U':
        if (parse_size(&p, &n) < 0 || *p || n > DTYPE_MAX_ITEMSIZE / 4 || dt.byteorder == '|')
            return GSVD_EFORMAT;
        dt.size = 4 * n;
        break;
    case 'O':
        /* "|O"; older numpy wrote "|O8" (or "|O4" on 32-bit hosts) */
        if (dt.byteorder != '|' || (*p && strcmp(p, "8") != 0 && strcmp(p, "4") != 0))
            return GSVD_EFORMAT;
        dt.size = sizeof(char *);
        break;
    case 'c':
    case 'M':
    case 'm':
    case 'V':
        return parse_unsupported(dt.kind, p);
    default:
        return GSVD_EFORMAT;
    }
    *out = dt;
    return GSVD_OK;
}

void gsvd_dtype_format(const struct gsvd_dtype *dt, char *buf, size_t len)
{
    if (!len)
        return;
    switch (dt->kind) {
    case 'U':
        snprintf(buf, len, "%cU%zu", dt->byteorder, dt->size / 4);
        break;
    case 'O':
        snprintf(buf, len, "|O");
        break;
    default:
        snprintf(buf, len, "%c%c%zu", dt->byteorder, dt->kind, dt->size);
        break;
    }
}

int gsvd_dtype_needs_swap(const struct gsvd_dtype *dt)
{
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) &&                                    \
    __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    const char native = '>';
#else
    const char native = '<';
#endif
    if (dt->byteorder == '|' || dt->kind == 'S' || dt->kind == 'O' || dt->size <= 1)
        return 0;
    return dt->byteorder != native;
}

const char *gsvd_dtype_supported(void)
{
    return "b1, i1, i2, i4, i8, u1, u2, u4, u8, f2, f4, f8, S<n>, U<n>, O (vlen-utf8)";
}

/* One numeric element, any alignment: the two typed readers below share it. */
static union gsvd_dtype_elem load_elem(const struct gsvd_dtype *dt, const void *p)
{
    union gsvd_dtype_elem v;

    memset(&v, 0, sizeof v);
    memcpy(&v, p, dt->size < sizeof v ? dt->size : sizeof v);
    return v;
}

int64_t gsvd_dtype_elem_i64(const struct gsvd_dtype *dt, const void *p)
{
    union gsvd_dtype_elem v = load_elem(dt, p);

    if (dt->kind == 'i')
        return dt->size == 1 ? v.i1 : dt->size == 2 ? v.i2 : dt->size == 4 ? v.i4 : v.i8;
    return dt->size == 1 ? v.u1 : dt->size == 2 ? v.u2 : dt->size == 4 ? v.u4 : (int64_t)v.u8;
}

double gsvd_dtype_elem_f64(const struct gsvd_dtype *dt, const void *p)
{
    union gsvd_dtype_elem v = load_elem(dt, p);

    switch (dt->kind) {
    case 'b':
        return v.u1 != 0;
    case 'i':
        return dt->size == 1 ? v.i1 : dt->size == 2 ? v.i2 : dt->size == 4 ? v.i4 : (double)v.i8;
    case 'u':
        return dt->size == 1 ? v.u1 : dt->size == 2 ? v.u2 : dt->size == 4 ? v.u4 : (double)v.u8;
    default:
        return dt->size == 2 ? gsvd_half_to_double(v.u2) : dt->size == 4 ? v.f4 : v.f8;
    }
}
