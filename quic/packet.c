/* quic/packet.c — QUIC v1 packet numbers, headers and protection for a
 * client (RFC 9000 §12.2, §17; RFC 9001 §5). See packet.h for the contract.
 *
 * Header protection (RFC 9001 §5.4) runs on the same BearSSL code the AEAD
 * picked in tls13/aead.c: AES-NI when the CPU has it, else the constant-time
 * ct64 AES; SSE2 ChaCha20, else ct ChaCha20. AES-ECB of the 16-byte sample
 * comes out of BearSSL's CTR interface: its keystream block for IV =
 * sample[0..12) and counter = big-endian sample[12..16) is AES_K(IV ||
 * counter) = AES_K(sample), so encrypting 16 zero bytes yields the mask.
 *
 * Packet protection is tls13_aead_seal/open with the packet number as the
 * sequence number: the nonce is the IV XOR the left-padded number, exactly
 * RFC 9001 §5.3. */
#include "quic/packet.h"

#include <string.h>

#include "quic/varint.h"
#include "tls13/keysched.h"

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* ---- packet numbers ---- */

size_t quic_pn_encode_len(uint64_t pn, uint64_t largest_acked)
{
    uint64_t unacked;

    if (pn > QUIC_PN_MAX)
        return 0;
    /* RFC 9000 §17.1: before any acknowledgment the full number goes out,
     * which is what counting every number from 0 gives (Appendix A.2). */
    if (largest_acked == QUIC_PN_NONE)
        unacked = pn + 1;
    else
        unacked = pn > largest_acked ? pn - largest_acked : 1;
    /* §17.1: "a packet number size able to represent more than twice as
     * large a range" as unacked: 2^(8n) > 2 * unacked. At an exact power of
     * two this is one byte more than Appendix A.2's log2-based pseudocode
     * would give; the MUST in the text wins. */
    for (size_t n = 1; n <= 4; n++)
        if (unacked < UINT64_C(1) << (8 * n - 1))
            return n;
    return 0;
}

uint64_t quic_pn_decode(uint64_t largest_pn, uint64_t truncated, size_t pn_len)
{
    /* RFC 9000 Appendix A.3, unsigned: the "expected - hwin" comparison is
     * only made when it cannot go below zero. */
    uint64_t expected = largest_pn == QUIC_PN_NONE ? 0 : largest_pn + 1;
    uint64_t win, hwin, mask, cand;

    if (pn_len < 1 || pn_len > 4)
        return QUIC_PN_NONE;
    win = UINT64_C(1) << (8 * pn_len);
    hwin = win / 2;
    mask = win - 1;
    cand = (expected & ~mask) | (truncated & mask);
    if (expected >= hwin && cand <= expected - hwin && cand < (UINT64_C(1) << 62) - win)
        return cand + win;
    if (cand > expected + hwin && cand >= win)
        return cand - win;
    return cand;
}

/* ---- headers ---- */

/* A long header's connection ID: a length octet, then the ID. §17.2: a v1
 * CID over 20 bytes MUST be dropped; VN (other versions' rules, §17.2.1)
 * allows up to 255. */
static int long_cid(const uint8_t **pp, const uint8_t *end, uint32_t version, const uint8_t **cid, size_t *len)
{
    const uint8_t *p = *pp;
    if (p == end)
        return QUIC_PKT_TRUNCATED;
    *len = *p++;
    if (version == QUIC_V1 && *len > QUIC_MAX_CID_LEN)
        return QUIC_PKT_INVALID;
    if ((size_t)(end - p) < *len)
        return QUIC_PKT_TRUNCATED;
    *cid = p;
    *pp = p + *len;
    return 0;
}

int quic_hdr_parse(struct quic_hdr *h, const uint8_t *pkt, size_t len, size_t short_dcid_len)
{
    const uint8_t *p, *end = pkt + len;
    uint64_t v;

    memset(h, 0, sizeof *h);
    if (len < 1)
        return QUIC_PKT_TRUNCATED;

    if ((pkt[0] & 0x80) == 0) {
        /* Short header (RFC 9000 §17.3.1): the DCID is the one we chose, of
         * the length we know; the rest of the datagram is this packet. */
        h->type = QUIC_PT_1RTT;
        h->version = QUIC_V1;
        /* §17.3.1: a packet with the Fixed Bit 0 MUST be discarded. */
        if ((pkt[0] & 0x40) == 0 || short_dcid_len > QUIC_MAX_CID_LEN)
            return QUIC_PKT_INVALID;
        if (len < 1 + short_dcid_len)
            return QUIC_PKT_TRUNCATED;
        h->dcid = pkt + 1;
        h->dcid_len = short_dcid_len;
        h->pn_offset = 1 + short_dcid_len;
        h->pkt_len = len;
        return QUIC_PKT_OK;
    }

    /* Long header (§17.2): the version-independent part first (RFC 8999). */
    if (len < 5)
        return QUIC_PKT_TRUNCATED;
    h->version = be32(pkt + 1);
    if (h->version != 0 && h->version != QUIC_V1)
        return QUIC_PKT_VERSION; /* §5.2.1: a client discards other versions */
    /* §17.2: Fixed Bit 0 is not a v1 packet, MUST be discarded; in a VN
     * packet the bit is unused and ignored (§17.2.1). */
    if (h->version == QUIC_V1 && (pkt[0] & 0x40) == 0)
        return QUIC_PKT_INVALID;
    p = pkt + 5;
    int rc = long_cid(&p, end, h->version, &h->dcid, &h->dcid_len);
    if (rc == 0)
        rc = long_cid(&p, end, h->version, &h->scid, &h->scid_len);
    if (rc != 0)
        return rc;

    if (h->version == 0) {
        /* §17.2.1: whole 32-bit versions to the end of the datagram. */
        h->type = QUIC_PT_VN;
        if ((end - p) % 4 != 0)
            return QUIC_PKT_INVALID;
        h->versions = p;
        h->n_versions = (size_t)(end - p) / 4;
        h->pkt_len = len;
        return QUIC_PKT_OK;
    }

    h->type = (enum quic_pkt_type)((pkt[0] >> 4) & 3);

    if (h->type == QUIC_PT_RETRY) {
        /* §17.2.5: token, then the 16-byte integrity tag, to the end of the
         * datagram; §17.2.5.2: a zero-length token MUST be discarded. */
        if ((size_t)(end - p) < QUIC_TAG_LEN)
            return QUIC_PKT_TRUNCATED;
        h->token = p;
        h->token_len = (size_t)(end - p) - QUIC_TAG_LEN;
        h->pkt_len = len;
        return h->token_len == 0 ? QUIC_PKT_INVALID : QUIC_PKT_OK;
    }

    if (h->type == QUIC_PT_INITIAL) {
        if (quic_varint_get(&p, end, &v) != 0 || v > (uint64_t)(end - p))
            return QUIC_PKT_TRUNCATED;
        h->token = p;
        h->token_len = (size_t)v;
        p += v;
    }
    /* §17.2 / §12.2: Length covers packet number and payload and is what
     * delimits coalesced packets. */
    if (quic_varint_get(&p, end, &v) != 0 || v > (uint64_t)(end - p))
        return QUIC_PKT_TRUNCATED;
    h->length = v;
    h->pn_offset = (size_t)(p - pkt);
    h->pkt_len = h->pn_offset + (size_t)v;
    return QUIC_PKT_OK;
}

size_t quic_build_long(uint8_t *out, size_t cap, enum quic_pkt_type type, const uint8_t *dcid, size_t dcid_len,
                       const uint8_t *scid, size_t scid_len, const uint8_t *token, size_t token_len, size_t pn_len)
{
    uint8_t *p = out, *end = out + cap;
    size_t need;

    if ((type != QUIC_PT_INITIAL && type != QUIC_PT_0RTT && type != QUIC_PT_HANDSHAKE) ||
        dcid_len > QUIC_MAX_CID_LEN || scid_len > QUIC_MAX_CID_LEN || pn_len < 1 || pn_len > 4 ||
        (type != QUIC_PT_INITIAL && token_len != 0) || quic_varint_size(token_len) == 0 || token_len > cap)
        return 0;
    need = 1 + 4 + 1 + dcid_len + 1 + scid_len + 2 + pn_len;
    if (type == QUIC_PT_INITIAL)
        need += quic_varint_size(token_len) + token_len;
    if (need > cap)
        return 0;

    /* §17.2: form 1, fixed 1, type, reserved bits 0, packet number length - 1. */
    *p++ = (uint8_t)(0xc0 | (unsigned)type << 4 | (pn_len - 1));
    *p++ = (uint8_t)(QUIC_V1 >> 24);
    *p++ = (uint8_t)(QUIC_V1 >> 16);
    *p++ = (uint8_t)(QUIC_V1 >> 8);
    *p++ = (uint8_t)QUIC_V1;
    *p++ = (uint8_t)dcid_len;
    if (dcid_len)
        memcpy(p, dcid, dcid_len);
    p += dcid_len;
    *p++ = (uint8_t)scid_len;
    if (scid_len)
        memcpy(p, scid, scid_len);
    p += scid_len;
    if (type == QUIC_PT_INITIAL) {
        p = quic_varint_put(p, end, token_len);
        if (token_len)
            memcpy(p, token, token_len);
        p += token_len;
    }
    /* Length: 2 bytes, always (up to 16383), filled in by quic_set_length. */
    p = quic_varint_put_len(p, end, 0, 2);
    memset(p, 0, pn_len);
    return (size_t)(p + pn_len - out);
}

size_t quic_build_short(uint8_t *out, size_t cap, const uint8_t *dcid, size_t dcid_len, int key_phase,
                        size_t pn_len)
{
    if (dcid_len > QUIC_MAX_CID_LEN || pn_len < 1 || pn_len > 4 || 1 + dcid_len + pn_len > cap)
        return 0;
    /* §17.3.1: form 0, fixed 1, spin 0, reserved 0, key phase, pn length - 1. */
    out[0] = (uint8_t)(0x40 | (key_phase ? 0x04 : 0) | (pn_len - 1));
    if (dcid_len)
        memcpy(out + 1, dcid, dcid_len);
    memset(out + 1 + dcid_len, 0, pn_len);
    return 1 + dcid_len + pn_len;
}

int quic_set_length(uint8_t *pkt, size_t hdr_len, size_t payload_len)
{
    size_t pn_len = (size_t)(pkt[0] & 3) + 1;
    uint8_t *at;

    /* The builder's 2-byte field sits right before the packet number. */
    if ((pkt[0] & 0x80) == 0 || hdr_len < 7 + 2 + pn_len)
        return -1;
    at = pkt + hdr_len - pn_len - 2;
    if ((at[0] >> 6) != 1 || payload_len > 16383)
        return -1;
    return quic_varint_put_len(at, at + 2, pn_len + payload_len + QUIC_TAG_LEN, 2) ? 0 : -1;
}

/* ---- header protection ---- */

int quic_hp_init(struct quic_hp *hp, uint16_t suite, const uint8_t *key)
{
    const struct tls13_suite *s = tls13_suite_find(suite);

    memset(hp, 0, sizeof *hp);
    if (s == NULL)
        return -1;
    hp->suite = suite;
    if (suite == TLS_CHACHA20_POLY1305_SHA256) {
        memcpy(hp->chacha_key, key, 32);
        hp->chacha = tls13_chacha20_impl();
    } else {
        tls13_aes_ctr_init(&hp->aes, key, s->key_len);
    }
    return 0;
}

void quic_hp_mask(const struct quic_hp *hp, const uint8_t sample[QUIC_HP_SAMPLE_LEN], uint8_t mask[5])
{
    uint8_t block[16];

    memset(block, 0, sizeof block);
    if (hp->suite == TLS_CHACHA20_POLY1305_SHA256) {
        /* RFC 9001 §5.4.4: counter = sample[0..4) little-endian, nonce =
         * sample[4..16), mask = ChaCha20 over 5 zero bytes. */
        uint32_t cc = (uint32_t)sample[0] | (uint32_t)sample[1] << 8 | (uint32_t)sample[2] << 16 |
                      (uint32_t)sample[3] << 24;
        hp->chacha(hp->chacha_key, sample + 4, cc, block, 5);
    } else {
        /* RFC 9001 §5.4.3: mask = AES-ECB(hp_key, sample), as a CTR
         * keystream block (see the top of this file). */
        const br_block_ctr_class *const *ctr = tls13_aes_ctr_ctx(&hp->aes);
        (*ctr)->run(ctr, sample, be32(sample + 12), block, 16);
    }
    memcpy(mask, block, 5);
}

/* ---- keys ---- */

int quic_keys_init(struct quic_keys *k, uint16_t suite, const uint8_t *secret)
{
    const struct tls13_suite *s = tls13_suite_find(suite);
    uint8_t key[32], iv[12], hpk[32];
    int rc;

    if (s == NULL)
        return -1;
    /* RFC 9001 §5.1: zero-length context; key and hp as long as the
     * cipher's key, the IV 12 bytes. */
    tls13_hkdf_expand_label(s->hash, secret, "quic key", NULL, 0, key, s->key_len);
    tls13_hkdf_expand_label(s->hash, secret, "quic iv", NULL, 0, iv, s->iv_len);
    tls13_hkdf_expand_label(s->hash, secret, "quic hp", NULL, 0, hpk, s->key_len);
    rc = tls13_aead_init(&k->aead, suite, key, iv);
    if (rc == 0)
        rc = quic_hp_init(&k->hp, suite, hpk);
    tls13_wipe(key, sizeof key);
    tls13_wipe(iv, sizeof iv);
    tls13_wipe(hpk, sizeof hpk);
    return rc;
}

int quic_keys_initial(struct quic_keys *client, struct quic_keys *server, const uint8_t *dcid, size_t dcid_len)
{
    /* RFC 9001 §5.2: the version 1 initial_salt. */
    static const uint8_t salt[20] = {0x38, 0x76, 0x2c, 0xf7, 0xf5, 0x59, 0x34, 0xb3, 0x4d, 0x17,
                                     0x9a, 0xe6, 0xa4, 0xc8, 0x0c, 0xad, 0xcc, 0xbb, 0x7f, 0x0a};
    uint8_t initial[32], secret[32];
    int rc;

    if (dcid_len > QUIC_MAX_CID_LEN)
        return -1;
    tls13_hkdf_extract(TLS13_SHA256, salt, sizeof salt, dcid, dcid_len, initial);
    tls13_hkdf_expand_label(TLS13_SHA256, initial, "client in", NULL, 0, secret, 32);
    rc = quic_keys_init(client, TLS_AES_128_GCM_SHA256, secret);
    tls13_hkdf_expand_label(TLS13_SHA256, initial, "server in", NULL, 0, secret, 32);
    if (rc == 0)
        rc = quic_keys_init(server, TLS_AES_128_GCM_SHA256, secret);
    tls13_wipe(initial, sizeof initial);
    tls13_wipe(secret, sizeof secret);
    return rc;
}

int quic_keys_update(struct quic_keys *k, uint16_t suite, uint8_t *secret)
{
    const struct tls13_suite *s = tls13_suite_find(suite);
    uint8_t next[TLS13_MAX_HASH], key[32], iv[12];
    size_t hlen;
    int rc;

    if (s == NULL)
        return -1;
    hlen = tls13_hash_len(s->hash);
    /* RFC 9001 §6.1: secret_<n+1> = HKDF-Expand-Label(secret_<n>, "quic ku",
     * "", Hash.length); key and IV from it as in §5.1; hp unchanged (§5.4). */
    tls13_hkdf_expand_label(s->hash, secret, "quic ku", NULL, 0, next, hlen);
    memcpy(secret, next, hlen);
    tls13_hkdf_expand_label(s->hash, secret, "quic key", NULL, 0, key, s->key_len);
    tls13_hkdf_expand_label(s->hash, secret, "quic iv", NULL, 0, iv, s->iv_len);
    rc = tls13_aead_init(&k->aead, suite, key, iv);
    tls13_wipe(next, sizeof next);
    tls13_wipe(key, sizeof key);
    tls13_wipe(iv, sizeof iv);
    return rc;
}

void quic_keys_wipe(struct quic_keys *k) { tls13_wipe(k, sizeof *k); }

/* ---- packet protection ---- */

/* RFC 9001 §5.4.1: the low 4 bits of a long header's first byte, 5 of a
 * short header's. */
static uint8_t first_byte_mask(uint8_t b0) { return (b0 & 0x80) ? 0x0f : 0x1f; }

size_t quic_packet_seal(const struct quic_keys *k, uint8_t *pkt, size_t hdr_len, size_t payload_len, uint64_t pn)
{
    size_t pn_len = (size_t)(pkt[0] & 3) + 1, pn_off;
    uint8_t mask[5];

    /* §5.4.2: the sample starts 4 bytes past the packet number and is 16
     * long, the tag is 16: packet number + payload must reach 4 bytes. */
    if (hdr_len < 1 + pn_len || pn > QUIC_PN_MAX || pn_len + payload_len < 4)
        return 0;
    pn_off = hdr_len - pn_len;
    for (size_t i = 0; i < pn_len; i++)
        pkt[pn_off + i] = (uint8_t)(pn >> (8 * (pn_len - 1 - i)));
    /* §5.3: AAD is the header through the unprotected packet number; the
     * AEAD is applied before header protection. */
    tls13_aead_seal(&k->aead, pn, pkt, hdr_len, pkt + hdr_len, payload_len, pkt + hdr_len + payload_len);
    quic_hp_mask(&k->hp, pkt + pn_off + 4, mask);
    pkt[0] ^= mask[0] & first_byte_mask(pkt[0]);
    for (size_t i = 0; i < pn_len; i++)
        pkt[pn_off + i] ^= mask[1 + i];
    return hdr_len + payload_len + QUIC_TAG_LEN;
}

int quic_hp_remove(const struct quic_hp *hp, uint8_t *pkt, size_t pkt_len, size_t pn_offset, uint64_t largest_pn,
                   struct quic_opened *o)
{
    uint8_t mask[5];
    uint32_t x;
    size_t pn_len;

    memset(o, 0, sizeof *o);
    /* §5.4.2: a packet too short for a whole sample MUST be discarded. The
     * sample's end also covers a 4-byte packet number and the tag. */
    if (pn_offset < 1 || pkt_len < pn_offset || pkt_len - pn_offset < 4 + QUIC_HP_SAMPLE_LEN)
        return QUIC_PKT_TRUNCATED;
    quic_hp_mask(hp, pkt + pn_offset + 4, mask);
    pkt[0] ^= mask[0] & first_byte_mask(pkt[0]);
    pn_len = (size_t)(pkt[0] & 3) + 1;
    /* Unmask and read the packet number without branching on its length
     * (RFC 9001 §9.5): all four byte positions are read, the ones past
     * pn_len are XORed with 0 and shifted out. */
    x = 0;
    for (size_t i = 0; i < 4; i++) {
        uint8_t in = (uint8_t)(0u - (unsigned)(i < pn_len));
        pkt[pn_offset + i] ^= mask[1 + i] & in;
        x = x << 8 | pkt[pn_offset + i];
    }
    x >>= 8 * (4 - pn_len);
    o->pn_len = pn_len;
    o->pn = quic_pn_decode(largest_pn, x, pn_len);
    o->hdr_len = pn_offset + pn_len;
    o->payload = pkt + o->hdr_len;
    o->payload_len = pkt_len - o->hdr_len - QUIC_TAG_LEN;
    o->key_phase = (pkt[0] & 0x80) ? 0 : (pkt[0] >> 2) & 1;
    return QUIC_PKT_OK;
}

int quic_payload_open(const struct tls13_aead *a, uint8_t *pkt, struct quic_opened *o)
{
    if (tls13_aead_open(a, o->pn, pkt, o->hdr_len, o->payload, o->payload_len, o->payload + o->payload_len) != 0)
        return QUIC_PKT_DECRYPT;
    /* RFC 9000 §17.2 (0x0c) and §17.3.1 (0x18): non-zero reserved bits,
     * checked only now that the packet is authenticated (RFC 9001 §9.5), are
     * a PROTOCOL_VIOLATION. */
    if (pkt[0] & ((pkt[0] & 0x80) ? 0x0c : 0x18))
        return QUIC_PKT_RESERVED_BITS;
    return QUIC_PKT_OK;
}

int quic_packet_open(const struct quic_keys *k, uint8_t *pkt, size_t pkt_len, size_t pn_offset, uint64_t largest_pn,
                     struct quic_opened *o)
{
    int rc = quic_hp_remove(&k->hp, pkt, pkt_len, pn_offset, largest_pn, o);
    return rc != QUIC_PKT_OK ? rc : quic_payload_open(&k->aead, pkt, o);
}

/* ---- Retry, Version Negotiation ---- */

int quic_retry_verify(const struct quic_hdr *h, const uint8_t *pkt, const uint8_t *odcid, size_t odcid_len)
{
    /* RFC 9001 §5.8: AEAD_AES_128_GCM with this fixed v1 key and nonce, empty
     * plaintext, AAD = the Retry pseudo-packet: ODCID length, ODCID, then the
     * Retry packet without its tag. br_gcm takes the AAD in pieces, so the
     * pseudo-packet is never assembled. */
    static const uint8_t key[16] = {0xbe, 0x0c, 0x69, 0x0b, 0x9f, 0x66, 0x57, 0x5a,
                                    0x1d, 0x76, 0x6b, 0x54, 0xe3, 0x68, 0xc8, 0x4e};
    static const uint8_t nonce[12] = {0x46, 0x15, 0x99, 0xd3, 0x5d, 0x63, 0x2b, 0xf2, 0x23, 0x98, 0x25, 0xbb};
    union tls13_aes_ctr aes;
    br_gcm_context gc;
    br_ghash gh;
    uint8_t odcid_len8 = (uint8_t)odcid_len;
    uint32_t ok;

    if (h->type != QUIC_PT_RETRY || h->pkt_len < QUIC_TAG_LEN || odcid_len > QUIC_MAX_CID_LEN)
        return -1;
    tls13_aes_ctr_init(&aes, key, sizeof key);
    gh = br_ghash_pclmul_get();
    if (gh == NULL)
        gh = br_ghash_ctmul64;
    br_gcm_init(&gc, &aes.ct64.vtable, gh); /* the context in place, as tls13_aes_ctr_ctx */
    br_gcm_reset(&gc, nonce, sizeof nonce);
    br_gcm_aad_inject(&gc, &odcid_len8, 1);
    if (odcid_len)
        br_gcm_aad_inject(&gc, odcid, odcid_len);
    br_gcm_aad_inject(&gc, pkt, h->pkt_len - QUIC_TAG_LEN);
    br_gcm_flip(&gc);
    ok = br_gcm_check_tag(&gc, pkt + h->pkt_len - QUIC_TAG_LEN);
    return ok ? 0 : -1;
}

uint32_t quic_vn_version(const struct quic_hdr *h, size_t i) { return be32(h->versions + 4 * i); }

bool quic_vn_offers(const struct quic_hdr *h, uint32_t v)
{
    for (size_t i = 0; i < h->n_versions; i++)
        if (quic_vn_version(h, i) == v)
            return true;
    return false;
}
