/* lib/options.c - the typed setters and the introspection of include/gensvd.h over the option
 * tables of options_table.c.  A value is checked when it is set (the message names the option
 * and what it accepts); what depends on several options is checked by the run. */
#include "gsvd_config.h"
#include "lib/lib_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/parse.h"

/* ---- setting values ----------------------------------------------------------------------- */

static void *field_of(gensvd_options *opt, const struct lib_opt *o)
{
    return (char *)&opt->u + o->offset;
}

static void store_uint(void *field, size_t size, uint64_t v)
{
    if (size == sizeof(uint64_t)) {
        memcpy(field, &v, sizeof v);
    } else if (size == sizeof(uint32_t)) {
        uint32_t x = (uint32_t)v;
        memcpy(field, &x, sizeof x);
    } else if (size == sizeof(uint16_t)) {
        uint16_t x = (uint16_t)v;
        memcpy(field, &x, sizeof x);
    } else {
        uint8_t x = (uint8_t)v;
        memcpy(field, &x, sizeof x);
    }
}

static uint64_t load_uint(const void *field, size_t size)
{
    uint64_t v64 = 0;
    uint32_t v32 = 0;
    uint16_t v16 = 0;
    uint8_t v8 = 0;
    switch (size) {
    case sizeof(uint64_t):
        memcpy(&v64, field, size);
        return v64;
    case sizeof(uint32_t):
        memcpy(&v32, field, size);
        return v32;
    case sizeof(uint16_t):
        memcpy(&v16, field, size);
        return v16;
    default:
        memcpy(&v8, field, 1);
        return v8;
    }
}

/* What an option accepts, for messages. */
static void accepted(const struct lib_opt *o, char *buf, size_t len)
{
    size_t n = 0;
    if (o->range) {
        snprintf(buf, len, "%s", o->range);
        return;
    }
    switch (o->kind) {
    case LO_UINT:
    case LO_BYTES:
        snprintf(buf, len, "%" PRIu64 " to %" PRIu64, o->lo, o->hi);
        return;
    case LO_DOUBLE:
        snprintf(buf, len, "%g to %g", o->dlo, o->dhi);
        return;
    case LO_FLAG:
        snprintf(buf, len, "0 or 1");
        return;
    case LO_CHOICE:
        buf[0] = '\0';
        for (size_t i = 0; o->choices[i] && n < len; i++)
            n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", o->choices[i]);
        return;
    default:
        snprintf(buf, len, "text");
    }
}

static int bad_value(const gensvd_options *opt, const struct lib_opt *o, const char *value)
{
    char acc[256];
    accepted(o, acc, sizeof acc);
    return lib_fail(GSVD_EINVAL, "%s option '%s': invalid value '%s' (%s)",
                    lib_analysis_name(opt->analysis), o->name, value, acc);
}

static int unknown(const gensvd_options *opt, const char *name)
{
    return lib_fail(GSVD_EINVAL, "%s has no option '%s'", lib_analysis_name(opt->analysis),
                    name ? name : "(null)");
}

static int set_text(gensvd_options *opt, const char *name, const char *value)
{
    const struct lib_opt *o = lib_opt_find(opt, name);
    void *field;
    uint64_t u;
    double d;
    int k;

    if (name && !strcmp(name, LIB_OPTION_COMMAND)) {
        char *copy = value ? gsvd_strdup(value) : NULL;
        if (value && !copy)
            return GSVD_ENOMEM;
        gsvd_free(opt->command);
        opt->command = copy;
        return GSVD_OK;
    }
    if (!o)
        return unknown(opt, name);
    if (!value)
        value = "";
    field = field_of(opt, o);
    switch (o->kind) {
    case LO_UINT:
        if (gsvd_parse_uint(value, o->lo, o->hi, o->si, &u) < 0)
            return bad_value(opt, o, value);
        store_uint(field, o->size, u);
        return GSVD_OK;
    case LO_BYTES:
        if (gsvd_parse_size(value, &u) < 0 || u < o->lo || u > o->hi)
            return bad_value(opt, o, value);
        store_uint(field, o->size, u);
        return GSVD_OK;
    case LO_DOUBLE:
        if (gsvd_parse_double(value, o->dlo, o->dhi, &d) < 0)
            return bad_value(opt, o, value);
        memcpy(field, &d, sizeof d);
        return GSVD_OK;
    case LO_FLAG: {
        static const char *const words[] = {"0", "1", "false", "true", "no", "yes", NULL};
        if ((k = gsvd_parse_choice(value, words)) < 0)
            return bad_value(opt, o, value);
        k %= 2;
        memcpy(field, &k, sizeof k);
        return GSVD_OK;
    }
    case LO_CHOICE:
        if ((k = gsvd_parse_choice(value, o->choices)) < 0)
            return bad_value(opt, o, value);
        memcpy(field, &k, sizeof k);
        return GSVD_OK;
    case LO_CALL:
        return o->parse(value, field) < 0 ? bad_value(opt, o, value) : GSVD_OK;
    case LO_STRING: {
        char *copy = *value ? gsvd_strdup(value) : NULL, *old;
        if (*value && !copy)
            return GSVD_ENOMEM;
        memcpy(&old, field, sizeof old);
        gsvd_free(old);
        memcpy(field, &copy, sizeof copy);
        return GSVD_OK;
    }
    }
    return GSVD_EINTERNAL;
}

int gensvd_options_set_string(gensvd_options *opt, const char *name, const char *value)
{
    const struct gsvd_scope *prev;
    if (!opt)
        return GENSVD_EINVAL;
    prev = lib_begin(opt->ctx);
    return lib_end(opt->ctx, prev, set_text(opt, name, value), "gensvd_options_set_string");
}

static int set_int(gensvd_options *opt, const char *name, int64_t value)
{
    const struct lib_opt *o = lib_opt_find(opt, name);
    char text[32];

    if (!o)
        return name && !strcmp(name, LIB_OPTION_COMMAND)
                   ? lib_fail(GSVD_EINVAL, "option 'command' takes text")
                   : unknown(opt, name);
    snprintf(text, sizeof text, "%lld", (long long)value);
    switch (o->kind) {
    case LO_UINT:
    case LO_BYTES:
        if (value < 0 || (uint64_t)value < o->lo || (uint64_t)value > o->hi)
            return bad_value(opt, o, text);
        store_uint(field_of(opt, o), o->size, (uint64_t)value);
        return GSVD_OK;
    case LO_FLAG:
    case LO_DOUBLE:
    case LO_CALL: /* a number in an option with a text form ("cache", "min-kinship") */
        return set_text(opt, name, text);
    default:
        return lib_fail(GSVD_EINVAL, "%s option '%s' takes text (gensvd_options_set_string)",
                        lib_analysis_name(opt->analysis), o->name);
    }
}

int gensvd_options_set_int(gensvd_options *opt, const char *name, int64_t value)
{
    const struct gsvd_scope *prev;
    if (!opt)
        return GENSVD_EINVAL;
    prev = lib_begin(opt->ctx);
    return lib_end(opt->ctx, prev, set_int(opt, name, value), "gensvd_options_set_int");
}

static int set_double(gensvd_options *opt, const char *name, double value)
{
    const struct lib_opt *o = lib_opt_find(opt, name);
    char text[40];

    if (!o)
        return unknown(opt, name);
    snprintf(text, sizeof text, "%.17g", value);
    if (o->kind == LO_CALL && isfinite(value))
        return set_text(opt, name, text);
    if (o->kind != LO_DOUBLE)
        return lib_fail(GSVD_EINVAL, "%s option '%s' is not a real number (%s)",
                        lib_analysis_name(opt->analysis), o->name,
                        o->kind == LO_UINT || o->kind == LO_BYTES || o->kind == LO_FLAG
                            ? "gensvd_options_set_int"
                            : "gensvd_options_set_string");
    if (!(value >= o->dlo && value <= o->dhi))
        return bad_value(opt, o, text);
    memcpy(field_of(opt, o), &value, sizeof value);
    return GSVD_OK;
}

int gensvd_options_set_double(gensvd_options *opt, const char *name, double value)
{
    const struct gsvd_scope *prev;
    if (!opt)
        return GENSVD_EINVAL;
    prev = lib_begin(opt->ctx);
    return lib_end(opt->ctx, prev, set_double(opt, name, value), "gensvd_options_set_double");
}

static int set_strings(gensvd_options *opt, const char *name, const char *const *items, size_t n)
{
    struct gsvd_strlist l = GSVD_STRLIST_INIT;
    int rc = GSVD_OK;

    if (opt->analysis != GENSVD_PCA || !name || strcmp(name, "fit-samples") != 0)
        return lib_fail(GSVD_EINVAL, "%s has no list option '%s' (the lists: pca's fit-samples)",
                        lib_analysis_name(opt->analysis), name ? name : "(null)");
    for (size_t i = 0; i < n; i++) {
        if (!items || !items[i] || !*items[i]) {
            rc = lib_fail(GSVD_EINVAL, "pca option 'fit-samples': item %zu is empty", i);
            goto out;
        }
        GSVD_TRY(gsvd_strlist_push(&l, items[i]));
    }
    gsvd_strlist_free(&opt->u.pca.fit_ids);
    opt->u.pca.fit_ids = l;
    opt->u.pca.fit_set = n > 0;
    l = (struct gsvd_strlist)GSVD_STRLIST_INIT;
out:
    gsvd_strlist_free(&l);
    return rc;
}

int gensvd_options_set_strings(gensvd_options *opt, const char *name, const char *const *items,
                               size_t n)
{
    const struct gsvd_scope *prev;
    if (!opt)
        return GENSVD_EINVAL;
    prev = lib_begin(opt->ctx);
    return lib_end(opt->ctx, prev, set_strings(opt, name, items, n), "gensvd_options_set_strings");
}

/* ---- introspection ------------------------------------------------------------------------ */

const char *gensvd_options_name(const gensvd_options *opt, size_t i)
{
    if (!opt)
        return NULL;
    if (i < opt->n_table)
        return opt->table[i].name;
    return i == opt->n_table ? LIB_OPTION_COMMAND : NULL;
}

int gensvd_options_type(const gensvd_options *opt, const char *name)
{
    const struct lib_opt *o;
    if (!opt || !name)
        return GENSVD_EINVAL;
    if (!strcmp(name, LIB_OPTION_COMMAND))
        return GENSVD_OPTION_STRING;
    if (!(o = lib_opt_find(opt, name)))
        return GENSVD_EINVAL;
    switch (o->kind) {
    case LO_UINT:
    case LO_BYTES:
        return GENSVD_OPTION_INT;
    case LO_DOUBLE:
        return GENSVD_OPTION_DOUBLE;
    case LO_FLAG:
        return GENSVD_OPTION_FLAG;
    default:
        return GENSVD_OPTION_STRING;
    }
}

const char *gensvd_options_value(gensvd_options *opt, const char *name)
{
    const struct lib_opt *o;
    const void *field;
    char *s;
    double d;
    int k;

    if (!opt || !name)
        return NULL;
    if (!strcmp(name, LIB_OPTION_COMMAND))
        return opt->command ? opt->command : "";
    if (!(o = lib_opt_find(opt, name)))
        return NULL;
    field = (const char *)&opt->u + o->offset;
    switch (o->kind) {
    case LO_UINT:
    case LO_BYTES:
        snprintf(opt->value, sizeof opt->value, "%" PRIu64, load_uint(field, o->size));
        break;
    case LO_DOUBLE:
        memcpy(&d, field, sizeof d);
        snprintf(opt->value, sizeof opt->value, "%.17g", d);
        break;
    case LO_FLAG:
    case LO_CHOICE:
        memcpy(&k, field, sizeof k);
        snprintf(opt->value, sizeof opt->value, "%s",
                 o->kind == LO_FLAG ? (k ? "1" : "0") : o->choices[k]);
        break;
    case LO_CALL:
        o->format(field, opt->value, sizeof opt->value);
        break;
    case LO_STRING:
        memcpy(&s, field, sizeof s);
        snprintf(opt->value, sizeof opt->value, "%s", s ? s : "");
        break;
    }
    return opt->value;
}

int gensvd_options_set_pcs(gensvd_options *opt, const gensvd_result *pcs)
{
    const struct gsvd_scope *prev;
    int rc = GSVD_OK;
    if (!opt)
        return GENSVD_EINVAL;
    prev = lib_begin(opt->ctx);
    if (opt->analysis != GENSVD_PROJECT)
        rc = lib_fail(GSVD_EINVAL, "gensvd_options_set_pcs: the options are not GENSVD_PROJECT's");
    else if (pcs && (pcs->analysis != GENSVD_PCA || !pcs->model))
        rc = lib_fail(GSVD_EINVAL, "gensvd_options_set_pcs: not a GENSVD_PCA result with "
                                   "loadings (option \"loadings\")");
    else
        opt->pcs_result = pcs;
    return lib_end(opt->ctx, prev, rc, "gensvd_options_set_pcs");
}

int gensvd_options_set_rows_callback(gensvd_options *opt, gensvd_rows_fn fn, void *user)
{
    const struct gsvd_scope *prev;
    int rc = GSVD_OK;
    if (!opt)
        return GENSVD_EINVAL;
    prev = lib_begin(opt->ctx);
    if (opt->analysis != GENSVD_PDIST)
        rc = lib_fail(GSVD_EINVAL,
                      "gensvd_options_set_rows_callback: the options are not GENSVD_PDIST's");
    else
        opt->rows_fn = fn, opt->rows_user = user;
    return lib_end(opt->ctx, prev, rc, "gensvd_options_set_rows_callback");
}

/* The callbacks' setters: GSVD_OK for GENSVD_PDIST's options (inside the call). */
static int pdist_only(const gensvd_options *opt, const char *what)
{
    return opt->analysis == GENSVD_PDIST
               ? GSVD_OK
               : lib_fail(GSVD_EINVAL, "%s: the options are not GENSVD_PDIST's", what);
}

int gensvd_options_set_items_callback(gensvd_options *opt, gensvd_items_fn fn, void *user)
{
    const char *what = "gensvd_options_set_items_callback";
    const struct gsvd_scope *prev;
    int rc;
    if (!opt)
        return GENSVD_EINVAL;
    prev = lib_begin(opt->ctx);
    if ((rc = pdist_only(opt, what)) == GSVD_OK)
        opt->items_fn = fn, opt->items_user = user;
    return lib_end(opt->ctx, prev, rc, what);
}

int gensvd_options_set_matrix_callback(gensvd_options *opt, gensvd_rows_fn fn, void *user)
{
    const char *what = "gensvd_options_set_matrix_callback";
    const struct gsvd_scope *prev;
    int rc;
    if (!opt)
        return GENSVD_EINVAL;
    prev = lib_begin(opt->ctx);
    if ((rc = pdist_only(opt, what)) == GSVD_OK)
        opt->matrix_fn = fn, opt->matrix_user = user;
    return lib_end(opt->ctx, prev, rc, what);
}

int gensvd_options_set_pairs_callback(gensvd_options *opt, gensvd_pairs_fn fn, void *user)
{
    const char *what = "gensvd_options_set_pairs_callback";
    const struct gsvd_scope *prev;
    int rc;
    if (!opt)
        return GENSVD_EINVAL;
    prev = lib_begin(opt->ctx);
    if ((rc = pdist_only(opt, what)) == GSVD_OK)
        opt->pairs_fn = fn, opt->pairs_user = user;
    return lib_end(opt->ctx, prev, rc, what);
}
