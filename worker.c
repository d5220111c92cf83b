/* worker.c — the per-thread event loop: the only place that does I/O.
 *
 * submit -> wait for a batch of completions -> feed the bytes to the protocol
 * engine -> queue what it produced -> submit. Each connection lives in a
 * registered file slot with one multishot receive drawing from the worker's
 * provided buffer ring.
 *
 * HTTP/1.1 sends the one request buffer main built, a request at a time.
 * HTTP/2 engines append frames to their own output buffers while a batch of
 * completions is processed; each connection with something to say is sent
 * once, after the batch (spec, How it works: the requests a batch produced
 * leave together). */
#define _GNU_SOURCE
#include "worker.h"

#include <bearssl.h>
#include <errno.h>
#include <sys/random.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "h1.h"
#include "h2.h"
#include "tls13/conn.h"
#include "uring/uring.h"

volatile int shb_stop_requested;

/* What the target speaks, learnt by the first handshakes and shared by every
 * worker thread: a server that refuses TLS 1.3 is served by the TLS 1.2
 * engine from then on, without trying 1.3 again. */
enum { TARGET_UNKNOWN, TARGET_TLS12, TARGET_TLS13 };
static _Atomic int target_tls12;

/* How long the kernel may hold out for a full batch before returning what it
 * has (min_wait_usec, Linux 6.12). Short against a loopback round trip, long
 * against the cost of an io_uring_enter. */
#define MIN_WAIT_USEC 50
#define TICK_NS 100000000ull /* Ctrl-C is noticed within this */
#define RECV_BUF_SIZE 16384
#define BUF_GROUP 0

/* A request the server provably did not process (HTTP/2 GOAWAY or
 * REFUSED_STREAM) is sent again, but not forever: a server that refuses
 * everything must still let a -n run end. HTTP/1.1 retries once, for the
 * keep-alive race only. */
#define MAX_RETRIES 15
#define H1_MAX_RETRIES 1

enum op { OP_CONNECT = 1, OP_LINK_TIMEOUT, OP_RECV, OP_SEND, OP_TICK, OP_DEADLINE, OP_CANCEL };

/* user_data: op in the low byte, the connection's generation above it and its
 * index in the high half. The generation changes whenever a connection is
 * closed, so completions still in flight for an old socket are recognised
 * and dropped. */
#define GEN_MASK 0xffffffu
static inline uint64_t ud_make(enum op op, uint32_t gen, uint32_t idx)
{
    return (uint64_t)op | ((uint64_t)(gen & GEN_MASK) << 8) | ((uint64_t)idx << 32);
}
static inline enum op ud_op(uint64_t ud) { return (enum op)(ud & 0xff); }
static inline uint32_t ud_gen(uint64_t ud) { return (uint32_t)(ud >> 8) & GEN_MASK; }
static inline uint32_t ud_idx(uint64_t ud) { return (uint32_t)(ud >> 32); }

/* A request's tag (HTTP/2 streams carry it through the engine): its start
 * time relative to the run in the low 56 bits, its retry count above. */
#define TAG_TIME_MASK ((1ull << 56) - 1)
static inline uint64_t tag_make(uint64_t rel_ns, unsigned retries) { return (rel_ns & TAG_TIME_MASK) | ((uint64_t)retries << 56); }
static inline unsigned tag_retries(uint64_t tag) { return (unsigned)(tag >> 56); }

enum conn_state { CONN_CLOSED, CONN_CONNECTING, CONN_OPEN };

struct conn {
    uint32_t gen;
    uint8_t state;
    bool recv_armed;
    bool wants_open;    /* socket() failed: try again on the next tick */
    bool sending;       /* a send is in flight (HTTP/2: one at a time) */
    bool in_flush_list;
    uint32_t responses; /* completed on this socket */
    /* HTTP/1.1: one request at a time */
    bool busy;          /* a request is on the wire and its response not complete */
    uint8_t retries;    /* of the request on the wire */
    uint32_t sent;      /* request bytes the kernel has taken */
    uint64_t started_ns;
    struct h1_scanner sc;
    /* HTTP/2 */
    struct h2_conn *h2;
    void *h2_mem;
    /* TLS */
    struct tls_conn *tls;
    void *tls_mem;
    bool handshaking;
    bool tls12;         /* this handshake runs the TLS 1.2 engine */
    uint64_t handshake_deadline;
};

struct state {
    struct worker *w;
    struct uring ring;
    struct uring_bufring bufs;
    struct conn *conns;
    uint32_t nconns;
    bool http2;
    uint64_t budget_left;  /* -n: requests not started yet */
    uint64_t in_flight;    /* started and not yet ended, including those waiting to be retried */
    uint64_t retry_waiting[MAX_RETRIES + 1]; /* requests to send again, by how often they were tried */
    uint64_t retry_total;
    uint64_t start_ns;
    uint64_t now;
    bool stopping;
    unsigned wait_nr;
    enum err_kind abort_kind; /* what HTTP/2 streams of a failing connection count as */
    struct conn *event_conn;  /* the connection whose engine is reporting events */
    uint32_t *flush_list;  /* connections with output to send after this batch */
    uint32_t nflush;
    uint8_t *h2_mem;
    bool tls;
    uint8_t *tls_mem;
    br_hmac_drbg_context drbg; /* handshake randomness, seeded once */
    struct conn *plain_conn;   /* the TLS connection delivering plaintext */
    bool plain_alive;          /* ... and whether its protocol engine still wants it */
    struct shb_kernel_timespec connect_ts, tick_ts, deadline_ts;
};

uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct shb_kernel_timespec ns_to_ts(uint64_t ns)
{
    return (struct shb_kernel_timespec){ .tv_sec = (int64_t)(ns / 1000000000ull),
                                         .tv_nsec = (long long)(ns % 1000000000ull) };
}

static unsigned pow2_at_least(unsigned v)
{
    unsigned p = 1;
    while (p < v)
        p <<= 1;
    return p;
}

static uint32_t conn_idx(const struct state *st, const struct conn *c) { return (uint32_t)(c - st->conns); }

/* ---- request accounting ------------------------------------------------- *
 * Every request taken here ends exactly once: request_ok, request_error, or
 * back into retry_waiting (still in flight) to be taken again. */

/* Takes the next request to send: one waiting to be retried first, else a
 * new one from the budget. Returns false when there is nothing to send. */
static bool take_request(struct state *st, unsigned *retries)
{
    if (st->stopping)
        return false;
    if (st->retry_total) {
        /* The most-tried first: on HTTP/2 it then gets the lowest stream id
         * of its new connection, the one a server's GOAWAY keeps. */
        for (unsigned r = MAX_RETRIES + 1; r-- > 0;) {
            if (st->retry_waiting[r]) {
                st->retry_waiting[r]--;
                st->retry_total--;
                *retries = r;
                return true;
            }
        }
    }
    if (!st->w->cfg.timed) {
        if (st->budget_left == 0)
            return false;
        st->budget_left--;
    }
    st->in_flight++;
    *retries = 0;
    return true;
}

static void request_ok(struct state *st, uint16_t status, uint64_t started_ns)
{
    struct stats *s = &st->w->stats;
    st->in_flight--;
    s->ok++;
    if (status < STATUS_MAX)
        s->status[status]++;
    hist_record(&s->latency, st->now - started_ns);
    st->w->end_ns = st->now;
}

static void request_error(struct state *st, enum err_kind kind)
{
    st->in_flight--;
    st->w->stats.errors[kind]++;
    st->w->end_ns = st->now;
}

/* The request was not processed by the server: send it again later, unless
 * it has been tried too often, which makes it an error of `kind`. */
static void request_retry(struct state *st, unsigned retries, unsigned max, enum err_kind kind)
{
    if (st->stopping) {
        /* The run is over (deadline, Ctrl-C): like every request still in
         * flight then, this one is neither a response nor an error. */
        st->in_flight--;
        return;
    }
    if (retries >= max) {
        request_error(st, kind);
        return;
    }
    st->retry_waiting[retries + 1]++;
    st->retry_total++;
}

/* ---- connection lifecycle ---------------------------------------------- */

static void conn_open(struct state *st, struct conn *c);

static void arm_recv(struct state *st, struct conn *c)
{
    uint32_t i = conn_idx(st, c);
    uring_prep_recv_multishot(uring_sqe(&st->ring), i, BUF_GROUP, ud_make(OP_RECV, c->gen, i));
    c->recv_armed = true;
}

/* Closes our side: the multishot receive is cancelled by its user_data (the
 * slot itself is reused right away, so cancelling by file would hit the new
 * socket), and bumping the generation orphans every completion still due. */
static void conn_close(struct state *st, struct conn *c)
{
    uint32_t i = conn_idx(st, c);
    if (c->recv_armed) {
        struct io_uring_sqe *s = uring_sqe(&st->ring);
        uring_prep_cancel(s, ud_make(OP_RECV, c->gen, i), ud_make(OP_CANCEL, c->gen, i));
        s->flags |= IOSQE_CQE_SKIP_SUCCESS;
        c->recv_armed = false;
    }
    c->gen = (c->gen + 1) & GEN_MASK;
    c->state = CONN_CLOSED;
    c->busy = false;
    c->sending = false;
}

static bool work_left(const struct state *st)
{
    return st->retry_total > 0 || st->w->cfg.timed || st->budget_left > 0;
}

/* After a close: open a new connection if there is work left, otherwise
 * drop the socket from its slot so the server sees it go. */
static void conn_replace(struct state *st, struct conn *c)
{
    if (work_left(st) && !st->stopping)
        conn_open(st, c);
    else
        uring_files_set(&st->ring, conn_idx(st, c), -1);
}

/* A connection attempt (TCP connect or TLS handshake) failed. It costs one
 * request — one waiting to be retried or the next from the budget —
 * otherwise a dead server would keep a -n run alive forever. */
static void charge_connect_error(struct state *st, enum err_kind kind)
{
    unsigned retries;
    if (take_request(st, &retries))
        request_error(st, kind);
}

static void connect_failed(struct state *st, struct conn *c, enum err_kind kind)
{
    c->state = CONN_CLOSED;
    c->gen = (c->gen + 1) & GEN_MASK;
    charge_connect_error(st, kind);
    conn_replace(st, c);
}

static void conn_open(struct state *st, struct conn *c)
{
    const struct worker_config *cfg = &st->w->cfg;
    uint32_t i = conn_idx(st, c);
    c->wants_open = false;
    int fd = socket(cfg->addr->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        c->wants_open = true; /* out of descriptors or memory: retry on the next tick */
        return;
    }
    /* Requests leave whole, once per batch: Nagle would only hold a batch
     * back behind the previous one's delayed ACK. */
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    int ret = uring_files_set(&st->ring, i, fd);
    close(fd); /* the registered slot holds its own reference */
    if (ret < 0) {
        c->wants_open = true;
        return;
    }
    c->state = CONN_CONNECTING;
    c->responses = 0;
    c->recv_armed = false;
    c->sending = false;
    struct io_uring_sqe *s = uring_sqe(&st->ring);
    uring_prep_connect(s, i, cfg->addr, cfg->addrlen, ud_make(OP_CONNECT, c->gen, i));
    s->flags |= IOSQE_IO_LINK; /* --connect-timeout: the link timeout cancels it */
    uring_prep_link_timeout(uring_sqe(&st->ring), &st->connect_ts, ud_make(OP_LINK_TIMEOUT, c->gen, i));
}

/* ---- HTTP/1.1 ----------------------------------------------------------- */

static void flush_later(struct state *st, struct conn *c);

static void h1_send_bytes(struct state *st, struct conn *c)
{
    uint32_t i = conn_idx(st, c);
    const struct worker_config *cfg = &st->w->cfg;
    if (st->tls) {
        /* Sealed now, sent after the batch; what did not fit goes when the
         * output drains (on_send). */
        c->sent += (uint32_t)tls_conn_send(c->tls, cfg->request + c->sent, cfg->request_len - c->sent);
        flush_later(st, c);
        return;
    }
    uring_prep_send(uring_sqe(&st->ring), i, cfg->request + c->sent, cfg->request_len - c->sent,
                    ud_make(OP_SEND, c->gen, i));
}

/* Starts the next request on an idle open connection, if there is one. */
static void h1_start_next(struct state *st, struct conn *c)
{
    unsigned retries;
    if (!take_request(st, &retries))
        return;
    c->busy = true;
    c->retries = (uint8_t)retries;
    c->sent = 0;
    c->started_ns = st->now;
    h1_scanner_reset(&c->sc, st->w->cfg.head);
    h1_send_bytes(st, c);
}

static void h1_ok(struct state *st, struct conn *c, const struct h1_response *r)
{
    c->busy = false;
    c->responses++;
    request_ok(st, r->status, c->started_ns);
}

static void h1_error(struct state *st, struct conn *c, enum err_kind kind)
{
    c->busy = false;
    request_error(st, kind);
}

/* The connection broke (EOF, reset, send failure) with maybe a request on it. */
static void h1_lost(struct state *st, struct conn *c, enum err_kind kind, bool eof)
{
    if (c->busy) {
        struct h1_response r;
        enum h1_event ev = eof ? h1_scan_eof(&c->sc, &r) : H1_NEED_MORE;
        if (ev == H1_DONE) {
            h1_ok(st, c, &r);
        } else if (!h1_scan_started(&c->sc) && c->responses > 0) {
            /* The keep-alive race (RFC 9112 §9.3.1): the server closed an idle
             * connection as our request went out. Nothing of a response
             * arrived, so the request goes again on a new connection. */
            c->busy = false;
            request_retry(st, c->retries, H1_MAX_RETRIES, eof ? ERR_CLOSED : kind);
        } else {
            h1_error(st, c, eof && ev != H1_ERROR ? ERR_CLOSED : kind);
        }
    }
}

static void h1_on_open(struct state *st, struct conn *c)
{
    h1_start_next(st, c);
}

static void h1_on_sent(struct state *st, struct conn *c, int res)
{
    c->sent += (uint32_t)res;
    if (c->busy && c->sent < st->w->cfg.request_len)
        h1_send_bytes(st, c); /* short send: the rest goes now */
}

/* Feeds received bytes to the scanner. Returns false if the connection was
 * closed while doing so. */
static bool h1_on_data(struct state *st, struct conn *c, const uint8_t *p, size_t n)
{
    const struct worker_config *cfg = &st->w->cfg;
    while (n > 0) {
        if (!c->busy)
            return false; /* bytes nobody asked for: the framing can no longer be trusted */
        size_t used = 0;
        struct h1_response r;
        enum h1_event ev = h1_scan(&c->sc, p, n, &used, &r);
        p += used;
        n -= used;
        if (ev == H1_NEED_MORE)
            return true;
        if (ev == H1_ERROR) {
            h1_error(st, c, ERR_PROTOCOL);
            return false;
        }
        h1_ok(st, c, &r);
        /* A response that ends before its request was fully sent, or with
         * bytes behind it, leaves the connection in no state to reuse. */
        if (r.close || !cfg->keepalive || c->sent < cfg->request_len || n > 0)
            return false;
        h1_start_next(st, c);
    }
    return true;
}

/* ---- HTTP/2 ------------------------------------------------------------- */

static void h2_event(void *ctx, const struct h2_event *ev)
{
    struct state *st = ctx;
    unsigned retries = tag_retries(ev->tag);
    switch (ev->kind) {
    case H2_EV_RESPONSE:
        st->event_conn->responses++;
        request_ok(st, ev->status, st->start_ns + (ev->tag & TAG_TIME_MASK));
        break;
    case H2_EV_RESET:
        request_error(st, ERR_STREAM_RESET);
        break;
    case H2_EV_RETRY:
        /* GOAWAY below this stream or REFUSED_STREAM: provably unprocessed
         * (RFC 9113 §8.7), so safe to send again. Only a refusal from a
         * connection that completed nothing counts towards the limit: a
         * server that closes every fifth request refuses the streams queued
         * behind it as a matter of course, and that is no reason to give up. */
        if ((ev->peer_progress || st->event_conn->responses > 0) && retries > 0)
            retries--;
        request_retry(st, retries, MAX_RETRIES, ERR_REFUSED);
        break;
    case H2_EV_ABORTED:
        request_error(st, st->abort_kind);
        break;
    }
}

static void flush_later(struct state *st, struct conn *c)
{
    if (!c->in_flush_list) {
        c->in_flush_list = true;
        st->flush_list[st->nflush++] = conn_idx(st, c);
    }
}

/* Opens as many streams as the engine allows and there are requests for. */
static void h2_fill(struct state *st, struct conn *c)
{
    unsigned retries;
    while (h2_can_start(c->h2) && take_request(st, &retries))
        h2_start(c->h2, tag_make(st->now - st->start_ns, retries));
    flush_later(st, c);
}

static void h2_on_open(struct state *st, struct conn *c)
{
    c->h2 = h2_conn_init(c->h2_mem, st->w->cfg.h2);
    h2_fill(st, c);
}

static void h2_lost(struct state *st, struct conn *c, enum err_kind kind)
{
    st->abort_kind = kind;
    st->event_conn = c;
    h2_conn_lost(c->h2, h2_event, st);
}

static void tls_flush(struct state *st, struct conn *c);

static void h2_send_out(struct state *st, struct conn *c)
{
    size_t len;
    const uint8_t *out = h2_out(c->h2, &len);
    if (len == 0)
        return;
    uint32_t i = conn_idx(st, c);
    uring_prep_send(uring_sqe(&st->ring), i, out, len, ud_make(OP_SEND, c->gen, i));
    c->sending = true;
}

static void h2_on_sent(struct state *st, struct conn *c, int res)
{
    c->sending = false;
    h2_out_ack(c->h2, (size_t)res);
    h2_fill(st, c); /* room in the output buffer may let more streams start */
}

/* Sends what the connection has queued now, if no send is in flight. */
static void conn_flush(struct state *st, struct conn *c)
{
    if (st->tls)
        tls_flush(st, c);
    else if (!c->sending)
        h2_send_out(st, c);
}

static bool h2_on_data(struct state *st, struct conn *c, const uint8_t *p, size_t n)
{
    st->abort_kind = ERR_PROTOCOL;
    st->event_conn = c;
    int ret = h2_recv(c->h2, p, n, h2_event, st);
    if (ret < 0) {
        /* The engine queued a GOAWAY naming the problem: it goes out on its
         * own (the old socket lives until that send completes). */
        conn_flush(st, c);
        return false;
    }
    if (h2_drained(c->h2))
        return false; /* GOAWAY honoured and nothing left open: replace it */
    h2_fill(st, c);
    return true;
}

/* ---- TLS ---------------------------------------------------------------- *
 * Plaintext from the protocol engines is sealed into the connection's TLS
 * output; ciphertext from the socket is opened in place in the receive
 * buffer and handed to the engines. The handshake counts as part of
 * connecting: --connect-timeout covers it, and its failure is a connect
 * error of its own kind. */

static void proto_on_open(struct state *st, struct conn *c)
{
    if (st->http2)
        h2_on_open(st, c);
    else
        h1_on_open(st, c);
}

static void tls_start(struct state *st, struct conn *c)
{
    uint8_t entropy[TLS13_ENTROPY_LEN];
    br_hmac_drbg_generate(&st->drbg, entropy, sizeof entropy);
    c->tls12 = target_tls12 == TARGET_TLS12;
    c->tls = tls_conn_init(c->tls_mem, st->w->cfg.tls, entropy, c->tls12);
    tls13_wipe(entropy, sizeof entropy);
    c->handshaking = true;
    c->handshake_deadline = st->now + st->w->cfg.connect_timeout_ns;
    flush_later(st, c);
}

static void tls_flush(struct state *st, struct conn *c)
{
    if (st->http2 && tls_conn_ready(c->tls)) {
        size_t len;
        const uint8_t *out = h2_out(c->h2, &len);
        if (len)
            h2_out_ack(c->h2, tls_conn_send(c->tls, out, len)); /* sealed: the engine may reuse it */
    }
    if (c->sending)
        return;
    size_t len;
    const uint8_t *out = tls_conn_out(c->tls, &len);
    if (len == 0)
        return;
    uint32_t i = conn_idx(st, c);
    uring_prep_send(uring_sqe(&st->ring), i, out, len, ud_make(OP_SEND, c->gen, i));
    c->sending = true;
}

/* A run that cannot go on: say why once, and stop every worker. */
static void worker_fatal(struct state *st, const char *why, const char *detail)
{
    if (!st->w->fatal) {
        snprintf(st->w->error, sizeof(st->w->error), "%s%s", why, detail);
        st->w->fatal = true;
    }
    st->stopping = true;
    shb_stop_requested = 1;
}

/* The handshake is over: the protocol starts. Returns false when the run
 * cannot go on. */
static bool tls_opened(struct state *st, struct conn *c)
{
    c->handshaking = false;
    if (!c->tls12) {
        int unknown = TARGET_UNKNOWN;
        atomic_compare_exchange_strong(&target_tls12, &unknown, TARGET_TLS13);
    }
    /* RFC 7301 §3.2: the server picks; a server that will not speak h2
     * is a clear error, not a silent downgrade to HTTP/1.1. */
    if (st->http2 && strcmp(tls_conn_alpn(c->tls), "h2") != 0) {
        const char *alpn = tls_conn_alpn(c->tls);
        worker_fatal(st, "the server did not select HTTP/2 with ALPN: it chose ",
                     *alpn ? alpn : "no protocol (an HTTP/1.1-only server?)");
        return false;
    }
    proto_on_open(st, c);
    return true;
}

static void tls_plain(void *ctx, uint8_t *p, size_t n)
{
    struct state *st = ctx;
    struct conn *c = st->plain_conn;
    /* TLS 1.2: the server's Finished and its first bytes (an HTTP/2
     * SETTINGS) can arrive in one read, so plaintext may come before
     * tls_conn_recv has returned TLS_HANDSHAKE_DONE. */
    if (st->plain_alive && c->handshaking && !tls_opened(st, c))
        st->plain_alive = false;
    if (!st->plain_alive)
        return;
    bool alive = st->http2 ? h2_on_data(st, c, p, n) : h1_on_data(st, c, p, n);
    if (!alive)
        st->plain_alive = false;
}

static void proto_lost(struct state *st, struct conn *c, enum err_kind kind, bool eof);

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
static void tls_count_alert(struct state *st, struct conn *c, int rc)
{
    int alert = tls_conn_alert(c->tls);
    if (alert == 0 || tls12_fallback_wanted(c, rc))
        return;
    if (alert < 0)
        st->w->stats.alerts_received[(-alert) & 0xff]++;
    else
        st->w->stats.alerts_sent[alert & 0xff]++;
}

static bool tls_on_data(struct state *st, struct conn *c, uint8_t *p, size_t n)
{
    st->plain_conn = c;
    st->plain_alive = true;
    int rc = tls_conn_recv(c->tls, p, n, tls_plain, st);
    if (rc == TLS_HANDSHAKE_DONE) {
        if (c->handshaking && !tls_opened(st, c))
            return false;
    } else if (rc < 0) {
        conn_flush(st, c); /* our alert, if we sent one */
        tls_count_alert(st, c, rc);
        if (c->handshaking) {
            int alert = tls_conn_alert(c->tls);
            /* A server that does not speak TLS 1.3: it chose 1.2, answered
             * protocol_version, or (some 1.2-only servers, while no 1.3
             * handshake has worked yet) handshake_failure. This connection
             * is replaced by one running the 1.2 engine, as every later one
             * is; nothing was taken from the budget for it, so nothing is
             * counted. A 1.2 handshake that fails is an ordinary error. */
            if (tls12_fallback_wanted(c, rc)) {
                target_tls12 = TARGET_TLS12;
                return false;
            }
            /* A refusal no retry will change (RFC 7301 §3.2): none of the
             * protocols we offered. */
            if (alert == -120)
                worker_fatal(st, "the server does not speak ",
                             st->http2 ? "HTTP/2 over TLS (ALPN h2 refused: no_application_protocol)"
                                       : "HTTP/1.1 over TLS (ALPN http/1.1 refused: no_application_protocol)");
            charge_connect_error(st, ERR_TLS_HANDSHAKE);
            return false;
        }
        if (st->plain_alive)
            proto_lost(st, c, rc == TLS_CLOSED ? ERR_CLOSED : rc == TLS_ERR_RECORD ? ERR_PROTOCOL : ERR_RESET,
                       rc == TLS_CLOSED);
        return false;
    }
    flush_later(st, c);
    return st->plain_alive;
}

/* ---- completions -------------------------------------------------------- */

static void proto_lost(struct state *st, struct conn *c, enum err_kind kind, bool eof)
{
    if (st->tls && c->handshaking)
        charge_connect_error(st, ERR_TLS_HANDSHAKE); /* EOF or reset mid-handshake */
    else if (st->http2)
        h2_lost(st, c, eof ? ERR_CLOSED : kind);
    else
        h1_lost(st, c, kind, eof);
}

static void conn_lost(struct state *st, struct conn *c, enum err_kind kind, bool eof)
{
    proto_lost(st, c, kind, eof);
    conn_close(st, c);
    conn_replace(st, c);
}

static void on_connect(struct state *st, struct conn *c, int res)
{
    if (res < 0) {
        /* -ECANCELED: the linked timeout fired first. */
        connect_failed(st, c, res == -ECANCELED || res == -ETIME ? ERR_CONNECT_TIMEOUT : ERR_CONNECT);
        return;
    }
    c->state = CONN_OPEN;
    st->w->stats.connections_opened++;
    arm_recv(st, c);
    if (st->tls)
        tls_start(st, c);
    else
        proto_on_open(st, c);
}

static void on_send(struct state *st, struct conn *c, int res)
{
    if (res < 0) {
        conn_lost(st, c, ERR_RESET, false);
        return;
    }
    st->w->stats.bytes_sent += (uint64_t)res;
    if (st->tls) {
        c->sending = false;
        tls_conn_out_ack(c->tls, (size_t)res);
        if (st->http2 && tls_conn_ready(c->tls))
            h2_fill(st, c); /* sealing made room in the engine's buffer */
        else if (c->busy && c->sent < st->w->cfg.request_len)
            h1_send_bytes(st, c); /* the rest of a request larger than the TLS output */
        flush_later(st, c);
    } else if (st->http2) {
        h2_on_sent(st, c, res);
    } else {
        h1_on_sent(st, c, res);
    }
}

static void on_recv(struct state *st, struct conn *c, int res, uint32_t flags)
{
    bool more = (flags & IORING_CQE_F_MORE) != 0;
    if (!more)
        c->recv_armed = false;
    if (res > 0) {
        unsigned bid = flags >> IORING_CQE_BUFFER_SHIFT;
        uint8_t *p = uring_bufring_addr(&st->bufs, bid);
        st->w->stats.bytes_recv += (uint64_t)res;
        bool alive = st->tls      ? tls_on_data(st, c, p, (size_t)res)
                     : st->http2 ? h2_on_data(st, c, p, (size_t)res)
                                 : h1_on_data(st, c, p, (size_t)res);
        uring_bufring_recycle(&st->bufs, bid);
        if (!alive) {
            conn_close(st, c);
            conn_replace(st, c);
        } else if (!more) {
            arm_recv(st, c);
        }
        return;
    }
    if (res == -ENOBUFS) {
        /* The buffer ring ran dry: buffers recycled this turn are published
         * before the next submit, which carries the new receive. */
        arm_recv(st, c);
        return;
    }
    conn_lost(st, c, ERR_RESET, res == 0);
}

static void arm_tick(struct state *st)
{
    uring_prep_timeout(uring_sqe(&st->ring), &st->tick_ts, false, ud_make(OP_TICK, 0, 0));
}

static void on_tick(struct state *st)
{
    if (shb_stop_requested)
        st->stopping = true;
    if (st->stopping)
        return;
    for (uint32_t i = 0; i < st->nconns; i++) {
        struct conn *c = &st->conns[i];
        if (c->wants_open) {
            conn_open(st, c);
        } else if (c->state == CONN_OPEN && c->handshaking && st->now >= c->handshake_deadline) {
            charge_connect_error(st, ERR_CONNECT_TIMEOUT); /* --connect-timeout covers the handshake */
            conn_close(st, c);
            conn_replace(st, c);
        }
    }
    arm_tick(st);
}

static void handle_cqe(struct state *st, const struct io_uring_cqe *cqe)
{
    uint64_t ud = cqe->user_data;
    enum op op = ud_op(ud);
    switch (op) {
    case OP_TICK:
        on_tick(st);
        return;
    case OP_DEADLINE:
        st->stopping = true;
        return;
    case OP_LINK_TIMEOUT:
    case OP_CANCEL:
        return;
    default:
        break;
    }
    uint32_t idx = ud_idx(ud);
    if (idx >= st->nconns)
        return;
    struct conn *c = &st->conns[idx];
    if (ud_gen(ud) != c->gen) {
        /* A completion for a socket we already closed. Its buffer, if it
         * took one, still goes back to the ring. */
        if (op == OP_RECV && (cqe->flags & IORING_CQE_F_BUFFER))
            uring_bufring_recycle(&st->bufs, cqe->flags >> IORING_CQE_BUFFER_SHIFT);
        return;
    }
    switch (op) {
    case OP_CONNECT:
        on_connect(st, c, cqe->res);
        break;
    case OP_SEND:
        on_send(st, c, cqe->res);
        break;
    case OP_RECV:
        on_recv(st, c, cqe->res, cqe->flags);
        break;
    default:
        break;
    }
}

/* After a batch: every connection that queued output (HTTP/2 frames, TLS
 * records) sends it in one go, unless its previous send is still in flight
 * (then its completion brings it back here). */
static void flush_writes(struct state *st)
{
    for (uint32_t k = 0; k < st->nflush; k++) {
        struct conn *c = &st->conns[st->flush_list[k]];
        c->in_flush_list = false;
        if (c->state == CONN_OPEN)
            conn_flush(st, c);
    }
    st->nflush = 0;
}

/* ---- the worker --------------------------------------------------------- */

int worker_prepare(struct worker *w)
{
    struct state *st = calloc(1, sizeof(*st));
    if (!st) {
        snprintf(w->error, sizeof(w->error), "out of memory");
        return -1;
    }
    st->ring.ring_fd = -1;
    w->state = st;
    st->w = w;
    st->http2 = w->cfg.h2 != NULL;
    st->nconns = w->cfg.connections;
    st->conns = calloc(st->nconns, sizeof(*st->conns));
    st->flush_list = calloc(st->nconns, sizeof(*st->flush_list));
    if (!st->conns || !st->flush_list || stats_init(&w->stats) < 0) {
        snprintf(w->error, sizeof(w->error), "out of memory");
        return -1;
    }
    if (st->http2) {
        /* Each connection's engine, stream ring and output buffer: one block,
         * allocated once, reused by every connection that slot ever holds. */
        size_t each = (h2_conn_size(w->cfg.h2) + 63) & ~(size_t)63;
        st->h2_mem = aligned_alloc(64, each * st->nconns);
        if (!st->h2_mem) {
            snprintf(w->error, sizeof(w->error), "out of memory for %u HTTP/2 connections", st->nconns);
            return -1;
        }
        for (uint32_t i = 0; i < st->nconns; i++)
            st->conns[i].h2_mem = st->h2_mem + each * i;
    }
    st->tls = w->cfg.tls != NULL;
    if (st->tls) {
        size_t each = (tls_conn_size() + 63) & ~(size_t)63;
        st->tls_mem = aligned_alloc(64, each * st->nconns);
        if (!st->tls_mem) {
            snprintf(w->error, sizeof(w->error), "out of memory for %u TLS connections", st->nconns);
            return -1;
        }
        for (uint32_t i = 0; i < st->nconns; i++)
            st->conns[i].tls_mem = st->tls_mem + each * i;
        /* Client randoms and key shares come from one DRBG per worker,
         * seeded once from the kernel: no syscall per handshake. */
        uint8_t seed[48];
        if (getrandom(seed, sizeof seed, 0) != (ssize_t)sizeof seed) {
            snprintf(w->error, sizeof(w->error), "getrandom failed: %s", strerror(errno));
            return -1;
        }
        br_hmac_drbg_init(&st->drbg, &br_sha256_vtable, seed, sizeof seed);
        tls13_wipe(seed, sizeof seed);
    }
    /* Per turn a connection queues at most a cancel, a connect with its
     * timeout, a receive and a send; uring_sqe() flushes if that overflows. */
    unsigned sq = pow2_at_least(st->nconns * 2 + 8);
    if (sq > 4096)
        sq = 4096;
    if (uring_init(&st->ring, sq, sq * 4, w->error, sizeof(w->error)) < 0)
        return -1;
    int ret = uring_files_register(&st->ring, st->nconns);
    if (ret < 0) {
        snprintf(w->error, sizeof(w->error), "registering %u file slots failed: %s", st->nconns, strerror(-ret));
        return -1;
    }
    unsigned nbufs = pow2_at_least(st->nconns * 2);
    if (nbufs < 16)
        nbufs = 16;
    if (nbufs > 1024)
        nbufs = 1024;
    ret = uring_bufring_init(&st->ring, &st->bufs, BUF_GROUP, nbufs, RECV_BUF_SIZE);
    if (ret < 0) {
        snprintf(w->error, sizeof(w->error), "registering a provided buffer ring failed: %s%s", strerror(-ret),
                 ret == -EINVAL ? " (provided buffer rings need Linux 5.19, multishot receive 6.0)" : "");
        return -1;
    }
    /* A quarter of the connections, capped at eight (spec, How it works):
     * every completion lets a connection send its next request, so waiting
     * for too many stalls the pipeline. */
    st->wait_nr = st->nconns / 4;
    if (st->wait_nr < 1)
        st->wait_nr = 1;
    /* HTTP/2 with streams to spare: one receive carries many responses, so
     * holding out (min_wait_usec at most) for a second connection's lets one
     * send carry both refills. With 4 connections x 100 streams against
     * nginx that is 1.6x the requests/s of answering every receive alone
     * (make bench), because the server then reads requests in batches too. */
    if (st->http2 && w->cfg.h2->parallel >= 2 && st->nconns >= 2 && st->wait_nr < 2)
        st->wait_nr = 2;
    if (st->wait_nr > 8)
        st->wait_nr = 8;
    st->connect_ts = ns_to_ts(w->cfg.connect_timeout_ns);
    st->tick_ts = ns_to_ts(TICK_NS);
    return 0;
}

void worker_run(struct worker *w, uint64_t start_ns, uint64_t deadline_ns)
{
    struct state *st = w->state;
    st->start_ns = start_ns;
    st->now = start_ns;
    w->end_ns = start_ns;
    st->budget_left = w->cfg.timed ? 0 : w->cfg.budget;
    if (deadline_ns) {
        st->deadline_ts = ns_to_ts(deadline_ns);
        uring_prep_timeout(uring_sqe(&st->ring), &st->deadline_ts, true, ud_make(OP_DEADLINE, 0, 0));
    }
    arm_tick(st);
    /* A -n run opens no more connections than it has requests (HTTP/1.1) or
     * stream batches (HTTP/2) for. */
    uint64_t per_conn = st->http2 ? w->cfg.h2->parallel : 1;
    uint64_t needed = w->cfg.timed ? st->nconns : (st->budget_left + per_conn - 1) / per_conn;
    uint32_t first = needed < st->nconns ? (uint32_t)needed : st->nconns;
    for (uint32_t i = 0; i < first; i++)
        conn_open(st, &st->conns[i]);

    while (!st->stopping) {
        if (!w->cfg.timed && st->budget_left == 0 && st->in_flight == 0)
            break;
        uring_bufring_publish(&st->bufs);
        int ret = uring_submit_wait(&st->ring, st->wait_nr, MIN_WAIT_USEC);
        if (ret < 0 && ret != -EINTR && ret != -ETIME && ret != -EAGAIN && ret != -EBUSY) {
            snprintf(w->error, sizeof(w->error), "io_uring_enter failed: %s", strerror(-ret));
            break;
        }
        st->now = monotonic_ns();
        unsigned head = uring_cq_head(&st->ring), tail = uring_cq_tail(&st->ring);
        for (; head != tail; head++)
            handle_cqe(st, uring_cq_at(&st->ring, head));
        uring_cq_advance(&st->ring, head);
        if (st->nflush)
            flush_writes(st);
        if (shb_stop_requested)
            st->stopping = true;
    }
    if (w->cfg.timed || st->stopping)
        w->end_ns = st->now;
}

void worker_release(struct worker *w)
{
    struct state *st = w->state;
    if (!st)
        return;
    if (st->ring.ring_fd >= 0)
        uring_exit(&st->ring); /* the kernel cancels what is pending and drops the sockets */
    if (st->bufs.ring)
        uring_bufring_free(&st->bufs);
    free(st->h2_mem);
    free(st->tls_mem);
    free(st->flush_list);
    free(st->conns);
    free(st);
    w->state = NULL;
}
