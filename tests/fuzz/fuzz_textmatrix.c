/* tests/fuzz/fuzz_textmatrix.c - the TSV/CSV matrix parser (common/textmatrix.h) on arbitrary
 * bytes: it must parse or fail cleanly, and a parsed matrix must be consistent. */
#include "gsvd_config.h"

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/log.h"
#include "common/textmatrix.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    gsvd_log_set_level(GSVD_LOG_OFF);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gsvd_textmatrix m;
    int rc = gsvd_textmatrix_parse((const char *)data, size, "fuzz", &m);
    if (rc == GSVD_OK) {
        volatile double sum = 0;
        /* every value and every ID must be there */
        for (size_t i = 0; i < m.n_rows * m.n_cols; i++)
            sum += m.values[i];
        if (m.ids.n != m.n_rows)
            __builtin_trap();
        (void)sum;
    } else if (m.values || m.ids.n) {
        __builtin_trap(); /* a failed parse leaves nothing behind */
    }
    gsvd_textmatrix_clear(&m);
    return 0;
}
