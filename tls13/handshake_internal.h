/* tls13/handshake_internal.h — entry points of tls13/handshake.c for the
 * tests only (test/unit/unit_tls13_hs.c); the engine's users have
 * tls13/handshake.h.
 *
 * Ordinary functions, in every build, so the test links the same object as
 * ./shb: an RFC 8448-style trace's own ClientHellos are replayed instead of
 * ones built from entropy, and the trace's server flight then fits. */
#ifndef SHB_TLS13_HANDSHAKE_INTERNAL_H
#define SHB_TLS13_HANDSHAKE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "tls13/handshake.h"

/* Like tls13_hs_start, but ch (a whole ClientHello message, header
 * included, e.g. an RFC 8448-style trace's) is emitted and hashed instead of
 * one built from cfg. The engine takes the legacy_session_id from ch and
 * assumes ch offered one x25519 share made from entropy's X25519 key and the
 * three suites; cfg still says which extensions count as offered
 * (server_name, ALPN, QUIC). */
int tls13_hs_start_with_client_hello(struct tls13_hs *hs, const struct tls13_hs_config *cfg,
                                     const uint8_t *entropy, const struct tls13_hs_callbacks *cb, void *ctx,
                                     const uint8_t *ch, size_t ch_len);
/* After a HelloRetryRequest, emit and hash these ClientHello2 bytes instead
 * of building them (the new key share is still made from entropy for the
 * group the HRR selected). Call before feeding the HRR. */
void tls13_hs_test_client_hello2(struct tls13_hs *hs, const uint8_t *ch2, size_t ch2_len);

#endif
