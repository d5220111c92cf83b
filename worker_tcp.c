/* worker_tcp.c — the TCP transport: connections, TLS, and the HTTP/1.1 and
 * HTTP/2 glue. What happens to a TCP connection, from connect to close, is
 * all here; the loop and the request accounting are worker.c's
 * (worker_loop.h).
 *
 * Each connection lives in a registered file slot with one multishot
 * receive drawing from the worker's provided buffer ring. HTTP/1.1 sends the
 * one request buffer main built, a request at a time. HTTP/2 engines and TLS
 * append to their own output buffers while a batch of completions is
 * processed; each connection with something to say is sent once, after the
 * batch (spec, How it works: the requests a batch produced leave together).
 *
 * Deadlines. Every wait has a bound: connects carry a linked timeout
 * (--connect-timeout); the TLS handshake, each request (--timeout) and an
 * HTTP/2 connection that can start no stream are checked on the loop's tick
 * by walking the connections, so no timer is armed per request. */
#define _GNU_SOURCE
#include <bearssl.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "h1.h"
#include "h2.h"
#include "tls13/conn.h"
#include "worker_loop.h"

/* What the target speaks, learnt by the first handshakes and shared by every
 * worker thread: a server that refuses TLS 1.3 is served by the TLS 1.2
 * engine from then on, without trying 1.3 again. */
enum { TARGET_UNKNOWN, TARGET_TLS12, TARGET_TLS13 };
static _Atomic int target_tls12;

/* Connection attempts in flight per worker. Opening 19,000 connections at
 * once queues 38,000 completions (connect and its linked timeout) as kernel
 * task work, which Linux runs at most max(20, wait_nr) per io_uring_enter
 * (io_uring/tw.h, IO_LOCAL_TW_DEFAULT_MAX): the backlog then starves every
 * later completion — responses, ticks, the -z deadline — for seconds. A
 * window keeps it short; on loopback 19,000 connections still open in
 * well under a second. */
#define CONNECT_WINDOW 512

enum tcp_op { OP_CONNECT = OP_TRANSPORT, OP_LINK_TIMEOUT, OP_RECV, OP_SEND, OP_CANCEL };

enum conn_state {
    CONN_IDLE,       /* no socket, not waiting for one */
    CONN_QUEUED,     /* waiting in the open queue (now, or at the next tick) */
    CONN_CONNECTING,
    CONN_OPEN,
};

struct conn {
    uint32_t gen;
    unsigned send_mark; /* uring_sq_mark() after this slot's last send */
    uint8_t state;
    bool recv_armed;
    bool sending;       /* a send is in flight (one at a time) */
    bool in_flush_list;
    bool goodbye;       /* the connection failed with our GOAWAY or alert queued (see slot_set) */
    uint64_t phase_ns;  /* when its connect, then its TLS handshake, began (stats.phases) */
    bool backlog_wait;  /* unix socket: the last connect found the backlog full; phase_ns is the first's */
    bool retiring;      /* HTTP/2 stream ids ran out: closed once our GOAWAY has gone (h2_retire) */
    uint32_t responses; /* completed on this socket */
    /* HTTP/1.1: one request at a time */
    bool busy;          /* a request is on the wire and its response not complete */
    uint8_t retries;    /* of the request on the wire */
    uint32_t sent;      /* request bytes the kernel (or TLS) has taken */
    uint64_t due_ns;    /* when it was due (-q), or sent */
    uint64_t started_ns; /* when it was sent */
    uint64_t first_ns;  /* when its response's first byte came */
    struct h1_scanner sc;
    /* HTTP/2 */
    struct h2_conn *h2;
    void *h2_mem;
    uint64_t stuck_since; /* open, work waiting, yet no stream can start (0: not stuck) */
    /* TLS */
    struct tls_conn *tls;
    void *tls_mem;
    bool handshaking;
    bool tls12;         /* this handshake runs the TLS 1.2 engine */
    bool heard;         /* the server has sent at least one byte on this socket */
    uint64_t handshake_deadline;
};

/* A FIFO of connection indices; a connection is in at most one queue. */
struct idx_queue {
    uint32_t *v;
    uint32_t cap, head, len;
};

struct tcp {
    struct conn *conns;
    uint32_t nconns;
    bool http2, tls;
    uint32_t connecting;     /* attempts in flight (CONNECT_WINDOW) */
    struct idx_queue openq;  /* to open as the window allows */
    struct idx_queue laterq; /* to open at the next tick (their last attempt failed at once) */
    bool open_blocked;       /* socket() failed: no more opens until the next tick */
    enum err_kind abort_kind; /* what HTTP/2 streams of a failing connection count as */
    struct conn *event_conn;  /* the connection whose engine is reporting events */
    uint32_t *flush_list;     /* connections with output to send after this batch */
    uint32_t nflush;
    uint8_t *h2_mem;
    uint8_t *tls_mem;
    br_hmac_drbg_context drbg; /* handshake randomness, seeded once */
    struct conn *plain_conn;   /* the TLS connection delivering plaintext */
    bool plain_alive;          /* ... and whether its protocol engine still wants it */
    struct shb_kernel_timespec connect_ts;
};

static inline struct tcp *tcp_of(const struct loop *l) { return l->tp_state; }
static uint32_t conn_idx(const struct tcp *t, const struct conn *c) { return (uint32_t)(c - t->conns); }

static void q_push(struct idx_queue *q, uint32_t i)
{
    q->v[(q->head + q->len++) % q->cap] = i;
}

static uint32_t q_pop(struct idx_queue *q)
{
    uint32_t i = q->v[q->head];
    q->head = (q->head + 1) % q->cap;
    q->len--;
    return i;
}

/* ---- connection lifecycle ---------------------------------------------- */

static void arm_recv(struct loop *l, struct conn *c)
{
    uint32_t i = conn_idx(tcp_of(l), c);
    uring_prep_recv_multishot(uring_sqe(&l->ring), i, LOOP_BUF_GROUP, ud_make(OP_RECV, c->gen, i));
    c->recv_armed = true;
}

/* One send at a time per connection: its completion says what the kernel
 * took, and the engine's output buffer may not move before then. */
static void conn_send(struct loop *l, struct conn *c, const void *buf, size_t len)
{
    uint32_t i = conn_idx(tcp_of(l), c);
    uring_prep_send(uring_sqe(&l->ring), i, buf, len, ud_make(OP_SEND, c->gen, i));
    c->sending = true;
    c->send_mark = uring_sq_mark(&l->ring);
}

static void flush_later(struct loop *l, struct conn *c)
{
    struct tcp *t = tcp_of(l);
    if (!c->in_flush_list) {
        c->in_flush_list = true;
        t->flush_list[t->nflush++] = conn_idx(t, c);
    }
}

/* Puts fd (or nothing: -1) in the connection's file slot, which closes the
 * socket it held: with a reset (SO_LINGER 0, see conn_open), which discards
 * whatever the kernel has not transmitted yet. So a send still queued for
 * the previous socket (the GOAWAY or alert that ended it) names the slot,
 * not the socket, and reaches the kernel first; and a connection that
 * failed with such a goodbye is reopened only at the next tick (goodbye:
 * conn_replace's at_tick), as TCP may pace the goodbye out over
 * microseconds to milliseconds and the reset must not overtake it. */
static int slot_set(struct loop *l, struct conn *c, int fd)
{
    if (!uring_sq_submitted(&l->ring, c->send_mark))
        uring_submit_wait(&l->ring, 0, 0);
    return uring_files_set(&l->ring, conn_idx(tcp_of(l), c), fd);
}

/* Closes our side: the multishot receive is cancelled by its user_data (the
 * slot itself is reused, so cancelling by file would hit the new socket),
 * and bumping the generation orphans every completion still due. */
static void conn_close(struct loop *l, struct conn *c)
{
    uint32_t i = conn_idx(tcp_of(l), c);
    if (c->recv_armed) {
        struct io_uring_sqe *s = uring_sqe(&l->ring);
        uring_prep_cancel(s, ud_make(OP_RECV, c->gen, i), ud_make(OP_CANCEL, c->gen, i));
        s->flags |= IOSQE_CQE_SKIP_SUCCESS;
        c->recv_armed = false;
    }
    if (c->state == CONN_CONNECTING)
        tcp_of(l)->connecting--;
    if (c->state == CONN_OPEN)
        l->conns_open--;
    c->gen = (c->gen + 1) & GEN_MASK;
    c->state = CONN_IDLE;
    c->busy = false;
    c->sending = false;
    c->retiring = false;
    c->stuck_since = 0;
}

/* After a close: queue a new connection if there is work left (now, or at
 * the next tick when the last attempt failed at once, so a refusing server
 * or exhausted ports are not hammered in a loop), otherwise drop the socket
 * from its slot so the server sees it go. */
static void conn_replace(struct loop *l, struct conn *c, bool at_tick)
{
    struct tcp *t = tcp_of(l);
    if (!loop_work_left(l)) {
        c->backlog_wait = false;
        slot_set(l, c, -1);
        return;
    }
    c->state = CONN_QUEUED;
    q_push(at_tick ? &t->laterq : &t->openq, conn_idx(t, c));
}

static void conn_open(struct loop *l, struct conn *c)
{
    struct tcp *t = tcp_of(l);
    const struct worker_config *cfg = l->cfg;
    uint32_t i = conn_idx(t, c);
    bool unix_socket = cfg->addr->sa_family == AF_UNIX;
    int fd = socket(cfg->addr->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int ret = fd < 0 ? -errno : 0;
    if (fd >= 0 && !unix_socket) {
        /* Requests leave whole, once per batch: Nagle would only hold a batch
         * back behind the previous one's delayed ACK. */
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        /* A connection shb closes is done with (the run ended, or it failed,
         * timed out or was refused): it goes with a reset rather than a FIN,
         * so no local port sits in TIME_WAIT for a minute afterwards. One
         * run at -c 10000 otherwise leaves 10,000 of them, and the next
         * run's connects to that server wait for ports; --disable-keepalive
         * against a server that does not close first would drain the range.
         * A server that closes first is unaffected. */
        struct linger abort_on_close = { .l_onoff = 1, .l_linger = 0 };
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof(abort_on_close));
        if (cfg->nbind) {
            /* --bind: this slot's source address; its port of bind()'s
             * parity from bind_from up, as below. */
            ret = loop_bind_source(cfg, fd, i, i >= cfg->bind_from, true);
        } else if (i >= cfg->bind_from) {
            /* Port 0 of the wildcard address: the kernel picks a free port
             * of bind()'s parity; should that fail, connect() still picks
             * one its own way. */
            struct sockaddr_storage any = { .ss_family = cfg->addr->sa_family };
            socklen_t len = any.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
            (void)bind(fd, (struct sockaddr *)&any, len);
        }
    }
    if (fd >= 0) {
        if (ret == 0)
            ret = slot_set(l, c, fd);
        close(fd); /* the registered slot holds its own reference */
    }
    if (ret < 0) {
        /* Out of descriptors or memory (the system's, shb holds few), or a
         * --bind address gone from the machine: this one and every later
         * one wait for the next tick, and like any failed attempt it costs
         * a request (`connect`), or a -n run could wait forever. */
        t->open_blocked = true;
        loop_charge(l, ERR_CONNECT);
        c->state = CONN_QUEUED;
        q_push(&t->laterq, i);
        return;
    }
    c->state = CONN_CONNECTING;
    t->connecting++;
    c->goodbye = false;
    c->responses = 0;
    c->recv_armed = false;
    c->sending = false;
    c->stuck_since = 0;
    if (!c->backlog_wait)
        c->phase_ns = l->now;
    c->backlog_wait = false;
    /* The connect and its timeout must reach the kernel in one submission,
     * or the link is cut and the connect has no deadline. */
    uring_sq_reserve(&l->ring, 2);
    struct io_uring_sqe *s = uring_sqe(&l->ring);
    uring_prep_connect(s, i, cfg->addr, cfg->addrlen, ud_make(OP_CONNECT, c->gen, i));
    s->flags |= IOSQE_IO_LINK; /* --connect-timeout: the link timeout cancels it */
    uring_prep_link_timeout(uring_sqe(&l->ring), &t->connect_ts, ud_make(OP_LINK_TIMEOUT, c->gen, i));
}

/* Opens queued connections while the window allows. */
static void open_queued(struct loop *l)
{
    struct tcp *t = tcp_of(l);
    while (t->openq.len && t->connecting < CONNECT_WINDOW && !t->open_blocked) {
        uint32_t i = q_pop(&t->openq);
        struct conn *c = &t->conns[i];
        if (loop_work_left(l)) {
            conn_open(l, c);
        } else {
            c->state = CONN_IDLE;
            slot_set(l, c, -1);
        }
    }
}

static void connect_failed(struct loop *l, struct conn *c, enum err_kind kind)
{
    tcp_of(l)->connecting--;
    c->state = CONN_IDLE;
    c->gen = (c->gen + 1) & GEN_MASK;
    loop_charge(l, kind);
    /* A timeout has waited already; a refusal or a missing port came back
     * at once, and trying again at once would only spin. */
    conn_replace(l, c, kind != ERR_CONNECT_TIMEOUT);
}

/* ---- HTTP/1.1 ----------------------------------------------------------- */

static void h1_send_bytes(struct loop *l, struct conn *c)
{
    const struct worker_config *cfg = l->cfg;
    if (c->tls) {
        /* Sealed now, sent after the batch; what did not fit goes when the
         * output drains (on_send). */
        c->sent += (uint32_t)tls_conn_send(c->tls, cfg->request + c->sent, cfg->request_len - c->sent);
        flush_later(l, c);
        return;
    }
    conn_send(l, c, cfg->request + c->sent, cfg->request_len - c->sent);
}

/* Starts the next request on an idle open connection, if there is one. */
static void h1_start_next(struct loop *l, struct conn *c)
{
    struct taken t;
    if (!loop_take(l, &t)) {
        loop_idle(l, conn_idx(tcp_of(l), c));
        return;
    }
    c->busy = true;
    c->retries = (uint8_t)t.retries;
    c->due_ns = t.due_ns;
    c->sent = 0;
    c->started_ns = l->now;
    h1_scanner_reset(&c->sc, l->cfg->head);
    h1_send_bytes(l, c);
}

static void h1_ok(struct loop *l, struct conn *c, const struct h1_response *r)
{
    c->busy = false;
    c->responses++;
    loop_ok(l, r->status, c->due_ns, c->started_ns, c->first_ns);
}

static void h1_error(struct loop *l, struct conn *c, enum err_kind kind)
{
    c->busy = false;
    loop_error(l, kind);
}

/* How a connection was lost, for the request on it. */
enum lost_how {
    LOST_EOF,        /* the server closed cleanly (FIN, or TLS close_notify) */
    LOST_SEND,       /* a send failed */
    LOST_FAILED,     /* a receive error, a reset, a TLS failure */
};

/* The connection broke with maybe a request on it. */
static void h1_lost(struct loop *l, struct conn *c, enum err_kind kind, enum lost_how how)
{
    if (!c->busy)
        return;
    struct h1_response r;
    if (how == LOST_EOF && h1_scan_eof(&c->sc, &r) == H1_DONE) {
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
     * error of its own kind. */
    bool unread = how == LOST_EOF || (how == LOST_SEND && c->sent == 0 && !c->tls);
    if (unread && c->responses > 0 && !h1_scan_started(&c->sc)) {
        c->busy = false;
        loop_retry(l, c->retries, false, kind);
        return;
    }
    if (how == LOST_EOF)
        loop_why(l, ERR_CLOSED,
                 h1_scan_started(&c->sc) ? "the server closed the connection in the middle of a response"
                                         : "the server closed the connection without answering",
                 NULL);
    h1_error(l, c, how == LOST_EOF ? ERR_CLOSED : kind);
}

static void h1_on_sent(struct loop *l, struct conn *c, int res)
{
    c->sending = false;
    c->sent += (uint32_t)res;
    if (c->busy && c->sent < l->cfg->request_len)
        h1_send_bytes(l, c); /* short send: the rest goes now */
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

/* Feeds received bytes to the scanner. Returns false if the connection must
 * be closed. */
static bool h1_on_data(struct loop *l, struct conn *c, const uint8_t *p, size_t n)
{
    const struct worker_config *cfg = l->cfg;
    while (n > 0) {
        if (!c->busy)
            return false; /* bytes nobody asked for: the framing can no longer be trusted */
        if (!h1_scan_started(&c->sc)) { /* the response's first byte (an interim 1xx's included) */
            c->first_ns = l->now;
            if (c->responses == 0 && h1_got_h2(l, c, p, n))
                return false;
        }
        size_t used = 0;
        struct h1_response r;
        enum h1_event ev = h1_scan(&c->sc, p, n, &used, &r);
        p += used;
        n -= used;
        if (ev == H1_NEED_MORE)
            return true;
        if (ev == H1_ERROR) {
            loop_why(l, ERR_PROTOCOL, h1_scan_error(&c->sc), NULL);
            h1_error(l, c, ERR_PROTOCOL);
            return false;
        }
        h1_ok(l, c, &r);
        /* A response that ends before its request was fully sent, or with
         * bytes behind it, leaves the connection in no state to reuse. */
        if (r.close || !cfg->keepalive || c->sent < cfg->request_len || n > 0)
            return false;
        h1_start_next(l, c);
    }
    return true;
}

/* --timeout: the request gets no more time; the connection, in an unknown
 * state, goes with it. */
static bool h1_expired(struct loop *l, struct conn *c)
{
    return c->busy && l->now - c->started_ns >= l->cfg->timeout_ns;
}

/* ---- HTTP/2 ------------------------------------------------------------- */

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

static void h2_event(void *ctx, const struct h2_event *ev)
{
    struct loop *l = ctx;
    struct tcp *t = tcp_of(l);
    switch (ev->kind) {
    case H2_EV_RESPONSE:
        t->event_conn->responses++;
        /* first_byte_at: the l->now of the receive that brought it */
        loop_ok(l, ev->status, l->start_ns + ev->tag2, l->start_ns + (ev->tag & TAG_TIME_MASK), ev->first_byte_at);
        break;
    case H2_EV_RESET:
        h2_why_code(l, ERR_STREAM_RESET, "RST_STREAM ", ev->error_code);
        loop_error(l, ERR_STREAM_RESET);
        break;
    case H2_EV_MALFORMED:
        h2_why_code(l, ERR_PROTOCOL, "malformed response (sent RST_STREAM ", ev->error_code);
        loop_error(l, ERR_PROTOCOL);
        break;
    case H2_EV_RETRY:
        /* GOAWAY below this stream or REFUSED_STREAM: provably unprocessed
         * (RFC 9113 §8.7), so safe to send again. Only a refusal from a
         * connection that completed nothing counts towards the limit: a
         * server that closes every fifth request refuses the streams queued
         * behind it as a matter of course, and that is no reason to give up. */
        loop_why(l, ERR_REFUSED, "GOAWAY or REFUSED_STREAM on every try", NULL);
        loop_retry(l, tag_retries(ev->tag), !(ev->peer_progress || t->event_conn->responses > 0), ERR_REFUSED);
        break;
    case H2_EV_ABORTED:
        loop_error(l, t->abort_kind);
        break;
    }
}

/* Opens as many streams as the engine allows and there are requests for.
 * A stream's tag holds when it was sent and its retries; the second word
 * when it was due (-q; else the same time). */
static void h2_fill(struct loop *l, struct conn *c)
{
    struct taken t;
    while (h2_can_start(c->h2) && loop_take(l, &t))
        h2_start(c->h2, tag_make(l->now - l->start_ns, t.retries), t.due_ns - l->start_ns);
    if (l->paced && h2_can_start(c->h2))
        loop_idle(l, conn_idx(tcp_of(l), c));
    flush_later(l, c);
}

static void h2_on_open(struct loop *l, struct conn *c)
{
    c->h2 = h2_conn_init(c->h2_mem, l->cfg->h2);
    h2_fill(l, c);
}

static void h2_lost(struct loop *l, struct conn *c, enum err_kind kind)
{
    struct tcp *t = tcp_of(l);
    t->abort_kind = kind;
    t->event_conn = c;
    h2_conn_lost(c->h2, h2_event, l);
}

static void h2_send_out(struct loop *l, struct conn *c)
{
    size_t len;
    const uint8_t *out = h2_out(c->h2, &len);
    if (len)
        conn_send(l, c, out, len);
}

static void h2_on_sent(struct loop *l, struct conn *c, int res)
{
    c->sending = false;
    h2_out_ack(c->h2, (size_t)res);
    h2_fill(l, c); /* room in the output buffer may let more streams start */
}

static void tls_flush(struct loop *l, struct conn *c);

/* Sends what the connection has queued now, if no send is in flight. */
static void conn_flush(struct loop *l, struct conn *c)
{
    if (c->tls)
        tls_flush(l, c);
    else if (!c->sending)
        h2_send_out(l, c);
}

/* The connection has nothing open and will open nothing more (h2_drained).
 * After the peer's GOAWAY it is replaced at once (false). When its stream
 * ids ran out (RFC 9113 §5.1.1), its own GOAWAY NO_ERROR goes first, and
 * the socket's reset must not overtake it (slot_set): with no send in
 * flight it leaves now and the connection is replaced at the next tick
 * (goodbye); behind a send in flight it stays queued, and the connection
 * lives on (true) until on_send sees everything gone. */
static bool h2_retire(struct loop *l, struct conn *c)
{
    if (!h2_ids_exhausted(c->h2))
        return false;
    if (c->retiring)
        return true;
    bool busy = c->sending;
    conn_flush(l, c);
    if (busy) {
        c->retiring = true;
        return true;
    }
    c->goodbye = c->sending;
    return false;
}

static bool h2_on_data(struct loop *l, struct conn *c, const uint8_t *p, size_t n)
{
    struct tcp *t = tcp_of(l);
    t->abort_kind = ERR_PROTOCOL;
    t->event_conn = c;
    int ret = h2_recv(c->h2, p, n, l->now, h2_event, l);
    if (ret < 0) {
        loop_why(l, ERR_PROTOCOL, h2_recv_error_text(ret), NULL);
        /* The engine queued a GOAWAY naming the problem. */
        conn_flush(l, c);
        c->goodbye = c->sending;
        return false;
    }
    if (h2_drained(c->h2))
        return h2_retire(l, c);
    h2_fill(l, c);
    return true;
}

/* --timeout for every stream past it, oldest first (streams open in id
 * order, so the first one within its time ends the walk). */
static void h2_expire(struct loop *l, struct conn *c)
{
    uint32_t id;
    uint64_t tag;
    bool cancelled = false;
    while (h2_oldest(c->h2, &id, &tag) &&
           l->now - (l->start_ns + (tag & TAG_TIME_MASK)) >= l->cfg->timeout_ns && h2_cancel(c->h2, id)) {
        loop_why_within(l, ERR_TIMEOUT, "no response within ", l->cfg->timeout_ns);
        loop_error(l, ERR_TIMEOUT);
        cancelled = true;
    }
    if (cancelled) {
        h2_fill(l, c); /* the freed streams carry the next requests */
        flush_later(l, c);
    }
}

/* RFC 9113 §5.1.2: a server may stop new streams with MAX_CONCURRENT_STREAMS
 * 0 "for short durations". A connection with requests waiting that can start
 * no stream, and has none open, gets --connect-timeout to recover; then it
 * is given up as if it had never connected, and one that served nothing
 * costs a request (`refused`), so a server that refuses everything still
 * ends a -n run. */
static bool h2_stuck_too_long(struct loop *l, struct conn *c)
{
    if (h2_open_streams(c->h2) > 0 || h2_can_start(c->h2) || !loop_work_left(l)) {
        c->stuck_since = 0;
        return false;
    }
    if (c->stuck_since == 0) {
        c->stuck_since = l->now;
        return false;
    }
    return l->now - c->stuck_since >= l->cfg->connect_timeout_ns;
}

/* ---- TLS ---------------------------------------------------------------- *
 * Plaintext from the protocol engines is sealed into the connection's TLS
 * output; ciphertext from the socket is opened in place in the receive
 * buffer and handed to the engines. The handshake counts as part of
 * connecting: --connect-timeout covers it, and its failure is a connect
 * error of its own kind. */

static void proto_on_open(struct loop *l, struct conn *c)
{
    if (tcp_of(l)->http2)
        h2_on_open(l, c);
    else
        h1_start_next(l, c);
}

static void tls_start(struct loop *l, struct conn *c)
{
    struct tcp *t = tcp_of(l);
    uint8_t entropy[TLS13_ENTROPY_LEN];
    br_hmac_drbg_generate(&t->drbg, entropy, sizeof entropy);
    c->tls12 = target_tls12 == TARGET_TLS12;
    c->tls = tls_conn_init(c->tls_mem, l->cfg->tls, entropy, c->tls12);
    tls13_wipe(entropy, sizeof entropy);
    c->handshaking = true;
    c->handshake_deadline = l->now + l->cfg->connect_timeout_ns;
    c->phase_ns = l->now;
    flush_later(l, c);
}

static void tls_flush(struct loop *l, struct conn *c)
{
    if (tcp_of(l)->http2 && tls_conn_ready(c->tls)) {
        size_t len;
        const uint8_t *out = h2_out(c->h2, &len);
        if (len)
            h2_out_ack(c->h2, tls_conn_send(c->tls, out, len)); /* sealed: the engine may reuse it */
    }
    if (c->sending)
        return;
    size_t len;
    const uint8_t *out = tls_conn_out(c->tls, &len);
    if (len)
        conn_send(l, c, out, len);
}

/* The handshake is over: the protocol starts. Returns false when the run
 * cannot go on. */
static bool tls_opened(struct loop *l, struct conn *c)
{
    c->handshaking = false;
    loop_phase(l, &l->w->stats.phases.tls_handshake, c->phase_ns);
    if (l->w->stats.tls.version == 0) /* the report's TLS line: the first handshake's */
        tls_conn_negotiated(c->tls, &l->w->stats.tls);
    if (!c->tls12) {
        int unknown = TARGET_UNKNOWN;
        atomic_compare_exchange_strong(&target_tls12, &unknown, TARGET_TLS13);
    }
    /* RFC 7301 §3.2: the server picks; a server that will not speak h2
     * is a clear error, not a silent downgrade to HTTP/1.1. */
    if (tcp_of(l)->http2 && strcmp(tls_conn_alpn(c->tls), "h2") != 0) {
        const char *alpn = tls_conn_alpn(c->tls);
        loop_fatal(l, "the server did not select HTTP/2 with ALPN: it chose ",
                   *alpn ? alpn : "no protocol (an HTTP/1.1-only server?)");
        return false;
    }
    proto_on_open(l, c);
    return true;
}

static void tls_plain(void *ctx, uint8_t *p, size_t n)
{
    struct loop *l = ctx;
    struct tcp *t = tcp_of(l);
    struct conn *c = t->plain_conn;
    /* TLS 1.2: the server's Finished and its first bytes (an HTTP/2
     * SETTINGS) can arrive in one read, so plaintext may come before
     * tls_conn_recv has returned TLS_HANDSHAKE_DONE. */
    if (t->plain_alive && c->handshaking && !tls_opened(l, c))
        t->plain_alive = false;
    if (!t->plain_alive)
        return;
    bool alive = t->http2 ? h2_on_data(l, c, p, n) : h1_on_data(l, c, p, n);
    if (!alive)
        t->plain_alive = false;
}

static void proto_lost(struct loop *l, struct conn *c, enum err_kind kind, enum lost_how how, const char *why);

/* A failed TLS 1.3 handshake that means "this server does not speak 1.3":
 * it chose 1.2, answered protocol_version, or (some 1.2-only servers, while
 * no 1.3 handshake has worked yet) handshake_failure. */
static bool tls12_fallback_wanted(const struct conn *c, int rc)
{
    int alert = tls_conn_alert(c->tls);
    return c->handshaking && !c->tls12 &&
           (rc == TLS_ERR_FALLBACK_TLS12 || alert == -70 || (alert == -40 && target_tls12 != TARGET_TLS13));
}

/* The alert that ended this connection, named in the report (RFC 8446 §6).
 * A refusal that only sends us to the TLS 1.2 engine is not counted: it
 * costs no request. */
static void tls_count_alert(struct loop *l, struct conn *c, int rc)
{
    int alert = tls_conn_alert(c->tls);
    if (alert == 0 || tls12_fallback_wanted(c, rc))
        return;
    if (alert < 0)
        l->w->stats.alerts_received[(-alert) & 0xff]++;
    else
        l->w->stats.alerts_sent[alert & 0xff]++;
}

/* Why a TLS connection failed, as kind's message: the alert that ended it
 * ("received alert handshake_failure", "sent alert bad_record_mac"). */
static void tls_why(struct loop *l, struct conn *c, enum err_kind kind)
{
    int alert = tls_conn_alert(c->tls);
    if (alert < 0)
        loop_why(l, kind, "received alert ", tls_alert_name(-alert));
    else if (alert > 0)
        loop_why(l, kind, "sent alert ", tls_alert_name(alert));
    else
        loop_why(l, kind, kind == ERR_TLS_HANDSHAKE ? "the TLS handshake failed" : "a TLS record that does not open",
                 NULL);
}

static bool tls_on_data(struct loop *l, struct conn *c, uint8_t *p, size_t n)
{
    struct tcp *t = tcp_of(l);
    t->plain_conn = c;
    t->plain_alive = true;
    int rc = tls_conn_recv(c->tls, p, n, tls_plain, l);
    if (rc == TLS_HANDSHAKE_DONE) {
        if (c->handshaking && !tls_opened(l, c))
            return false;
    } else if (rc < 0) {
        conn_flush(l, c); /* our alert, if we sent one */
        /* Waiting for the tick is for an alert that says why we end the
         * connection. A close_notify of ours answering the server's (BearSSL's
         * TLS 1.2 engine sends one) says nothing the server needs: the new
         * connection goes now, not up to 100 ms later. */
        c->goodbye = c->sending && rc != TLS_CLOSED;
        tls_count_alert(l, c, rc);
        if (c->handshaking) {
            int alert = tls_conn_alert(c->tls);
            /* This connection is replaced by one running the 1.2 engine, as
             * every later one is; nothing was taken from the budget for it,
             * so nothing is counted. A 1.2 handshake that fails is an
             * ordinary error. */
            if (tls12_fallback_wanted(c, rc)) {
                target_tls12 = TARGET_TLS12;
                return false;
            }
            /* A refusal no retry will change (RFC 7301 §3.2): none of the
             * protocols we offered. */
            if (alert == -120)
                loop_fatal(l, "the server does not speak ",
                           t->http2 ? "HTTP/2 over TLS (ALPN h2 refused: no_application_protocol)"
                                    : "HTTP/1.1 over TLS (ALPN http/1.1 refused: no_application_protocol)");
            tls_why(l, c, ERR_TLS_HANDSHAKE);
            loop_charge(l, ERR_TLS_HANDSHAKE);
            return false;
        }
        /* After the handshake: close_notify is a clean close; a record that
         * does not open, is too large or is unexpected, and a fatal alert
         * from the server, are TLS errors (the alert is named in the
         * report). */
        if (t->plain_alive) {
            if (rc != TLS_CLOSED)
                tls_why(l, c, ERR_TLS);
            proto_lost(l, c, rc == TLS_CLOSED ? ERR_CLOSED : ERR_TLS, rc == TLS_CLOSED ? LOST_EOF : LOST_FAILED, NULL);
        }
        return false;
    }
    flush_later(l, c);
    return t->plain_alive;
}

/* ---- completions -------------------------------------------------------- */

/* why: the system's word for a failed send or receive (strerror), or
 * NULL (a clean close; or the caller said why). */
static void proto_lost(struct loop *l, struct conn *c, enum err_kind kind, enum lost_how how, const char *why)
{
    struct tcp *t = tcp_of(l);
    if (c->tls && c->handshaking) {
        /* EOF or reset mid-handshake */
        if (how == LOST_EOF)
            loop_why(l, ERR_TLS_HANDSHAKE, "the server closed the connection during the TLS handshake", NULL);
        else if (why)
            loop_why(l, ERR_TLS_HANDSHAKE, "during the TLS handshake: ", why);
        loop_charge(l, ERR_TLS_HANDSHAKE);
        return;
    }
    if (how != LOST_EOF && why)
        loop_why(l, kind, why, NULL);
    if (t->http2) {
        if (how == LOST_EOF)
            loop_why(l, ERR_CLOSED, "the server closed the connection with streams open", NULL);
        h2_lost(l, c, how == LOST_EOF ? ERR_CLOSED : kind);
    } else {
        h1_lost(l, c, kind, how);
    }
}

static void conn_lost(struct loop *l, struct conn *c, enum err_kind kind, enum lost_how how, const char *why)
{
    proto_lost(l, c, kind, how, why);
    conn_close(l, c);
    conn_replace(l, c, false);
}

static void on_connect(struct loop *l, struct conn *c, int res)
{
    struct tcp *t = tcp_of(l);
    if (res == -EAGAIN && l->cfg->addr->sa_family == AF_UNIX) {
        /* A unix socket whose listen backlog is full refuses a
         * non-blocking connect with EAGAIN at once (unix(7)), where TCP
         * would retransmit its SYN and wait: the attempt goes again at the
         * next tick, free, until --connect-timeout (from the first one)
         * has passed; then it is a connect timeout, as over TCP. */
        if (l->now - c->phase_ns < l->cfg->connect_timeout_ns) {
            t->connecting--;
            c->state = CONN_IDLE;
            c->gen = (c->gen + 1) & GEN_MASK;
            c->backlog_wait = true;
            conn_replace(l, c, true);
            return;
        }
        res = -ETIME;
    }
    if (res < 0) {
        /* -ECANCELED: the linked timeout fired first. EADDRNOTAVAIL: no
         * local port left for this destination (the ephemeral range is
         * spent, TIME_WAIT included). */
        enum err_kind kind = res == -ECANCELED || res == -ETIME ? ERR_CONNECT_TIMEOUT
                             : res == -EADDRNOTAVAIL            ? ERR_NO_PORT
                                                                : ERR_CONNECT;
        if (kind == ERR_CONNECT_TIMEOUT)
            loop_why_within(l, kind, "no connection within ", l->cfg->connect_timeout_ns);
        else
            loop_why(l, kind, strerror(-res), NULL);
        connect_failed(l, c, kind);
        return;
    }
    t->connecting--;
    c->state = CONN_OPEN;
    c->heard = false;
    l->w->stats.connections_opened++;
    l->conns_open++;
    loop_phase(l, &l->w->stats.phases.connect, c->phase_ns);
    arm_recv(l, c);
    if (t->tls)
        tls_start(l, c);
    else
        proto_on_open(l, c);
}

/* A retiring connection (h2_retire) after a send completed: what is still
 * queued (our GOAWAY) goes now; once nothing is left, it is closed and
 * replaced at the next tick, the last send being on its way (slot_set). */
static void h2_retire_sent(struct loop *l, struct conn *c)
{
    size_t plain, sealed = 0;
    conn_flush(l, c);
    if (c->sending)
        return;
    h2_out(c->h2, &plain);
    if (c->tls)
        tls_conn_out(c->tls, &sealed);
    if (plain || sealed)
        return;
    c->retiring = false;
    conn_close(l, c);
    conn_replace(l, c, true);
}

static void on_send(struct loop *l, struct conn *c, int res)
{
    struct tcp *t = tcp_of(l);
    if (res < 0) {
        conn_lost(l, c, ERR_RESET, LOST_SEND, strerror(-res));
        return;
    }
    l->w->stats.bytes_sent += (uint64_t)res;
    if (c->tls) {
        c->sending = false;
        tls_conn_out_ack(c->tls, (size_t)res);
        if (t->http2 && tls_conn_ready(c->tls))
            h2_fill(l, c); /* sealing made room in the engine's buffer */
        else if (c->busy && c->sent < l->cfg->request_len)
            h1_send_bytes(l, c); /* the rest of a request larger than the TLS output */
        flush_later(l, c);
    } else if (t->http2) {
        h2_on_sent(l, c, res);
    } else {
        h1_on_sent(l, c, res);
    }
    if (c->retiring)
        h2_retire_sent(l, c);
}

/* Two mistakes show in the server's first bytes on a connection, before
 * the engine fails on them (as a TLS handshake error, sent
 * record_overflow; as an HTTP/2 frame error): an HTTP/1.1 response
 * (RFC 9112 §4: it starts with "HTTP/") to our ClientHello, from a
 * plain-HTTP port, or to our HTTP/2 connection preface (RFC 9113 §3.4),
 * from a server without h2c. The report then says what the server is.
 * (The third, HTTP/1.1 to an HTTP/2-only port, is h1_got_h2.) */
static void first_bytes_hint(struct loop *l, struct conn *c, const uint8_t *p, size_t n)
{
    if (n < 5 || memcmp(p, "HTTP/", 5) != 0)
        return;
    if (c->tls && c->handshaking)
        loop_hint(l, ERR_TLS_HANDSHAKE, "answered in plain HTTP: is this port TLS? (try http://)");
    else if (!c->tls && tcp_of(l)->http2)
        loop_hint(l, ERR_PROTOCOL,
                  "answered the HTTP/2 connection preface in HTTP/1.1: is this an HTTP/1.1-only port? (try without "
                  "--http2)");
}

static void on_recv(struct loop *l, struct conn *c, int res, uint32_t flags)
{
    struct tcp *t = tcp_of(l);
    bool more = (flags & IORING_CQE_F_MORE) != 0;
    if (!more)
        c->recv_armed = false;
    if (res > 0) {
        unsigned bid = flags >> IORING_CQE_BUFFER_SHIFT;
        uint8_t *p = uring_bufring_addr(&l->bufs, bid);
        l->w->stats.bytes_recv += (uint64_t)res;
        if (!c->heard)
            first_bytes_hint(l, c, p, (size_t)res);
        c->heard = true;
        bool alive = c->tls   ? tls_on_data(l, c, p, (size_t)res)
                     : t->http2 ? h2_on_data(l, c, p, (size_t)res)
                                : h1_on_data(l, c, p, (size_t)res);
        uring_bufring_recycle(&l->bufs, bid);
        if (!alive) {
            conn_close(l, c);
            conn_replace(l, c, c->goodbye);
        } else if (!more) {
            arm_recv(l, c);
        }
        return;
    }
    if (res == -ENOBUFS) {
        /* The buffer ring ran dry: buffers recycled this turn are published
         * before the next submit, which carries the new receive. */
        arm_recv(l, c);
        return;
    }
    /* A TLS 1.2-only server that finds no cipher suite it can use in our
     * TLS 1.3 ClientHello may close without a word (lighttpd with
     * mod_gnutls does: no alert, no ServerHello). While no 1.3 handshake
     * has worked, a close or reset before the server's first byte is taken
     * as that refusal, as handshake_failure is: the TLS 1.2 engine gets the
     * next attempt, and this one costs no request. */
    if (c->tls && c->handshaking && !c->tls12 && !c->heard && target_tls12 != TARGET_TLS13) {
        target_tls12 = TARGET_TLS12;
        conn_close(l, c);
        conn_replace(l, c, false);
        return;
    }
    conn_lost(l, c, ERR_RESET, res == 0 ? LOST_EOF : LOST_FAILED, res < 0 ? strerror(-res) : NULL);
}

static void tcp_complete(struct loop *l, const struct io_uring_cqe *cqe)
{
    struct tcp *t = tcp_of(l);
    uint64_t ud = cqe->user_data;
    unsigned op = ud_op(ud);
    if (op == OP_LINK_TIMEOUT || op == OP_CANCEL)
        return;
    uint32_t idx = ud_idx(ud);
    if (idx >= t->nconns)
        return;
    struct conn *c = &t->conns[idx];
    if (ud_gen(ud) != c->gen) {
        /* A completion for a socket we already closed. Its buffer, if it
         * took one, still goes back to the ring. */
        if (op == OP_RECV && (cqe->flags & IORING_CQE_F_BUFFER))
            uring_bufring_recycle(&l->bufs, cqe->flags >> IORING_CQE_BUFFER_SHIFT);
        return;
    }
    switch (op) {
    case OP_CONNECT:
        on_connect(l, c, cqe->res);
        break;
    case OP_SEND:
        on_send(l, c, cqe->res);
        break;
    case OP_RECV:
        on_recv(l, c, cqe->res, cqe->flags);
        break;
    default:
        break;
    }
}

/* After a batch: every connection that queued output (HTTP/2 frames, TLS
 * records) sends it in one go, unless its previous send is still in flight
 * (then its completion brings it back here); then the connections waiting
 * to open go, as the window allows. */
static void tcp_after_batch(struct loop *l)
{
    struct tcp *t = tcp_of(l);
    for (uint32_t k = 0; k < t->nflush; k++) {
        struct conn *c = &t->conns[t->flush_list[k]];
        c->in_flush_list = false;
        if (c->state == CONN_OPEN)
            conn_flush(l, c);
    }
    t->nflush = 0;
    open_queued(l);
}

/* -q: a request is due and this connection said it had room. */
static void tcp_refill(struct loop *l, uint32_t i)
{
    struct tcp *t = tcp_of(l);
    struct conn *c = &t->conns[i];
    if (c->state != CONN_OPEN || c->handshaking)
        return;
    if (t->http2)
        h2_fill(l, c);
    else if (!c->busy)
        h1_start_next(l, c);
}

/* Gives up on an open connection: what was on it counts as `kind`. */
static void conn_give_up(struct loop *l, struct conn *c, enum err_kind kind)
{
    if (tcp_of(l)->http2)
        h2_lost(l, c, kind);
    else if (c->busy)
        h1_error(l, c, kind);
    conn_close(l, c);
    conn_replace(l, c, false);
}

static void tcp_tick(struct loop *l)
{
    struct tcp *t = tcp_of(l);
    const struct worker_config *cfg = l->cfg;
    t->open_blocked = false;
    while (t->laterq.len) {
        uint32_t i = q_pop(&t->laterq);
        q_push(&t->openq, i);
    }
    for (uint32_t i = 0; i < t->nconns; i++) {
        struct conn *c = &t->conns[i];
        if (c->state != CONN_OPEN)
            continue;
        if (c->handshaking) {
            if (l->now >= c->handshake_deadline) {
                loop_why_within(l, ERR_CONNECT_TIMEOUT, "TLS handshake not done within ",
                                cfg->connect_timeout_ns);
                loop_charge(l, ERR_CONNECT_TIMEOUT); /* --connect-timeout covers the handshake */
                conn_close(l, c);
                conn_replace(l, c, false);
            }
        } else if (!t->http2) {
            if (cfg->timeout_ns && h1_expired(l, c)) {
                loop_why_within(l, ERR_TIMEOUT, "no response within ", cfg->timeout_ns);
                conn_give_up(l, c, ERR_TIMEOUT);
            }
        } else {
            if (cfg->timeout_ns)
                h2_expire(l, c);
            if (h2_drained(c->h2) && !h2_retire(l, c)) {
                /* drained here: --timeout cancelled its last streams */
                conn_close(l, c);
                conn_replace(l, c, c->goodbye);
                continue;
            }
            if (h2_stuck_too_long(l, c)) {
                loop_why_within(l, ERR_REFUSED, "no stream could start (SETTINGS_MAX_CONCURRENT_STREAMS 0) for ",
                                cfg->connect_timeout_ns);
                if (c->responses == 0)
                    loop_charge(l, ERR_REFUSED);
                conn_give_up(l, c, ERR_REFUSED);
            }
        }
    }
    open_queued(l);
}

/* ---- set-up ------------------------------------------------------------- */

/* n blocks of size bytes, each 64-byte aligned (*each: the stride). */
static uint8_t *conn_blocks(size_t size, uint32_t n, size_t *each)
{
    *each = (size + 63) & ~(size_t)63;
    return aligned_alloc(64, *each * n);
}

static int tcp_prepare(struct loop *l, unsigned *sq_entries, unsigned *cq_entries)
{
    struct worker *w = l->w;
    struct tcp *t = calloc(1, sizeof(*t));
    if (!t) {
        snprintf(w->error, sizeof(w->error), "out of memory");
        return -1;
    }
    l->tp_state = t;
    t->http2 = w->cfg.h2 != NULL;
    t->tls = w->cfg.tls != NULL;
    t->nconns = w->cfg.connections;
    t->conns = calloc(t->nconns, sizeof(*t->conns));
    t->flush_list = calloc(t->nconns, sizeof(*t->flush_list));
    t->openq = (struct idx_queue){ .v = calloc(t->nconns, sizeof(uint32_t)), .cap = t->nconns };
    t->laterq = (struct idx_queue){ .v = calloc(t->nconns, sizeof(uint32_t)), .cap = t->nconns };
    if (!t->conns || !t->flush_list || !t->openq.v || !t->laterq.v) {
        snprintf(w->error, sizeof(w->error), "out of memory for %u connections", t->nconns);
        return -1;
    }
    /* Each connection's HTTP/2 engine (stream ring, output buffer) and TLS
     * state: one block each, allocated once, reused by every connection
     * that slot ever holds. */
    size_t h2_each = 0, tls_each = 0;
    if (t->http2 && !(t->h2_mem = conn_blocks(h2_conn_size(w->cfg.h2), t->nconns, &h2_each))) {
        snprintf(w->error, sizeof(w->error), "out of memory for %u HTTP/2 connections", t->nconns);
        return -1;
    }
    if (t->tls && !(t->tls_mem = conn_blocks(tls_conn_size(), t->nconns, &tls_each))) {
        snprintf(w->error, sizeof(w->error), "out of memory for %u TLS connections", t->nconns);
        return -1;
    }
    for (uint32_t i = 0; i < t->nconns; i++) {
        t->conns[i].h2_mem = t->h2_mem ? t->h2_mem + h2_each * i : NULL;
        t->conns[i].tls_mem = t->tls_mem ? t->tls_mem + tls_each * i : NULL;
    }
    if (t->tls) {
        /* Client randoms and key shares come from one DRBG per worker,
         * seeded once from the kernel: no syscall per handshake. */
        uint8_t seed[48];
        if (getrandom(seed, sizeof seed, 0) != (ssize_t)sizeof seed) {
            snprintf(w->error, sizeof(w->error), "getrandom failed: %s", strerror(errno));
            return -1;
        }
        br_hmac_drbg_init(&t->drbg, &br_sha256_vtable, seed, sizeof seed);
        tls13_wipe(seed, sizeof seed);
    }
    t->connect_ts = ns_to_ts(w->cfg.connect_timeout_ns);
    /* SQ: a turn queues per connection at most a cancel, a connect and its
     * timeout, a receive and a send; uring_sqe() submits early when that
     * overflows. CQ: what can be outstanding at once — per connection a
     * send, the receive's last completion and a failed cancel; per attempt
     * in flight a connect and its timeout; a completion per receive buffer;
     * the timers — so that it never overflows (the kernel would keep the
     * excess, but only as slow task work). 65536 is the kernel's maximum. */
    unsigned window = t->nconns < CONNECT_WINDOW ? t->nconns : CONNECT_WINDOW;
    *sq_entries = pow2_at_least(t->nconns * 2 + 8);
    if (*sq_entries > 4096)
        *sq_entries = 4096;
    uint64_t cq = 3ull * t->nconns + 2ull * window + 1024 + 64;
    *cq_entries = cq > 65536 ? 65536 : pow2_at_least((unsigned)cq);
    return 0;
}

static int tcp_attach(struct loop *l) { return loop_register_files(l, tcp_of(l)->nconns); }

static void tcp_start(struct loop *l)
{
    struct tcp *t = tcp_of(l);
    const struct worker_config *cfg = l->cfg;
    /* A -n run opens no more connections than it has requests (HTTP/1.1) or
     * stream batches (HTTP/2) for. */
    uint64_t per_conn = t->http2 ? cfg->h2->parallel : 1;
    uint64_t needed = cfg->timed ? t->nconns : (cfg->budget + per_conn - 1) / per_conn;
    uint32_t first = needed < t->nconns ? (uint32_t)needed : t->nconns;
    for (uint32_t i = 0; i < first; i++) {
        t->conns[i].state = CONN_QUEUED;
        q_push(&t->openq, i);
    }
    open_queued(l);
}

/* How many completions a wake-up holds out for (min_wait_usec at most, see
 * worker.c). HTTP/1.1: a quarter of the connections, capped at eight (spec,
 * How it works): each connection has one request in flight and sends its
 * next only when its response is taken, so holding out for many stalls the
 * pipeline. HTTP/2 with streams to spare: a connection has other requests
 * in flight while one of its receives waits, so a wake-up holds out for a
 * receive and a send completion of every connection, up to 8: the refills
 * of several receives leave in one pass. Measured against nginx with the
 * client held to 25 % of a core (a cgroup quota, as make bench's bound
 * section): 1.2-1.8 x the requests/s of a quarter of the connections at
 * h2c 16 x 32 and 4 x 100, at the same CPU; without a quota as many requests/s
 * at 35-50 % less CPU. Holding out for more (16) gained nothing under a
 * quota and, without one, cost nginx 10 % more CPU per request (its
 * responses left in more TCP segments). A held receive is still read at
 * most latency/32 late (worker.c). */
static unsigned tcp_wait_batch(const struct loop *l)
{
    const struct tcp *t = tcp_of(l);
    if (t->http2 && l->cfg->h2->parallel >= 2)
        return t->nconns < 4 ? 2 * t->nconns : 8;
    unsigned n = t->nconns / 4;
    if (n < 1)
        n = 1;
    return n > 8 ? 8 : n;
}

static void tcp_release(struct loop *l)
{
    struct tcp *t = tcp_of(l);
    free(t->h2_mem);
    free(t->tls_mem);
    free(t->flush_list);
    free(t->openq.v);
    free(t->laterq.v);
    free(t->conns);
    free(t);
    l->tp_state = NULL;
}

const struct transport tcp_transport = {
    .prepare = tcp_prepare,
    .attach = tcp_attach,
    .start = tcp_start,
    .complete = tcp_complete,
    .after_batch = tcp_after_batch,
    .tick = tcp_tick,
    .refill = tcp_refill,
    .release = tcp_release,
    .wait_batch = tcp_wait_batch,
};
