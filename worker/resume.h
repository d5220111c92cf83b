/* worker/resume.h — --tls-resume's session tickets, one per connection
 * slot, for both transports (tcp_tls.c, udp.c). A slot keeps the newest
 * ticket the server sent on its connections and offers it once, on the
 * slot's next connection (RFC 8446 §C.4: "Clients SHOULD NOT reuse a ticket
 * for multiple connections"). Over TCP a slot served by the TLS 1.2 engine
 * keeps its last session instead (RFC 5246 §7.3: an id, resumable as long
 * as the server caches it). Allocated only with --tls-resume. Private to
 * the worker.
 *
 * With or without --tls-resume it also keeps the key share group a
 * HelloRetryRequest of this target asked for (RFC 8446 §4.1.4): later
 * ClientHellos share for it first, so a server that prefers a group other
 * than our first costs the retry on its first connections only. One per
 * worker transport (no locking: each worker learns it from its own). */
#ifndef SHB_WORKER_RESUME_H
#define SHB_WORKER_RESUME_H

#include <stdbool.h>
#include <stdint.h>

#include "quic/tparams.h"
#include "stats/stats.h"
#include "tls13/conn.h"
#include "tls13/handshake.h"

/* One slot's ticket, and over QUIC the server's transport parameters of
 * the connection it came on, which 0-RTT goes by (RFC 9000 §7.4.1). */
struct resume_slot {
    bool valid;                /* a ticket not offered yet */
    bool has_tp;               /* tp: the parameters of the slot's last established QUIC connection */
    struct quic_tparams tp;    /* (quic_tparams_remember: only what a client may remember) */
    uint64_t received_ns;      /* the worker's clock when it arrived */
    const uint64_t *now;       /* the worker's clock (loop.now), read when a ticket arrives */
    struct tls13_ticket t;
    bool valid12;              /* s12 holds the TLS 1.2 engine's last session */
    br_ssl_session_parameters s12;
};

struct resume_store {
    struct resume_slot *slots; /* NULL without --tls-resume */
    uint32_t n;
    uint16_t hrr_group;        /* the last HelloRetryRequest's group, 0 before any */
};

/* n slots reading the clock at *now; 0, or -1 out of memory. */
int resume_store_init(struct resume_store *s, uint32_t n, const uint64_t *now);
void resume_store_free(struct resume_store *s);

/* What slot i's next handshake takes: its ticket (then no longer offered
 * again), its age at now, and where the next ticket goes. NULL without
 * --tls-resume. */
const struct tls13_resume *resume_for(struct resume_store *s, uint32_t i, uint64_t now, struct tls13_resume *r);

/* The key share group for the next ClientHello (tls13_hs_config
 * .key_share_group): the one the last HelloRetryRequest asked for, 0 for
 * none yet. */
static inline uint16_t resume_key_share(const struct resume_store *s) { return s->hrr_group; }

/* A handshake completed (either engine, either transport): counts it,
 * full or resumed and whether a HelloRetryRequest asked for hrr_group (0:
 * none, and always for TLS 1.2, which has no retry),
 * which later handshakes then share for; a retry to another group (the
 * server changed its mind) replaces the one remembered. */
void resume_handshake_done(struct resume_store *s, struct tls_handshakes *count, bool resumed, uint16_t hrr_group);

/* QUIC: slot i's connection is established with these server parameters:
 * the tickets it brings are remembered with them (RFC 9000 §7.4.1: "store
 * the values of the server transport parameters with any session tickets
 * it receives on the connection"); a slot's ticket is taken when its next
 * connection opens, so the ticket offered and these always belong to one
 * connection. resume_tparams: those of the ticket resume_for just gave
 * (NULL: none, then no 0-RTT). */
void resume_keep_tparams(struct resume_store *s, uint32_t i, const struct quic_tparams *server);
const struct quic_tparams *resume_tparams(const struct resume_store *s, uint32_t i);

/* TLS 1.2: slot i's session to offer (NULL: none, or no --tls-resume), and
 * keeping the session of a completed handshake. */
const br_ssl_session_parameters *resume_session12(const struct resume_store *s, uint32_t i);
void resume_keep12(struct resume_store *s, uint32_t i, const struct tls_conn *t);

#endif
