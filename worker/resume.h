/* worker/resume.h — --tls-resume's session tickets, one per connection
 * slot, for both transports (tcp_tls.c, udp.c). A slot keeps the newest
 * ticket the server sent on its connections and offers it once, on the
 * slot's next connection (RFC 8446 §C.4: "Clients SHOULD NOT reuse a ticket
 * for multiple connections"). Over TCP a slot served by the TLS 1.2 engine
 * keeps its last session instead (RFC 5246 §7.3: an id, resumable as long
 * as the server caches it). Allocated only with --tls-resume. Private to
 * the worker. */
#ifndef SHB_WORKER_RESUME_H
#define SHB_WORKER_RESUME_H

#include <stdbool.h>
#include <stdint.h>

#include "tls13/conn.h"
#include "tls13/handshake.h"

/* One slot's ticket. QUIC's 0-RTT will add the server's transport
 * parameters beside it (RFC 9000 §7.4.1). */
struct resume_slot {
    bool valid;                /* a ticket not offered yet */
    uint64_t received_ns;      /* the worker's clock when it arrived */
    const uint64_t *now;       /* the worker's clock (loop.now), read when a ticket arrives */
    struct tls13_ticket t;
    bool valid12;              /* s12 holds the TLS 1.2 engine's last session */
    br_ssl_session_parameters s12;
};

struct resume_store {
    struct resume_slot *slots; /* NULL without --tls-resume */
    uint32_t n;
};

/* n slots reading the clock at *now; 0, or -1 out of memory. */
int resume_store_init(struct resume_store *s, uint32_t n, const uint64_t *now);
void resume_store_free(struct resume_store *s);

/* What slot i's next handshake takes: its ticket (then no longer offered
 * again), its age at now, and where the next ticket goes. NULL without
 * --tls-resume. */
const struct tls13_resume *resume_for(struct resume_store *s, uint32_t i, uint64_t now, struct tls13_resume *r);

/* TLS 1.2: slot i's session to offer (NULL: none, or no --tls-resume), and
 * keeping the session of a completed handshake. */
const br_ssl_session_parameters *resume_session12(const struct resume_store *s, uint32_t i);
void resume_keep12(struct resume_store *s, uint32_t i, const struct tls_conn *t);

#endif
