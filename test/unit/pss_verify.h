/* test/unit/pss_verify.h — the verifying side of the client's signatures, for
 * the unit tests that check them (unit_credentials.c, unit_tls13_hs.c):
 * EMSA-PSS-VERIFY (RFC 8017 §9.1.2) with MGF1 (§B.2.1), written from the
 * RFC's verification steps, independently of tls13/credentials.c's
 * encoder. */
#ifndef SHB_TEST_PSS_VERIFY_H
#define SHB_TEST_PSS_VERIFY_H

#include <bearssl.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static inline size_t t_hash_len(const br_hash_class *h)
{
    return (h->desc >> BR_HASHDESC_OUT_OFF) & BR_HASHDESC_OUT_MASK;
}

static inline void hash_of(const br_hash_class *h, const void *p, size_t n, uint8_t *out)
{
    br_hash_compat_context hc;
    h->init(&hc.vtable);
    h->update(&hc.vtable, p, n);
    h->out(&hc.vtable, out);
}

/* MGF1 (RFC 8017 §B.2.1): the mask itself into mask[0..n). */
static inline void mgf1(const br_hash_class *h, const uint8_t *seed, size_t slen, uint8_t *mask, size_t n)
{
    size_t hlen = t_hash_len(h);
    for (uint32_t c = 0; n > 0; c++) {
        uint8_t buf[64 + 4], t[64];
        memcpy(buf, seed, slen);
        buf[slen] = (uint8_t)(c >> 24), buf[slen + 1] = (uint8_t)(c >> 16);
        buf[slen + 2] = (uint8_t)(c >> 8), buf[slen + 3] = (uint8_t)c;
        hash_of(h, buf, slen + 4, t);
        size_t take = n < hlen ? n : hlen;
        memcpy(mask, t, take);
        mask += take;
        n -= take;
    }
}

/* EMSA-PSS-VERIFY (RFC 8017 §9.1.2) with sLen = hLen; the salt found goes
 * to salt_out. */
static inline bool pss_verify(const br_hash_class *h, const uint8_t *mhash, const uint8_t *em, size_t em_bits,
                              uint8_t *salt_out)
{
    size_t hlen = t_hash_len(h), em_len = (em_bits + 7) / 8;
    size_t db_len = em_len - hlen - 1;
    uint8_t db[512], mp[8 + 64 + 64], hh[64];
    uint8_t top = (uint8_t)(0xff << (8 - (8 * em_len - em_bits)));

    if (em_len < 2 * hlen + 2 || em[em_len - 1] != 0xbc) /* steps 3-4 */
        return false;
    if ((8 * em_len - em_bits) && (em[0] & top)) /* step 6 */
        return false;
    mgf1(h, em + db_len, hlen, db, db_len); /* step 7 */
    for (size_t i = 0; i < db_len; i++) /* step 8 */
        db[i] ^= em[i];
    if (8 * em_len - em_bits) /* step 9 */
        db[0] &= (uint8_t)~top;
    for (size_t i = 0; i < db_len - hlen - 1; i++) /* step 10 */
        if (db[i])
            return false;
    if (db[db_len - hlen - 1] != 1)
        return false;
    memset(mp, 0, 8); /* steps 11-13 */
    memcpy(mp + 8, mhash, hlen);
    memcpy(mp + 8 + hlen, db + db_len - hlen, hlen);
    memcpy(salt_out, db + db_len - hlen, hlen);
    hash_of(h, mp, 8 + 2 * hlen, hh);
    return memcmp(hh, em + db_len, hlen) == 0; /* step 14 */
}

#endif
