/* tls13/record.c — TLS 1.3 record protection (RFC 8446 §5.2–5.4). See
 * record.h.
 *
 * Beyond the header's contract (proposed for record.h in the crypto layer's
 * report), these rules of §5 live here because only the record layer sees
 * them:
 *  - change_cipher_spec travels unprotected even once a direction is keyed
 *    (§5, and Appendix D.4 "middlebox compatibility mode"): seal of ct 20
 *    writes a plaintext record, open of a plaintext CCS record returns it
 *    with *ct = 20. Neither consumes a sequence number (only protected
 *    records do, §5.3). A CCS record other than the single byte 0x01 is
 *    refused here; whether a CCS is acceptable at this point at all (§5:
 *    only between the first ClientHello and the peer's Finished) is for
 *    the caller to judge.
 *  - open refuses unknown content types, protected CCS, and zero-length
 *    handshake or alert content (unexpected_message), so the caller only
 *    ever sees 21, 22, 23 (and a clear CCS as above).
 *  - an unkeyed direction counts its records too, so that its first record
 *    (the initial ClientHello) goes out with legacy_record_version 0x0301,
 *    which §5.1 allows "for compatibility purposes" and many stacks send;
 *    every later record says 0x0303. tls13_record_key resets the count.
 *  - open returns two codes record.h does not list yet: -50 decode_error
 *    when rec_len is not exactly one record (a framing bug in the caller),
 *    and -80 internal_error when the read sequence number is exhausted.
 *    Seal returns 0 (as for a short buffer) rather than wrap its sequence
 *    number. */
#include "tls13/record.h"

#include <string.h>

/* Alerts returned negated (RFC 8446 §6). */
#define ALERT_UNEXPECTED_MESSAGE 10
#define ALERT_BAD_RECORD_MAC 20
#define ALERT_RECORD_OVERFLOW 22
#define ALERT_DECODE_ERROR 50
#define ALERT_INTERNAL_ERROR 80

int tls13_record_key(struct tls13_record_dir *d, uint16_t suite, const uint8_t *key, const uint8_t *iv)
{
    d->seq = 0; /* §5.3: the first record under a new key uses 0 */
    if (tls13_aead_init(&d->aead, suite, key, iv) != 0) {
        d->keyed = false;
        return -1;
    }
    d->keyed = true;
    return 0;
}

/* The four content types TLS 1.3 knows (§5.1). */
static inline bool known_type(uint8_t t)
{
    return t >= TLS13_CT_CHANGE_CIPHER_SPEC && t <= TLS13_CT_APPLICATION_DATA;
}

static void put_header(uint8_t *out, uint8_t type, uint16_t version, size_t len)
{
    out[0] = type;
    out[1] = (uint8_t)(version >> 8);
    out[2] = (uint8_t)version;
    out[3] = (uint8_t)(len >> 8);
    out[4] = (uint8_t)len;
}

size_t tls13_record_seal(struct tls13_record_dir *d, uint8_t ct, const uint8_t *plain, size_t len, uint8_t *out,
                         size_t cap)
{
    if (len > TLS13_MAX_PLAINTEXT)
        return 0;

    if (!d->keyed || ct == TLS13_CT_CHANGE_CIPHER_SPEC) {
        if (cap < TLS13_RECORD_HDR + len)
            return 0;
        /* §5.1: 0x0301 allowed for the initial ClientHello only. */
        uint16_t version = (!d->keyed && d->seq == 0) ? 0x0301 : 0x0303;
        put_header(out, ct, version, len);
        if (len > 0)
            memmove(out + TLS13_RECORD_HDR, plain, len);
        if (!d->keyed)
            d->seq++;
        return TLS13_RECORD_HDR + len;
    }

    /* §5.3: a sequence number must never wrap; the last value is kept
     * unused so that seq + 1 below cannot overflow. The caller rekeys
     * (KeyUpdate) or closes long before. */
    if (d->seq == UINT64_MAX)
        return 0;

    size_t inner = len + 1; /* TLSInnerPlaintext: content || type, no padding */
    size_t total = TLS13_RECORD_HDR + inner + TLS13_TAG_LEN;
    if (cap < total)
        return 0;

    /* §5.2: outer type application_data, legacy_record_version 0x0303,
     * and the header is the AEAD's additional_data. */
    put_header(out, TLS13_CT_APPLICATION_DATA, 0x0303, inner + TLS13_TAG_LEN);
    uint8_t *body = out + TLS13_RECORD_HDR;
    if (len > 0 && body != plain)
        memmove(body, plain, len); /* the caller may build content in place */
    body[len] = ct;
    tls13_aead_seal(&d->aead, d->seq, out, TLS13_RECORD_HDR, body, inner, body + inner);
    d->seq++;
    return total;
}

int tls13_record_open(struct tls13_record_dir *d, uint8_t *rec, size_t rec_len, uint8_t *ct, uint8_t **plain,
                      size_t *plain_len)
{
    if (rec_len < TLS13_RECORD_HDR)
        return -ALERT_DECODE_ERROR;
    size_t len = ((size_t)rec[3] << 8) | rec[4];
    if (len != rec_len - TLS13_RECORD_HDR)
        return -ALERT_DECODE_ERROR; /* not one whole record: a framing bug */
    uint8_t *body = rec + TLS13_RECORD_HDR;

    /* §5: a change_cipher_spec record is the single byte 0x01, in the
     * clear; any other value is unexpected_message. */
    if (rec[0] == TLS13_CT_CHANGE_CIPHER_SPEC && (len != 1 || body[0] != 1))
        return -ALERT_UNEXPECTED_MESSAGE;

    /* legacy_record_version is ignored on receipt (§5.1). */
    if (!d->keyed || rec[0] == TLS13_CT_CHANGE_CIPHER_SPEC) {
        if (!known_type(rec[0]))
            return -ALERT_UNEXPECTED_MESSAGE; /* §5: unexpected record type */
        if (len > TLS13_MAX_PLAINTEXT)
            return -ALERT_RECORD_OVERFLOW; /* §5.1 */
        /* §5.1: no zero-length handshake or alert fragments. */
        if (len == 0 && rec[0] != TLS13_CT_APPLICATION_DATA)
            return -ALERT_UNEXPECTED_MESSAGE;
        *ct = rec[0];
        *plain = body;
        *plain_len = len;
        if (!d->keyed)
            d->seq++;
        return 0;
    }

    /* §5.2: a keyed direction accepts only records of outer type
     * application_data (CCS handled above). */
    if (rec[0] != TLS13_CT_APPLICATION_DATA)
        return -ALERT_UNEXPECTED_MESSAGE;
    if (len > TLS13_MAX_CIPHERTEXT)
        return -ALERT_RECORD_OVERFLOW; /* §5.2 */
    if (len < TLS13_TAG_LEN)
        return -ALERT_BAD_RECORD_MAC; /* cannot even hold a tag */
    if (d->seq == UINT64_MAX)
        return -ALERT_INTERNAL_ERROR; /* §5.3: would wrap; peer should have rekeyed */

    size_t inner = len - TLS13_TAG_LEN;
    if (tls13_aead_open(&d->aead, d->seq, rec, TLS13_RECORD_HDR, body, inner, body + inner) != 0)
        return -ALERT_BAD_RECORD_MAC; /* §5.2 */
    d->seq++;
    /* §5.4: "the full encoded TLSInnerPlaintext MUST NOT exceed 2^14 + 1
     * octets", padding included (with a 16-byte tag, records of 2^14+18 ..
     * 2^14+256 bytes pass §5.2's limit and still break this one); so the
     * content stays within §5.1's 2^14. */
    if (inner > TLS13_MAX_PLAINTEXT + 1)
        return -ALERT_RECORD_OVERFLOW;

    /* §5.4: scan back over the zero padding; the first non-zero byte is
     * the content type. All zeros (or nothing) is unexpected_message. */
    size_t n = inner;
    while (n > 0 && body[n - 1] == 0)
        n--;
    if (n == 0)
        return -ALERT_UNEXPECTED_MESSAGE;
    n--;
    /* §5: an unknown record type, or a protected change_cipher_spec, is
     * unexpected_message; so is (§5.4) zero-length handshake or alert
     * content. What is left for the caller: alert, handshake, data. */
    if (!known_type(body[n]) || body[n] == TLS13_CT_CHANGE_CIPHER_SPEC)
        return -ALERT_UNEXPECTED_MESSAGE;
    if (n == 0 && body[n] != TLS13_CT_APPLICATION_DATA)
        return -ALERT_UNEXPECTED_MESSAGE;
    *ct = body[n];
    *plain = body;
    *plain_len = n;
    return 0;
}
