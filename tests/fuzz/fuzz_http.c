/* tests/fuzz/fuzz_http.c - libFuzzer target for HTTP response handling (zarr/store_http.c).
 * A server thread on 127.0.0.1 answers every connection with the input, byte for byte, as the
 * raw response (status line, headers such as Content-Length, Retry-After and Transfer-Encoding,
 * and a body, an XML error with <Code> included), then closes.  The input drives a GET (one
 * retry, backoff capped at 2 ms so a Retry-After is honoured but short) and a HEAD/size through
 * a real http:// store: libcurl parses the response, gensvd maps status and transport results
 * to error codes, bounds and buffers the body and pulls the <Code> out of error bodies.  Any
 * return code is fine; a crash, leak, sanitizer report or a success whose body differs from
 * what was served with a Content-Length is not.  Without libcurl the target runs nothing.
 * Built with standalone.c when libFuzzer is not available. */
#include "gsvd_config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/store.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#if GSVD_HAVE_CURL
#include <pthread.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

static int listen_fd = -1;
static char base_url[64];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned char *response; /* the current input; guarded by mu */
static size_t response_len;

/* Read the request head (up to the blank line, bounded), then send the response and close. */
static void serve(int fd)
{
    char req[8192];
    size_t got = 0;
    struct timeval tv = {2, 0};

    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    while (got < sizeof req - 1) {
        ssize_t n = recv(fd, req + got, sizeof req - 1 - got, 0);
        if (n <= 0)
            break;
        got += (size_t)n;
        req[got] = '\0';
        if (strstr(req, "\r\n\r\n"))
            break;
    }
    pthread_mutex_lock(&mu);
    for (size_t off = 0; off < response_len;) {
        ssize_t n = send(fd, response + off, response_len - off, MSG_NOSIGNAL);
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    pthread_mutex_unlock(&mu);
    shutdown(fd, SHUT_WR); /* the request head was read whole: closing sends FIN, not RST */
    close(fd);
}

static void *server(void *arg)
{
    (void)arg;
    for (;;) {
        int fd = accept(listen_fd, NULL, NULL);
        if (fd >= 0)
            serve(fd);
    }
    return NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    struct sockaddr_in a;
    socklen_t alen = sizeof a;
    struct gsvd_remote_params p = GSVD_REMOTE_PARAMS_DEFAULT;
    pthread_t th;

    (void)argc;
    (void)argv;
    gsvd_log_set_level(GSVD_LOG_OFF); /* every rejected response would log */
    if (gsvd_store_global_init() != GSVD_OK)
        __builtin_trap();
    p.concurrency = 1;
    p.retries = 1;
    p.retry_base_ms = 1;
    p.retry_cap_ms = 2;
    p.timeout_s = 2;
    p.connect_timeout_s = 2;
    gsvd_store_set_remote(&p);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    if (listen_fd < 0 || bind(listen_fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        listen(listen_fd, 16) != 0 || getsockname(listen_fd, (struct sockaddr *)&a, &alen) != 0)
        __builtin_trap();
    snprintf(base_url, sizeof base_url, "http://127.0.0.1:%u/z", (unsigned)ntohs(a.sin_port));
    if (pthread_create(&th, NULL, server, NULL) != 0)
        __builtin_trap();
    pthread_detach(th);
    return 0;
}

/* The body length promised by a response whose head is exactly "HTTP/1.1 200 OK", CRLF,
 * "Content-Length: N" (name in any case, N the length of the rest), CRLF CRLF; else -1. */
static long promised_length(const uint8_t *d, size_t n)
{
    static const char status[] = "HTTP/1.1 200 OK\r\n", name[] = "content-length: ";
    size_t i = sizeof status - 1, j;
    long len = 0;

    if (n < i || memcmp(d, status, i) != 0)
        return -1;
    for (j = 0; j < sizeof name - 1; j++, i++)
        if (i >= n || (d[i] >= 'A' && d[i] <= 'Z' ? d[i] | 0x20 : d[i]) != (uint8_t)name[j])
            return -1;
    for (j = i; i < n && d[i] >= '0' && d[i] <= '9' && i - j < 6; i++)
        len = len * 10 + (d[i] - '0');
    if (i == j || n - i < 4 || memcmp(d + i, "\r\n\r\n", 4) != 0 || (size_t)len != n - i - 4)
        return -1;
    return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gsvd_buf body = GSVD_BUF_INIT;
    gsvd_store *st = NULL;
    uint64_t sz = 0;
    long want;
    int rc;

    pthread_mutex_lock(&mu);
    response = (unsigned char *)gsvd_malloc(size ? size : 1);
    if (response && size)
        memcpy(response, data, size);
    response_len = response ? size : 0;
    pthread_mutex_unlock(&mu);
    if (gsvd_store_open(base_url, GSVD_STORE_READ, &st) != GSVD_OK)
        __builtin_trap(); /* a read-only http store opens without a request */
    rc = gsvd_store_get(st, "k/.zarray", &body);
    want = promised_length(data, size);
    if (want >= 0 && (rc != GSVD_OK || body.len != (size_t)want ||
                      (want && memcmp(body.data, data + size - want, (size_t)want) != 0)))
        __builtin_trap(); /* a plain 200 with a Content-Length must give exactly its body */
    (void)!gsvd_store_size(st, "k/0.0", &sz);
    gsvd_store_close(st);
    gsvd_buf_free(&body);
    pthread_mutex_lock(&mu);
    gsvd_free(response);
    response = NULL;
    response_len = 0;
    pthread_mutex_unlock(&mu);
    return 0;
}

#else /* !GSVD_HAVE_CURL */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)data;
    (void)size;
    return 0;
}
#endif
