/* worker/tcp.c — the TCP transport: a connection's socket from connect to
 * close (tcp.h). The session above it (session_h1.c, session_h2.c) owns the
 * requests; TLS, for https://, is a filter between the two (tcp_tls.c). The
 * loop and the request accounting are worker.c's (loop.h).
 *
 * Each connection lives in a registered file slot (slot.h) with one
 * multishot receive drawing from the worker's provided buffer ring. A
 * session that has something to say either sends it at once (HTTP/1.1: one
 * request at a time) or queues its connection to send after the batch
 * (HTTP/2 frames, TLS records): each connection with something to say is
 * sent once, after the batch (spec, How it works: the requests a batch
 * produced leave together). One send is in flight per connection: its
 * completion says what the kernel took, and the output may not move before.
 *
 * Deadlines. Every wait has a bound: connects carry a linked timeout
 * (--connect-timeout); the TLS handshake, each request (--timeout) and an
 * HTTP/2 connection that can start no stream are checked on the loop's tick
 * by walking the connections, so no timer is armed per request. */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tcp.h"

/* Connection attempts in flight per worker. Opening 19,000 connections at
 * once queues 38,000 completions (connect and its linked timeout) as kernel
 * task work, which Linux runs at most max(20, wait_nr) per io_uring_enter
 * (io_uring/tw.h, IO_LOCAL_TW_DEFAULT_MAX): the backlog then starves every
 * later completion — responses, ticks, the -z deadline — for seconds. A
 * window keeps it short; on loopback 19,000 connections still open in
 * well under a second. */
#define CONNECT_WINDOW 512

enum tcp_op { OP_CONNECT = OP_SLOT_END, OP_LINK_TIMEOUT };

/* ---- the socket -------------------------------------------------------- */

void tcp_send(struct loop *l, struct conn *c, const void *buf, size_t len)
{
    uring_prep_send(uring_sqe(&l->ring), c->s.idx, buf, len, slot_ud(&c->s, OP_SEND));
    slot_sending(l, &c->s);
}

void tcp_flush(struct loop *l, struct conn *c)
{
    if (c->tunnelling)
        return; /* only the CONNECT request goes before the tunnel is up */
    if (c->tls) {
        tcp_tls_flush(l, c);
    } else if (!c->s.sending) {
        size_t len;
        const uint8_t *out = tcp_of(l)->session->out(l, c, &len);
        if (len)
            tcp_send(l, c, out, len);
    }
}

bool tcp_goodbye(struct loop *l, struct conn *c)
{
    tcp_flush(l, c);
    c->goodbye = c->s.sending;
    return false;
}

/* Behind a send in flight the last word stays queued, and the connection
 * lives on until on_send sees everything gone (retire_sent); with none, it
 * leaves now and the connection is replaced at the next tick (goodbye): the
 * socket's reset must not overtake it (slot_set). */
bool tcp_retire(struct loop *l, struct conn *c)
{
    if (c->retiring)
        return true;
    bool busy = c->s.sending;
    tcp_flush(l, c);
    if (busy) {
        c->retiring = true;
        return true;
    }
    c->goodbye = c->s.sending;
    return false;
}

/* ---- connection lifecycle ---------------------------------------------- */

static void conn_close(struct loop *l, struct conn *c)
{
    slot_close(l, &c->s);
    if (c->state == CONN_CONNECTING)
        tcp_of(l)->connecting--;
    if (c->state == CONN_OPEN)
        l->conns_open--;
    c->state = CONN_IDLE;
    c->session_open = false;
    c->s.sending = false;
    c->retiring = false;
    c->tunnelling = false;
}

/* After a close: queue a new connection if there is work left (now, or at
 * the next tick when the last attempt failed at once or a goodbye is on its
 * way, so a refusing server or exhausted ports are not hammered in a loop
 * and the reset cannot overtake the goodbye), otherwise drop the socket
 * from its slot so the server sees it go. */
static void conn_replace(struct loop *l, struct conn *c, bool at_tick)
{
    struct tcp *t = tcp_of(l);
    if (!loop_work_left(l)) {
        c->backlog_wait = false;
        slot_set(l, &c->s, -1);
        return;
    }
    c->state = CONN_QUEUED;
    ring_push(at_tick ? &t->laterq : &t->openq, c->s.idx);
}

static void conn_end(struct loop *l, struct conn *c)
{
    conn_close(l, c);
    conn_replace(l, c, c->goodbye);
}

static void conn_open(struct loop *l, struct conn *c)
{
    struct tcp *t = tcp_of(l);
    const struct worker_config *cfg = l->cfg;
    uint32_t i = c->s.idx;
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
            ret = slot_set(l, &c->s, fd);
        close(fd); /* the registered slot holds its own reference */
    }
    if (ret < 0) {
        /* Out of descriptors or memory (the system's, shb holds few), or a
         * --bind address gone from the machine: this one and every later
         * one wait for the next tick, and like any failed attempt it costs
         * a request (`connect`), or a -n run could wait forever. */
        t->open_blocked = true;
        loop_charge(l, ERR_CONNECT, c->s.idx);
        c->state = CONN_QUEUED;
        ring_push(&t->laterq, i);
        return;
    }
    c->state = CONN_CONNECTING;
    t->connecting++;
    c->goodbye = false;
    c->responses = 0;
    c->s.recv_armed = false;
    c->s.sending = false;
    if (!c->backlog_wait)
        c->phase_ns = l->now;
    c->backlog_wait = false;
    /* The connect and its timeout must reach the kernel in one submission,
     * or the link is cut and the connect has no deadline. */
    uring_sq_reserve(&l->ring, 2);
    struct io_uring_sqe *s = uring_sqe(&l->ring);
    uring_prep_connect(s, i, cfg->addr, cfg->addrlen, slot_ud(&c->s, OP_CONNECT));
    s->flags |= IOSQE_IO_LINK; /* --connect-timeout: the link timeout cancels it */
    uring_prep_link_timeout(uring_sqe(&l->ring), &t->connect_ts, slot_ud(&c->s, OP_LINK_TIMEOUT));
}

/* Opens queued connections while the window allows. */
static void open_queued(struct loop *l)
{
    struct tcp *t = tcp_of(l);
    while (t->openq.len && t->connecting < CONNECT_WINDOW && !t->open_blocked) {
        struct conn *c = &t->conns[ring_pop(&t->openq)];
        if (loop_work_left(l)) {
            conn_open(l, c);
        } else {
            c->state = CONN_IDLE;
            slot_set(l, &c->s, -1);
        }
    }
}

static void connect_failed(struct loop *l, struct conn *c, enum err_kind kind)
{
    tcp_of(l)->connecting--;
    c->state = CONN_IDLE;
    slot_close(l, &c->s); /* no receive yet: only a new generation */
    loop_charge(l, kind, c->s.idx);
    /* A timeout has waited already; a refusal or a missing port came back
     * at once, and trying again at once would only spin. */
    conn_replace(l, c, kind != ERR_CONNECT_TIMEOUT);
}

/* The connection broke: what was on it ends as `kind` (the handshake's
 * failure, while there is one). why: the system's word for a failed send or
 * receive (strerror), or NULL (a clean close; or the caller said why). */
static void conn_lost(struct loop *l, struct conn *c, enum err_kind kind, enum lost_how how, const char *why)
{
    if (c->tunnelling) {
        tcp_proxy_lost(l, c, how, why);
    } else if (!(c->tls && tcp_tls_lost(l, c, &how, why))) {
        if (how != LOST_EOF && why)
            loop_why(l, kind, why, NULL);
        if (c->session_open)
            tcp_of(l)->session->lost(l, c, kind, how);
    }
    conn_close(l, c);
    conn_replace(l, c, false);
}

static void session_start(struct loop *l, struct conn *c)
{
    c->session_open = true;
    tcp_of(l)->session->open(l, c);
}

/* The connection reaches the server (connected; through a proxy, its
 * tunnel is up): the TLS handshake starts, or the session. */
static void layers_start(struct loop *l, struct conn *c)
{
    if (tcp_of(l)->tls)
        tcp_tls_start(l, c);
    else
        session_start(l, c);
}

/* ---- completions -------------------------------------------------------- */

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
            slot_close(l, &c->s);
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
    slot_arm_recv(l, &c->s);
    if (l->cfg->proxy_connect)
        tcp_proxy_start(l, c);
    else
        layers_start(l, c);
}

/* A retiring connection (tcp_retire) after a send completed: what is still
 * queued (our GOAWAY) goes now; once nothing is left, it is closed and
 * replaced at the next tick, the last send being on its way (slot_set). */
static void retire_sent(struct loop *l, struct conn *c)
{
    tcp_flush(l, c);
    if (c->s.sending)
        return;
    size_t plain;
    tcp_of(l)->session->out(l, c, &plain);
    if (plain || (c->tls && !tcp_tls_all_sent(c)))
        return;
    c->retiring = false;
    conn_close(l, c);
    conn_replace(l, c, true);
}

static void on_send(struct loop *l, struct conn *c, int res)
{
    const struct session *s = tcp_of(l)->session;
    if (res < 0) {
        conn_lost(l, c, ERR_RESET, LOST_SEND, strerror(-res));
        return;
    }
    l->w->stats.bytes_sent += (uint64_t)res;
    c->s.sending = false;
    if (c->tunnelling) {
        tcp_proxy_sent(l, c, (size_t)res);
        return;
    }
    if (c->tls) {
        tcp_tls_sent(l, c, (size_t)res);
    } else {
        s->out_ack(l, c, (size_t)res);
        s->sent(l, c);
    }
    if (c->retiring)
        retire_sent(l, c);
}

/* Two mistakes show in the server's first bytes on a connection, before
 * the engine fails on them (as a TLS handshake error, sent
 * record_overflow; as an HTTP/2 frame error): an HTTP/1.1 response
 * (RFC 9112 §4: it starts with "HTTP/") to our ClientHello, from a
 * plain-HTTP port, or to our HTTP/2 connection preface (RFC 9113 §3.4),
 * from a server without h2c. The report then says what the server is.
 * (The third, HTTP/1.1 to an HTTP/2-only port, is session_h1.c's
 * h1_got_h2.) */
static void first_bytes_hint(struct loop *l, struct conn *c, const uint8_t *p, size_t n)
{
    if (n < 5 || memcmp(p, "HTTP/", 5) != 0)
        return;
    const char *hint = tcp_of(l)->session->http1_answer_hint;
    if (c->tls && c->handshaking)
        loop_hint(l, ERR_TLS_HANDSHAKE, "answered in plain HTTP: is this port TLS? (try http://)");
    else if (!c->tls && hint)
        loop_hint(l, ERR_PROTOCOL, hint);
}

static void on_recv(struct loop *l, struct conn *c, int res, uint32_t flags)
{
    slot_recv_done(&c->s, flags);
    if (res > 0) {
        unsigned bid = flags >> IORING_CQE_BUFFER_SHIFT;
        uint8_t *p = uring_bufring_addr(&l->bufs, bid);
        size_t n = (size_t)res;
        l->w->stats.bytes_recv += (uint64_t)res;
        bool alive = true;
        if (c->tunnelling) {
            enum tunnel_rc rc = tcp_proxy_data(l, c, &p, &n);
            alive = rc != TUNNEL_FAILED;
            if (rc == TUNNEL_UP)
                layers_start(l, c);
        }
        if (alive && n) { /* the server's bytes (after a tunnel's reply: what followed it) */
            if (!c->heard)
                first_bytes_hint(l, c, p, n);
            c->heard = true;
            alive = c->tls ? tcp_tls_data(l, c, p, n) : tcp_of(l)->session->data(l, c, p, n);
        }
        uring_bufring_recycle(&l->bufs, bid);
        if (!alive)
            conn_end(l, c);
        else if (!c->s.recv_armed)
            slot_arm_recv(l, &c->s);
        return;
    }
    if (res == -ENOBUFS) {
        /* The buffer ring ran dry: buffers recycled this turn are published
         * before the next submit, which carries the new receive. */
        slot_arm_recv(l, &c->s);
        return;
    }
    if (!c->tunnelling && c->tls && tcp_tls_silent_refusal(l, c)) {
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
    if (ud_gen(ud) != c->s.gen) {
        slot_drop_stale(l, cqe); /* a completion for a socket we already closed */
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
    while (t->flush.len) {
        struct conn *c = &t->conns[ring_pop(&t->flush)];
        c->s.in_flush = false;
        if (c->state == CONN_OPEN)
            tcp_flush(l, c);
    }
    open_queued(l);
}

/* -q: a request is due and this connection said it had room. */
static void tcp_refill(struct loop *l, uint32_t i)
{
    struct tcp *t = tcp_of(l);
    struct conn *c = &t->conns[i];
    if (c->state == CONN_OPEN && c->session_open)
        t->session->fill(l, c);
}

static void tcp_tick(struct loop *l)
{
    struct tcp *t = tcp_of(l);
    t->open_blocked = false;
    while (t->laterq.len)
        ring_push(&t->openq, ring_pop(&t->laterq));
    for (uint32_t i = 0; i < t->nconns; i++) {
        struct conn *c = &t->conns[i];
        if (c->state != CONN_OPEN)
            continue;
        bool keep = c->tunnelling    ? tcp_proxy_tick(l, c)
                    : c->handshaking ? tcp_tls_tick(l, c)
                                     : !c->session_open || t->session->tick(l, c);
        if (!keep)
            conn_end(l, c);
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
    t->session = w->cfg.h2 ? &session_h2 : &session_h1;
    t->tls = w->cfg.tls != NULL;
    t->nconns = w->cfg.connections;
    t->conns = calloc(t->nconns, sizeof(*t->conns));
    if (!t->conns || ring_init(&t->flush, t->nconns) < 0 || ring_init(&t->openq, t->nconns) < 0 ||
        ring_init(&t->laterq, t->nconns) < 0) {
        snprintf(w->error, sizeof(w->error), "out of memory for %u connections", t->nconns);
        return -1;
    }
    /* Each connection's session (an HTTP/2 engine: stream ring, output
     * buffer) and TLS state: one block each, allocated once, reused by
     * every connection that slot ever holds. */
    size_t session_each = 0, tls_each = 0;
    if (!(t->session_mem = conn_blocks(t->session->size(&w->cfg), t->nconns, &session_each))) {
        snprintf(w->error, sizeof(w->error), "out of memory for %u %s connections", t->nconns, t->session->name);
        return -1;
    }
    if (t->tls && !(t->tls_mem = conn_blocks(tcp_tls_block_size(&w->cfg), t->nconns, &tls_each))) {
        snprintf(w->error, sizeof(w->error), "out of memory for %u TLS connections", t->nconns);
        return -1;
    }
    for (uint32_t i = 0; i < t->nconns; i++) {
        t->conns[i].s.idx = i;
        t->conns[i].session = t->session_mem + session_each * i;
        t->conns[i].tls_mem = t->tls_mem ? t->tls_mem + tls_each * i : NULL;
    }
    if (t->tls && tcp_tls_prepare(t, w->error, sizeof w->error) < 0)
        return -1;
    if (t->tls && w->cfg.tls_resume && resume_store_init(&t->resume, t->nconns, &l->now) < 0) {
        snprintf(w->error, sizeof(w->error), "out of memory for %u session tickets", t->nconns);
        return -1;
    }
    w->stats.handshakes.on = t->tls && w->cfg.tls_resume;
    w->stats.early.on = t->tls && w->cfg.early_data;
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
    uint64_t per_conn = t->session->streams(cfg);
    uint64_t needed = cfg->timed ? t->nconns : (cfg->budget + per_conn - 1) / per_conn;
    uint32_t first = needed < t->nconns ? (uint32_t)needed : t->nconns;
    for (uint32_t i = 0; i < first; i++) {
        t->conns[i].state = CONN_QUEUED;
        ring_push(&t->openq, i);
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
    if (t->session->streams(l->cfg) >= 2)
        return t->nconns < 4 ? 2 * t->nconns : 8;
    unsigned n = t->nconns / 4;
    if (n < 1)
        n = 1;
    return n > 8 ? 8 : n;
}

static void tcp_release(struct loop *l)
{
    struct tcp *t = tcp_of(l);
    free(t->session_mem);
    free(t->tls_mem);
    resume_store_free(&t->resume);
    free(t->flush.v);
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
