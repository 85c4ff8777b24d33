/* analysis/scan/chr_select.c - the variants on chosen contigs (chr_select.h). */
#include "gsvd_config.h"
#include "analysis/scan/chr_select.h"

#include <string.h>
#include <strings.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "analysis/scan/mask.h"
#include "zarr/store.h"

/* Contig numbers above this are names, not numbers (no overflow in the range test). */
#define MAX_NUMBER 999999999ULL

/* s[0 .. n) without a leading "chr" (any case). */
static void strip_chr(const char **s, size_t *n)
{
    if (*n >= 3 && strncasecmp(*s, "chr", 3) == 0) {
        *s += 3;
        *n -= 3;
    }
}

/* The number s[0 .. n) spells (digits only, 1 to 9 of them), or -1. */
static long long number(const char *s, size_t n)
{
    unsigned long long v = 0;
    if (n == 0 || n > 9)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (unsigned long long)(s[i] - '0');
    }
    return v <= MAX_NUMBER ? (long long)v : -1;
}

/* plink2's code of a contig name s[0 .. n): its number without a leading "chr" (any case),
 * X 23, Y 24, XY 25, MT and M 26 (any case); -1 for any other name. */
static long long code(const char *s, size_t n)
{
    static const char *const named[] = {"X", "Y", "XY", "MT", "M"};
    static const long long codes[] = {23, 24, 25, 26, 26};
    strip_chr(&s, &n);
    for (size_t i = 0; i < sizeof named / sizeof *named; i++)
        if (n == strlen(named[i]) && strncasecmp(s, named[i], n) == 0)
            return codes[i];
    return number(s, n);
}

/* Item it[0 .. n) against the contig name nm[0 .. nn): 1 chosen, 0 not, -1 a range with its
 * ends out of order.  A range A-B of codes takes the contigs whose code lies in it; a code
 * takes the contig of that code; any other item takes the contig of exactly that name. */
static int item_chooses(const char *it, size_t n, const char *nm, size_t nn)
{
    const char *dash = memchr(it, '-', n);
    long long c = code(it, n);
    if (dash && c < 0) {
        size_t na = (size_t)(dash - it);
        long long lo = code(it, na), hi = code(dash + 1, n - na - 1), v;
        if (lo >= 0 && hi >= 0) {
            if (lo > hi)
                return -1;
            v = code(nm, nn);
            return v >= lo && v <= hi;
        }
    }
    if (c >= 0)
        return code(nm, nn) == c;
    return n == nn && memcmp(it, nm, n) == 0;
}

/* Which item of list chooses name first, or -1 for none, -2 for a malformed list; hit (or
 * NULL): 1 set for every item that chooses it. */
static int chooser(const char *list, const char *name, uint8_t *hit)
{
    size_t nn = strlen(name);
    int k = 0, found = -1;

    for (const char *p = list;; k++) {
        size_t n = strcspn(p, ","), bare = n;
        const char *it = p, *rest = p;
        int c;
        strip_chr(&rest, &bare);
        if (bare == 0)
            return -2;
        c = item_chooses(it, n, name, nn);
        if (c < 0)
            return -2;
        if (c && found < 0)
            found = k;
        if (c && hit)
            hit[k] = 1;
        p += strcspn(p, ",");
        if (!*p)
            break;
        p++;
    }
    return found;
}

int gsvd_chr_chooses(const char *list, const char *name)
{
    int k = chooser(list, name, NULL);
    return k == -2 ? -1 : k >= 0;
}

int gsvd_chr_same(const char *a, const char *b)
{
    long long ca = code(a, strlen(a)), cb = code(b, strlen(b));
    if (ca >= 0 || cb >= 0)
        return ca == cb;
    return strcmp(a, b) == 0;
}

int gsvd_chr_one(const char *list)
{
    size_t n = strlen(list);
    const char *dash = memchr(list, '-', n);
    long long lo, hi;

    if (n == 0 || strchr(list, ','))
        return 0;
    if (!dash)
        return 1;
    lo = code(list, (size_t)(dash - list));
    hi = code(dash + 1, n - (size_t)(dash - list) - 1);
    return lo < 0 || hi < 0 || lo == hi; /* a name with a dash ("HLA-A"), or A-A */
}

/* The predicate gsvd_contigs_read calls per variant: the last contig's answer is kept (a store
 * lists a contig's variants together), and every item that chooses a contig is marked. */
struct chooser_ctx {
    const char *list;
    int exclude;      /* keep the contigs the list does not choose */
    const char *last; /* the last name asked about (contig_id's string) and its answer */
    int last_keep;
    uint8_t *hit; /* per item */
};

static int keep_contig(const char *name, void *vctx)
{
    struct chooser_ctx *c = vctx;
    if (name != c->last) {
        c->last = name;
        c->last_keep = (chooser(c->list, name, c->hit) >= 0) != c->exclude;
    }
    return c->last_keep;
}

/* One warning per item that chose no contig holding variants. */
static void warn_unused(const char *list, const char *what, const uint8_t *hit, const char *url)
{
    int k = 0;
    for (const char *p = list;; k++) {
        size_t n = strcspn(p, ",");
        if (!hit[k])
            gsvd_log_warn("%s: no variant on the contig '%.*s' of %s", url, (int)n, p, what);
        p += n;
        if (!*p)
            break;
        p++;
    }
}

int gsvd_chr_apply(gsvd_tree *t, const char *node, const char *list, int exclude, const char *what,
                   struct gsvd_autosomes *out, struct gsvd_geno_params *geno)
{
    const char *url = gsvd_store_url(gsvd_tree_store(t));
    struct chooser_ctx c = {list, exclude != 0, NULL, 0, NULL};
    size_t items = 1;
    uint64_t n_range, n_left;
    int rc = GSVD_OK;

    memset(out, 0, sizeof *out);
    if (chooser(list, "", NULL) == -2) {
        gsvd_log_error("%s '%s': an empty name, or a range whose first number is above its "
                       "last",
                       what, list);
        return GSVD_EINVAL;
    }
    for (const char *p = list; *p; p++)
        items += *p == ',';
    if (!(c.hit = gsvd_calloc(items, 1)))
        return GSVD_ENOMEM;
    rc = gsvd_contigs_read(t, node, keep_contig, &c, out);
    if (rc == GSVD_ENOTFOUND)
        gsvd_log_error("%s: %s needs the variants' contigs (variant_contig and contig_id, as "
                       "VCF-Zarr stores them)",
                       url, what);
    if (rc < 0)
        goto out;
    warn_unused(list, what, c.hit, url);
    GSVD_TRY(gsvd_mask_narrow(geno, out->keep, out->len, url, "variant_contig", &n_range, &n_left));
    if (n_left == 0 && n_range > 0) {
        if (exclude)
            gsvd_log_error("%s: every one of the %llu variants used is on the contigs %s '%s' "
                           "names",
                           url, (unsigned long long)n_range, what, list);
        else
            gsvd_log_error("%s: no variant of the %llu used is on the contigs %s '%s' names", url,
                           (unsigned long long)n_range, what, list);
        rc = GSVD_EDEGENERATE;
        goto out;
    }
    gsvd_log_info("%s: %llu of %llu variants %s the contigs %s names", url,
                  (unsigned long long)(out->len - out->n_excluded), (unsigned long long)out->len,
                  exclude ? "outside" : "on", what);
out:
    if (rc < 0)
        gsvd_autosomes_free(out);
    gsvd_free(c.hit);
    return rc;
}
