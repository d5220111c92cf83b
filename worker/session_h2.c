/* worker/session_h2.c — the HTTP/2 session (tcp.h): the h2.c engine's
 * streams carry the requests, its output buffer is what the connection
 * sends, and its events end the requests. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "h2.h"
#include "tcp.h"

struct h2_session {
    struct h2_conn *h2;
    uint64_t stuck_since; /* open, work waiting, yet no stream can start (0: not stuck) */
    /* the engine's memory (h2_conn_size) follows, 64-byte aligned */
};

#define H2_ENGINE_AT ((sizeof(struct h2_session) + 63) & ~(size_t)63)

static inline struct h2_session *h2_of(const struct conn *c) { return c->session; }

static size_t h2s_size(const struct worker_config *cfg) { return H2_ENGINE_AT + h2_conn_size(cfg->h2); }

static uint32_t h2s_streams(const struct worker_config *cfg) { return cfg->h2->parallel; }

/* What the engine's events are about: the connection, and what its
 * aborted streams count as. */
struct h2_events {
    struct loop *l;
    struct conn *c;
    enum err_kind abort_kind;
};

/* "RST_STREAM INTERNAL_ERROR", or the code in hex when it has no name;
 * a "(sent ..." opened in what is closed. */
static void h2_why_code(struct loop *l, enum err_kind kind, const char *what, uint32_t code)
{
    if (!loop_why_wanted(l, kind))
        return;
    const char *name = h2_error_name(code);
    char text[64];
    if (name)
        snprintf(text, sizeof text, "%s%s", name, strchr(what, '(') ? ")" : "");
    else
        snprintf(text, sizeof text, "0x%" PRIx32 "%s", code, strchr(what, '(') ? ")" : "");
    loop_why(l, kind, what, text);
}

/* A stream's request as it ends: its tags hold when it was sent (tag)
 * and due (tag2), relative to the run's start; first_byte_at is the l->now
 * of the receive that brought the response's first HEADERS. */
static struct req_end h2_end(const struct loop *l, const struct conn *c, const struct h2_event *ev)
{
    return (struct req_end){ .due_ns = l->start_ns + ev->tag2,
                             .sent_ns = l->start_ns + (ev->tag & TAG_TIME_MASK),
                             .first_ns = ev->first_byte_at,
                             .bytes = ev->recv_bytes,
                             .stream = ev->stream_id,
                             .conn = c->s.idx,
                             .target = ev->req };
}

static void h2_event(void *ctx, const struct h2_event *ev)
{
    struct h2_events *e = ctx;
    struct loop *l = e->l;
    struct req_end end = h2_end(l, e->c, ev);
    switch (ev->kind) {
    case H2_EV_RESPONSE:
        e->c->responses++;
        loop_ok(l, ev->status, &end);
        break;
    case H2_EV_RESET:
        h2_why_code(l, ERR_STREAM_RESET, "RST_STREAM ", ev->error_code);
        loop_error(l, ERR_STREAM_RESET, &end);
        break;
    case H2_EV_MALFORMED:
        h2_why_code(l, ERR_PROTOCOL, "malformed response (sent RST_STREAM ", ev->error_code);
        loop_error(l, ERR_PROTOCOL, &end);
        break;
    case H2_EV_RETRY:
        /* GOAWAY below this stream or REFUSED_STREAM: provably unprocessed
         * (RFC 9113 §8.7), so safe to send again. Only a refusal from a
         * connection that completed nothing counts towards the limit: a
         * server that closes every fifth request refuses the streams queued
         * behind it as a matter of course, and that is no reason to give up. */
        loop_why(l, ERR_REFUSED, "GOAWAY or REFUSED_STREAM on every try", NULL);
        loop_retry(l, tag_retries(ev->tag), !(ev->peer_progress || e->c->responses > 0), ERR_REFUSED, &end);
        break;
    case H2_EV_ABORTED:
        loop_error(l, e->abort_kind, &end);
        break;
    }
}

/* Opens as many streams as the engine allows and there are requests for.
 * A stream's tag holds when it was sent and its retries; the second word
 * when it was due (-q; else the same time); its req the target. */
static void h2s_fill(struct loop *l, struct conn *c)
{
    struct h2_conn *h2 = h2_of(c)->h2;
    struct taken t;
    while (h2_can_start(h2) && loop_take(l, &t))
        h2_start(h2, tag_make(l->now - l->start_ns, t.retries), t.due_ns - l->start_ns, t.target);
    if (l->paced && h2_can_start(h2))
        loop_idle(l, c->s.idx);
    tcp_flush_later(l, c);
}

static void h2s_open(struct loop *l, struct conn *c)
{
    struct h2_session *s = h2_of(c);
    s->h2 = h2_conn_init((uint8_t *)s + H2_ENGINE_AT, l->cfg->h2);
    s->stuck_since = 0;
    h2s_fill(l, c);
}

static const uint8_t *h2s_out(struct loop *l, struct conn *c, size_t *len)
{
    (void)l;
    return h2_out(h2_of(c)->h2, len);
}

static void h2s_out_ack(struct loop *l, struct conn *c, size_t n)
{
    (void)l;
    h2_out_ack(h2_of(c)->h2, n);
}

/* Room in the output buffer may let more streams start. */
static void h2s_sent(struct loop *l, struct conn *c) { h2s_fill(l, c); }

static void h2s_lost(struct loop *l, struct conn *c, enum err_kind kind, enum lost_how how)
{
    if (how == LOST_EOF) {
        loop_why(l, ERR_CLOSED, "the server closed the connection with streams open", NULL);
        kind = ERR_CLOSED;
    }
    struct h2_events e = { l, c, kind };
    h2_conn_lost(h2_of(c)->h2, h2_event, &e);
}

/* The connection has nothing open and will open nothing more (h2_drained).
 * After the peer's GOAWAY it is replaced at once. When its stream ids ran
 * out (RFC 9113 §5.1.1), its own GOAWAY NO_ERROR goes first (tcp_retire). */
static bool h2s_drained(struct loop *l, struct conn *c)
{
    return h2_ids_exhausted(h2_of(c)->h2) && tcp_retire(l, c);
}

static bool h2s_data(struct loop *l, struct conn *c, const uint8_t *p, size_t n)
{
    struct h2_conn *h2 = h2_of(c)->h2;
    struct h2_events e = { l, c, ERR_PROTOCOL };
    int ret = h2_recv(h2, p, n, l->now, h2_event, &e);
    if (ret < 0) {
        loop_why(l, ERR_PROTOCOL, h2_recv_error_text(ret), NULL);
        return tcp_goodbye(l, c); /* the engine queued a GOAWAY naming the problem */
    }
    if (h2_drained(h2))
        return h2s_drained(l, c);
    h2s_fill(l, c);
    return true;
}

/* --timeout for every stream past it, oldest first (streams open in id
 * order, so the first one within its time ends the walk). */
static void h2s_expire(struct loop *l, struct conn *c)
{
    struct h2_conn *h2 = h2_of(c)->h2;
    uint32_t id;
    uint64_t tag;
    bool cancelled = false;
    struct h2_event ev;
    while (h2_oldest(h2, &id, &tag) && l->now - (l->start_ns + (tag & TAG_TIME_MASK)) >= l->cfg->timeout_ns &&
           h2_cancel(h2, id, &ev)) {
        loop_why_within(l, ERR_TIMEOUT, "no response within ", l->cfg->timeout_ns);
        struct req_end end = h2_end(l, c, &ev);
        loop_error(l, ERR_TIMEOUT, &end);
        cancelled = true;
    }
    if (cancelled) {
        h2s_fill(l, c); /* the freed streams carry the next requests; it queues the RST_STREAMs too */
    }
}

/* RFC 9113 §5.1.2: a server may stop new streams with MAX_CONCURRENT_STREAMS
 * 0 "for short durations". A connection with requests waiting that can start
 * no stream, and has none open, gets --connect-timeout to recover; then it
 * is given up as if it had never connected, and one that served nothing
 * costs a request (`refused`), so a server that refuses everything still
 * ends a -n run. */
static bool h2s_stuck_too_long(struct loop *l, struct conn *c)
{
    struct h2_session *s = h2_of(c);
    if (h2_open_streams(s->h2) > 0 || h2_can_start(s->h2) || !loop_work_left(l)) {
        s->stuck_since = 0;
        return false;
    }
    if (s->stuck_since == 0) {
        s->stuck_since = l->now;
        return false;
    }
    return l->now - s->stuck_since >= l->cfg->connect_timeout_ns;
}

static bool h2s_tick(struct loop *l, struct conn *c)
{
    const struct worker_config *cfg = l->cfg;
    if (cfg->timeout_ns)
        h2s_expire(l, c);
    if (h2_drained(h2_of(c)->h2) && !h2s_drained(l, c))
        return false; /* drained here: --timeout cancelled its last streams */
    if (h2s_stuck_too_long(l, c)) {
        loop_why_within(l, ERR_REFUSED, "no stream could start (SETTINGS_MAX_CONCURRENT_STREAMS 0) for ",
                        cfg->connect_timeout_ns);
        if (c->responses == 0)
            loop_charge(l, ERR_REFUSED, c->s.idx);
        h2s_lost(l, c, ERR_REFUSED, LOST_FAILED);
        return false;
    }
    return true;
}

const struct session session_h2 = {
    .size = h2s_size,
    .streams = h2s_streams,
    .open = h2s_open,
    .data = h2s_data,
    .out = h2s_out,
    .out_ack = h2s_out_ack,
    .sent = h2s_sent,
    .fill = h2s_fill,
    .lost = h2s_lost,
    .tick = h2s_tick,
    .alpn = "h2",
    .name = "HTTP/2",
    .alpn_refused = "HTTP/2 over TLS (ALPN h2 refused: no_application_protocol)",
    .http1_answer_hint =
        "answered the HTTP/2 connection preface in HTTP/1.1: is this an HTTP/1.1-only port? (try without --http2)",
};
