/* zarr/meta_internal.h - for meta*.c only: the JSON helpers (meta_json.c) and fill values
 * (meta_fill.c) the Zarr v2 (meta.c) and v3 (meta_v3.c) metadata parsers share.  cJSON stays
 * out of the public headers; this one may use it.  meta_json.c and meta_fill.c call nothing in
 * meta.c or meta_v3.c (no object-file cycles). */
#ifndef GSVD_ZARR_META_INTERNAL_H
#define GSVD_ZARR_META_INTERNAL_H
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include "common/buf.h"
#include "zarr/meta.h"

#define GSVD_META_MAX_EXACT_INT 9007199254740992.0 /* 2^53: larger JSON integers are inexact */

/* Parse one JSON document json[0, n) (surrounding whitespace allowed).  `lenient`: accept bare
 * NaN / Infinity / -Infinity as null (zarr-python writes them into attributes); then *fixed
 * (when not NULL) receives the text actually parsed (caller frees with gsvd_buf_free), else it
 * stays empty.  Returns GSVD_OK and *out (caller deletes with cJSON_Delete), GSVD_EFORMAT
 * (logged: "where: invalid JSON at byte N") or GSVD_ENOMEM. */
/* (meta_json.c) */
int gsvd_meta_parse_json(const char *json, size_t n, const char *where, int lenient, cJSON **out,
                         struct gsvd_buf *fixed);

/* Value spans [vs[i], ve[i]) of the members of the JSON object text starting at p (ending by e),
 * at most max of them, in text order (which is cJSON's child order).  Returns the count.  Only
 * for text cJSON has accepted. */
size_t gsvd_meta_object_spans(const char *p, const char *e, const char **vs, const char **ve,
                              size_t max);

/* Position of child `item` among the children of `obj`. */
size_t gsvd_meta_child_index(const cJSON *obj, const cJSON *item);

/* The list member `name` of `root` as at most GSVD_MAX_DIMS integers, each >= min_value and
 * <= 2^53, into dims[*ndim].  GSVD_EFORMAT / GSVD_EUNSUPPORTED (logged with where and name). */
int gsvd_meta_parse_dims(const cJSON *root, const char *name, const char *where, uint64_t *dims,
                         size_t *ndim, int min_value);

/* The "fill_value" member of `root` (parsed from json[0, n), which must be that text so 64-bit
 * integers can be re-read exactly) into z->fill / z->has_fill / z->fill_str, for z->dtype.
 * GSVD_EFORMAT (logged) for a value of the wrong type or range; GSVD_ENOMEM. */
int gsvd_meta_parse_fill(struct gsvd_zarray *z, const cJSON *root, const char *json, size_t n,
                         const char *where);

/* (meta_fill.c) Append z's fill value to b as JSON text, as zarr-python 2 writes it (NaN and
 * infinities as strings, bytes as base64, UCS-4 as a string), except strings ('O'): the fill
 * string quoted, "" by default, as bio2zarr and zarr-python 3 write it (zarr-python 2 wrote 0
 * for "").  GSVD_ENOMEM only. */
int gsvd_meta_emit_fill(const struct gsvd_zarray *z, struct gsvd_buf *b);

#endif /* GSVD_ZARR_META_INTERNAL_H */
