/* common/textnum.c - half floats and UTF-8 encoding. */
#include "gsvd_config.h"
#include "common/textnum.h"

#include <math.h>
#include <string.h>

double gsvd_half_to_double(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m | 0x400, e - 25);
    return (h & 0x8000) ? -v : v;
}

uint16_t gsvd_half_from_double(double d)
{
    float f = (float)d;
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, exp = (x >> 23) & 0xffu, man = x & 0x7fffffu;
    if (exp == 0xff)
        return (uint16_t)(sign | 0x7c00u | (man ? 0x200u : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) {
        if (e < -10)
            return (uint16_t)sign;
        man |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - e);
        uint32_t h = man >> shift, rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1)))
            h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((uint32_t)e << 10) | (man >> 13), rem = man & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
        h++;
    return (uint16_t)(sign | h);
}

size_t gsvd_utf8_encode(uint32_t c, unsigned char u[4])
{
    if (c < 0x80) {
        u[0] = (unsigned char)c;
        return 1;
    }
    if (c < 0x800) {
        u[0] = (unsigned char)(0xc0 | (c >> 6));
        u[1] = (unsigned char)(0x80 | (c & 0x3f));
        return 2;
    }
    if (c >= 0xd800 && c <= 0xdfff)
        return 0;
    if (c < 0x10000) {
        u[0] = (unsigned char)(0xe0 | (c >> 12));
        u[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
        u[2] = (unsigned char)(0x80 | (c & 0x3f));
        return 3;
    }
    if (c < 0x110000) {
        u[0] = (unsigned char)(0xf0 | (c >> 18));
        u[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3f));
        u[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
        u[3] = (unsigned char)(0x80 | (c & 0x3f));
        return 4;
    }
    return 0;
}
