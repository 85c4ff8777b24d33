/* common/cleanup.c - the registry behind common/cleanup.h: a growable array of callbacks under
 * one mutex.  Removal takes the same mutex, so a callback never runs on an object whose owner
 * has already unregistered it and moved on to free it. */
#include "gsvd_config.h"
#include "common/cleanup.h"

#include <pthread.h>
#include <stddef.h>

#include "common/alloc.h"
#include "common/err.h"

struct entry {
    gsvd_cleanup_fn fn;
    void *arg;
    int token; /* 0: free slot */
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct entry *entries; /* owned; n_entries used slots */
static size_t n_entries, cap_entries;
static int next_token = 1;

/* Register under the held mutex; the token or GSVD_ENOMEM. */
static int add_locked(gsvd_cleanup_fn fn, void *arg)
{
    int token;

    if (gsvd_grow(&entries, &cap_entries, n_entries + 1, sizeof *entries, 8) < 0)
        return GSVD_ENOMEM;
    token = next_token++;
    if (next_token <= 0)
        next_token = 1; /* 2^31 registrations: tokens of long-removed entries come back */
    entries[n_entries++] = (struct entry){fn, arg, token};
    return token;
}

int gsvd_cleanup_add(gsvd_cleanup_fn fn, void *arg)
{
    int token;

    pthread_mutex_lock(&mu);
    token = add_locked(fn, arg);
    pthread_mutex_unlock(&mu);
    return token;
}

int gsvd_cleanup_add_made(int (*make)(void *make_arg), void *make_arg, gsvd_cleanup_fn fn,
                          void *arg)
{
    int rc;

    pthread_mutex_lock(&mu);
    rc = make(make_arg);
    if (rc >= 0)
        rc = add_locked(fn, arg);
    pthread_mutex_unlock(&mu);
    return rc;
}

/* Unregister under the held mutex. */
static void remove_locked(int token)
{
    for (size_t i = 0; i < n_entries; i++) {
        if (entries[i].token == token) {
            entries[i] = entries[--n_entries];
            break;
        }
    }
    if (n_entries == 0) {
        gsvd_free(entries); /* nothing left: no allocation outlives the last output */
        entries = NULL;
        cap_entries = 0;
    }
}

void gsvd_cleanup_remove(int token)
{
    if (token <= 0)
        return;
    pthread_mutex_lock(&mu);
    remove_locked(token);
    pthread_mutex_unlock(&mu);
}

void gsvd_cleanup_remove_undone(int token, void (*undo)(void *undo_arg), void *undo_arg)
{
    pthread_mutex_lock(&mu);
    undo(undo_arg);
    if (token > 0)
        remove_locked(token);
    pthread_mutex_unlock(&mu);
}

size_t gsvd_cleanup_run_and_hold(void)
{
    size_t n;

    pthread_mutex_lock(&mu);
    n = n_entries;
    for (size_t i = n_entries; i > 0; i--)
        entries[i - 1].fn(entries[i - 1].arg);
    n_entries = 0; /* the mutex stays locked: the caller exits next */
    return n;
}
