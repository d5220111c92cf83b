/* quic/conn_internal.h — the QUIC connection's inside, for the quic/ sources and
 * tests only (never the worker, whose API is quic/conn.h).
 *
 * Test accessors: ordinary functions of quic/conn.c, in every build, so the
 * unit test and the fuzz target link the same objects as ./shb. They only
 * read state or feed the engine the way its own input path does; none of
 * them is on any path ./shb runs. */
#ifndef SHB_QUIC_CONN_INTERNAL_H
#define SHB_QUIC_CONN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "quic/conn.h"
#include "quic/packet.h"
#include "quic/tparams.h"

/* ---- test accessors ------------------------------------------------------- */

/* To play the server's part once a real handshake is replayed: the keys
 * the server's 1-RTT packets are opened with in each key phase (index: the
 * Key Phase bit), the phase in use, and our SCID (the DCID of every server
 * packet). */
const struct quic_keys *quic_conn_test_server_keys(const struct quic_conn *c, int *rd_phase);
size_t quic_conn_test_scid(const struct quic_conn *c, uint8_t out[QUIC_MAX_CID_LEN]);
/* Processes a decrypted payload as a packet of space s numbered pn, as
 * quic_conn_input would after opening it (fuzzing the frame layer). */
void quic_conn_test_frames(struct quic_conn *c, enum quic_space s, uint64_t pn, const uint8_t *payload, size_t n,
                           uint64_t now);
/* The keys the server's Handshake packets are opened with (NULL before
 * the ServerHello and once discarded). */
const struct quic_keys *quic_conn_test_handshake_keys(const struct quic_conn *c);
/* Ours for Handshake packets, to open what we send (NULL when there are none). */
const struct quic_keys *quic_conn_test_handshake_write_keys(const struct quic_conn *c);
/* Our 1-RTT write keys now and their Key Phase bit, to open what we send. */
const struct quic_keys *quic_conn_test_client_keys(const struct quic_conn *c, int *wr_phase);
/* Our 1-RTT keys change after this many packets (default 2^22). */
void quic_conn_test_key_update_after(struct quic_conn *c, uint64_t packets);
/* Skips the TLS handshake: Handshake and 1-RTT keys from fixed secrets
 * (TLS_AES_128_GCM_SHA256), the Initial space discarded, the server's
 * transport parameters *peer taken as they are, and the connection
 * QUIC_ESTABLISHED (not confirmed: HANDSHAKE_DONE does that). Only on a
 * fresh connection; 0, or -1. For fuzzing the frame layer
 * (test/fuzz/fuzz_quic_conn.c) without a server. */
int quic_conn_test_establish(struct quic_conn *c, const struct quic_tparams *peer, uint64_t now);

#endif
