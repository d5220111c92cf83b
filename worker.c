/* worker.c — the per-thread event loop: the only place that does I/O.
 *
 * submit -> wait for a batch of completions -> feed the bytes to the protocol
 * engine -> queue what it produced -> submit. Each connection lives in a
 * registered file slot with one multishot receive drawing from the worker's
 * provided buffer ring; its request bytes are the one buffer main built. */
#define _GNU_SOURCE
#include "worker.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "h1.h"
#include "uring/uring.h"

volatile int shb_stop_requested;

/* How long the kernel may hold out for a full batch before returning what it
 * has (min_wait_usec, Linux 6.12). Short against a loopback round trip, long
 * against the cost of an io_uring_enter. */
#define MIN_WAIT_USEC 50
#define TICK_NS 100000000ull /* Ctrl-C is noticed within this */
#define RECV_BUF_SIZE 16384
#define BUF_GROUP 0

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

enum conn_state { CONN_CLOSED, CONN_CONNECTING, CONN_OPEN };

struct conn {
    uint32_t gen;
    uint8_t state;
    bool recv_armed;
    bool busy;        /* a request is on the wire and its response not complete */
    bool retry;       /* a request already counted as started waits for a new connection */
    bool retried;     /* ... and it has been retried once: the next failure is an error */
    bool wants_open;  /* socket() failed: try again on the next tick */
    uint32_t sent;    /* request bytes the kernel has taken */
    uint32_t responses; /* completed on this socket */
    uint64_t started_ns;
    struct h1_scanner sc;
};

struct state {
    struct worker *w;
    struct uring ring;
    struct uring_bufring bufs;
    struct conn *conns;
    uint32_t nconns;
    uint64_t budget_left; /* -n: requests not started yet */
    uint64_t in_flight;   /* started and not yet ended (including ones waiting to be retried) */
    uint64_t now;
    bool stopping;
    unsigned wait_nr;
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

/* ---- connection lifecycle ---------------------------------------------- */

static void conn_open(struct state *st, struct conn *c);

static void arm_recv(struct state *st, struct conn *c)
{
    uint32_t i = conn_idx(st, c);
    uring_prep_recv_multishot(uring_sqe(&st->ring), i, BUF_GROUP, ud_make(OP_RECV, c->gen, i));
    c->recv_armed = true;
}

static void send_request_bytes(struct state *st, struct conn *c)
{
    uint32_t i = conn_idx(st, c);
    const struct worker_config *cfg = &st->w->cfg;
    uring_prep_send(uring_sqe(&st->ring), i, cfg->request + c->sent, cfg->request_len - c->sent,
                    ud_make(OP_SEND, c->gen, i));
}

static void send_request(struct state *st, struct conn *c)
{
    c->busy = true;
    c->sent = 0;
    c->started_ns = st->now;
    h1_scanner_reset(&c->sc, st->w->cfg.head);
    send_request_bytes(st, c);
}

/* Starts the next request on an idle open connection, if there is one to start. */
static void start_next(struct state *st, struct conn *c)
{
    if (st->stopping)
        return;
    if (!st->w->cfg.timed) {
        if (st->budget_left == 0)
            return;
        st->budget_left--;
    }
    st->in_flight++;
    send_request(st, c);
}

static void request_ok(struct state *st, struct conn *c, const struct h1_response *r)
{
    struct stats *s = &st->w->stats;
    c->busy = false;
    c->retried = false;
    c->responses++;
    st->in_flight--;
    s->ok++;
    if (r->status < STATUS_MAX)
        s->status[r->status]++;
    hist_record(&s->latency, st->now - c->started_ns);
    st->w->end_ns = st->now;
}

static void request_error(struct state *st, struct conn *c, enum err_kind kind)
{
    c->busy = false;
    c->retry = false;
    c->retried = false;
    st->in_flight--;
    st->w->stats.errors[kind]++;
    st->w->end_ns = st->now;
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
}

/* After a close: open a new connection if this one has work to do, otherwise
 * drop the socket from its slot so the server sees it go. */
static void conn_replace(struct state *st, struct conn *c)
{
    bool more = c->retry || st->w->cfg.timed || st->budget_left > 0;
    if (more && !st->stopping)
        conn_open(st, c);
    else
        uring_files_set(&st->ring, conn_idx(st, c), -1);
}

/* A connect attempt failed. It costs one request: the one waiting to be
 * retried, or the next one from the budget — otherwise a dead server would
 * keep a -n run alive forever. */
static void connect_failed(struct state *st, struct conn *c, enum err_kind kind)
{
    c->state = CONN_CLOSED;
    c->gen = (c->gen + 1) & GEN_MASK;
    if (c->retry) {
        request_error(st, c, kind);
    } else if (st->w->cfg.timed || st->budget_left > 0) {
        if (!st->w->cfg.timed)
            st->budget_left--;
        st->w->stats.errors[kind]++;
        st->w->end_ns = st->now;
    }
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
    /* Requests are written whole, once per response: Nagle would only hold
     * back the tail of a large request behind a delayed ACK. */
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
    struct io_uring_sqe *s = uring_sqe(&st->ring);
    uring_prep_connect(s, i, cfg->addr, cfg->addrlen, ud_make(OP_CONNECT, c->gen, i));
    s->flags |= IOSQE_IO_LINK; /* --connect-timeout: the link timeout cancels it */
    uring_prep_link_timeout(uring_sqe(&st->ring), &st->connect_ts, ud_make(OP_LINK_TIMEOUT, c->gen, i));
}

/* The connection broke (EOF, reset, send failure) with maybe a request on it. */
static void conn_lost(struct state *st, struct conn *c, enum err_kind kind, bool eof)
{
    if (c->busy) {
        struct h1_response r;
        enum h1_event ev = eof ? h1_scan_eof(&c->sc, &r) : H1_NEED_MORE;
        if (ev == H1_DONE) {
            request_ok(st, c, &r);
        } else if (!h1_scan_started(&c->sc) && c->responses > 0 && !c->retried) {
            /* The keep-alive race (RFC 9112 §9.3.1): the server closed an idle
             * connection as our request went out. Nothing of a response
             * arrived, so the request goes again on a new connection. */
            c->busy = false;
            c->retry = true;
            c->retried = true;
        } else {
            request_error(st, c, eof && ev != H1_ERROR ? ERR_CLOSED : kind);
        }
    }
    conn_close(st, c);
    conn_replace(st, c);
}

/* ---- completions -------------------------------------------------------- */

static void on_connect(struct state *st, struct conn *c, int res)
{
    if (res < 0) {
        /* -ECANCELED: the linked timeout fired first (RFC-free: io_uring's contract). */
        connect_failed(st, c, res == -ECANCELED || res == -ETIME ? ERR_CONNECT_TIMEOUT : ERR_CONNECT);
        return;
    }
    c->state = CONN_OPEN;
    st->w->stats.connections_opened++;
    arm_recv(st, c);
    if (c->retry) {
        c->retry = false;
        send_request(st, c);
    } else {
        start_next(st, c);
    }
}

static void on_send(struct state *st, struct conn *c, int res)
{
    if (res < 0) {
        conn_lost(st, c, ERR_RESET, false);
        return;
    }
    st->w->stats.bytes_sent += (uint64_t)res;
    c->sent += (uint32_t)res;
    if (c->busy && c->sent < st->w->cfg.request_len)
        send_request_bytes(st, c); /* short send: the rest goes now */
}

/* Feeds received bytes to the scanner. Returns false if the connection was
 * closed while doing so. */
static bool feed(struct state *st, struct conn *c, const uint8_t *p, size_t n)
{
    const struct worker_config *cfg = &st->w->cfg;
    while (n > 0) {
        if (!c->busy) {
            /* Bytes nobody asked for: the framing can no longer be trusted. */
            conn_close(st, c);
            conn_replace(st, c);
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
            request_error(st, c, ERR_PROTOCOL);
            conn_close(st, c);
            conn_replace(st, c);
            return false;
        }
        request_ok(st, c, &r);
        /* A response that ends before its request was fully sent, or with
         * bytes behind it, leaves the connection in no state to reuse. */
        if (r.close || !cfg->keepalive || c->sent < cfg->request_len || n > 0) {
            conn_close(st, c);
            conn_replace(st, c);
            return false;
        }
        start_next(st, c);
    }
    return true;
}

static void on_recv(struct state *st, struct conn *c, int res, uint32_t flags)
{
    bool more = (flags & IORING_CQE_F_MORE) != 0;
    if (!more)
        c->recv_armed = false;
    if (res > 0) {
        unsigned bid = flags >> IORING_CQE_BUFFER_SHIFT;
        st->w->stats.bytes_recv += (uint64_t)res;
        bool alive = feed(st, c, uring_bufring_addr(&st->bufs, bid), (size_t)res);
        uring_bufring_recycle(&st->bufs, bid);
        if (alive && !more)
            arm_recv(st, c);
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
    for (uint32_t i = 0; i < st->nconns; i++)
        if (st->conns[i].wants_open)
            conn_open(st, &st->conns[i]);
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
    st->nconns = w->cfg.connections;
    st->conns = calloc(st->nconns, sizeof(*st->conns));
    if (!st->conns || stats_init(&w->stats) < 0) {
        snprintf(w->error, sizeof(w->error), "out of memory");
        return -1;
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
    if (st->wait_nr > 8)
        st->wait_nr = 8;
    st->connect_ts = ns_to_ts(w->cfg.connect_timeout_ns);
    st->tick_ts = ns_to_ts(TICK_NS);
    return 0;
}

void worker_run(struct worker *w, uint64_t start_ns, uint64_t deadline_ns)
{
    struct state *st = w->state;
    st->now = start_ns;
    w->end_ns = start_ns;
    st->budget_left = w->cfg.timed ? 0 : w->cfg.budget;
    if (deadline_ns) {
        st->deadline_ts = ns_to_ts(deadline_ns);
        uring_prep_timeout(uring_sqe(&st->ring), &st->deadline_ts, true, ud_make(OP_DEADLINE, 0, 0));
    }
    arm_tick(st);
    uint32_t first = st->nconns;
    if (!w->cfg.timed && st->budget_left < first)
        first = (uint32_t)st->budget_left;
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
    free(st->conns);
    free(st);
    w->state = NULL;
}
