/* tests/fuzz/fuzz_cli_parse.c - differential libFuzzer target: the command line's own parsers
 * (cli/cli_parse.c, libc only) against the library's copies (common/parse.c and the LD window of
 * analysis/ldprune) on the same text.  The two sides of the public boundary parse the same
 * option values (cli/cli_parse.c says why there are two), so they must agree on every string.
 * Input: the bytes up to the first NUL (or all of them) as one string.  Checks
 * (tests/cli_parse_diff.h): parse_uint under seven ranges and suffix rules, parse_size,
 * parse_double under four ranges, parse_range, the LD window and parse_choice return the same
 * code and, when they accept, the same values (doubles bit for bit).
 * Built with standalone.c when libFuzzer is not available. */
#include "gsvd_config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli_parse_diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);

    if (!s)
        abort(); /* the harness, not the code under test */
    memcpy(s, data, size);
    s[size] = '\0';
    if (cli_parse_diff(s) != 0)
        __builtin_trap();
    free(s);
    return 0;
}
