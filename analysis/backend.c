/* analysis/backend.c - backend selection by probe score and the wrappers over the vtable. */
#include "gsvd_config.h"
#include "analysis/backend.h"

#include <string.h>

#include "analysis/backend_internal.h"
#include "common/err.h"
#include "common/log.h"

int gsvd_backend_create(const struct gsvd_backend_ops *ops, const struct gsvd_backend_params *p,
                        gsvd_backend **out)
{
    int rc = ops->create(p, out);
    /* a backend loaded as a module (lib/backend_registry.c) sets its own ops */
    if (rc == GSVD_OK && !(*out)->ops)
        (*out)->ops = ops;
    return rc;
}

/* The registry entry `ops` answers to `name`: "auto" takes all, "gpu" the device backends. */
static int answers(const struct gsvd_backend_ops *ops, const char *name)
{
    if (strcmp(name, "auto") == 0)
        return 1;
    if (strcmp(name, "gpu") == 0)
        return ops->kind == GSVD_BACKEND_DEVICE;
    return strcmp(name, ops->name) == 0;
}

/* The backend `name` picks (*best), or the error and its message. */
static int pick(const char *name, const struct gsvd_backend_ops **out)
{
    const struct gsvd_backend_ops *best = NULL;
    int best_score = 0, is_auto = strcmp(name, "auto") == 0;
    int known = is_auto || strcmp(name, "gpu") == 0;
    const char *missing = NULL;
    char why[256];

    *out = NULL;
    for (size_t i = 0; gsvd_backend_registry[i]; i++) {
        const struct gsvd_backend_ops *ops = gsvd_backend_registry[i];
        int score;
        if (!answers(ops, name))
            continue;
        known = 1;
        if (!ops->probe) { /* known, not built in */
            missing = ops->name;
            continue;
        }
        why[0] = '\0';
        score = ops->probe(why, sizeof why);
        if (score <= 0) {
            if (is_auto) {
                gsvd_log_info("backend %s not usable: %s", ops->name, why);
                continue;
            }
            gsvd_log_error("no usable %s device: %s", ops->name, why);
            return GSVD_ENODEVICE;
        }
        if (score > best_score) {
            best = ops;
            best_score = score;
        }
    }
    if (!known) {
        gsvd_log_error("unknown device '%s' (auto, cpu or gpu)", name);
        return GSVD_EINVAL;
    }
    if (!best) {
        gsvd_log_error("the %s backend is not built into this gensvd", missing ? missing : name);
        return GSVD_ENOTBUILT;
    }
    *out = best;
    return GSVD_OK;
}

int gsvd_backend_check(const char *name)
{
    const struct gsvd_backend_ops *best;
    return pick(name, &best);
}

int gsvd_backend_open(const char *name, const struct gsvd_backend_params *p, gsvd_backend **out)
{
    const struct gsvd_backend_ops *best;
    int rc = pick(name, &best);

    *out = NULL;
    if (rc < 0)
        return rc;
    gsvd_log_info("using the %s backend", best->name);
    return gsvd_backend_create(best, p, out);
}

void gsvd_backend_destroy(gsvd_backend *be)
{
    if (be)
        be->ops->destroy(be);
}

const char *gsvd_backend_name(const gsvd_backend *be)
{
    return be->ops->name;
}

enum gsvd_backend_kind gsvd_backend_kind(const gsvd_backend *be)
{
    return be->ops->kind;
}

const void *gsvd_backend_analysis(const gsvd_backend *be, enum gsvd_analysis_id an)
{
    return be && be->ops->version >= 4 && be->ops->analysis ? be->ops->analysis(be, an) : NULL;
}

int gsvd_backend_eigh(gsvd_backend *be, size_t n, double *a, double *w)
{
    return be->ops->eigh(be, n, a, w);
}
