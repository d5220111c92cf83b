/* worker/tcp.h — what the TCP transport (tcp.c) shares with the sessions
 * above it (session_h1.c, session_h2.c) and the TLS filter between them
 * (tcp_tls.c). Private to the worker.
 *
 *     socket (tcp.c) <-> TLS (tcp_tls.c, https:// only) <-> session
 *
 * Through a proxy's tunnel, a connection's first bytes are the proxy's
 * (tcp_proxy.c): the CONNECT request out, its reply in; once the tunnel is
 * up the layers above start as on any new connection, and nothing of the
 * proxy is left on the path of a request.
 *
 * The transport owns the socket: connect, the one receive, the one send in
 * flight, close and replace. A session owns the requests on a connection:
 * it is chosen once at start-up (HTTP/1.1 or HTTP/2), is handed the
 * connection's bytes as they come, and says what to send through out(). The
 * TLS filter, when there is one, is a layer between the two: it takes the
 * socket's bytes and hands the session plaintext, and seals what the
 * session says into records. Nothing else tells one protocol from another. */
#ifndef SHB_WORKER_TCP_H
#define SHB_WORKER_TCP_H

#include <bearssl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "loop.h"
#include "proxy.h"
#include "resume.h"
#include "slot.h"
#include "tls13/conn.h"

enum conn_state {
    CONN_IDLE,       /* no socket, not waiting for one */
    CONN_QUEUED,     /* waiting in the open queue (now, or at the next tick) */
    CONN_CONNECTING,
    CONN_OPEN,
};

struct conn {
    struct slot s;
    uint8_t state;
    bool session_open;  /* the session runs: connected, and any TLS handshake done */
    bool goodbye;       /* the connection failed with our GOAWAY or alert queued (see slot_set) */
    bool retiring;      /* closed once all its output has gone (tcp_retire) */
    bool backlog_wait;  /* unix socket: the last connect found the backlog full; phase_ns is the first's */
    bool heard;         /* the server has sent at least one byte on this socket */
    uint32_t responses; /* completed on this socket */
    uint64_t phase_ns;  /* when its connect, then its TLS handshake, began (stats.phases) */
    void *session;      /* the session's own state: session.size bytes, one block per slot */
    /* TLS (tcp_tls.c) */
    struct tls_conn *tls;
    void *tls_mem;
    bool handshaking;
    bool tls12;         /* this handshake runs the TLS 1.2 engine */
    bool early;         /* --early-data: the session opened during the handshake (0-RTT) */
    uint32_t early_bytes; /* the session's output sealed as early data, not acknowledged to it yet */
    uint32_t early_reqs;  /* the requests in it */
    uint64_t handshake_deadline; /* also the tunnel's (tcp_proxy.c) */
    /* The proxy's tunnel (tcp_proxy.c) */
    bool tunnelling;    /* CONNECT sent or going, the reply's head not over */
    uint32_t tunnel_sent; /* bytes of the CONNECT request the socket took */
    struct proxy_reply reply;
};

/* How a connection was lost, for the requests on it. */
enum lost_how {
    LOST_EOF,    /* the server closed cleanly (FIN, or TLS close_notify) */
    LOST_SEND,   /* a send on the socket failed */
    LOST_FAILED, /* a receive error, a reset, a TLS failure */
};

/* A protocol session over a byte stream. Functions that return bool return
 * false when the connection must be closed; it is then replaced (at the
 * next tick when conn.goodbye: our last word must leave first). */
struct session {
    /* Bytes of per-connection state (conn.session; 64-byte aligned). */
    size_t (*size)(const struct worker_config *cfg);
    /* Requests one connection carries at once (-n runs open no more
     * connections than the budget fills; the wait batch). */
    uint32_t (*streams)(const struct worker_config *cfg);
    /* The connection is ready for requests (connected; handshake done). */
    void (*open)(struct loop *l, struct conn *c);
    /* Bytes from the server (plaintext). */
    bool (*data)(struct loop *l, struct conn *c, const uint8_t *p, size_t n);
    /* What the session has to send, and how much of it went (to the socket
     * or into TLS records): the bytes may not move until acknowledged. */
    const uint8_t *(*out)(struct loop *l, struct conn *c, size_t *len);
    void (*out_ack)(struct loop *l, struct conn *c, size_t n);
    /* A send completed (the socket or TLS took bytes): room to say more. */
    void (*sent)(struct loop *l, struct conn *c);
    /* Start what requests it can (-q: one is due now). */
    void (*fill)(struct loop *l, struct conn *c);
    /* The connection broke: every request on it ends (or goes back to be
     * retried), kind being what the failure counts as. */
    void (*lost)(struct loop *l, struct conn *c, enum err_kind kind, enum lost_how how);
    /* Every tick: --timeout and the session's own deadlines. */
    bool (*tick)(struct loop *l, struct conn *c);
    /* TLS: the ALPN protocol the server must select (NULL: any), the
     * protocol's name for the error when it does not, and what a refusal
     * of our offer (no_application_protocol) says. */
    const char *alpn, *name, *alpn_refused;
    /* On cleartext, the server's first bytes being an HTTP/1.1 response is
     * a likely mistake: the hint for it, or NULL. */
    const char *http1_answer_hint;
};

extern const struct session session_h1, session_h2;

struct tcp {
    struct conn *conns;
    uint32_t nconns;
    const struct session *session;
    bool tls;
    uint32_t connecting;      /* attempts in flight (CONNECT_WINDOW) */
    struct idx_ring openq;    /* to open as the window allows */
    struct idx_ring laterq;   /* to open at the next tick (their last attempt failed at once) */
    struct idx_ring flush;    /* connections with output to send after this batch */
    bool open_blocked;        /* socket() failed: no more opens until the next tick */
    uint8_t *session_mem;
    uint8_t *tls_mem;
    br_hmac_drbg_context drbg; /* handshake randomness, seeded once */
    struct resume_store resume; /* --tls-resume: each slot's ticket */
    struct shb_kernel_timespec connect_ts;
};

static inline struct tcp *tcp_of(const struct loop *l) { return l->tp_state; }

/* For sessions and the filter (tcp.c). */

/* Send what the connection has to say now (the session's output; TLS
 * records), unless a send is in flight: its completion brings the rest. */
void tcp_flush(struct loop *l, struct conn *c);

/* ... or after the batch, with whatever else the batch adds. */
static inline void tcp_flush_later(struct loop *l, struct conn *c) { slot_flush_later(&tcp_of(l)->flush, &c->s); }

/* The connection ends with our last word queued (a GOAWAY, an alert):
 * it goes now, and the connection is replaced only once it had time to
 * leave. Returns false (close). */
bool tcp_goodbye(struct loop *l, struct conn *c);

/* The connection ends once everything it queued has gone (HTTP/2 stream
 * ids ran out: our GOAWAY NO_ERROR first). Returns false when it can close
 * now, true while a send in flight holds it (then closed by the send's
 * completion). */
bool tcp_retire(struct loop *l, struct conn *c);

/* The socket's one send. */
void tcp_send(struct loop *l, struct conn *c, const void *buf, size_t len);

/* The proxy's tunnel (tcp_proxy.c). */
enum tunnel_rc { TUNNEL_MORE, TUNNEL_UP, TUNNEL_FAILED };
/* The socket connected to the proxy: CONNECT goes now. */
void tcp_proxy_start(struct loop *l, struct conn *c);
/* The socket took n bytes of it. */
void tcp_proxy_sent(struct loop *l, struct conn *c, size_t n);
/* The proxy's bytes: *p and *n are left on what follows its reply's head
 * (the tunnel's first bytes, usually none) when the tunnel is up. */
enum tunnel_rc tcp_proxy_data(struct loop *l, struct conn *c, uint8_t **p, size_t *n);
/* The connection was lost before the tunnel was up: counted here. */
void tcp_proxy_lost(struct loop *l, struct conn *c, enum lost_how how, const char *why);
/* The tick while tunnelling: false when --connect-timeout passed. */
bool tcp_proxy_tick(struct loop *l, struct conn *c);

/* The TLS filter (tcp_tls.c). */
int tcp_tls_prepare(struct tcp *t, char *err, size_t errlen);
/* Bytes of each slot's TLS block: the connection's state, and with
 * --cacert its certificate verifier behind it. */
size_t tcp_tls_block_size(const struct worker_config *cfg);
void tcp_tls_start(struct loop *l, struct conn *c);
bool tcp_tls_data(struct loop *l, struct conn *c, uint8_t *p, size_t n);
void tcp_tls_flush(struct loop *l, struct conn *c);
void tcp_tls_sent(struct loop *l, struct conn *c, size_t n);
bool tcp_tls_all_sent(const struct conn *c);
/* Ends a connection lost during the handshake (true), else maps what the
 * session is told. */
bool tcp_tls_lost(struct loop *l, struct conn *c, enum lost_how *how, const char *why);
/* The socket closed before any byte came: a silent TLS 1.3 refusal (true:
 * the connection is replaced, at no cost). */
bool tcp_tls_silent_refusal(const struct loop *l, struct conn *c);
/* The tick during the handshake: false when --connect-timeout passed. */
bool tcp_tls_tick(struct loop *l, struct conn *c);

#endif
