/* zarr/store_remote.c - the remote stores' settings (store.h: gsvd_store_set_remote), apart
 * from the scheme registry in store.c so that the stores read them without depending on the
 * registry that names them. */
#include "gsvd_config.h"

#include "zarr/store.h"

/* Set once in main() before threads start (see store.h), read by the remote stores' open. */
static struct gsvd_remote_params remote = GSVD_REMOTE_PARAMS_DEFAULT;

void gsvd_store_set_remote(const struct gsvd_remote_params *p)
{
    remote = *p;
}

const struct gsvd_remote_params *gsvd_store_remote(void)
{
    return &remote;
}
