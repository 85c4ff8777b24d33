/* cli/opts.c - the option driver (opts.h): getopt_long table from the descriptions, checked
 * storing, errors that name the option, and the grouped --help. */
#include "gsvd_config.h"
#include "cli/opts.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_base.h"

enum { HELP_COLUMN = 25 }; /* help text starts here; longer option columns push it right */

/* The long codes given to getopt_long: above any character, one per option in spec order. */
#define CODE_BASE 0x10000

static size_t n_opts(const struct gsvd_cmd_spec *s)
{
    size_t n = 0;
    for (size_t g = 0; g < s->n_groups; g++)
        n += s->groups[g].group->n;
    return n;
}

/* The option with getopt code `code` (its group's base in *base), or NULL. */
static const struct gsvd_opt *by_code(const struct gsvd_cmd_spec *s, int code, size_t *base)
{
    size_t k = 0;
    for (size_t g = 0; g < s->n_groups; g++) {
        const struct gsvd_opt_group *grp = s->groups[g].group;
        for (size_t i = 0; i < grp->n; i++, k++) {
            const struct gsvd_opt *o = &grp->opts[i];
            if ((code >= CODE_BASE && (size_t)(code - CODE_BASE) == k) ||
                (code < CODE_BASE && o->key && o->key == code)) {
                *base = s->groups[g].base;
                return o;
            }
        }
    }
    return NULL;
}

static void store_uint(void *field, size_t size, uint64_t v)
{
    switch (size) {
    case 1: {
        uint8_t x = (uint8_t)v;
        memcpy(field, &x, 1);
        break;
    }
    case 2: {
        uint16_t x = (uint16_t)v;
        memcpy(field, &x, 2);
        break;
    }
    case 4: {
        uint32_t x = (uint32_t)v;
        memcpy(field, &x, 4);
        break;
    }
    default:
        memcpy(field, &v, sizeof v);
        break;
    }
}

/* The largest value an unsigned field of `size` bytes holds. */
static uint64_t field_max(size_t size)
{
    return size >= 8 ? UINT64_MAX : ((uint64_t)1 << (8 * size)) - 1;
}

/* "invalid --name 'arg' (range)" with the range from the description. */
static int invalid(const char *cmd, const struct gsvd_opt *o, const char *arg)
{
    char range[256];

    if (o->range) {
        snprintf(range, sizeof range, "%s", o->range);
    } else if (o->type == GSVD_OPT_CHOICE) {
        size_t at = 0;
        range[0] = '\0';
        for (size_t i = 0; o->choices[i] && at < sizeof range; i++)
            at += (size_t)snprintf(range + at, sizeof range - at, "%s%s", i ? ", " : "",
                                   o->choices[i]);
    } else if (o->type == GSVD_OPT_DOUBLE) {
        snprintf(range, sizeof range, "%g to %g", o->dlo, o->dhi);
    } else {
        snprintf(range, sizeof range, "%llu to %llu", (unsigned long long)o->lo,
                 (unsigned long long)o->hi);
    }
    return gsvd_cli_usage_error(cmd, "invalid --%s '%s' (%s)", o->name, arg, range);
}

/* Store one option's value into its field; 0 or GSVD_EXIT_USAGE (reported). */
static int apply(const char *cmd, const struct gsvd_opt *o, const char *arg, char *field)
{
    uint64_t u;
    double d;
    int i;

    switch (o->type) {
    case GSVD_OPT_FLAG:
        memcpy(field, &o->value, sizeof(int));
        return 0;
    case GSVD_OPT_COUNT:
        memcpy(&i, field, sizeof i);
        i += o->value;
        memcpy(field, &i, sizeof i);
        return 0;
    case GSVD_OPT_UINT: {
        uint64_t hi = o->hi < field_max(o->size) ? o->hi : field_max(o->size);
        if (gsvd_cli_parse_uint(arg, o->lo, hi, (o->flags & GSVD_OPTF_SI) != 0, &u) < 0)
            return invalid(cmd, o, arg);
        store_uint(field, o->size, u);
        return 0;
    }
    case GSVD_OPT_BYTES:
        if (gsvd_cli_parse_size(arg, &u) < 0 || u < o->lo || (o->hi && u > o->hi))
            return invalid(cmd, o, arg);
        memcpy(field, &u, sizeof u);
        return 0;
    case GSVD_OPT_DOUBLE:
        if (gsvd_cli_parse_double(arg, o->dlo, o->dhi, &d) < 0)
            return invalid(cmd, o, arg);
        memcpy(field, &d, sizeof d);
        return 0;
    case GSVD_OPT_STRING:
        if ((o->flags & GSVD_OPTF_NONEMPTY) && !*arg)
            return gsvd_cli_usage_error(cmd, "invalid --%s '' (%s)", o->name,
                                        o->range ? o->range : "a non-empty value");
        memcpy(field, &arg, sizeof arg);
        return 0;
    case GSVD_OPT_CHOICE:
        i = gsvd_cli_parse_choice(arg, o->choices);
        if (i < 0)
            return invalid(cmd, o, arg);
        memcpy(field, &i, sizeof i);
        return 0;
    case GSVD_OPT_CALL:
        return o->parse(cmd, arg, field);
    case GSVD_OPT_HELP:
        return 0;
    }
    return GSVD_EXIT_INTERNAL;
}

/* The offending word of a getopt error: "-x" for a short option (also inside a bundle such
 * as -vx), else the argument as the user wrote it ("--bogus"). */
static const char *bad_word(char **argv, int argc, int code)
{
    static char shortopt[3] = "-?";

    if (code > 0 && code < CODE_BASE) {
        shortopt[1] = (char)code;
        return shortopt;
    }
    return optind > 0 && optind <= argc ? argv[optind - 1] : "";
}

/* "invalid option '--X'": for a long option, the options it abbreviates when it is ambiguous
 * (getopt_long takes unique prefixes), else the nearest when it is a slip of one. */
static int unknown_option(const struct gsvd_cmd_spec *s, const char *word)
{
    size_t n = n_opts(s), k = 0, len, n_prefix = 0, at = 0;
    const char **names = calloc(n ? n : 1, sizeof *names);
    char hint[256] = "", name[64];
    int rc;

    if (strncmp(word, "--", 2) != 0 || !names || !word[2]) {
        free(names);
        return gsvd_cli_usage_error(s->name, "invalid option '%s'", word);
    }
    len = strcspn(word + 2, "=");
    snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), word + 2);
    for (size_t g = 0; g < s->n_groups; g++)
        for (size_t i = 0; i < s->groups[g].group->n; i++)
            names[k++] = s->groups[g].group->opts[i].name;
    for (size_t i = 0; i < n; i++)
        if (strncmp(names[i], name, strlen(name)) == 0 && at < sizeof hint)
            at += (size_t)snprintf(hint + at, sizeof hint - at, "%s--%s", n_prefix++ ? ", " : "",
                                   names[i]);
    if (n_prefix > 1) {
        rc = gsvd_cli_usage_error(s->name, "ambiguous option '--%s' (%s)", name, hint);
    } else {
        gsvd_cli_nearest(name, names, n, "--", "", hint, sizeof hint);
        rc = gsvd_cli_usage_error(s->name, "invalid option '%s'%s", word, hint);
    }
    free(names);
    return rc;
}

int gsvd_opts_parse(const struct gsvd_cmd_spec *s, int argc, char **argv, void *target, int *first)
{
    size_t n = n_opts(s), k = 0, at = 1;
    struct option *lo = calloc(n + 1, sizeof *lo);
    char *shorts = malloc(2 * n + 3);
    int rc = 0, c;

    if (argc == 2 && strcmp(argv[1], GSVD_OPTS_SPEC_ARG) == 0) {
        gsvd_opts_spec(s, stdout);
        rc = GSVD_OPTS_HELP;
        *first = argc;
        goto out;
    }
    if (!lo || !shorts) {
        rc = gsvd_cli_usage_error(s->name, "out of memory");
        goto out;
    }
    shorts[0] = ':'; /* a missing argument is told apart from an unknown option */
    for (size_t g = 0; g < s->n_groups; g++) {
        const struct gsvd_opt_group *grp = s->groups[g].group;
        for (size_t i = 0; i < grp->n; i++, k++) {
            const struct gsvd_opt *o = &grp->opts[i];
            lo[k].name = o->name;
            lo[k].has_arg = o->arg ? required_argument : no_argument;
            lo[k].flag = NULL;
            lo[k].val = CODE_BASE + (int)k;
            if (o->key) {
                shorts[at++] = (char)o->key;
                if (o->arg)
                    shorts[at++] = ':';
            }
        }
    }
    shorts[at] = '\0';
    /* 0, not 1: glibc then resets all of getopt's state, including the position inside a
     * bundle of short options where an earlier parse stopped (with 1 a second parse in the
     * same process went on from the old argv: fuzz_opts) */
    optind = 0;
    opterr = 0;
    while (rc == 0 && (c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
        size_t base = 0;
        const struct gsvd_opt *o;
        if (c == '?') {
            rc = unknown_option(s, bad_word(argv, argc, optopt));
            break;
        }
        if (c == ':') {
            o = by_code(s, optopt, &base);
            rc = gsvd_cli_usage_error(s->name, "option '--%s' needs an argument (%s)",
                                      o ? o->name : bad_word(argv, argc, optopt),
                                      o && o->arg ? o->arg : "a value");
            break;
        }
        o = by_code(s, c, &base);
        if (!o) {
            rc = GSVD_EXIT_INTERNAL;
            break;
        }
        if (o->type == GSVD_OPT_HELP) {
            gsvd_opts_help(s, stdout);
            rc = GSVD_OPTS_HELP;
            break;
        }
        rc = apply(s->name, o, o->arg ? optarg : NULL, (char *)target + base + o->offset);
    }
    *first = optind;
out:
    free(lo);
    free(shorts);
    return rc;
}

/* One option's help: "  -k, --components INT" padded to HELP_COLUMN, the text, continuation
 * lines indented to the same column. */
static void help_line(const struct gsvd_opt *o, FILE *fp)
{
    int w;
    const char *t = o->help, *nl;

    if (o->key)
        w = fprintf(fp, "  -%c, --%s%s%s", o->key, o->name, o->arg ? " " : "",
                    o->arg ? o->arg : "");
    else
        w = fprintf(fp, "      --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
    fprintf(fp, "%*s", w < HELP_COLUMN - 1 ? HELP_COLUMN - w : 2, "");
    while ((nl = strchr(t, '\n')) != NULL) {
        fprintf(fp, "%.*s\n%*s", (int)(nl - t), t, HELP_COLUMN, "");
        t = nl + 1;
    }
    fprintf(fp, "%s\n", t);
}

void gsvd_opts_help(const struct gsvd_cmd_spec *s, FILE *fp)
{
    fputs(s->intro, fp);
    for (size_t g = 0; g < s->n_groups; g++) {
        const struct gsvd_opt_group *grp = s->groups[g].group;
        if (grp->title)
            fprintf(fp, "%s\n", grp->title);
        for (size_t i = 0; i < grp->n; i++)
            help_line(&grp->opts[i], fp);
        if (grp->tail)
            fputs(grp->tail, fp);
    }
    if (s->footer)
        fputs(s->footer, fp);
}

static const char *type_name(enum gsvd_opt_type t)
{
    static const char *const names[] = {"?",      "flag",   "count",  "uint", "bytes",
                                        "double", "string", "choice", "call", "help"};
    return (size_t)t < sizeof names / sizeof names[0] ? names[t] : "?";
}

void gsvd_opts_spec(const struct gsvd_cmd_spec *s, FILE *fp)
{
    if (s->words && s->words[0]) {
        fputs("@1\t-\toperand\t-\t", fp);
        for (size_t k = 0; s->words[k]; k++)
            fprintf(fp, "%s%s", k ? " " : "", s->words[k]);
        fputs("\t-\tthe first operand\n", fp);
    }
    for (size_t g = 0; g < s->n_groups; g++) {
        const struct gsvd_opt_group *grp = s->groups[g].group;
        for (size_t i = 0; i < grp->n; i++) {
            const struct gsvd_opt *o = &grp->opts[i];
            if (o->key)
                fprintf(fp, "--%s\t-%c\t%s\t%s\t", o->name, o->key, type_name(o->type),
                        o->arg ? o->arg : "-");
            else
                fprintf(fp, "--%s\t-\t%s\t%s\t", o->name, type_name(o->type),
                        o->arg ? o->arg : "-");
            if (o->choices && o->choices[0])
                for (size_t k = 0; o->choices[k]; k++)
                    fprintf(fp, "%s%s", k ? " " : "", o->choices[k]);
            else
                fputc('-', fp);
            fprintf(fp, "\t%s\t",
                    (o->flags & GSVD_OPTF_FILE)  ? "file"
                    : (o->flags & GSVD_OPTF_DIR) ? "dir"
                                                 : "-");
            for (const char *t = o->help; *t; t++)
                fputc(*t == '\n' || *t == '\t' ? ' ' : *t, fp);
            fputc('\n', fp);
        }
    }
}
