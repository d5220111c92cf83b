/* worker/udp.c — the UDP transport: QUIC connections (quic/conn.c) and the
 * HTTP/3 glue (h3.c). What happens to a datagram, from the socket to the
 * request it completes, is here; the loop and the request accounting are
 * worker.c's (loop.h).
 *
 * One connected UDP socket per QUIC connection, in a registered file slot,
 * with one multishot receive drawing from the worker's provided buffer ring
 * (one datagram per completion; connected, so no address to read and no
 * recvmsg needed). Datagrams are fed to their connection as they complete;
 * the state machine's turn (new requests, the packets they make, the timer)
 * happens once per batch of completions, for each connection the batch
 * touched. Packets are built straight into the connection's send buffer and
 * leave in one sendmsg with UDP GSO (up to SEND_DGRAMS datagrams of one
 * size) when the kernel has it, one sendmsg per datagram when it does not.
 *
 * Timers: each connection's next QUIC deadline (loss detection, PTO, ACK
 * delay, idle) is an absolute io_uring timeout, armed only when the
 * deadline moves earlier than the one armed; one that fires early just
 * makes a turn. The handshake (--connect-timeout), each request
 * (--timeout) and a connection that can open no stream are checked on the
 * loop's tick, as over TCP. */
#define _GNU_SOURCE
#include <bearssl.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "h3.h"
#include "report/report.h" /* report_close_name */
#include "loop.h"
#include "resume.h"
#include "slot.h"
#include "verifier.h"

/* <linux/udp.h>, which musl-gcc does not see. */
#ifndef SOL_UDP
#define SOL_UDP 17
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif

/* Datagrams one send may carry: the kernel's UDP GSO limit is 64 segments
 * (UDP_MAX_SEGMENTS); a batch rarely needs more than a few. */
#define SEND_DGRAMS 32

enum udp_op { OP_TIMER = OP_SLOT_END };

/* QC_PARKED (--early-data with -q): idled out, its next connection opened
 * when a request is due for it (udp_refill), so that the request goes in
 * 0-RTT packets on the resumed connection, as a client that reconnects
 * for a request does. */
enum qc_state { QC_IDLE, QC_QUEUED, QC_OPEN, QC_PARKED };

/* A request on a stream of a connection (indexed by the stream's ring slot). */
struct h3_req {
    uint64_t id;          /* stream id; UINT64_MAX: slot unused */
    uint64_t due_ns;      /* when it was due (-q), or sent */
    uint64_t started_ns;  /* when it was sent */
    uint8_t retries;
    bool heard;           /* some of its response arrived, at first_ns */
    uint32_t target;      /* which request (h3_config.requests) */
    uint64_t first_ns;
    uint64_t recv;        /* its stream's bytes received, HTTP/3 frames and all (--log) */
    struct h3_resp resp;
};

#define UNI_STREAMS 16    /* the server's unidirectional streams we track (quic/conn.c UNI_MAX) */

struct qc {
    struct slot s;                     /* file slot, generation, receive, the send in flight (slot.h) */
    struct loop *loop;                 /* for the engine's callbacks */
    uint8_t state;
    bool started;
    bool heard;                        /* a datagram came from the server on this connection */
    uint32_t responses;
    uint64_t handshake_deadline;
    uint64_t stuck_since;
    uint64_t timer_at;                 /* the deadline of the timer armed last (0: none) */
    struct shb_kernel_timespec timer_ts;
    struct quic_conn *q;
    void *qmem;
    struct h3_req *reqs;               /* quic_conn_ring entries */
    struct h3_peer peer;
    struct h3_uni uni[UNI_STREAMS];
    bool uni_ignored[UNI_STREAMS];
    bool counted;                      /* its QUIC counters are in the stats */
    bool uni_open;                     /* our control and QPACK streams are open */
    uint32_t early_reqs;               /* --early-data: requests opened before the handshake ended (0-RTT) */
    uint8_t *out;                      /* SEND_DGRAMS datagrams, then one for a last close */
    size_t out_len, seg;
    struct iovec iov;
    struct msghdr msg;
    /* The run's end: a CONNECTION_CLOSE that cannot wait for the send in
     * flight goes from the buffer's last datagram with a header of its own
     * (the one in flight may not be in the kernel's hands yet). */
    struct iovec close_iov;
    struct msghdr close_msg;
    union {
        char buf[CMSG_SPACE(sizeof(uint16_t))];
        struct cmsghdr align;
    } cmsg;
};

struct udp {
    struct qc *conns;
    uint32_t nconns;
    /* Connections to turn after this batch, each in it at most once
     * (slot.in_flush). A turn may queue its own connection again (a
     * replacement's first flight), so the walk pops until it is empty. */
    struct idx_ring flush;
    uint8_t *qmem, *out_mem;
    struct h3_req *req_mem;
    size_t qsize;
    uint32_t ring;
    bool gso;                         /* the kernel takes UDP_SEGMENT */
    struct qc *event_conn;            /* the connection whose engine is calling back */
    br_hmac_drbg_context drbg;
    struct resume_store resume;       /* --tls-resume: each slot's ticket */
};

static inline struct udp *udp_of(const struct loop *l) { return l->tp_state; }

static inline void flush_later(struct loop *l, struct qc *c) { slot_flush_later(&udp_of(l)->flush, &c->s); }

/* ---- requests ------------------------------------------------------------ */

static struct h3_req *req_of(struct loop *l, struct qc *c, uint64_t id)
{
    struct h3_req *r = &c->reqs[quic_conn_slot(c->q, id)];
    (void)l;
    return r->id == id ? r : NULL;
}

/* The request on stream r, as it ends. */
static struct req_end req_ended(const struct qc *c, const struct h3_req *r)
{
    return (struct req_end){ .due_ns = r->due_ns, .sent_ns = r->started_ns, .first_ns = r->heard ? r->first_ns : 0,
                             .bytes = r->recv, .stream = r->id, .conn = c->s.idx, .target = r->target };
}

static void req_end(struct qc *c, struct h3_req *r, uint64_t reset_code)
{
    quic_conn_close_stream(c->q, r->id, reset_code);
    r->id = UINT64_MAX;
}

/* Opens request streams while the connection and the run allow. */
static void fill_streams(struct loop *l, struct qc *c)
{
    const struct h3_config *h3 = l->cfg->h3;
    struct taken t;

    if (c->peer.goaway_id != UINT64_MAX)
        return; /* RFC 9114 §5.2: no new requests after GOAWAY */
    bool early = quic_conn_state(c->q) == QUIC_HANDSHAKING; /* can_open: only with 0-RTT keys */
    while (quic_conn_can_open(c->q) && loop_take(l, &t)) {
        const struct wire_request *req = &h3->requests[t.target];
        uint64_t id = quic_conn_open(c->q, req->bytes, req->len);
        if (early) {
            c->early_reqs++;
            l->w->stats.early.sent++;
        }
        struct h3_req *r = &c->reqs[quic_conn_slot(c->q, id)];
        r->id = id;
        r->target = t.target;
        r->due_ns = t.due_ns;
        r->started_ns = l->now;
        r->retries = (uint8_t)t.retries;
        r->heard = false;
        r->recv = 0;
        h3_resp_init(&r->resp);
    }
    if (l->paced && quic_conn_can_open(c->q))
        loop_idle(l, c->s.idx);
}

/* ---- engine callbacks ------------------------------------------------------ */

static void on_stream_data(void *ctx, uint64_t id, const uint8_t *p, size_t n, bool fin)
{
    struct qc *c = ctx;
    struct loop *l = c->loop;

    if ((id & 3) == 3) {
        unsigned k = (unsigned)(id >> 2);
        if (k >= UNI_STREAMS || c->uni_ignored[k])
            return;
        int rc = h3_uni_feed(&c->peer, &c->uni[k], p, n, fin);
        if (rc == H3_UNI_IGNORE)
            c->uni_ignored[k] = true;
        else if (rc < 0)
            quic_conn_close(c->q, true, (uint64_t)-rc, h3_error_name((uint64_t)-rc));
        return;
    }
    struct h3_req *r = req_of(l, c, id);
    if (r == NULL)
        return;
    if (!r->heard && n > 0) {
        r->heard = true;
        r->first_ns = l->now;
    }
    r->recv += n;
    int rc = h3_resp_feed(&r->resp, p, n, fin);
    if (rc == H3_RESP_MORE)
        return;
    if (rc == H3_RESP_DONE) {
        c->responses++;
        struct req_end e = req_ended(c, r);
        loop_ok(l, r->resp.status, &e);
        req_end(c, r, 0);
        return;
    }
    if (h3_resp_error_is_connection(&r->resp)) {
        /* The connection's error: closed with the code, and every request
         * on it (this one too) counted when it is over (qc_finished). */
        quic_conn_close(c->q, true, (uint64_t)-rc, h3_error_name((uint64_t)-rc));
        return;
    }
    /* A malformed response (RFC 9114 §4.1.2): this stream's error. */
    loop_why(l, ERR_PROTOCOL, "malformed response (sent H3_MESSAGE_ERROR)", NULL);
    struct req_end e = req_ended(c, r);
    loop_error(l, ERR_PROTOCOL, &e);
    req_end(c, r, H3_MESSAGE_ERROR);
}

static void on_stream_reset(void *ctx, uint64_t id, uint64_t code, bool stop_sending)
{
    struct qc *c = ctx;
    struct loop *l = c->loop;

    if ((id & 3) != 0) {
        /* The server reset one of its critical streams, or stopped one of
         * ours (RFC 9114 §6.2.1): H3_CLOSED_CRITICAL_STREAM. Other
         * unidirectional streams (unknown types) may be reset freely. */
        unsigned k = (unsigned)(id >> 2);
        bool critical = (id & 3) == 2 || (k < UNI_STREAMS && h3_uni_critical(&c->uni[k]));
        if (critical)
            quic_conn_close(c->q, true, H3_CLOSED_CRITICAL_STREAM, "critical stream reset");
        return;
    }
    struct h3_req *r = req_of(l, c, id);
    if (r == NULL)
        return;
    /* §4.1.1: a server may stop our request body (H3_NO_ERROR, or a code
     * HTTP/3 does not define, which §8 makes the same) and still answer;
     * only a reset of its own side ends the response (h3.h). */
    enum h3_reset_action act = h3_request_reset_action(code, stop_sending);
    if (act == H3_RESET_IGNORE)
        return;
    struct req_end e = req_ended(c, r);
    if (act == H3_RESET_RETRY) {
        /* §4.1.1: not processed, safe to send again (as HTTP/2's
         * REFUSED_STREAM). From a connection that served others it says
         * nothing about the request: not counted. */
        loop_why(l, ERR_REFUSED, "H3_REQUEST_REJECTED on every try", NULL);
        loop_retry(l, r->retries, c->responses == 0, ERR_REFUSED, &e);
    } else {
        if (loop_why_wanted(l, ERR_STREAM_RESET)) {
            const char *name = h3_error_name(code);
            char hex[24];
            snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)code);
            loop_why(l, ERR_STREAM_RESET, "RESET_STREAM ", name ? name : hex);
        }
        loop_error(l, ERR_STREAM_RESET, &e);
    }
    req_end(c, r, stop_sending ? H3_REQUEST_CANCELLED : 0);
}

static const struct quic_conn_callbacks qc_cb = { .stream_data = on_stream_data, .stream_reset = on_stream_reset };

/* ---- connection lifecycle ------------------------------------------------ */

static void qc_count(struct loop *l, struct qc *c)
{
    if (c->counted || c->q == NULL)
        return;
    const struct quic_conn_counters *k = quic_conn_counters(c->q);
    struct quic_stats *s = &l->w->stats.quic;
    stats_quic_add_conn(s, k);
    if (k->handshake_ns)
        hist_record(&s->handshake, k->handshake_ns);
    if (c->peer.goaway_id != UINT64_MAX)
        s->goaways++;
    c->counted = true;
}

static void qc_close(struct loop *l, struct qc *c)
{
    qc_count(l, c);
    /* A send in flight keeps slot.sending until it completes: the buffer
     * is the slot's, whichever connection holds it. And the send (the
     * CONNECTION_CLOSE that ended this connection) is submitted before the
     * slot's socket changes (slot_set): from the next connection's socket
     * it would be a datagram for a connection the server does not know,
     * from a port it never saw (RFC 9000 §10.2 wants the close to reach
     * the peer). */
    slot_close(l, &c->s);
    c->state = QC_IDLE;
    c->timer_at = 0;
    if (c->started)
        l->conns_open--;
    c->started = false;
    c->stuck_since = 0;
}

static void qc_open(struct loop *l, struct qc *c);

static void qc_replace(struct loop *l, struct qc *c)
{
    if (!loop_work_left(l)) {
        slot_set(l, &c->s, -1);
        return;
    }
    c->state = QC_QUEUED;
    qc_open(l, c);
}

/* Every request still on the connection ends: as `kind`, or (retry) goes
 * back to be sent again. */
static void drain_requests(struct loop *l, struct qc *c, enum err_kind kind, bool retry_above_goaway)
{
    uint32_t ring = udp_of(l)->ring;
    for (uint32_t k = 0; k < ring; k++) {
        struct h3_req *r = &c->reqs[k];
        if (r->id == UINT64_MAX)
            continue;
        /* §5.2: provably not processed, so sent again. As HTTP/2's refusals
         * (session_h2.c) and H3_REQUEST_REJECTED (on_stream_reset), the
         * attempt counts towards MAX_RETRIES only from a connection that
         * answered nothing: a server that sends GOAWAY 0 on every
         * connection would otherwise have the run retry forever. */
        struct req_end e = req_ended(c, r);
        if (retry_above_goaway && r->id >= c->peer.goaway_id) {
            loop_why(l, ERR_REFUSED, "GOAWAY before the request on every try", NULL);
            loop_retry(l, r->retries, c->responses == 0, ERR_REFUSED, &e);
        }
        else
            loop_error(l, kind, &e);
        r->id = UINT64_MAX;
    }
}

/* A handshake that failed costs its request; with requests opened in
 * 0-RTT, those, as errors of kind (each request counted once). */
static void qc_charge(struct loop *l, struct qc *c, enum err_kind kind)
{
    if (c->early_reqs > 0)
        drain_requests(l, c, kind, false);
    else
        loop_charge(l, kind, c->s.idx);
}

static void qc_fatal_alpn(struct loop *l)
{
    loop_fatal(l, "the server did not select HTTP/3 with ALPN: ", "it refused h3 (no_application_protocol)");
}

/* "CONNECTION_CLOSE from the server: H3_INTERNAL_ERROR (reason)", as
 * kind's message. */
static void qc_why_close(struct loop *l, enum err_kind kind, const struct quic_close_info *ci)
{
    if (!loop_why_wanted(l, kind))
        return;
    struct quic_close_count k = { .by_server = ci->kind == QUIC_CLOSE_PEER, .app = ci->app, .code = ci->code };
    char name[64], what[208];
    report_close_name(name, sizeof name, &k);
    snprintf(what, sizeof what, "CONNECTION_CLOSE from %s: %s%s%s%s", k.by_server ? "the server" : "shb", name,
             ci->reason[0] ? " (" : "", ci->reason, ci->reason[0] ? ")" : "");
    loop_why(l, kind, what, NULL);
}

/* A handshake the server refused with a CRYPTO_ERROR that says it cannot
 * meet the suites or groups the user chose (RFC 9001 §4.8: the error code
 * carries the TLS alert): the report names the choice, as a hint. */
static void qc_hint_choice(struct loop *l, const struct quic_close_info *ci)
{
    char what[TLS_CHOICE_WHAT_MAX + 80];
    if (ci->kind == QUIC_CLOSE_PEER && !stats_why_kept(&l->w->stats, ERR_TLS_HANDSHAKE, true) &&
        tls_choice_refused(l->cfg->h3->quic.tls, -ci->tls_alert, what, sizeof what))
        loop_hint(l, ERR_TLS_HANDSHAKE, what);
}

/* Each slot's block: the QUIC connection, its copy of the config (the
 * remembered key share group; with --cacert the slot's certificate
 * verifier: quic_conn_init keeps the config it is given) and, with
 * --cacert only, the verifier. */
static size_t align64(size_t n) { return (n + 63) & ~(size_t)63; }

static size_t slot_block_size(const struct quic_conn_config *qc)
{
    size_t n = align64(quic_conn_size(qc)) + align64(sizeof(struct quic_conn_config));
    if (qc->verify)
        n += align64(tls13_verifier_size(qc->verify->ip_len > 0));
    return n;
}

static struct tls13_verifier *slot_verifier(const struct loop *l, const struct qc *c)
{
    const struct quic_conn_config *qc = &l->cfg->h3->quic;
    if (!qc->verify)
        return NULL;
    return (struct tls13_verifier *)(void *)((uint8_t *)c->qmem + align64(quic_conn_size(qc)) +
                                             align64(sizeof(struct quic_conn_config)));
}

/* The config this connection starts from: the slot's copy of the
 * target's, with the key share group a HelloRetryRequest asked for and
 * with --cacert its verifier readied. */
static const struct quic_conn_config *slot_config(const struct loop *l, struct qc *c)
{
    const struct quic_conn_config *qc = &l->cfg->h3->quic;
    struct tls13_verifier *v = slot_verifier(l, c);
    struct quic_conn_config *mine = (void *)((uint8_t *)c->qmem + align64(quic_conn_size(qc)));
    *mine = *qc;
    mine->key_share_group = resume_key_share(&udp_of(l)->resume);
    if ((mine->verifier = v))
        worker_verifier_start(v, qc->verify);
    return mine;
}

/* The connection is over (quic_conn_state QUIC_CLOSED): account for what
 * was on it and replace it. */
static void qc_finished(struct loop *l, struct qc *c)
{
    const struct quic_close_info *ci = quic_conn_close_info(c->q);
    bool handshake = ci->during_handshake;
    enum err_kind kind = ERR_CLOSED;

    /* Every CONNECTION_CLOSE, ours or the server's, by its code. Ours after
     * GOAWAY or when the run is over are the orderly H3_NO_ERROR. */
    if (ci->kind == QUIC_CLOSE_PEER || ci->kind == QUIC_CLOSE_LOCAL || ci->kind == QUIC_CLOSE_HANDSHAKE)
        stats_quic_close(&l->w->stats, ci->kind == QUIC_CLOSE_PEER, ci->app, ci->code, 1);
    switch (ci->kind) {
    case QUIC_CLOSE_VERSION: {
        char why[96];
        snprintf(why, sizeof why, "it offers %s", ci->reason);
        loop_fatal(l, "the server does not speak QUIC version 1: ", why);
        break;
    }
    case QUIC_CLOSE_HANDSHAKE:
    case QUIC_CLOSE_PEER:
    case QUIC_CLOSE_LOCAL:
        if (handshake && ci->tls_alert == 120) {
            qc_fatal_alpn(l);
            break;
        }
        if (handshake) {
            enum err_kind k = ci->kind == QUIC_CLOSE_PEER && ci->tls_alert == 0 ? ERR_CONNECT : ERR_TLS_HANDSHAKE;
            char what[ERR_WHY_MAX];
            /* --cacert: ours, for the reason in words (RFC 9001 §4.8: the
             * alert went as CRYPTO_ERROR). */
            if (ci->kind == QUIC_CLOSE_HANDSHAKE &&
                worker_verifier_why(slot_verifier(l, c), ci->tls_alert, what, sizeof what))
                loop_why(l, k, what, NULL);
            else
                qc_why_close(l, k, ci);
            qc_hint_choice(l, ci);
            qc_charge(l, c, k);
            break;
        }
        /* Ours: the server's error (`protocol`), or TLS failing after the
         * handshake (`tls`, as over TCP: an unexpected post-handshake
         * message); the server's: `closed`. */
        kind = ci->kind != QUIC_CLOSE_LOCAL ? ERR_CLOSED : ci->tls_alert ? ERR_TLS : ERR_PROTOCOL;
        qc_why_close(l, kind, ci);
        break;
    case QUIC_CLOSE_IDLE:
        if (handshake) {
            loop_why(l, ERR_CONNECT_TIMEOUT, "no answer to the QUIC handshake within the idle timeout", NULL);
            qc_charge(l, c, ERR_CONNECT_TIMEOUT);
        }
        kind = ERR_TIMEOUT;
        loop_why(l, kind, "the connection went idle: nothing from the server within the idle timeout", NULL);
        break;
    case QUIC_CLOSE_STATELESS_RESET:
        kind = ERR_RESET;
        loop_why(l, kind, "the server sent a stateless reset", NULL);
        break;
    case QUIC_CLOSE_PN_EXHAUSTED: /* RFC 9000 §12.3: closed without a CONNECTION_CLOSE */
        kind = ERR_RESET;
        loop_why(l, kind, "the connection used up its QUIC packet numbers (2^62) and was closed", NULL);
        break;
    case QUIC_CLOSE_NONE:
        loop_why(l, kind, "the QUIC connection ended", NULL);
        break;
    }
    /* A server that closes with GOAWAY sent (H3_NO_ERROR) processed nothing
     * above the GOAWAY's id (RFC 9114 §5.2). */
    drain_requests(l, c, kind, c->peer.goaway_id != UINT64_MAX);
    qc_close(l, c);
    /* A connection refused during its handshake is tried again at the next
     * tick (udp_tick), so a server that refuses at once is not hammered in
     * a loop; any other is replaced now. */
    if (!l->w->fatal && !handshake && ci->kind == QUIC_CLOSE_IDLE && l->paced && l->cfg->early_data &&
        loop_work_left(l)) {
        c->state = QC_PARKED;
        loop_idle(l, c->s.idx);
    } else if (!l->w->fatal && !handshake) {
        qc_replace(l, c);
    }
    else if (!loop_work_left(l))
        slot_set(l, &c->s, -1);
}

static void qc_open(struct loop *l, struct qc *c)
{
    struct udp *u = udp_of(l);
    const struct worker_config *cfg = l->cfg;
    int fd = socket(cfg->addr->sa_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int ret = fd;

    if (fd >= 0) {
        /* A connected socket: the kernel filters datagrams from elsewhere,
         * and a send needs no address. connect(2) on UDP only records the
         * peer, so it is made here, synchronously. */
        /* A receive buffer for a burst: a server's congestion window of
         * datagrams can arrive while the loop is busy, and what the socket
         * cannot hold is lost, which the server pays for with a smaller
         * window. Above net.core.rmem_max only root may go (FORCE). */
        int rcvbuf = 4 << 20;
        if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof rcvbuf) != 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
        /* --bind: the source address, and a port on it now (a connected
         * UDP socket holds its port: EADDRINUSE when they are spent). */
        ret = cfg->nbind ? loop_bind_source(cfg, fd, c->s.idx, true, false) : 0;
        if (ret == 0)
            ret = connect(fd, cfg->addr, cfg->addrlen) == 0 ? 0 : -errno;
        if (ret == 0)
            ret = slot_set(l, &c->s, fd);
        close(fd);
    } else {
        ret = -errno;
    }
    if (ret < 0) {
        /* No local port left (EADDRNOTAVAIL; EADDRINUSE with --bind), or
         * no socket: like a failed TCP connect, it costs a request; the
         * tick tries again. */
        enum err_kind kind = ret == -EADDRNOTAVAIL || ret == -EADDRINUSE ? ERR_NO_PORT : ERR_CONNECT;
        loop_why(l, kind, strerror(-ret), NULL);
        loop_charge(l, kind, c->s.idx);
        c->state = QC_IDLE;
        return;
    }
    uint8_t entropy[QUIC_CONN_ENTROPY];
    br_hmac_drbg_generate(&u->drbg, entropy, sizeof entropy);
    struct tls13_resume r;
    const struct tls13_resume *res = resume_for(&u->resume, c->s.idx, l->now, &r);
    const struct quic_tparams *tp = res ? resume_tparams(&u->resume, c->s.idx) : NULL;
    /* --early-data: 0-RTT with the ticket and the parameters it came with. */
    r.early_data = res && cfg->early_data && tp != NULL;
    c->q = quic_conn_init_resume(c->qmem, slot_config(l, c), entropy, &qc_cb, c, l->now, res,
                                 r.early_data ? tp : NULL);
    tls13_wipe(entropy, sizeof entropy);
    if (c->q == NULL) {
        loop_fatal(l, "QUIC connection set-up failed", "");
        return;
    }
    for (uint32_t k = 0; k < u->ring; k++)
        c->reqs[k].id = UINT64_MAX;
    h3_peer_init(&c->peer);
    for (unsigned k = 0; k < UNI_STREAMS; k++) {
        h3_uni_init(&c->uni[k]);
        c->uni_ignored[k] = false;
    }
    c->state = QC_OPEN;
    c->counted = false;
    c->uni_open = false;
    c->early_reqs = 0;
    c->responses = 0;
    c->started = false;
    c->heard = false;
    c->timer_at = 0;
    c->stuck_since = 0;
    c->handshake_deadline = l->now + cfg->connect_timeout_ns;
    slot_arm_recv(l, &c->s);
    flush_later(l, c);
}

/* ---- the turn: once per batch, per connection the batch touched ---------- */

static void arm_timer(struct loop *l, struct qc *c)
{
    uint64_t d = quic_conn_deadline(c->q);
    if (d == UINT64_MAX)
        return;
    /* At most one timer per millisecond of deadline movement: ACK delays
     * move the deadline every batch, and a timer that fires early only
     * makes a turn. */
    if (c->timer_at != 0 && c->timer_at <= d + 1000000ull)
        return;
    c->timer_at = d;
    c->timer_ts = ns_to_ts(d);
    uring_prep_timeout(uring_sqe(&l->ring), &c->timer_ts, true, slot_ud(&c->s, OP_TIMER));
}

/* Queues the sendmsg of n bytes described by msg on the connection's slot. */
static void queue_sendmsg(struct loop *l, struct qc *c, struct msghdr *msg, size_t n)
{
    uring_prep_sendmsg(uring_sqe(&l->ring), c->s.idx, msg, slot_ud(&c->s, OP_SEND));
    slot_sending(l, &c->s);
    l->w->stats.bytes_sent += n;
    l->w->stats.quic.sends++;
}

static void qc_send(struct loop *l, struct qc *c)
{
    struct udp *u = udp_of(l);
    size_t seg;
    size_t max = u->gso ? SEND_DGRAMS : 1;
    size_t n = quic_conn_output(c->q, c->out, (size_t)SEND_DGRAMS * QUIC_DGRAM_SIZE, max, &seg, l->now);
    if (n == 0)
        return;
    c->out_len = n;
    c->seg = seg;
    c->iov = (struct iovec){ .iov_base = c->out, .iov_len = n };
    c->msg = (struct msghdr){ .msg_iov = &c->iov, .msg_iovlen = 1 };
    if (n > seg) {
        /* UDP GSO: one send, the kernel cuts it into seg-sized datagrams. */
        struct cmsghdr *cm = &c->cmsg.align;
        c->msg.msg_control = c->cmsg.buf;
        c->msg.msg_controllen = sizeof c->cmsg.buf;
        cm->cmsg_level = SOL_UDP;
        cm->cmsg_type = UDP_SEGMENT;
        cm->cmsg_len = CMSG_LEN(sizeof(uint16_t));
        uint16_t gso = (uint16_t)seg;
        memcpy(CMSG_DATA(cm), &gso, sizeof gso);
    }
    queue_sendmsg(l, c, &c->msg, n);
}

static bool below_goaway_pending(struct loop *l, const struct qc *c)
{
    uint32_t ring = udp_of(l)->ring;
    for (uint32_t k = 0; k < ring; k++)
        if (c->reqs[k].id != UINT64_MAX && c->reqs[k].id < c->peer.goaway_id)
            return true;
    return false;
}

static void qc_turn(struct loop *l, struct qc *c)
{
    if (c->state != QC_OPEN)
        return;
    enum quic_conn_state st = quic_conn_state(c->q);
    /* --early-data: with 0-RTT keys the streams open before the handshake
     * ends (RFC 9001 §4.6.1), within the remembered limits. */
    bool sendable = st == QUIC_ESTABLISHED || (st == QUIC_HANDSHAKING && quic_conn_early_keys(c->q));
    if (sendable && !c->uni_open) {
        /* RFC 9114 §6.2: our control stream with SETTINGS first, then the
         * QPACK streams (RFC 9204 §4.2). */
        static const uint8_t enc = H3_STREAM_QPACK_ENCODER, dec = H3_STREAM_QPACK_DECODER;
        c->uni_open = true;
        quic_conn_open_uni(c->q, l->cfg->h3->control, l->cfg->h3->control_len);
        quic_conn_open_uni(c->q, &enc, 1);
        quic_conn_open_uni(c->q, &dec, 1);
    }
    if (st == QUIC_ESTABLISHED && !c->started) {
        struct udp *u = udp_of(l);
        if (strcmp(quic_conn_alpn(c->q), "h3") != 0) {
            qc_fatal_alpn(l);
            return;
        }
        c->started = true;
        l->w->stats.connections_opened++;
        if (l->w->stats.tls.version == 0) /* the report's TLS line: the first handshake's */
            quic_conn_negotiated(c->q, &l->w->stats.tls);
        resume_handshake_done(&u->resume, &l->w->stats.handshakes, quic_conn_resumed(c->q),
                              quic_conn_hrr_group(c->q));
        l->conns_open++;
        resume_keep_tparams(&u->resume, c->s.idx, quic_conn_peer_tparams(c->q));
        /* The server's verdict on the 0-RTT requests: rejected, the engine
         * sends them again in 1-RTT packets (RFC 9001 §4.6.2). */
        if (c->early_reqs > 0) {
            if (quic_conn_early(c->q) == QUIC_EARLY_ACCEPTED)
                l->w->stats.early.accepted += c->early_reqs;
            else
                l->w->stats.early.resent += c->early_reqs;
        }
    }
    if (sendable)
        fill_streams(l, c);
    if (st == QUIC_ESTABLISHED && c->peer.goaway_id != UINT64_MAX && !below_goaway_pending(l, c)) {
        /* RFC 9114 §5.2: everything the server will answer is answered;
         * what lies above the GOAWAY is retried on a new connection
         * (qc_finished). */
        quic_conn_close(c->q, true, H3_NO_ERROR, "GOAWAY");
    }
    if (!c->s.sending)
        qc_send(l, c);
    if (quic_conn_state(c->q) == QUIC_CLOSED) {
        qc_finished(l, c);
        return;
    }
    arm_timer(l, c);
}

/* ---- completions ----------------------------------------------------------- */

/* An ICMP error the connected socket reports (udp(7)): port, host or
 * network unreachable. */
static bool unreachable(int res)
{
    return res == -ECONNREFUSED || res == -EHOSTUNREACH || res == -ENETUNREACH;
}

/* An ICMP unreachable before any datagram from the server: nothing
 * listens there (yet), and waiting out --connect-timeout would only make
 * each attempt take that long. The attempt fails now as `connect`, as a
 * refused TCP connect does, and the tick tries again. Once the server has
 * answered, ICMP is ignored (on_recv): anyone on the path can forge it,
 * and RFC 9000 §14.2.1 and §21.3 have a connection not act on it, leaving
 * the QUIC timers to decide. Before the first answer a forged one can
 * only do what dropping our Initial would (the attempt fails). */
static void qc_unreachable(struct loop *l, struct qc *c, int res)
{
    loop_why(l, ERR_CONNECT, strerror(-res), NULL);
    qc_charge(l, c, ERR_CONNECT);
    qc_close(l, c); /* idle: udp_tick opens it again */
    if (!loop_work_left(l))
        slot_set(l, &c->s, -1);
}

static void on_recv(struct loop *l, struct qc *c, int res, uint32_t flags)
{
    slot_recv_done(&c->s, flags);
    if (res > 0) {
        unsigned bid = flags >> IORING_CQE_BUFFER_SHIFT;
        uint8_t *p = uring_bufring_addr(&l->bufs, bid);
        l->w->stats.bytes_recv += (uint64_t)res;
        c->heard = true;
        quic_conn_input(c->q, p, (size_t)res, l->now);
        uring_bufring_recycle(&l->bufs, bid);
        flush_later(l, c);
    } else if (!c->heard && unreachable(res)) {
        qc_unreachable(l, c, res);
        return;
    } else if (res < 0 && res != -ENOBUFS && res != -ECONNREFUSED && res != -EMSGSIZE && res != -EHOSTUNREACH &&
               res != -ENETUNREACH && res != -EINTR && res != -EAGAIN) {
        /* An error of the socket itself: the connection cannot go on. ICMP
         * errors (a port unreachable while the server starts, an MTU
         * probe's answer) never tear it down (they come back as the errors
         * above, and the QUIC timers decide). */
        quic_conn_close(c->q, false, QUIC_INTERNAL_ERROR, "socket error");
        flush_later(l, c);
    }
    if (!c->s.recv_armed && c->state == QC_OPEN)
        slot_arm_recv(l, &c->s);
}

static void udp_complete(struct loop *l, const struct io_uring_cqe *cqe)
{
    struct udp *u = udp_of(l);
    uint64_t ud = cqe->user_data;
    unsigned op = ud_op(ud);
    uint32_t idx = ud_idx(ud);

    if (op == OP_CANCEL || idx >= u->nconns)
        return;
    struct qc *c = &u->conns[idx];
    if (op == OP_SEND) {
        /* Whichever socket it was for, the slot's send buffer is free
         * again (a new connection in the slot may not write it before). */
        c->s.sending = false;
        if (cqe->res == -EIO && u->gso) {
            /* GSO refused at send time (a device without checksum
             * offload): plain sends from now on. */
            u->gso = false;
        }
        if (c->state == QC_OPEN)
            flush_later(l, c); /* also a new connection in the slot that waited for it */
        return;
    }
    if (ud_gen(ud) != c->s.gen || c->state != QC_OPEN) {
        slot_drop_stale(l, cqe);
        return;
    }
    switch (op) {
    case OP_RECV:
        on_recv(l, c, cqe->res, cqe->flags);
        break;
    case OP_TIMER:
        c->timer_at = 0;
        quic_conn_timeout(c->q, l->now);
        flush_later(l, c);
        break;
    }
}

static void udp_after_batch(struct loop *l)
{
    struct udp *u = udp_of(l);
    while (u->flush.len > 0) {
        struct qc *c = &u->conns[ring_pop(&u->flush)];
        c->s.in_flush = false;
        qc_turn(l, c);
    }
}

/* -q: a request is due and this connection said it had room: its turn
 * after the batch opens the streams. */
static void udp_refill(struct loop *l, uint32_t i)
{
    struct qc *c = &udp_of(l)->conns[i];
    if (c->state == QC_PARKED) {
        c->state = QC_QUEUED;
        qc_open(l, c);
    } else if (c->state == QC_OPEN) {
        flush_later(l, c);
    }
}

/* ---- the tick: deadlines ---------------------------------------------------- */

static void udp_tick(struct loop *l)
{
    struct udp *u = udp_of(l);
    const struct worker_config *cfg = l->cfg;
    for (uint32_t i = 0; i < u->nconns; i++) {
        struct qc *c = &u->conns[i];
        if (c->state == QC_IDLE && loop_work_left(l) && i < u->nconns) {
            c->state = QC_QUEUED; /* an open that failed at once is tried again */
            qc_open(l, c);
            continue;
        }
        if (c->state != QC_OPEN)
            continue;
        if (quic_conn_state(c->q) == QUIC_HANDSHAKING) {
            if (l->now >= c->handshake_deadline) {
                loop_why_within(l, ERR_CONNECT_TIMEOUT, "QUIC handshake not done within ",
                                cfg->connect_timeout_ns);
                qc_charge(l, c, ERR_CONNECT_TIMEOUT); /* --connect-timeout covers the QUIC handshake */
                quic_conn_close(c->q, false, QUIC_NO_ERROR, "handshake timeout");
                if (!c->s.sending)
                    qc_send(l, c);
                drain_requests(l, c, ERR_CONNECT_TIMEOUT, false);
                qc_close(l, c);
                qc_replace(l, c);
            }
            continue;
        }
        if (cfg->timeout_ns) {
            for (uint32_t k = 0; k < u->ring; k++) {
                struct h3_req *r = &c->reqs[k];
                if (r->id != UINT64_MAX && l->now - r->started_ns >= cfg->timeout_ns) {
                    loop_why_within(l, ERR_TIMEOUT, "no response within ", cfg->timeout_ns);
                    struct req_end e = req_ended(c, r);
                    loop_error(l, ERR_TIMEOUT, &e);
                    req_end(c, r, H3_REQUEST_CANCELLED);
                    flush_later(l, c);
                }
            }
        }
        /* A connection that can open no stream (MAX_STREAMS 0, or a GOAWAY
         * that forbids new ones) while work waits: given up after
         * --connect-timeout, as over HTTP/2. */
        bool stuck = quic_conn_open_streams(c->q) == 0 && loop_work_left(l) && !quic_conn_can_open(c->q) &&
                     quic_conn_close_info(c->q)->kind == QUIC_CLOSE_NONE;
        if (!stuck) {
            c->stuck_since = 0;
        } else if (c->stuck_since == 0) {
            c->stuck_since = l->now;
            flush_later(l, c); /* STREAMS_BLOCKED goes out */
        } else if (l->now - c->stuck_since >= cfg->connect_timeout_ns) {
            loop_why_within(l, ERR_REFUSED, "no stream could be opened (MAX_STREAMS 0 or GOAWAY) for ",
                            cfg->connect_timeout_ns);
            if (c->responses == 0)
                loop_charge(l, ERR_REFUSED, c->s.idx);
            /* The turn sends the close, then qc_finished counts it and
             * replaces the connection. */
            quic_conn_close(c->q, true, H3_NO_ERROR, "no stream can be opened");
            c->stuck_since = 0;
            flush_later(l, c);
        }
    }
}

/* ---- set-up ------------------------------------------------------------------ */

/* Whether the kernel accepts UDP_SEGMENT (Linux 4.18; some sandboxes
 * refuse it): asked once, on a throwaway socket. */
static bool gso_available(int family)
{
    int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    int seg = QUIC_DGRAM_SIZE;
    bool ok = fd >= 0 && setsockopt(fd, SOL_UDP, UDP_SEGMENT, &seg, sizeof seg) == 0;
    if (fd >= 0)
        close(fd);
    return ok;
}

static int udp_prepare(struct loop *l, unsigned *sq_entries, unsigned *cq_entries)
{
    struct worker *w = l->w;
    struct udp *u = calloc(1, sizeof(*u));
    if (!u) {
        snprintf(w->error, sizeof(w->error), "out of memory");
        return -1;
    }
    l->tp_state = u;
    u->nconns = w->cfg.connections;
    u->qsize = slot_block_size(&w->cfg.h3->quic);
    u->conns = calloc(u->nconns, sizeof(*u->conns));
    u->qmem = aligned_alloc(64, u->qsize * u->nconns);
    u->out_mem = malloc((size_t)(SEND_DGRAMS + 1) * QUIC_DGRAM_SIZE * u->nconns);
    if (!u->conns || ring_init(&u->flush, u->nconns) < 0 || !u->qmem || !u->out_mem) {
        snprintf(w->error, sizeof(w->error), "out of memory for %u QUIC connections", u->nconns);
        return -1;
    }
    u->ring = quic_conn_ring_for(&w->cfg.h3->quic);
    u->req_mem = calloc((size_t)u->ring * u->nconns, sizeof(struct h3_req));
    if (!u->req_mem) {
        snprintf(w->error, sizeof(w->error), "out of memory for %u QUIC connections", u->nconns);
        return -1;
    }
    for (uint32_t i = 0; i < u->nconns; i++) {
        u->conns[i].s.idx = i;
        u->conns[i].loop = l;
        u->conns[i].qmem = u->qmem + u->qsize * i;
        u->conns[i].out = u->out_mem + (size_t)(SEND_DGRAMS + 1) * QUIC_DGRAM_SIZE * i;
        u->conns[i].reqs = u->req_mem + (size_t)u->ring * i;
    }
    uint8_t seed[48];
    if (getrandom(seed, sizeof seed, 0) != (ssize_t)sizeof seed) {
        snprintf(w->error, sizeof(w->error), "getrandom failed: %s", strerror(errno));
        return -1;
    }
    br_hmac_drbg_init(&u->drbg, &br_sha256_vtable, seed, sizeof seed);
    tls13_wipe(seed, sizeof seed);
    u->gso = gso_available(w->cfg.addr->sa_family);
    w->stats.quic.quic = true;
    if (w->cfg.tls_resume && resume_store_init(&u->resume, u->nconns, &l->now) < 0) {
        snprintf(w->error, sizeof(w->error), "out of memory for %u session tickets", u->nconns);
        return -1;
    }
    w->stats.handshakes.on = w->cfg.tls_resume;
    w->stats.early.on = w->cfg.early_data;
    /* SQ: per connection a send, a timer, a receive and a cancel per turn.
     * CQ: per connection a send, a timer or two, the receive's last
     * completion; one per receive buffer; the loop's timers. */
    unsigned sq = pow2_at_least(u->nconns * 4 + 8);
    *sq_entries = sq > 4096 ? 4096 : sq;
    uint64_t cq = 4ull * u->nconns + 1024 + 64;
    *cq_entries = cq > 65536 ? 65536 : pow2_at_least((unsigned)cq);
    return 0;
}

static int udp_attach(struct loop *l) { return loop_register_files(l, udp_of(l)->nconns); }

static void udp_start(struct loop *l)
{
    struct udp *u = udp_of(l);
    const struct worker_config *cfg = l->cfg;
    uint64_t per_conn = cfg->h3->parallel;
    uint64_t needed = cfg->timed ? u->nconns : (cfg->budget + per_conn - 1) / per_conn;
    uint32_t first = needed < u->nconns ? (uint32_t)needed : u->nconns;
    for (uint32_t i = 0; i < first; i++)
        qc_open(l, &u->conns[i]);
    for (uint32_t i = first; i < u->nconns; i++)
        u->conns[i].state = QC_QUEUED; /* opened by the tick only if work remains (never, for -n) */
    /* The ClientHellos leave with the first turn. */
    udp_after_batch(l);
}

/* The run is over: every open connection gets a CONNECTION_CLOSE
 * (H3_NO_ERROR), so the server frees it now rather than at its idle
 * timeout. The sends are submitted with the loop's last submit; a
 * connection whose previous send is still in flight is left to time out. */
static void udp_end(struct loop *l)
{
    struct udp *u = udp_of(l);
    for (uint32_t i = 0; i < u->nconns; i++) {
        struct qc *c = &u->conns[i];
        if (c->state != QC_OPEN || quic_conn_state(c->q) == QUIC_CLOSED)
            continue;
        quic_conn_close(c->q, true, H3_NO_ERROR, "");
        if (!c->s.sending) {
            qc_send(l, c);
        } else {
            /* A send still in flight (an ACK, say): the close goes beside
             * it, or the server would keep the connection until its idle
             * timeout (RFC 9000 §10.2). */
            uint8_t *p = c->out + (size_t)SEND_DGRAMS * QUIC_DGRAM_SIZE;
            size_t seg, n = quic_conn_output(c->q, p, QUIC_DGRAM_SIZE, 1, &seg, l->now);
            if (n == 0)
                continue;
            c->close_iov = (struct iovec){ .iov_base = p, .iov_len = n };
            c->close_msg = (struct msghdr){ .msg_iov = &c->close_iov, .msg_iovlen = 1 };
            queue_sendmsg(l, c, &c->close_msg, n);
        }
        stats_quic_close(&l->w->stats, false, true, H3_NO_ERROR, 1);
    }
}

static unsigned udp_wait_batch(const struct loop *l)
{
    unsigned n = udp_of(l)->nconns / 4;
    return n < 1 ? 1 : n > 8 ? 8 : n;
}

static void udp_release(struct loop *l)
{
    struct udp *u = udp_of(l);
    for (uint32_t i = 0; i < u->nconns; i++)
        if (u->conns[i].state == QC_OPEN)
            qc_count(l, &u->conns[i]);
    free(u->qmem);
    free(u->out_mem);
    free(u->req_mem);
    resume_store_free(&u->resume);
    free(u->flush.v);
    free(u->conns);
    free(u);
    l->tp_state = NULL;
}

const struct transport udp_transport = {
    .prepare = udp_prepare,
    .attach = udp_attach,
    .start = udp_start,
    .complete = udp_complete,
    .after_batch = udp_after_batch,
    .tick = udp_tick,
    .refill = udp_refill,
    .end = udp_end,
    .release = udp_release,
    .wait_batch = udp_wait_batch,
};
