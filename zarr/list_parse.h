/* zarr/list_parse.h - parsers of object-store listing pages: S3 ListObjectsV2 XML and the GCS
 * JSON API objects.list response.  Used by store_s3.c and store_gcs.c to list a "directory"
 * (a delimiter listing) of a store without consolidated metadata; kept apart from libcurl so the
 * unit test and the fuzz target drive them directly.
 *
 * Every page is hostile input: sizes are bounded (a name or token of more than
 * GSVD_LIST_MAX_VALUE bytes, more than GSVD_LIST_MAX_ENTRIES entries, or elements nested deeper
 * than 16 are GSVD_EFORMAT), XML entities are decoded (the five named ones and numeric character
 * references; a DOCTYPE, an entity declaration, CDATA or an unknown entity is refused), and a
 * name that is not under the requested prefix is an error, not a silent surprise.
 * Thread safety: calls share no state. */
#ifndef GSVD_ZARR_LIST_PARSE_H
#define GSVD_ZARR_LIST_PARSE_H
#include <stddef.h>
#include "common/buf.h"
#include "common/gsvd_defs.h"

#define GSVD_LIST_MAX_VALUE 4096     /* bytes of one key, prefix or continuation token */
#define GSVD_LIST_MAX_ENTRIES 100000 /* keys plus prefixes on one page */

/* Parse one ListObjectsV2 page (`text`, `len` bytes, borrowed) of a request made with
 * `prefix` (the object-name prefix asked for, "" or ending in '/') and delimiter "/".  The
 * first path component after `prefix` of every CommonPrefixes/Prefix and Contents/Key is
 * appended to `names` (duplicates possible; an entry equal to `prefix` is skipped).
 * *next_token receives the NextContinuationToken when IsTruncated is true (caller owns; free
 * with gsvd_free), else NULL.  `what` names the listing in messages (borrowed).
 * Returns GSVD_OK, GSVD_EFORMAT (logged: not a ListBucketResult, malformed XML, a bound
 * exceeded, a truncated page without a token, a name outside `prefix`) or GSVD_ENOMEM.  On
 * failure *next_token is NULL and `names` may hold part of the page. */
GSVD_NODISCARD int gsvd_list_parse_s3(const char *text, size_t len, const char *prefix,
                                      const char *what, struct gsvd_strlist *names,
                                      char **next_token);

/* The same for one GCS objects.list page (JSON: "prefixes" strings and "items"[].name, and
 * "nextPageToken").  Returns GSVD_OK, GSVD_EFORMAT (logged: not JSON, wrong member types, a
 * bound exceeded, a name outside `prefix`) or GSVD_ENOMEM; *next_token as above. */
GSVD_NODISCARD int gsvd_list_parse_gcs(const char *text, size_t len, const char *prefix,
                                       const char *what, struct gsvd_strlist *names,
                                       char **next_token);

/* Sort `names` and drop duplicates (a listing page may name a key and a prefix alike). */
void gsvd_list_unique(struct gsvd_strlist *names);

/* Entries per listing page to ask for: GENSVD_LIST_MAX_KEYS (1..1000; tests use small pages
 * to exercise continuation), or 0 for the server's default (1000); other values are ignored. */
unsigned gsvd_list_page_size(void);
#endif /* GSVD_ZARR_LIST_PARSE_H */
