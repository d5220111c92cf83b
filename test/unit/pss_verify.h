/* test/unit/pss_verify.h — what the tests that check RSASSA-PSS signatures
 * (unit_credentials.c, unit_tls13_hs.c) share: a one-shot hash. The
 * verifier itself is the product's, tls13_emsa_pss_verify
 * (tls13/credentials.h), which also checks servers' CertificateVerify. */
#ifndef SHB_TEST_PSS_VERIFY_H
#define SHB_TEST_PSS_VERIFY_H

#include <bearssl.h>
#include <stdint.h>

#include "tls13/credentials.h"

static inline void hash_of(const br_hash_class *h, const void *p, size_t n, uint8_t *out)
{
    br_hash_compat_context hc;
    h->init(&hc.vtable);
    h->update(&hc.vtable, p, n);
    h->out(&hc.vtable, out);
}

#endif
