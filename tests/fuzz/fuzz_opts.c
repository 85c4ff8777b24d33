/* tests/fuzz/fuzz_opts.c - libFuzzer target for the option driver (cli/opts.c) over the real
 * option table of every command (cli/cli_base.h: gsvd_cmd_*_spec).
 * Input: byte 0 picks the command (data[0] % 9); the rest is split at NUL bytes into at most
 * 64 argv words after the command name.  A word that starts with 0x01 becomes "--NAME" of
 * option data[1] (of the command's options in table order), 0x02 "-K" of its short key, 0x03
 * "--NAME=" followed by the rest of the word, so that every option is one byte away; other
 * words are taken as they are.
 * The options struct is allocated at exactly the table's opts_size (ASan sees a store past it)
 * and parsed twice, each time from a fresh copy of argv.  Checks:
 *   - the result is 0, GSVD_OPTS_HELP or GSVD_EXIT_USAGE, the same both times, with the same
 *     stored bytes and the same first operand index;
 *   - 0: 1 <= first <= argc and nothing on stderr;
 *   - GSVD_EXIT_USAGE: one message on stderr that starts "gensvd CMD: " and ends with the
 *     "Try 'gensvd CMD --help'." line; nothing on stdout;
 *   - GSVD_OPTS_HELP: the help (or the --help-spec listing) on stdout, nothing on stderr.
 * stdout and stderr are captured by pointing the `stdout` and `stderr` streams at memory
 * streams during the parse (glibc; elsewhere the outputs are not checked).
 * Built with standalone.c when libFuzzer is not available. */
#define _GNU_SOURCE /* open_memstream */
#include "gsvd_config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_base.h"
#include "cli/opts.h"

#define MAX_WORDS 64

/* The backend registry (analysis/backend.h) comes with the commands, from lib/ (the ported
 * ones run through include/gensvd.h); nothing here runs a backend. */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct gsvd_cmd_spec *const specs[] = {
    &gsvd_cmd_pca_spec,     &gsvd_cmd_pdist_spec,    &gsvd_cmd_related_spec,
    &gsvd_cmd_project_spec, &gsvd_cmd_plot_spec,     &gsvd_cmd_info_spec,
    &gsvd_cmd_dump_spec,    &gsvd_cmd_simulate_spec, &gsvd_cmd_ldprune_spec,
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

/* The k-th option of the command in table order (k taken modulo their number). */
static const struct gsvd_opt *nth_opt(const struct gsvd_cmd_spec *s, size_t k)
{
    size_t n = 0;
    for (size_t g = 0; g < s->n_groups; g++)
        n += s->groups[g].group->n;
    k %= n;
    for (size_t g = 0; g < s->n_groups; g++) {
        if (k < s->groups[g].group->n)
            return &s->groups[g].group->opts[k];
        k -= s->groups[g].group->n;
    }
    return NULL;
}

/* One word of the input (w[0..n)) as an argv string; malloc'd, NULL when out of memory. */
static char *make_word(const struct gsvd_cmd_spec *s, const uint8_t *w, size_t n)
{
    const struct gsvd_opt *o = n >= 2 && w[0] >= 1 && w[0] <= 3 ? nth_opt(s, w[1]) : NULL;
    size_t cap = n + 64;
    char *out = malloc(cap);

    if (!out)
        return NULL;
    if (o && w[0] == 1)
        snprintf(out, cap, "--%s", o->name);
    else if (o && w[0] == 2)
        snprintf(out, cap, "-%c", o->key ? o->key : '?');
    else if (o && w[0] == 3)
        snprintf(out, cap, "--%s=%.*s", o->name, (int)(n - 2), (const char *)w + 2);
    else
        snprintf(out, cap, "%.*s", (int)n, (const char *)w);
    return out;
}

struct outcome {
    int rc, first;
    unsigned char *opts;
    char *out, *err; /* captured stdout, stderr (NULL when not captured) */
    size_t out_len, err_len;
};

/* Parse argv (copied: getopt_long permutes it) into a fresh options struct. */
static void parse_once(const struct gsvd_cmd_spec *s, int argc, char **words, struct outcome *r)
{
    char **argv = calloc((size_t)argc + 1, sizeof *argv);

    memset(r, 0, sizeof *r);
    r->opts = calloc(1, s->opts_size ? s->opts_size : 1);
    if (!argv || !r->opts)
        abort(); /* the harness, not the code under test */
    memcpy(argv, words, (size_t)argc * sizeof *argv);
#ifdef __GLIBC__
    FILE *saved_out = stdout, *saved_err = stderr;
    FILE *mout = open_memstream(&r->out, &r->out_len);
    FILE *merr = open_memstream(&r->err, &r->err_len);
    if (!mout || !merr)
        abort();
    stdout = mout;
    stderr = merr;
#endif
    r->rc = gsvd_opts_parse(s, argc, argv, r->opts, &r->first);
#ifdef __GLIBC__
    stdout = saved_out;
    stderr = saved_err;
    fclose(mout);
    fclose(merr);
#endif
    free(argv);
}

static void check(const struct gsvd_cmd_spec *s, int argc, const struct outcome *a,
                  const struct outcome *b)
{
    char head[64], tail[64];

    if (a->rc != 0 && a->rc != GSVD_OPTS_HELP && a->rc != GSVD_EXIT_USAGE)
        __builtin_trap();
    if (a->rc != b->rc || a->first != b->first || memcmp(a->opts, b->opts, s->opts_size) != 0)
        __builtin_trap(); /* a second parse in the same process must not differ */
    if (a->rc == 0 && (a->first < 1 || a->first > argc))
        __builtin_trap();
    if (!a->out || !a->err)
        return; /* not captured */
    if ((a->rc == 0 || a->rc == GSVD_OPTS_HELP) && a->err_len != 0)
        __builtin_trap();
    if (a->rc == GSVD_OPTS_HELP && a->out_len == 0)
        __builtin_trap();
    if (a->rc == GSVD_EXIT_USAGE) {
        size_t h = (size_t)snprintf(head, sizeof head, "gensvd %s: ", s->name);
        size_t t = (size_t)snprintf(tail, sizeof tail, "\nTry 'gensvd %s --help'.\n", s->name);
        if (a->out_len != 0 || a->err_len < h + t || memcmp(a->err, head, h) != 0 ||
            memcmp(a->err + a->err_len - t, tail, t) != 0)
            __builtin_trap();
    }
}

static void release(struct outcome *r)
{
    free(r->opts);
    free(r->out);
    free(r->err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct gsvd_cmd_spec *s;
    char *words[MAX_WORDS + 1];
    int argc = 1;
    struct outcome a, b;

    if (size < 1)
        return 0;
    s = specs[data[0] % (sizeof specs / sizeof specs[0])];
    words[0] = strdup(s->name);
    if (!words[0])
        abort();
    for (size_t at = 1; at < size && argc <= MAX_WORDS;) {
        const uint8_t *end = memchr(data + at, 0, size - at);
        size_t n = end ? (size_t)(end - (data + at)) : size - at;
        if (!(words[argc] = make_word(s, data + at, n)))
            abort();
        argc++;
        at += n + 1;
    }
    parse_once(s, argc, words, &a);
    parse_once(s, argc, words, &b);
    check(s, argc, &a, &b);
    release(&a);
    release(&b);
    for (int i = 0; i < argc; i++)
        free(words[i]);
    return 0;
}
