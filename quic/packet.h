/* quic/packet.h — QUIC version 1 packets for a client: packet numbers,
 * headers, header and packet protection, Retry integrity, Version
 * Negotiation (RFC 9000 §12.2, §17; RFC 9001 §5).
 *
 * Sans-I/O: no syscalls, no clock, no allocation. Everything works in the
 * caller's buffer, in place.
 *
 * Receiving, per UDP datagram:
 *
 *   off = 0;
 *   while (off < dgram_len && quic_hdr_parse(&h, dgram + off, dgram_len - off, our_cid_len) == 0) {
 *       pkt = dgram + off; off += h.pkt_len;
 *       (pick keys by h.type; RFC 9000 §12.2: skip a packet whose DCID differs
 *        from the first packet's)
 *       rc = quic_packet_open(&keys, pkt, h.pkt_len, h.pn_offset, largest_pn, &o);
 *       QUIC_PKT_DECRYPT: drop this packet, go on with the next one;
 *       QUIC_PKT_RESERVED_BITS: connection error PROTOCOL_VIOLATION;
 *       0: frames are o.payload[0 .. o.payload_len), packet number o.pn.
 *   }
 *
 * A parse error ends the walk: without a trustworthy Length the rest of the
 * datagram cannot be delimited, so it is dropped with the packet.
 *
 * Sending: quic_build_long / quic_build_short write the header with room for
 * the packet number, the caller writes the frames after it, then
 * quic_set_length (long headers) and quic_packet_seal. */
#ifndef SHB_QUIC_PACKET_H
#define SHB_QUIC_PACKET_H

#include <bearssl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tls13/aead.h"

#define QUIC_V1 0x00000001u
#define QUIC_MAX_CID_LEN 20     /* RFC 9000 §17.2: version 1 connection IDs */
#define QUIC_TAG_LEN 16         /* every v1 AEAD's expansion (RFC 9001 §5.3) */
#define QUIC_HP_SAMPLE_LEN 16   /* RFC 9001 §5.4.2 */
#define QUIC_PN_MAX ((UINT64_C(1) << 62) - 1)
/* "No packet yet" for quic_pn_encode_len's largest_acked and the decoders'
 * largest_pn (RFC 9000 Appendix A.2 "None"). */
#define QUIC_PN_NONE UINT64_MAX

/* Results. Everything but QUIC_PKT_RESERVED_BITS means "drop the packet
 * silently"; none of them is a connection error (RFC 9001 §5.3, §5.5). */
enum {
    QUIC_PKT_OK = 0,
    QUIC_PKT_TRUNCATED = -1,     /* shorter than its header, Length or HP sample says */
    QUIC_PKT_INVALID = -2,       /* fixed bit 0, CID over 20 bytes, empty Retry token, bad VN list, ... */
    QUIC_PKT_VERSION = -3,       /* long header of a version other than 1 (RFC 9000 §5.2.1: discard) */
    QUIC_PKT_DECRYPT = -4,       /* AEAD tag did not verify (RFC 9001 §5.3, §9.5: discard) */
    QUIC_PKT_RESERVED_BITS = -5, /* authenticated, but reserved bits set: PROTOCOL_VIOLATION
                                    (RFC 9000 §17.2, §17.3.1) */
};

enum quic_pkt_type {
    QUIC_PT_INITIAL = 0, /* long header types as on the wire (RFC 9000 Table 5) */
    QUIC_PT_0RTT = 1,
    QUIC_PT_HANDSHAKE = 2,
    QUIC_PT_RETRY = 3,
    QUIC_PT_1RTT = 4,    /* short header */
    QUIC_PT_VN = 5,      /* long header with version 0 */
};

/* ---- packet numbers (RFC 9000 §17.1, Appendix A.2, A.3) ---- */

/* Bytes (1..4) to send packet number pn with, given the largest packet
 * number the peer acknowledged in that space (QUIC_PN_NONE if none): the
 * smallest encoding whose range is more than twice the number of packets
 * from largest_acked + 1 to pn. 0 when even 4 bytes cannot (2^31 or more
 * packets unacknowledged: stop sending until acknowledgments arrive). */
size_t quic_pn_encode_len(uint64_t pn, uint64_t largest_acked);
/* The full packet number closest to largest_pn + 1 whose low pn_len * 8 bits
 * are truncated (RFC 9000 Appendix A.3). largest_pn is the largest packet
 * number successfully processed in the space, QUIC_PN_NONE before any. */
uint64_t quic_pn_decode(uint64_t largest_pn, uint64_t truncated, size_t pn_len);

/* ---- headers (RFC 9000 §17.2, §17.3) ---- */

struct quic_hdr {
    enum quic_pkt_type type;
    uint32_t version;      /* as on the wire; QUIC_V1 for short headers */
    const uint8_t *dcid, *scid; /* point into the packet */
    size_t dcid_len, scid_len;  /* up to 20; up to 255 in a VN packet; scid_len 0 for short headers */
    const uint8_t *token;  /* Initial: Token; Retry: Retry Token (never empty) */
    size_t token_len;
    uint64_t length;       /* Initial, 0-RTT, Handshake: the Length field */
    size_t pn_offset;      /* Initial, 0-RTT, Handshake, 1-RTT: where the packet number starts */
    size_t pkt_len;        /* bytes of the datagram this packet takes: offset of the next coalesced one */
    const uint8_t *versions; /* VN: the Supported Version list, 4 bytes each */
    size_t n_versions;
};

/* Parses the header at pkt (len bytes left in the datagram). Short headers
 * carry no DCID length, so short_dcid_len is the length of the connection ID
 * the client chose for itself. Checks everything the header alone decides:
 * fixed bit (§17.2, §17.3.1; ignored in VN, §17.2.1), version (§5.2.1: only
 * 1, and 0 for VN), CID lengths (§17.2), Length within the datagram (§12.2),
 * non-empty Retry token and room for its tag (§17.2.5), whole 32-bit VN
 * versions. Does not check (the connection does): that the DCID is ours,
 * that a server Initial carries no token (§17.2.2), Retry and VN rules of
 * §17.2.5.2 / §6.2 beyond their format. Returns QUIC_PKT_OK, _TRUNCATED,
 * _INVALID or _VERSION (h->version is then set). */
int quic_hdr_parse(struct quic_hdr *h, const uint8_t *pkt, size_t len, size_t short_dcid_len);

/* Builds an Initial (token may be NULL when token_len is 0), 0-RTT or
 * Handshake header of version 1: first byte with reserved bits 0 and the
 * packet number length, CIDs, token, a 2-byte Length field to be filled by
 * quic_set_length, and pn_len (1..4) zero bytes for the packet number, which
 * quic_packet_seal writes. Returns the header length (the payload goes right
 * after it), or 0 if an argument is out of range or cap is too small. */
size_t quic_build_long(uint8_t *out, size_t cap, enum quic_pkt_type type, const uint8_t *dcid, size_t dcid_len,
                       const uint8_t *scid, size_t scid_len, const uint8_t *token, size_t token_len,
                       size_t pn_len);
/* Short (1-RTT) header: spin bit 0 (§17.4: we do not take part), reserved
 * bits 0, key_phase as given, room for pn_len bytes of packet number. */
size_t quic_build_short(uint8_t *out, size_t cap, const uint8_t *dcid, size_t dcid_len, int key_phase,
                        size_t pn_len);
/* Once the payload size is known: writes the Length field that
 * quic_build_long left (packet number + payload + tag, §17.2) into the
 * header of hdr_len bytes at pkt. -1 if it exceeds 16383 (2 bytes). */
int quic_set_length(uint8_t *pkt, size_t hdr_len, size_t payload_len);

/* ---- keys (RFC 9001 §5.1, §5.2, §6.1) ---- */

/* Header protection key for one direction (RFC 9001 §5.4.3, §5.4.4). */
struct quic_hp {
    uint16_t suite;
    union tls13_aes_ctr aes; /* addressed in place: copies stay valid */
    uint8_t chacha_key[32];
    br_chacha20_run chacha;
};

/* One direction's packet protection at one encryption level. A plain struct
 * copy is a valid independent copy (key update keeps the old set). */
struct quic_keys {
    struct tls13_aead aead;
    struct quic_hp hp;
};

/* key is 16 (AES-128) or 32 (AES-256, ChaCha20) bytes. -1 for another suite. */
int quic_hp_init(struct quic_hp *hp, uint16_t suite, const uint8_t *key);
/* The 5-byte mask for a 16-byte ciphertext sample (RFC 9001 §5.4.1). */
void quic_hp_mask(const struct quic_hp *hp, const uint8_t sample[QUIC_HP_SAMPLE_LEN], uint8_t mask[5]);

/* Keys from a TLS traffic secret of the suite's hash length: "quic key",
 * "quic iv", "quic hp" (RFC 9001 §5.1). -1 for a suite we do not know. */
int quic_keys_init(struct quic_keys *k, uint16_t suite, const uint8_t *secret);
/* Initial keys of both directions from the DCID of the client's first
 * Initial (or the Retry's SCID), RFC 9001 §5.2. dcid_len <= 20. */
int quic_keys_initial(struct quic_keys *client, struct quic_keys *server, const uint8_t *dcid, size_t dcid_len);
/* 1-RTT key update (RFC 9001 §6.1): secret (the suite's hash length) is
 * replaced in place by HKDF-Expand-Label(secret, "quic ku", "", Hash.length)
 * and k's AEAD key and IV are derived from the new secret; the header
 * protection key stays as it is. Copy k first to keep the old keys. */
int quic_keys_update(struct quic_keys *k, uint16_t suite, uint8_t *secret);
void quic_keys_wipe(struct quic_keys *k);

/* ---- packet protection (RFC 9001 §5.3, §5.4) ---- */

/* Protects in place the packet at pkt: its unprotected header of hdr_len
 * bytes (from a builder: the packet number length is in pkt[0], its bytes
 * are the last of the header), then payload_len bytes of frames, then room
 * for the 16-byte tag. Writes pn's low bytes into the header, encrypts the
 * payload (nonce from pn, AAD the header), appends the tag, applies header
 * protection. The Length field, if any, must already be set. Returns the
 * packet's total length hdr_len + payload_len + 16, or 0 when the packet
 * number and payload are shorter than the 4 bytes the header-protection
 * sample needs (§5.4.2: pad with PADDING frames) or pn > 2^62-1. */
size_t quic_packet_seal(const struct quic_keys *k, uint8_t *pkt, size_t hdr_len, size_t payload_len, uint64_t pn);

/* What opening a packet found. */
struct quic_opened {
    uint64_t pn;          /* full packet number */
    size_t pn_len;        /* 1..4 */
    size_t hdr_len;       /* pn_offset + pn_len: AAD length, payload offset */
    uint8_t *payload;     /* plaintext frames, in place */
    size_t payload_len;
    int key_phase;        /* short header: the Key Phase bit; 0 otherwise */
};

/* Opens in place the packet at pkt (pkt_len and pn_offset from
 * quic_hdr_parse), whose packet number space has largest_pn as the largest
 * successfully processed number (QUIC_PN_NONE if none): removes header
 * protection, decodes the packet number, decrypts and checks the reserved
 * bits, all in one go (RFC 9001 §9.5). Returns QUIC_PKT_OK, _TRUNCATED (too
 * short for the sample, §5.4.2), _DECRYPT or _RESERVED_BITS. After a failure
 * the packet's bytes are garbage. */
int quic_packet_open(const struct quic_keys *k, uint8_t *pkt, size_t pkt_len, size_t pn_offset, uint64_t largest_pn,
                     struct quic_opened *o);
/* The same in two steps, for 1-RTT key updates: the header protection key
 * never changes (§5.4), so quic_hp_remove reveals the Key Phase bit and the
 * packet number, then the caller picks the AEAD (current or next keys,
 * RFC 9001 §6.3, §6.5) for quic_payload_open. quic_hp_remove returns
 * QUIC_PKT_OK or _TRUNCATED; quic_payload_open _OK, _DECRYPT or
 * _RESERVED_BITS. */
int quic_hp_remove(const struct quic_hp *hp, uint8_t *pkt, size_t pkt_len, size_t pn_offset, uint64_t largest_pn,
                   struct quic_opened *o);
int quic_payload_open(const struct tls13_aead *a, uint8_t *pkt, struct quic_opened *o);

/* ---- Retry and Version Negotiation ---- */

/* Checks a Retry packet's integrity tag (RFC 9001 §5.8) given the DCID of
 * the client's Initial it answers; h from quic_hdr_parse of pkt. 0 when it
 * verifies, -1 otherwise (discard it, RFC 9000 §17.2.5.2). */
int quic_retry_verify(const struct quic_hdr *h, const uint8_t *pkt, const uint8_t *odcid, size_t odcid_len);

/* The i-th version (i < h->n_versions) a Version Negotiation packet lists. */
uint32_t quic_vn_version(const struct quic_hdr *h, size_t i);
/* Whether it lists version v. A client of version 1 only (RFC 9000 §6.2)
 * discards a VN that lists QUIC_V1 and abandons the connection attempt on
 * one that does not (unless it already processed another packet). */
bool quic_vn_offers(const struct quic_hdr *h, uint32_t v);

#endif
