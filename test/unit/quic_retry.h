/* test/unit/quic_retry.h — a server's Retry packet for the QUIC unit tests
 * (unit_quic_conn.c, unit_quic_early.c): to the client whose SCID is bytes
 * 0..7 and whose first DCID is bytes 8..15 (the tests' entropy 0, 1, 2,
 * ...), from SCID scid, token "retry-token", its integrity tag computed
 * with RFC 9001 §5.8's fixed key and nonce; bad: the tag broken. */
#ifndef SHB_TEST_QUIC_RETRY_H
#define SHB_TEST_QUIC_RETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tls13/aead.h"
#include "tls13/keysched.h"

static size_t retry_packet(uint8_t *p, const uint8_t scid[8], bool bad)
{
    static const uint8_t key[16] = { 0xbe, 0x0c, 0x69, 0x0b, 0x9f, 0x66, 0x57, 0x5a,
                                     0x1d, 0x76, 0x6b, 0x54, 0xe3, 0x68, 0xc8, 0x4e };
    static const uint8_t nonce[12] = { 0x46, 0x15, 0x99, 0xd3, 0x5d, 0x63, 0x2b, 0xf2, 0x23, 0x98, 0x25, 0xbb };
    uint8_t *q = p;
    *q++ = 0xf0 | 0x05;
    *q++ = 0, *q++ = 0, *q++ = 0, *q++ = 1;
    *q++ = 8;
    for (int i = 0; i < 8; i++)
        *q++ = (uint8_t)i;
    *q++ = 8;
    memcpy(q, scid, 8);
    q += 8;
    memcpy(q, "retry-token", 11);
    q += 11;
    uint8_t aad[128];
    aad[0] = 8;
    for (int i = 0; i < 8; i++)
        aad[1 + i] = (uint8_t)(8 + i);
    memcpy(aad + 9, p, (size_t)(q - p));
    struct tls13_aead a;
    tls13_aead_init(&a, TLS_AES_128_GCM_SHA256, key, nonce);
    tls13_aead_seal(&a, 0, aad, 9 + (size_t)(q - p), q, 0, q);
    if (bad)
        q[5] ^= 0x10;
    return (size_t)(q - p) + 16;
}

#endif
