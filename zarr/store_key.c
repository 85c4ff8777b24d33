/* zarr/store_key.c - the key grammar of every store (store.h: gsvd_key_check, gsvd_key_join),
 * apart from the scheme registry in store.c so that the stores use it without depending on the
 * registry that names them. */
#include "gsvd_config.h"

#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "zarr/store.h"

int gsvd_key_check(const char *key)
{
    const char *p = key;

    if (!key || !*key || *key == '/')
        return GSVD_EFORMAT;
    while (*p) {
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return GSVD_EFORMAT;
        for (size_t i = 0; i < n; i++)
            if (p[i] == '\\' || (unsigned char)p[i] < 0x20)
                return GSVD_EFORMAT;
        if (!e)
            break;
        p = e + 1;
        if (!*p)
            return GSVD_EFORMAT; /* trailing '/' */
    }
    return GSVD_OK;
}

int gsvd_key_join(const char *a, const char *b, char **out)
{
    size_t la, lb;
    char *p;

    *out = NULL;
    while (a && *a == '/')
        a++;
    while (b && *b == '/')
        b++;
    la = a ? strlen(a) : 0;
    while (la > 0 && a[la - 1] == '/')
        la--;
    lb = b ? strlen(b) : 0;
    p = gsvd_malloc(la + lb + 2);
    if (!p)
        return GSVD_ENOMEM;
    if (la)
        memcpy(p, a, la);
    if (la && lb)
        p[la++] = '/';
    if (lb)
        memcpy(p + la, b, lb);
    p[la + lb] = '\0';
    *out = p;
    return GSVD_OK;
}
