/* tests/unit/test_project.c - variant matching of `project` (analysis/pca/project.h): same alleles,
 * swaps (dosage flips), strand-ambiguous swaps, other alleles, multi-allelic lists, other
 * contigs and positions, duplicates, reference variants not used in the fit, and the identity
 * map of `pca --fit-samples`; every count against the cases written out here. */
#include "gsvd_config.h"

#include <stdint.h>
#include <string.h>

#include "analysis/pca/project.h"
#include "common/alloc.h"
#include "common/err.h"
#include "gsvd_test.h"

struct v {
    const char *contig;
    int64_t pos;
    const char *alleles;
};

static int make(const struct v *vs, size_t n, struct gsvd_variant_ids *out)
{
    int rc = GSVD_OK;
    memset(out, 0, sizeof *out);
    out->pos = gsvd_malloc((n ? n : 1) * sizeof *out->pos);
    if (!out->pos)
        return GSVD_ENOMEM;
    for (size_t i = 0; i < n && rc == GSVD_OK; i++) {
        out->pos[i] = vs[i].pos;
        rc = gsvd_strlist_push(&out->contig, vs[i].contig);
        if (rc == GSVD_OK)
            rc = gsvd_strlist_push(&out->alleles, vs[i].alleles);
    }
    out->n = n;
    return rc;
}

int main(void)
{
    static const struct v ref[] = {
        {"1", 100, "C,A"},   /* 0: same in the target */
        {"1", 200, "G,A"},   /* 1: swapped in the target */
        {"1", 300, "A,T"},   /* 2: swapped A/T in the target: ambiguous */
        {"1", 400, "A,T"},   /* 3: the same A/T: kept */
        {"1", 500, "C,G"},   /* 4: other alleles in the target */
        {"1", 600, "A,C,G"}, /* 5: multi-allelic, same list */
        {"1", 700, "A,C,G"}, /* 6: multi-allelic, other order: dropped */
        {"1", 800, "T,C"},   /* 7: not used in the fit */
        {"2", 100, "C,A"},   /* 8: target has it on contig chr2: not found */
        {"1", 900, "G,T"},   /* 9: two target records match: the second is a duplicate */
        {"1", 950, "G,T"},   /* 10: absent from the target */
        {"1", 960, "A,G"},   /* 11: two reference records at one position: */
        {"1", 960, "A,C"},   /* 12:   each target record finds its own */
    };
    static const struct v tgt[] = {
        {"1", 100, "C,A"},    {"1", 200, "A,G"},   {"1", 300, "T,A"},   {"1", 400, "A,T"},
        {"1", 500, "C,T"},    {"1", 600, "A,C,G"}, {"1", 700, "A,G,C"}, {"1", 800, "T,C"},
        {"chr2", 100, "C,A"}, {"1", 900, "G,T"},   {"1", 900, "T,G"},   {"1", 960, "C,A"},
        {"1", 960, "A,G"},    {"1", 999, "A,G"},
    };
    static const int64_t want_ref[] = {0, 1, -1, 3, -1, 5, -1, -1, -1, 9, -1, 12, 11, -1};
    static const uint8_t want_flip[] = {0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0};
    uint8_t inc[GSVD_ARRAY_LEN(ref)];
    struct gsvd_variant_ids r, t;
    struct gsvd_project_map m = {0}, id = {0};

    for (size_t j = 0; j < GSVD_ARRAY_LEN(ref); j++)
        inc[j] = j != 7;
    GSVD_CHECK_RC(make(ref, GSVD_ARRAY_LEN(ref), &r), GSVD_OK);
    GSVD_CHECK_RC(make(tgt, GSVD_ARRAY_LEN(tgt), &t), GSVD_OK);
    GSVD_CHECK_RC(gsvd_project_match(&r, inc, &t, &m), GSVD_OK);
    GSVD_CHECK(m.n == GSVD_ARRAY_LEN(tgt));
    for (size_t v = 0; v < m.n && v < GSVD_ARRAY_LEN(want_ref); v++) {
        GSVD_CHECK(m.ref[v] == want_ref[v]);
        GSVD_CHECK(m.flip[v] == want_flip[v]);
        if (m.ref[v] != want_ref[v] || m.flip[v] != want_flip[v])
            fprintf(stderr, "  target %zu: ref %lld flip %d\n", v, (long long)m.ref[v], m.flip[v]);
    }
    GSVD_CHECK(m.counts.ref_used == 12);
    GSVD_CHECK(m.counts.target == 14);
    GSVD_CHECK(m.counts.matched == 7);
    GSVD_CHECK(m.counts.swapped == 2);
    GSVD_CHECK(m.counts.ambiguous == 1);
    GSVD_CHECK(m.counts.allele_mismatch == 2); /* 500 C,T; 700 A,G,C */
    GSVD_CHECK(m.counts.duplicate == 1);
    GSVD_CHECK(m.counts.not_found == 3); /* 800 (not used in the fit); chr2 100; 1 999 */
    GSVD_CHECK(m.counts.ref_unmatched == 5);

    GSVD_CHECK_RC(gsvd_project_map_identity(GSVD_ARRAY_LEN(ref), inc, &id), GSVD_OK);
    GSVD_CHECK(id.counts.matched == 12 && id.ref[7] == -1 && id.ref[12] == 12 && !id.flip[1]);

    GSVD_CHECK(strcmp(gsvd_shrinkage_name(GSVD_SHRINK_AP), "ap") == 0);
    GSVD_CHECK(strcmp(gsvd_shrinkage_name(GSVD_SHRINK_OADP), "oadp") == 0);
    gsvd_project_map_free(&m);
    gsvd_project_map_free(&id);
    gsvd_variant_ids_free(&r);
    gsvd_variant_ids_free(&t);
    return gsvd_test_report("test_project");
}
