/* zarr/codec_lib.c - process-wide set-up of the compression libraries and their versions
 * (codec.h).  c-blosc 1.x keeps global state that blosc_init() creates; the codecs themselves
 * use the thread-safe *_ctx calls, so one init per process is all it needs. */
#include "gsvd_config.h"
#include "zarr/codec.h"

#include <stdio.h>

#include <blosc.h>
#include <lz4.h>
#include <zlib.h>
#include <zstd.h>

void gsvd_codec_global_init(void)
{
    blosc_init();
}

void gsvd_codec_global_cleanup(void)
{
    blosc_destroy();
}

void gsvd_codec_library_versions(char *buf, size_t len)
{
    if (!buf || len == 0)
        return;
    snprintf(buf, len, "c-blosc %s, zstd %s, zlib %s, lz4 %s", BLOSC_VERSION_STRING,
             ZSTD_versionString(), zlibVersion(), LZ4_versionString());
}
