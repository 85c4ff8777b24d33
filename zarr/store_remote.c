/* zarr/store_remote.c - the remote stores' settings (store.h: gsvd_store_set_remote,
 * gsvd_store_remote), apart from the scheme registry in store.c so that the stores read them
 * without depending on the registry that names them.  A thread's scope (common/scope.h) may
 * carry its own settings (a library context's); the process default serves the others. */
#include "gsvd_config.h"

#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/parse.h"
#include "common/scope.h"
#include "zarr/store.h"

/* Set once in main() before threads start (see store.h), read by the remote stores' open. */
static struct gsvd_remote_params remote = GSVD_REMOTE_PARAMS_DEFAULT;

void gsvd_store_set_remote(const struct gsvd_remote_params *p)
{
    remote = *p;
}

const struct gsvd_remote_params *gsvd_store_remote(void)
{
    const struct gsvd_remote_params *p = gsvd_scope_current()->remote;
    return p ? p : &remote;
}

/* Unsigned environment setting `name` in [lo, hi] into *dst; a bad value is warned about and
 * ignored. */
static void env_uint(const char *name, uint64_t lo, uint64_t hi, unsigned *dst)
{
    const char *s = getenv(name);
    uint64_t v;
    if (!s || !*s)
        return;
    if (gsvd_parse_uint(s, lo, hi, 0, &v) < 0) {
        gsvd_log_warn("ignoring %s='%s' (expected %llu to %llu)", name, s, (unsigned long long)lo,
                      (unsigned long long)hi);
        return;
    }
    *dst = (unsigned)v;
}

void gsvd_remote_params_env(struct gsvd_remote_params *p)
{
    const char *s;

    env_uint("GENSVD_CONCURRENCY", 1, 1024, &p->concurrency);
    env_uint("GENSVD_RETRY_MAX", 0, 100, &p->retries);
    env_uint("GENSVD_RETRY_BASE_MS", 1, 60000, &p->retry_base_ms);
    env_uint("GENSVD_HTTP_TIMEOUT", 1, 86400, &p->timeout_s);
    s = getenv("GENSVD_S3_ADDRESSING");
    if (s && (!strcmp(s, "auto") || !strcmp(s, "path") || !strcmp(s, "virtual")))
        p->s3_addressing = s;
    else if (s && *s)
        gsvd_log_warn("ignoring GENSVD_S3_ADDRESSING='%s' (auto, path or virtual)", s);
}
