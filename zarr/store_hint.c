/* zarr/store_hint.c - how to convert a genotype file that is not Zarr (store.h,
 * gsvd_store_convert_hint).  Its own file: the stores call it, and store.c, which names them
 * all, must not be called back by them (tests/check_objects.sh). */
#include "gsvd_config.h"
#include "zarr/store.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/alloc.h"

/* Does `s` end with `suffix` (ASCII case-insensitive)?  Its length before it in *stem. */
static int ends_with(const char *s, const char *suffix, size_t *stem)
{
    size_t n = strlen(s), k = strlen(suffix);
    if (n <= k || strcasecmp(s + n - k, suffix) != 0)
        return 0;
    *stem = n - k;
    return 1;
}

const char *gsvd_store_convert_hint(const char *url, char *out, size_t cap)
{
    static const char *const vcf[] = {".vcf.gz", ".vcf.bgz", ".vcf", ".bcf"};
    static const char *const plink1[] = {".bed", ".bim", ".fam"};
    static const char *const plink2[] = {".pgen", ".pvar", ".pvar.zst", ".psam"};
    size_t stem = 0, len = strlen(url);
    int n;

    out[0] = '\0';
    while (len > 1 && url[len - 1] == '/') /* "x.vcf.gz/" names the same file */
        len--;
    char *u = gsvd_strndup(url, len);
    if (!u)
        return out;
    for (size_t i = 0; i < sizeof vcf / sizeof *vcf; i++)
        if (ends_with(u, vcf[i], &stem)) {
            n = snprintf(out, cap,
                         "gensvd reads Zarr: convert a %s file with bio2zarr (vcf2zarr convert "
                         "%s %.*s.vcz)",
                         i == 3 ? "BCF" : "VCF", u, (int)stem, u);
            goto done;
        }
    for (size_t i = 0; i < sizeof plink1 / sizeof *plink1; i++)
        if (ends_with(u, plink1[i], &stem)) {
            n = snprintf(out, cap,
                         "gensvd reads Zarr: convert a PLINK 1 fileset with bio2zarr "
                         "(plink2zarr convert %.*s %.*s.vcz)",
                         (int)stem, u, (int)stem, u);
            goto done;
        }
    for (size_t i = 0; i < sizeof plink2 / sizeof *plink2; i++)
        if (ends_with(u, plink2[i], &stem)) {
            n = snprintf(out, cap,
                         "gensvd reads Zarr, and bio2zarr converts PLINK 1 filesets, not PLINK 2: "
                         "plink2 --pfile %.*s --make-bed --out %.*s, then plink2zarr convert "
                         "%.*s %.*s.vcz",
                         (int)stem, u, (int)stem, u, (int)stem, u, (int)stem, u);
            goto done;
        }
    if (ends_with(u, ".bgen", &stem))
        n = snprintf(out, cap,
                     "gensvd reads Zarr, and bio2zarr has no BGEN converter: export VCF first "
                     "(plink2 --bgen %s ref-first --sample %.*s.sample --export vcf bgz --out "
                     "%.*s), then vcf2zarr convert %.*s.vcf.gz %.*s.vcz",
                     u, (int)stem, u, (int)stem, u, (int)stem, u, (int)stem, u);
    else
        n = 0;
done:
    if (n < 0 || (size_t)n >= cap)
        out[0] = '\0'; /* a path too long to quote: no hint rather than a cut one */
    gsvd_free(u);
    return out;
}
