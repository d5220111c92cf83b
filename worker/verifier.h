/* worker/verifier.h — --cacert's per-connection verifier, as both
 * transports start it: the one clock read the engines cannot make. */
#ifndef SHB_WORKER_VERIFIER_H
#define SHB_WORKER_VERIFIER_H

#include "tls13/verify.h"

/* Readies v (tls13_verifier_size bytes of the slot's block) for a new
 * connection: cfg's anchors and name, and the wall-clock time now, which
 * the certificates must be valid at (RFC 5280 §4.1.2.5). */
void worker_verifier_start(struct tls13_verifier *v, const struct tls13_verify_config *cfg);

/* "certificate verify failed: unknown CA (sent alert unknown_ca)" into
 * out, when v saw a verification fail; false when it did not. alert: the
 * one we sent (0: none). */
bool worker_verifier_why(const struct tls13_verifier *v, int alert, char *out, size_t n);

#endif
