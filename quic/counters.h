/* quic/counters.h — what one QUIC connection counts for the report: plain
 * data, so that the run's totals (stats.h) can be summed from it without
 * the connection's engine. quic_conn_counters (quic/conn.h) reads them. */
#ifndef SHB_QUIC_COUNTERS_H
#define SHB_QUIC_COUNTERS_H

#include <stdint.h>

/* A new counter: a field here, its increment in quic/conn.c, and a row of
 * quic_counters (stats.c) saying where it shows. */
struct quic_conn_counters {
    uint64_t packets_sent, packets_received, packets_lost, pto_count;
    uint64_t datagrams_sent, datagrams_received;
    uint64_t retries, key_updates;
    uint64_t handshake_ns;     /* first Initial sent -> handshake complete; 0 before */
    /* For the long-run tests: key updates the server started (we followed;
     * the rest of key_updates are ours), ours the server answered (its
     * packets came in the new phase), the largest 1-RTT packet number sent
     * (QUIC_PN_NONE, UINT64_MAX, before any), and 1-RTT packets sent by the length of
     * their packet number encoding (index: bytes - 1, RFC 9000 §17.1). */
    uint64_t key_updates_peer, key_updates_answered;
    uint64_t largest_app_pn_sent;
    uint64_t app_pn_len[4];
};

#endif
