/* tls13/record.h — TLS 1.3 record protection for TCP (RFC 8446 §5.2–5.4).
 * One direction per struct; sequence numbers count records (§5.3). Record
 * reassembly from the byte stream is the caller's (the TLS connection's)
 * business: these functions see whole records. Sans-I/O, no allocation. */
#ifndef SHB_TLS13_RECORD_H
#define SHB_TLS13_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tls13/aead.h"

#define TLS13_RECORD_HDR 5
#define TLS13_MAX_PLAINTEXT 16384                 /* 2^14 (§5.1) */
#define TLS13_MAX_CIPHERTEXT (TLS13_MAX_PLAINTEXT + 256) /* §5.2 */

enum tls13_content_type {
    TLS13_CT_CHANGE_CIPHER_SPEC = 20,
    TLS13_CT_ALERT = 21,
    TLS13_CT_HANDSHAKE = 22,
    TLS13_CT_APPLICATION_DATA = 23,
};

struct tls13_record_dir {
    struct tls13_aead aead;
    uint64_t seq;
    bool keyed; /* false: records pass in the clear (before ServerHello) */
};

/* (Re)keys a direction and resets its sequence number. */
int tls13_record_key(struct tls13_record_dir *d, uint16_t suite, const uint8_t *key, const uint8_t *iv);

/* Writes one record carrying len (<= TLS13_MAX_PLAINTEXT) bytes of type ct
 * into out: header, then (keyed) ciphertext of plaintext||ct and the tag,
 * outer type application_data and legacy version 0x0303; (unkeyed) the
 * plaintext as is. Returns bytes written, or 0 if cap is too small.
 * ct 20 (change_cipher_spec) is always sent in the clear and uses no sequence
 * number. Returns 0 also when the sequence number would wrap (§5.3). An
 * unkeyed direction's first record uses legacy version 0x0301. */
size_t tls13_record_seal(struct tls13_record_dir *d, uint8_t ct, const uint8_t *plain, size_t len, uint8_t *out,
                         size_t cap);
/* Bytes a keyed record adds to its content: header, inner type, tag (no padding). */
static inline size_t tls13_record_overhead(void) { return TLS13_RECORD_HDR + 1 + TLS13_TAG_LEN; }

/* Opens one whole record in place (rec points at its 5-byte header, rec_len
 * covers exactly the record). On success sets *ct to the inner content type
 * (padding stripped, §5.4) and *plain, *plain_len to the content inside rec.
 * Returns 0, or a negative TLS alert: -20 bad_record_mac (tag), -22
 * record_overflow (length: the record over 2^14+256, §5.2, or its
 * TLSInnerPlaintext, padding included, over 2^14+1, §5.4), -10
 * unexpected_message (all-zero padding / no content type, or a protected
 * record of outer type other than 23). An
 * unkeyed direction returns the record as is (type from the header).
 * Also -50 decode_error (rec_len is not exactly one record), -80
 * internal_error (read sequence exhausted); -10 also for unknown inner types,
 * a protected or non-0x01 change_cipher_spec, and empty handshake/alert
 * content. A clear change_cipher_spec record passes through with *ct = 20,
 * using no sequence number, even when keyed. */
int tls13_record_open(struct tls13_record_dir *d, uint8_t *rec, size_t rec_len, uint8_t *ct, uint8_t **plain,
                      size_t *plain_len);

#endif
