/* common/parse.h - checked parsers of numbers and words given as text (command-line values,
 * environment variables, the library's option setters): the whole string must be consumed,
 * and out-of-range values are refused.  Nothing is logged, but by gsvd_read_ids.  Thread safety:
 * pure functions. */
#ifndef GSVD_COMMON_PARSE_H
#define GSVD_COMMON_PARSE_H
#include <stdint.h>
#include "common/buf.h"
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

/* An unsigned decimal in [lo, hi] (no sign, no space); with `suffix` 1, k/K, m/M, g/G multiply
 * by powers of 1000.  GSVD_OK or GSVD_EINVAL. */
GSVD_NODISCARD int gsvd_parse_uint(const char *s, uint64_t lo, uint64_t hi, int suffix,
                                   uint64_t *out);
/* A size in bytes: a number with an optional K, M, G or T (powers of 1024, optionally followed
 * by B), e.g. "1.5G", "512MB".  GSVD_OK or GSVD_EINVAL. */
GSVD_NODISCARD int gsvd_parse_size(const char *s, uint64_t *out);
/* A finite real number in [lo, hi].  GSVD_OK or GSVD_EINVAL. */
GSVD_NODISCARD int gsvd_parse_double(const char *s, double lo, double hi, double *out);
/* Index of s in the NULL-terminated names, or -1. */
GSVD_NODISCARD int gsvd_parse_choice(const char *s, const char *const *names);
/* "A:B", "A:" or ":B" (each an unsigned with k/M/G suffixes) into [*a, *b) (*b 0: to the end);
 * 0, or -1 if malformed or empty. */
int gsvd_parse_range(const char *s, uint64_t *a, uint64_t *b);

/* Read one ID per line from `path` ("-": standard input; blank lines and '#' lines skipped, '\r'
 * stripped) into out.  GSVD_EIO (logged) if unreadable, GSVD_EFORMAT (logged) if it holds no ID
 * or a NUL byte. */
GSVD_NODISCARD int gsvd_read_ids(const char *path, struct gsvd_strlist *out);

GSVD_EXTERN_C_END
#endif /* GSVD_COMMON_PARSE_H */
