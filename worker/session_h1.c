/* worker/session_h1.c — the HTTP/1.1 session (tcp.h): one request at a
 * time on a connection, the one request buffer main built (h1.c) sent
 * whole, each response read by the scanner as it comes. */
#include <stdio.h>
#include <string.h>

#include "h1.h"
#include "tcp.h"

struct h1_session {
    bool busy;           /* a request is on the wire and its response not complete */
    uint8_t retries;     /* of the request on the wire */
    uint32_t sent;       /* request bytes the socket (or TLS) has taken */
    uint32_t target;     /* which request (worker_config.requests) */
    uint32_t nth;        /* the request's number on this connection, from 1 (--log's stream column) */
    uint64_t recv;       /* its response's bytes so far, head and body (--log) */
    uint64_t due_ns;     /* when it was due (-q), or sent */
    uint64_t started_ns; /* when it was sent */
    uint64_t first_ns;   /* when its response's first byte came */
    struct h1_scanner sc;
};

static inline struct h1_session *h1_of(const struct conn *c) { return c->session; }

static size_t h1_size(const struct worker_config *cfg)
{
    (void)cfg;
    return sizeof(struct h1_session);
}

static uint32_t h1_streams(const struct worker_config *cfg)
{
    (void)cfg;
    return 1;
}

/* Starts the next request on an idle open connection, if there is one. */
static void h1_start_next(struct loop *l, struct conn *c)
{
    struct h1_session *s = h1_of(c);
    struct taken t;
    if (!loop_take(l, &t)) {
        loop_idle(l, c->s.idx);
        return;
    }
    s->busy = true;
    s->retries = (uint8_t)t.retries;
    s->target = t.target;
    s->due_ns = t.due_ns;
    s->sent = 0;
    s->nth++;
    s->recv = 0;
    s->first_ns = 0;
    s->started_ns = l->now;
    h1_scanner_reset(&s->sc, l->cfg->requests[t.target].head);
    tcp_flush(l, c);
}

static void h1_open(struct loop *l, struct conn *c)
{
    struct h1_session *s = h1_of(c);
    s->busy = false;
    s->nth = 0;
    s->target = 0;
    h1_start_next(l, c);
}

/* The rest of the request on the wire: its target's buffer main built. */
static const uint8_t *h1_out(struct loop *l, struct conn *c, size_t *len)
{
    const struct h1_session *s = h1_of(c);
    if (!s->busy) { /* no request yet: target names none */
        *len = 0;
        return l->cfg->requests[0].bytes;
    }
    const struct wire_request *req = &l->cfg->requests[s->target];
    *len = req->len - s->sent;
    return req->bytes + s->sent;
}

static void h1_out_ack(struct loop *l, struct conn *c, size_t n)
{
    (void)l;
    h1_of(c)->sent += (uint32_t)n;
}

/* The request on the wire, as it ends. */
static struct req_end h1_end(const struct conn *c)
{
    const struct h1_session *s = h1_of(c);
    return (struct req_end){ .due_ns = s->due_ns, .sent_ns = s->started_ns, .first_ns = s->first_ns,
                             .bytes = s->recv, .stream = s->nth, .conn = c->s.idx, .target = s->target };
}

static void h1_ok(struct loop *l, struct conn *c, const struct h1_response *r)
{
    struct h1_session *s = h1_of(c);
    s->busy = false;
    c->responses++;
    struct req_end e = h1_end(c);
    loop_ok(l, r->status, &e);
}

static void h1_error(struct loop *l, struct conn *c, enum err_kind kind)
{
    h1_of(c)->busy = false;
    struct req_end e = h1_end(c);
    loop_error(l, kind, &e);
}

/* The connection broke with maybe a request on it. */
static void h1_lost(struct loop *l, struct conn *c, enum err_kind kind, enum lost_how how)
{
    struct h1_session *s = h1_of(c);
    if (!s->busy)
        return;
    struct h1_response r;
    if (how == LOST_EOF && h1_scan_eof(&s->sc, &r) == H1_DONE) {
        h1_ok(l, c, &r); /* a body delimited by the close (RFC 9112 §6.3 rule 8) */
        return;
    }
    /* The keep-alive race (RFC 9112 §9.3.1): the server closed an idle
     * connection that had served a response just as this request went out.
     * It read none of it — the close came before any byte of a response, or
     * the send of the request's first byte failed — so the request goes
     * again on a new connection. A race says nothing about the request, so
     * it costs no retry: each one needs a connection that served a
     * response, which bounds them by the responses. Anything else (a reset,
     * a TLS error, a close on a fresh connection or mid-response) is an
     * error of its own kind. (Over TLS a failed send is LOST_FAILED: the
     * records the socket lost may hold any part of the request.) */
    bool unread = how == LOST_EOF || (how == LOST_SEND && s->sent == 0);
    if (unread && c->responses > 0 && !h1_scan_started(&s->sc)) {
        s->busy = false;
        struct req_end e = h1_end(c);
        loop_retry(l, s->retries, false, kind, &e);
        return;
    }
    if (how == LOST_EOF)
        loop_why(l, ERR_CLOSED,
                 h1_scan_started(&s->sc) ? "the server closed the connection in the middle of a response"
                                         : "the server closed the connection without answering",
                 NULL);
    h1_error(l, c, how == LOST_EOF ? ERR_CLOSED : kind);
}

/* A send completed: a short one leaves the rest to go now. */
static void h1_sent(struct loop *l, struct conn *c)
{
    struct h1_session *s = h1_of(c);
    if (s->busy && s->sent < l->cfg->requests[s->target].len)
        tcp_flush(l, c);
}

static void h1_fill(struct loop *l, struct conn *c)
{
    if (!h1_of(c)->busy)
        h1_start_next(l, c);
}

/* An HTTP/2 frame header (RFC 9113 §4.1) on stream 0: a SETTINGS frame
 * (its length a multiple of 6, §6.5) or a GOAWAY (at least 8 bytes, §6.8).
 * Its name, or NULL when p does not start with one. An HTTP/1.1 response
 * starts with "HTTP/" (RFC 9112 §4), so the two cannot be confused. */
static const char *h2_frame_at(const uint8_t *p, size_t n)
{
    if (n < 9 || (p[5] | p[6] | p[7] | p[8]) != 0)
        return NULL;
    uint32_t len = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
    if (p[3] == 0x4 && p[4] == 0 && len % 6 == 0)
        return "a SETTINGS frame";
    if (p[3] == 0x7 && len >= 8)
        return "a GOAWAY frame";
    return NULL;
}

/* HTTP/1.1 to a port that speaks only HTTP/2 (h2c with prior knowledge):
 * the server's first bytes are its SETTINGS (or a GOAWAY for our request
 * line, which is no connection preface). Nothing HTTP/1.1 will ever come,
 * so the request fails now as a protocol error, and the report says what
 * the server is. */
static bool h1_got_h2(struct loop *l, struct conn *c, const uint8_t *p, size_t n)
{
    const char *frame = h2_frame_at(p, n);
    if (!frame)
        return false;
    char what[128];
    snprintf(what, sizeof what, "answered with HTTP/2 frames (%s): is this an HTTP/2-only (h2c) port? (try --http2)",
             frame);
    loop_hint(l, ERR_PROTOCOL, what);
    h1_error(l, c, ERR_PROTOCOL);
    return true;
}

/* Feeds received bytes to the scanner. */
static bool h1_data(struct loop *l, struct conn *c, const uint8_t *p, size_t n)
{
    const struct worker_config *cfg = l->cfg;
    struct h1_session *s = h1_of(c);
    while (n > 0) {
        if (!s->busy)
            return false; /* bytes nobody asked for: the framing can no longer be trusted */
        if (!h1_scan_started(&s->sc)) { /* the response's first byte (an interim 1xx's included) */
            s->first_ns = l->now;
            if (c->responses == 0 && h1_got_h2(l, c, p, n))
                return false;
        }
        size_t used = 0;
        struct h1_response r;
        enum h1_event ev = h1_scan(&s->sc, p, n, &used, &r);
        s->recv += used;
        p += used;
        n -= used;
        if (ev == H1_NEED_MORE)
            return true;
        if (ev == H1_ERROR) {
            loop_why(l, ERR_PROTOCOL, h1_scan_error(&s->sc), NULL);
            h1_error(l, c, ERR_PROTOCOL);
            return false;
        }
        h1_ok(l, c, &r);
        /* A response that ends before its request was fully sent, or with
         * bytes behind it, leaves the connection in no state to reuse. */
        if (r.close || !cfg->keepalive || s->sent < cfg->requests[s->target].len || n > 0)
            return false;
        h1_start_next(l, c);
    }
    return true;
}

/* --timeout: the request gets no more time; the connection, in an unknown
 * state, goes with it. */
static bool h1_tick(struct loop *l, struct conn *c)
{
    struct h1_session *s = h1_of(c);
    uint64_t timeout = l->cfg->timeout_ns;
    if (!timeout || !s->busy || l->now - s->started_ns < timeout)
        return true;
    loop_why_within(l, ERR_TIMEOUT, "no response within ", timeout);
    h1_error(l, c, ERR_TIMEOUT);
    return false;
}

const struct session session_h1 = {
    .size = h1_size,
    .streams = h1_streams,
    .open = h1_open,
    .data = h1_data,
    .out = h1_out,
    .out_ack = h1_out_ack,
    .sent = h1_sent,
    .fill = h1_fill,
    .lost = h1_lost,
    .tick = h1_tick,
    .alpn = NULL,
    .name = "HTTP/1.1",
    .alpn_refused = "HTTP/1.1 over TLS (ALPN http/1.1 refused: no_application_protocol)",
    .http1_answer_hint = NULL,
};
