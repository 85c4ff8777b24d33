/* zarr/store_list.c - the paging loop of the listing HTTP flavours (store_internal.h:
 * gsvd_http_list_pages): one GET per page through the engine, the flavour's parser, the page
 * token carried over, bounded and checked for repeats.  The flavours supply the page URL and
 * the parser only. */
#include "gsvd_config.h"

#include <string.h>

#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/list_parse.h"
#include "zarr/store_internal.h"

int gsvd_http_list_pages(gsvd_store *st, const char *path, gsvd_http_list_url_fn make_url,
                         gsvd_http_list_parse_fn parse, struct gsvd_strlist *names)
{
    struct gsvd_buf pre = GSVD_BUF_INIT, url = GSVD_BUF_INIT, body = GSVD_BUF_INIT;
    char *token = NULL, *next = NULL, *label = NULL;
    unsigned page = gsvd_list_page_size();
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_buf_printf(&pre, "%s%s%s", gsvd_http_object_prefix(st), path, *path ? "/" : ""));
    label = gsvd_asprintf("%s%s(listing)", path, *path ? "/ " : "");
    if (!label) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t n_pages = 0;; n_pages++) {
        if (n_pages >= 1000000) {
            gsvd_log_error("%s: listing of '%s' did not end after %zu pages", gsvd_http_display(st),
                           pre.data, n_pages);
            rc = GSVD_EFORMAT;
            goto out;
        }
        gsvd_buf_clear(&url);
        GSVD_TRY(make_url(st, pre.data, token, page, &url));
        rc = gsvd_http_get_url(st, url.data, label, &body);
        if (rc == GSVD_ENOTFOUND) {
            gsvd_log_error("%s: cannot list '%s': HTTP 404 (no such bucket?)",
                           gsvd_http_display(st), pre.data);
            rc = GSVD_EIO;
        }
        if (rc < 0)
            goto out;
        GSVD_TRY(parse(body.data ? body.data : "", body.len, pre.data, gsvd_http_display(st), names,
                       &next));
        gsvd_log_debug("%s: listing '%s': page %zu, %zu names so far%s", gsvd_http_display(st),
                       pre.data, n_pages + 1, names->n, next ? ", continued" : "");
        if (!next)
            break;
        if (token && !strcmp(token, next)) {
            gsvd_log_error("%s: listing of '%s' repeats its page token", gsvd_http_display(st),
                           pre.data);
            rc = GSVD_EFORMAT;
            goto out;
        }
        gsvd_free(token);
        token = next;
        next = NULL;
    }
    gsvd_list_unique(names);
out:
    gsvd_free(token);
    gsvd_free(next);
    gsvd_free(label);
    gsvd_buf_free(&pre);
    gsvd_buf_free(&url);
    gsvd_buf_free(&body);
    return rc;
}
