/* test/unit/unit_h1.c — request bytes and the HTTP/1.1 response scanner. Which
 * headers a request carries is unit_request's; here, how HTTP/1.1 writes
 * them.
 *
 * Every scan feeds exact-size heap copies of its pieces, so under ASan any
 * read past what a feed delivered is caught. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "h1.h"
#include "request_base.h"
#include "feed.h"
#include "t.h"

/* ------------------------------------------------------------ requests */

static bool request_is(const struct shb_request *o, const char *want)
{
    size_t len = 0;
    uint8_t *req = h1_build_request(o, &len);
    bool ok = req && len == strlen(want) && memcmp(req, want, len) == 0;
    if (!ok && req)
        printf("  got: %.*s\n", (int)len, (const char *)req);
    free(req);
    return ok;
}

static void test_requests(void)
{
    struct shb_request o = t_request_base();
    T_CHECK("request: default GET has Host, User-Agent, Accept",
            request_is(&o, "GET / HTTP/1.1\r\nHost: example.com:8080\r\nUser-Agent: shb\r\n"
                           "Accept: */*\r\n\r\n"),
            "wrong bytes");

    struct shb_header ct[] = { { "Content-Type", "application/json" } };
    uint8_t body[] = "{\"a\":1}";
    o = t_request_base();
    o.method = "POST";
    o.target = "/api";
    o.headers = ct;
    o.nheaders = 1;
    o.body = body;
    o.body_len = 7;
    o.has_body = true;
    T_CHECK("request: POST with body gets Content-Length after user headers",
            request_is(&o, "POST /api HTTP/1.1\r\nHost: example.com:8080\r\nUser-Agent: shb\r\n"
                           "Accept: */*\r\nContent-Type: application/json\r\n"
                           "Content-Length: 7\r\n\r\n{\"a\":1}"),
            "wrong bytes");

    struct shb_header cl[] = { { "content-length", "3" } };
    o = t_request_base();
    o.method = "PUT";
    o.headers = cl;
    o.nheaders = 1;
    o.body = body;
    o.body_len = 3;
    o.has_body = true;
    T_CHECK("request: the body is body_len bytes after the head (the user's Content-Length sent as given)",
            request_is(&o, "PUT / HTTP/1.1\r\nHost: example.com:8080\r\nUser-Agent: shb\r\n"
                           "Accept: */*\r\ncontent-length: 3\r\n\r\n{\"a"),
            "wrong bytes");

    struct shb_header empty[] = { { "X-Empty", "" } };
    o = t_request_base();
    o.headers = empty;
    o.nheaders = 1;
    T_CHECK("request: a header with an empty value is 'Name:' with no space",
            request_is(&o, "GET / HTTP/1.1\r\nHost: example.com:8080\r\nUser-Agent: shb\r\n"
                           "Accept: */*\r\nX-Empty:\r\n\r\n"),
            "wrong bytes");

    o = t_request_base();
    o.target = "/search?q=a%20b&x=1;y=%2F#";
    T_CHECK("request: query string kept verbatim",
            request_is(&o, "GET /search?q=a%20b&x=1;y=%2F# HTTP/1.1\r\nHost: example.com:8080\r\n"
                           "User-Agent: shb\r\nAccept: */*\r\n\r\n"),
            "wrong bytes");
}

/* ------------------------------------------------------------ scan driver */

enum ev_kind { EV_DONE = 1, EV_ERROR, EV_EOF_DONE, EV_EOF_CLEAN, EV_EOF_ERROR, EV_BAD_USED };

struct event {
    int kind;
    unsigned status;
    bool close;
};

#define MAX_EVENTS 32

struct trace {
    struct event ev[MAX_EVENTS];
    int n;
    bool stopped; /* an error ended the stream */
};

static void add_event(struct trace *t, int kind, unsigned status, bool close)
{
    if (t->n < MAX_EVENTS)
        t->ev[t->n] = (struct event){ kind, status, close };
    t->n++;
}

static void feed(struct h1_scanner *s, const uint8_t *src, size_t n, struct trace *t)
{
    if (t->stopped || n == 0)
        return;
    uint8_t *buf = malloc(n); /* exact size: ASan flags any over-read */
    memcpy(buf, src, n);
    const uint8_t *p = buf;
    while (n > 0) {
        size_t used = SIZE_MAX;
        struct h1_response r = { 0, false };
        enum h1_event e = h1_scan(s, p, n, &used, &r);
        if (used > n || (e == H1_NEED_MORE && used != n) || (e == H1_DONE && used == 0)) {
            add_event(t, EV_BAD_USED, 0, false);
            t->stopped = true;
            break;
        }
        if (e == H1_ERROR) {
            add_event(t, EV_ERROR, 0, false);
            t->stopped = true;
            break;
        }
        if (e == H1_NEED_MORE)
            break;
        add_event(t, EV_DONE, r.status, r.close);
        p += used;
        n -= used;
    }
    free(buf);
}

static void feed_eof(struct h1_scanner *s, struct trace *t)
{
    if (t->stopped)
        return;
    struct h1_response r = { 0, false };
    switch (h1_scan_eof(s, &r)) {
    case H1_DONE: add_event(t, EV_EOF_DONE, r.status, r.close); break;
    case H1_NEED_MORE: add_event(t, EV_EOF_CLEAN, 0, false); break;
    case H1_ERROR: add_event(t, EV_EOF_ERROR, 0, false); break;
    }
}

/* Feeds data in pieces of `piece` bytes (the last may be shorter), then EOF. */
static struct trace scan_pieces(const void *data, size_t len, size_t piece, bool head)
{
    struct trace t;
    struct h1_scanner s;
    memset(&t, 0, sizeof t);
    h1_scanner_reset(&s, head);
    for (size_t at = 0; at < len; at += piece)
        feed(&s, (const uint8_t *)data + at, len - at < piece ? len - at : piece, &t);
    feed_eof(&s, &t);
    return t;
}

static struct trace scan_whole(const void *data, size_t len, bool head)
{
    return scan_pieces(data, len, len ? len : 1, head);
}

static bool same_trace(const struct trace *a, const struct trace *b)
{
    if (a->n != b->n)
        return false;
    for (int i = 0; i < a->n && i < MAX_EVENTS; i++)
        if (a->ev[i].kind != b->ev[i].kind || a->ev[i].status != b->ev[i].status ||
            a->ev[i].close != b->ev[i].close)
            return false;
    return true;
}

static const char *trace_str(const struct trace *t)
{
    static char out[512];
    size_t o = 0;
    out[0] = 0;
    for (int i = 0; i < t->n && i < MAX_EVENTS && o < sizeof out - 32; i++) {
        const struct event *e = &t->ev[i];
        switch (e->kind) {
        case EV_DONE: o += (size_t)snprintf(out + o, sizeof out - o, "%u%s ", e->status, e->close ? "c" : ""); break;
        case EV_EOF_DONE: o += (size_t)snprintf(out + o, sizeof out - o, "eof:%u%s ", e->status, e->close ? "c" : ""); break;
        case EV_ERROR: o += (size_t)snprintf(out + o, sizeof out - o, "ERROR "); break;
        case EV_EOF_CLEAN: o += (size_t)snprintf(out + o, sizeof out - o, "eof:clean "); break;
        case EV_EOF_ERROR: o += (size_t)snprintf(out + o, sizeof out - o, "eof:ERROR "); break;
        default: o += (size_t)snprintf(out + o, sizeof out - o, "BAD-USED "); break;
        }
    }
    return out;
}

/* Expected traces are written as text in trace_str's notation. */
static bool trace_is(const struct trace *t, const char *want)
{
    char got[512];
    snprintf(got, sizeof got, "%s", trace_str(t));
    size_t n = strlen(got);
    if (n && got[n - 1] == ' ')
        got[n - 1] = 0;
    return strcmp(got, want) == 0;
}

#define S(lit) (lit), (sizeof(lit) - 1)

static void check_scan(const char *name, const char *data, size_t len, bool head, const char *want)
{
    struct trace t = scan_whole(data, len, head);
    T_CHECK(name, trace_is(&t, want), "got '%s', want '%s'", trace_str(&t), want);
}

/* ------------------------------------------------------------ scanner cases */

static void test_scanner_cases(void)
{
    check_scan("scan: Content-Length body",
               S("HTTP/1.1 200 OK\r\nServer: x\r\nContent-Length: 13\r\n\r\nhello, world!"), false,
               "200 eof:clean");
    check_scan("scan: chunked with extensions and trailers",
               S("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                 "5;a=b\r\nhello\r\n7 ; x=\"q;r\" ;y\r\n, world\r\n0;last\r\nX-T: 1\r\nChecksum: 2\r\n\r\n"),
               false, "200 eof:clean");
    check_scan("scan: zero-length chunked body",
               S("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"), false,
               "200 eof:clean");
    check_scan("scan: 100 Continue then 200 reports only 200",
               S("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"),
               false, "200 eof:clean");
    check_scan("scan: 103 Early Hints with headers then 200",
               S("HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\nContent-Length: 99\r\n"
                 "Connection: close\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"),
               false, "200 eof:clean");
    check_scan("scan: 101 Switching Protocols is an error",
               S("HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n"), false, "ERROR");
    check_scan("scan: 204 and 304 with Content-Length have no body",
               S("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n"
                 "HTTP/1.1 304 Not Modified\r\nContent-Length: 7\r\n\r\n"
                 "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx"),
               false, "204 304 200 eof:clean");
    check_scan("scan: HEAD response with Content-Length has no body",
               S("HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\nHTTP/1.1 404 NF\r\n\r\n"), true,
               "200 404 eof:clean");

    const char three[] = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc"
                         "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n"
                         "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
    {
        struct h1_scanner s;
        struct h1_response r;
        size_t used, at = 0, len = sizeof three - 1;
        unsigned got[3] = { 0, 0, 0 };
        int n = 0;
        bool ok = true;
        h1_scanner_reset(&s, false);
        while (at < len && n < 3) {
            if (h1_scan(&s, (const uint8_t *)three + at, len - at, &used, &r) != H1_DONE) {
                ok = false;
                break;
            }
            got[n++] = r.status;
            at += used;
        }
        T_CHECK("scan: three pipelined responses in one buffer",
                ok && n == 3 && at == len && got[0] == 200 && got[1] == 201 && got[2] == 404 &&
                    !h1_scan_started(&s),
                "n=%d at=%zu/%zu statuses %u %u %u", n, at, len, got[0], got[1], got[2]);
    }

    check_scan("scan: Connection: close detected",
               S("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"), false,
               "200c eof:clean");
    check_scan("scan: Connection token list with close",
               S("HTTP/1.1 200 OK\r\nConnection: keep-alive, close\r\nContent-Length: 0\r\n\r\n"),
               false, "200c eof:clean");
    check_scan("scan: HTTP/1.0 without keep-alive closes",
               S("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n"), false, "200c eof:clean");
    check_scan("scan: HTTP/1.0 with Connection: keep-alive persists",
               S("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n"), false,
               "200 eof:clean");
    check_scan("scan: close-delimited body ends at EOF",
               S("HTTP/1.1 200 OK\r\nServer: x\r\n\r\nbody runs until the server closes"), false,
               "eof:200c");
    check_scan("scan: Transfer-Encoding not ending in chunked reads until close",
               S("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\nContent-Length: 3\r\n\r\nabcdef"),
               false, "eof:200c");
    check_scan("scan: Transfer-Encoding chunked overrides Content-Length",
               S("HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: gzip, CHUNKED\r\n\r\n"
                 "3\r\nabc\r\n0\r\n\r\n"),
               false, "200 eof:clean");
    check_scan("scan: EOF mid-body is an error",
               S("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello"), false, "eof:ERROR");
    check_scan("scan: EOF mid-head is an error", S("HTTP/1.1 200 OK\r\nContent-"), false,
               "eof:ERROR");
    check_scan("scan: EOF after a 100 Continue is an error", S("HTTP/1.1 100 Continue\r\n\r\n"),
               false, "eof:ERROR");
    check_scan("scan: EOF between responses is clean",
               S("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx"), false, "200 eof:clean");
    check_scan("scan: EOF with nothing received is clean", S(""), false, "eof:clean");

    check_scan("scan: bad status line", S("HTTP/1.1 2x0 OK\r\n\r\n"), false, "ERROR");
    check_scan("scan: not HTTP", S("SSH-2.0-OpenSSH_9.6\r\n"), false, "ERROR");
    check_scan("scan: HTTP/2.0 status line", S("HTTP/2.0 200 OK\r\n\r\n"), false, "ERROR");
    check_scan("scan: status 600 rejected", S("HTTP/1.1 600 Nope\r\n\r\n"), false, "ERROR");
    check_scan("scan: status line without reason phrase accepted",
               S("HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n"), false, "200 eof:clean");
    check_scan("scan: bad Content-Length",
               S("HTTP/1.1 200 OK\r\nContent-Length: 12a\r\n\r\n"), false, "ERROR");
    check_scan("scan: negative Content-Length",
               S("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n"), false, "ERROR");
    check_scan("scan: empty Content-Length", S("HTTP/1.1 200 OK\r\nContent-Length:  \r\n\r\n"),
               false, "ERROR");
    check_scan("scan: Content-Length overflow",
               S("HTTP/1.1 200 OK\r\nContent-Length: 18446744073709551616\r\n\r\n"), false,
               "ERROR");
    check_scan("scan: conflicting Content-Lengths on two lines",
               S("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd"), false,
               "ERROR");
    check_scan("scan: conflicting Content-Lengths in one list",
               S("HTTP/1.1 200 OK\r\nContent-Length: 3, 4\r\n\r\nabcd"), false, "ERROR");
    check_scan("scan: repeated identical Content-Length accepted",
               S("HTTP/1.1 200 OK\r\nContent-Length: 3, 3\r\ncontent-length: 3\r\n\r\nabc"), false,
               "200 eof:clean");
    check_scan("scan: whitespace before colon on Content-Length rejected",
               S("HTTP/1.1 200 OK\r\nContent-Length : 3\r\n\r\nabc"), false, "ERROR");
    check_scan("scan: bad chunk size",
               S("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nxyz\r\n"), false, "ERROR");
    check_scan("scan: chunk size overflow",
               S("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000000\r\n"), false,
               "ERROR");
    check_scan("scan: largest chunk size accepted (then cut short)",
               S("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0FFFFFFFFFFFFFFFF\r\nab"),
               false, "eof:ERROR");
    check_scan("scan: junk after chunk data",
               S("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n"),
               false, "ERROR");
    check_scan("scan: bare LF line endings",
               S("HTTP/1.1 200 OK\nContent-Type: text/plain\nTransfer-Encoding: chunked\n\n"
                 "3\nabc\n0\nX-T: y\n\nHTTP/1.1 202 Accepted\nContent-Length: 1\n\nz"),
               false, "200 202 eof:clean");
    check_scan("scan: bare CR line endings fail at the status line (RFC 9112 §2.2)",
               S("HTTP/1.1 200 OK\rContent-Length: 2\r\r\nok"), false, "ERROR");
    check_scan("scan: a bare CR inside the reason phrase fails",
               S("HTTP/1.1 200 O\rK\r\nContent-Length: 0\r\n\r\n"), false, "ERROR");
    check_scan("scan: CRLF after an empty reason is fine",
               S("HTTP/1.1 204 \r\n\r\nHTTP/1.1 200\r\nContent-Length: 0\r\n\r\n"), false, "204 200 eof:clean");
    check_scan("scan: odd-case names, spaces around values",
               S("HTTP/1.1 200 OK\r\ncontent-LENGTH: \t 4 \t\r\ncOnNeCtIoN:   CLOSE  \r\n\r\nbody"),
               false, "200c eof:clean");
    check_scan("scan: Content-Type and Cache-Control are not Content-Length",
               S("HTTP/1.1 200 OK\r\nContent-Type: 5\r\nCache-Control: no-cache\r\nConnectionx: close\r\n"
                 "Trailer: x\r\nTE: trailers\r\nContent-Length: 1\r\n\r\nz"),
               false, "200 eof:clean");

    {
        static char big[12000];
        const char *head = "HTTP/1.1 200 OK\r\nX-Filler: ";
        const char *tail = "\r\nContent-Length: 2\r\n\r\nok";
        size_t hl = strlen(head), tl = strlen(tail);
        memcpy(big, head, hl);
        memset(big + hl, 'a', 10240);
        memcpy(big + hl + 10240, tail, tl);
        check_scan("scan: 10 KB uninteresting header skipped", big, hl + 10240 + tl, false,
                   "200 eof:clean");
        memcpy(big, "HTTP/1.1 200 OK\r\nContent-Security-Policy: ", 42);
        memset(big + 42, 'c', 10240);
        memcpy(big + 42 + 10240, tail, tl);
        struct trace whole = scan_whole(big, 42 + 10240 + tl, false);
        struct trace bytes = scan_pieces(big, 42 + 10240 + tl, 1, false);
        T_CHECK("scan: 10 KB header starting with c, whole and byte by byte",
                trace_is(&whole, "200 eof:clean") && same_trace(&whole, &bytes), "got '%s'",
                trace_str(&bytes));
    }

    {
        char line[400];
        snprintf(line, sizeof line,
                 "HTTP/1.1 200 OK\r\nConnection: %0200d\r\nContent-Length: 0\r\n\r\n", 0);
        check_scan("scan: Connection longer than line[] assumes close", line, strlen(line), false,
                   "200c eof:clean");
        snprintf(line, sizeof line,
                 "HTTP/1.1 200 OK\r\nContent-Length: %0120d\r\n\r\n", 7);
        check_scan("scan: Content-Length longer than line[] is an error", line, strlen(line),
                   false, "ERROR");
        snprintf(line, sizeof line, "HTTP/1.1 200 %0200d\r\nContent-Length: 0\r\n\r\n", 0);
        check_scan("scan: long reason phrase is fine", line, strlen(line), false, "200 eof:clean");
        snprintf(line, sizeof line,
                 "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;%0200d\r\nx\r\n0\r\n\r\n", 0);
        check_scan("scan: long chunk extension is fine", line, strlen(line), false,
                   "200 eof:clean");
    }

    {
        struct h1_scanner s;
        struct h1_response r;
        size_t used;
        const char *err = "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n";
        h1_scanner_reset(&s, false);
        enum h1_event first = h1_scan(&s, (const uint8_t *)err, strlen(err), &used, &r);
        enum h1_event again = h1_scan(&s, (const uint8_t *)"HTTP/1.1 200 OK\r\n", 17, &used, &r);
        h1_scanner_reset(&s, false);
        enum h1_event fresh = h1_scan(&s, (const uint8_t *)"HTTP/1.1 200 OK\r\n\r\n", 19, &used, &r);
        T_CHECK("scan: error is sticky until reset", first == H1_ERROR && again == H1_ERROR &&
                    fresh == H1_NEED_MORE && h1_scan_started(&s),
                "first %d again %d fresh %d", first, again, fresh);
    }
}

/* ------------------------------------------------------------ every split */

struct scenario {
    const char *name;
    const char *data;
    bool head;
    const char *want;
};

static char long_stream[4096];

static void build_long_stream(void)
{
    char reason[201], ext[151], csp[301], conn[121];
    memset(reason, 'r', 200);
    reason[200] = 0;
    memset(ext, 'e', 150);
    ext[150] = 0;
    memset(csp, 'p', 300);
    csp[300] = 0;
    memset(conn, 'k', 120);
    conn[120] = 0;
    snprintf(long_stream, sizeof long_stream,
             "HTTP/1.1 200 %s\r\nContent-Security-Policy: %s\r\nCache-Control: %s\r\n"
             "Transfer-Encoding: chunked\r\n\r\n4;%s\r\nabcd\r\n0\r\nTrailer-Long: %s\r\n\r\n"
             "HTTP/1.1 203 OK\r\nConnection: %s\r\nContent-Length: 1\r\n\r\nx"
             "HTTP/1.1 200 OK\r\nConnection: upgrade, %s, close\r\nContent-Length: 0\r\n\r\n",
             reason, csp, csp, ext, csp, conn, conn);
}

static const struct scenario scenarios[] = {
    { "split: 1xx, length, chunked with trailers, 204, 304, close",
      "HTTP/1.1 100 Continue\r\n\r\n"
      "HTTP/1.1 200 OK\r\nServer: t\r\nContent-Length: 5\r\n\r\nhello"
      "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\nLink: </b.js>; rel=preload\r\n\r\n"
      "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n"
      "5;name=value\r\nhello\r\n1A ; x=\"y\"\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\n"
      "X-Checksum: abc\r\nTrailer-Two: 2\r\n\r\n"
      "HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n"
      "HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n"
      "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nConnection: keep-alive, close\r\n\r\n",
      false, "200 201 204 304 404c eof:clean" },
    { "split: bare LF, HTTP/1.0, odd case, close-delimited",
      "HTTP/1.0 200 OK\nConnection: Keep-Alive\nContent-Length: 3\n\nabc"
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\n\r\n3\nabc\n0\n\n"
      "HTTP/1.1 500 Oops\ncOnNeCtIoN:   upgrade ,  CLOSE  \ncontent-LENGTH:   2  \n\nhi"
      "HTTP/1.1 100 Continue\n\n"
      "HTTP/1.0 200 OK\r\nServer: x\r\n\r\nbody until close",
      false, "200 200 500c eof:200c" },
    { "split: HEAD responses",
      "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n"
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n",
      true, "200 200 404c eof:clean" },
    { "split: stream ending in a bad chunk size",
      "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n-1\r\nabc\r\n0\r\n\r\n",
      false, "200 ERROR" },
    { "split: stream cut mid-chunk",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc",
      false, "200 eof:ERROR" },
    { "split: lines longer than line[]", long_stream, false, "200 203c 200c eof:clean" },
};

/* One way of feeding a scenario gives the whole feed's trace. */
struct split_feed {
    const struct scenario *sc;
    struct trace whole;
};

static bool same_as_whole(void *ctx, const uint8_t *b, const struct feed_way *w)
{
    struct split_feed *c = ctx;
    struct trace t;
    struct h1_scanner s;
    memset(&t, 0, sizeof t);
    h1_scanner_reset(&s, c->sc->head);
    for (size_t i = 0, at; i <= w->ncuts; i++) {
        size_t len = feed_piece(w, i, &at);
        feed(&s, b + at, len, &t);
    }
    feed_eof(&s, &t);
    return T_QUIET(c->sc->name, same_trace(&t, &c->whole), "%s: '%s'", w->name, trace_str(&t));
}

static void check_every_split(const struct scenario *sc)
{
    size_t len = strlen(sc->data);
    struct split_feed c = { sc, scan_whole(sc->data, len, sc->head) };
    bool ok = T_QUIET(sc->name, trace_is(&c.whole, sc->want), "whole feed got '%s', want '%s'",
                      trace_str(&c.whole), sc->want);
    ok = ok && feed_splits((const uint8_t *)sc->data, len, same_as_whole, &c, NULL) == 0;
    static const size_t pieces[] = { 2, 3, 13, 64 }; /* and 1 and 7: feed_splits */
    for (size_t i = 0; ok && i < sizeof pieces / sizeof pieces[0]; i++) {
        struct trace t = scan_pieces(sc->data, len, pieces[i], sc->head);
        ok = T_QUIET(sc->name, same_trace(&t, &c.whole), "pieces of %zu: '%s'", pieces[i],
                     trace_str(&t));
    }
    T_CHECK(sc->name, ok, "see above");
}

/* ------------------------------------------------------------ fuzz-ish */

/* Bytes that steer the scanner somewhere interesting. */
static uint8_t interesting_byte(void)
{
    static const char pick[] = "\r\n\r\n:; ,\t0123456789aAfFxcCtT-HTTP/1.01 close chunked";
    if (t_rng() % 4 == 0)
        return (uint8_t)t_rng();
    return (uint8_t)pick[t_rng() % (sizeof pick - 1)];
}

static size_t mutate(uint8_t *buf, size_t len, size_t cap)
{
    int edits = 1 + (int)(t_rng() % 4);
    for (int e = 0; e < edits; e++) {
        size_t at = len ? (size_t)(t_rng() % len) : 0;
        switch (t_rng() % 3) {
        case 0:
            if (len)
                buf[at] = interesting_byte();
            break;
        case 1:
            if (len < cap) {
                memmove(buf + at + 1, buf + at, len - at);
                buf[at] = interesting_byte();
                len++;
            }
            break;
        default:
            if (len) {
                memmove(buf + at, buf + at + 1, len - at - 1);
                len--;
            }
            break;
        }
    }
    return len;
}

static void test_fuzz(void)
{
    uint8_t buf[5000];
    bool no_bad_used = true, splits_agree = true;
    int iterations = 4000;
    for (int it = 0; it < iterations; it++) {
        const struct scenario *sc = &scenarios[t_rng() % (sizeof scenarios / sizeof scenarios[0])];
        size_t len = strlen(sc->data);
        memcpy(buf, sc->data, len);
        len = mutate(buf, len, sizeof buf);

        struct trace whole = scan_whole(buf, len, sc->head);
        struct trace t;
        struct h1_scanner s;
        memset(&t, 0, sizeof t);
        h1_scanner_reset(&s, sc->head);
        for (size_t at = 0; at < len;) {
            size_t piece = 1 + (size_t)(t_rng() % 48);
            if (piece > len - at)
                piece = len - at;
            feed(&s, buf + at, piece, &t);
            at += piece;
        }
        feed_eof(&s, &t);
        for (int i = 0; i < t.n && i < MAX_EVENTS; i++)
            if (t.ev[i].kind == EV_BAD_USED)
                no_bad_used = T_QUIET("fuzz: *used <= n", false, "iteration %d", it);
        if (!same_trace(&t, &whole))
            splits_agree = T_QUIET("fuzz: random splits agree with the whole feed", false,
                                   "iteration %d: '%s'", it, trace_str(&t));
    }
    T_CHECK("fuzz: 4000 mutated streams at random splits, *used <= n, no crash", no_bad_used,
            "see above");
    T_CHECK("fuzz: random splits agree with the whole feed", splits_agree, "see above");
}

/* H1_MAX_HEAD: a head, 1xx heads included, or a trailer section over the
 * limit is an error however it is split; at the limit it is a response. */
static char *repeat_lines(const char *first, const char *line, size_t total, const char *last, size_t *len)
{
    size_t fl = strlen(first), ll = strlen(line), el = strlen(last);
    size_t count = total > fl + el ? (total - fl - el) / ll : 0;
    char *buf = malloc(fl + count * ll + el);
    size_t o = 0;
    memcpy(buf, first, fl);
    o += fl;
    for (size_t i = 0; i < count; i++, o += ll)
        memcpy(buf + o, line, ll);
    memcpy(buf + o, last, el);
    *len = o + el;
    return buf;
}

static void check_head_limit(const char *name, const char *first, const char *line, size_t total,
                             const char *last, const char *want)
{
    size_t len;
    char *buf = repeat_lines(first, line, total, last, &len);
    struct trace whole = scan_whole(buf, len, false);
    struct trace small = scan_pieces(buf, len, 1000, false);
    T_CHECK(name, trace_is(&whole, want) && same_trace(&whole, &small), "got '%s' whole, '%s' in pieces, want '%s'",
            trace_str(&whole), trace_str(&small), want);
    free(buf);
}

static void test_head_limit(void)
{
    /* 64-byte header lines: the head is a multiple of them plus the rest. */
    const char *hline = "X-Filler: 0123456789012345678901234567890123456789012345678901\r\n";
    check_head_limit("head limit: a head just under H1_MAX_HEAD is a response", "HTTP/1.1 200 OK\r\n", hline,
                     H1_MAX_HEAD - 64, "Content-Length: 2\r\n\r\nok", "200 eof:clean");
    check_head_limit("head limit: a head over H1_MAX_HEAD is an error", "HTTP/1.1 200 OK\r\n", hline,
                     H1_MAX_HEAD + 200, "Content-Length: 2\r\n\r\nok", "ERROR");
    check_head_limit("head limit: a reason phrase over H1_MAX_HEAD is an error", "HTTP/1.1 200 ", "R",
                     H1_MAX_HEAD + 10, "\r\nContent-Length: 2\r\n\r\nok", "ERROR");
    check_head_limit("head limit: 1xx heads count toward their final response's", "",
                     "HTTP/1.1 100 Continue\r\n\r\n", H1_MAX_HEAD + 100, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
                     "ERROR");
    check_head_limit("head limit: a few 1xx heads are fine", "", "HTTP/1.1 100 Continue\r\n\r\n", 2500,
                     "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", "200 eof:clean");
    check_head_limit("head limit: a trailer section over H1_MAX_HEAD is an error",
                     "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n", hline,
                     H1_MAX_HEAD + 200, "\r\n", "ERROR");
    /* Chunk data between chunk lines starts the count again: 2 MB of
     * one-byte chunks (7 framing bytes each) is a response. */
    check_head_limit("head limit: many small chunks are not a head", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
                     "1\r\nx\r\n", 2u << 20, "0\r\n\r\n", "200 eof:clean");
    /* Each response has a limit of its own. */
    size_t one;
    char *r = repeat_lines("HTTP/1.1 200 OK\r\n", hline, H1_MAX_HEAD - 64, "Content-Length: 0\r\n\r\n", &one);
    char *two = malloc(2 * one);
    memcpy(two, r, one);
    memcpy(two + one, r, one);
    struct trace t = scan_whole(two, 2 * one, false);
    T_CHECK("head limit: counted per response", trace_is(&t, "200 200 eof:clean"), "got '%s'", trace_str(&t));
    free(two);
    free(r);
}

/* What h1_scan_error says after H1_ERROR, by where the response broke. */
static void check_scan_error(const char *data, const char *want)
{
    struct h1_scanner s;
    struct h1_response r;
    size_t used;
    h1_scanner_reset(&s, false);
    enum h1_event e = h1_scan(&s, (const uint8_t *)data, strlen(data), &used, &r);
    T_CHECK(want, e == H1_ERROR && strcmp(h1_scan_error(&s), want) == 0, "event %d, '%s'", (int)e,
            e == H1_ERROR ? h1_scan_error(&s) : "");
}

static void test_scan_errors(void)
{
    check_scan_error("HTTP/1.1 2x0 OK\r\n\r\n", "bad status line");
    check_scan_error("SSH-2.0-OpenSSH_9.2\r\n", "bad status line");
    check_scan_error("HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n", "bad header line");
    check_scan_error("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "bad chunk");
    check_scan_error("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokXX\r\n", "bad chunk");
    size_t n;
    char *big = repeat_lines("HTTP/1.1 200 OK\r\n", "X-A: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n", H1_MAX_HEAD + 100, "\r\n", &n);
    struct h1_scanner s;
    struct h1_response r;
    size_t used;
    h1_scanner_reset(&s, false);
    enum h1_event e = h1_scan(&s, (const uint8_t *)big, n, &used, &r);
    T_CHECK("response head over 1 MiB", e == H1_ERROR && strcmp(h1_scan_error(&s), "response head over 1 MiB") == 0,
            "event %d", (int)e);
    free(big);
}

int main(void)
{
    test_requests();
    test_scan_errors();
    test_head_limit();
    test_scanner_cases();
    build_long_stream();
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++)
        check_every_split(&scenarios[i]);
    test_fuzz();
    T_DONE();
}
