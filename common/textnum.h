/* common/textnum.h - small conversions shared by the Zarr layer and the commands: IEEE half
 * precision floats and UTF-8 encoding of code points.  Thread safety: pure functions. */
#ifndef GSVD_COMMON_TEXTNUM_H
#define GSVD_COMMON_TEXTNUM_H
#include <stddef.h>
#include <stdint.h>
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

/* Half (binary16) bits to double, exactly (subnormals, infinities and NaN included). */
double gsvd_half_to_double(uint16_t h);
/* Double to half bits, rounding to nearest even; overflow gives infinity. */
uint16_t gsvd_half_from_double(double d);

/* UTF-8 bytes of code point cp into out (4 bytes); returns the byte count, or 0 when cp is not
 * a Unicode scalar value (above U+10FFFF or a surrogate). */
size_t gsvd_utf8_encode(uint32_t cp, unsigned char out[4]);

GSVD_EXTERN_C_END
#endif /* GSVD_COMMON_TEXTNUM_H */
