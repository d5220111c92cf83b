/* quic/frame.h — QUIC v1 frames (RFC 9000 §12.4, §19): a decoder that walks a
 * decrypted packet payload one frame at a time, the frame-type rules of
 * Table 3, encoders for the frames a client sends, and the transport error
 * codes (§20.1).
 *
 * Sans-I/O and copy-free: a decoded frame's byte fields (stream data, CRYPTO
 * data, tokens, connection IDs, reason phrases) point into the payload the
 * caller passed in, and ACK ranges are read lazily from the encoded frame
 * through an iterator. Every varint goes through quic/varint.h (§16). */
#ifndef SHB_QUIC_FRAME_H
#define SHB_QUIC_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "quic/packet.h" /* QUIC_MAX_CID_LEN, enum quic_pkt_type */

/* --- transport error codes (RFC 9000 §20.1) --------------------------------
 * The codes a CONNECTION_CLOSE of type 0x1c carries. Decoders here return
 * 0 or the negated code (-QUIC_FRAME_ENCODING_ERROR), so a caller closes the
 * connection with -ret. */
#define QUIC_NO_ERROR 0x00
#define QUIC_INTERNAL_ERROR 0x01
#define QUIC_CONNECTION_REFUSED 0x02
#define QUIC_FLOW_CONTROL_ERROR 0x03
#define QUIC_STREAM_LIMIT_ERROR 0x04
#define QUIC_STREAM_STATE_ERROR 0x05
#define QUIC_FINAL_SIZE_ERROR 0x06
#define QUIC_FRAME_ENCODING_ERROR 0x07
#define QUIC_TRANSPORT_PARAMETER_ERROR 0x08
#define QUIC_CONNECTION_ID_LIMIT_ERROR 0x09
#define QUIC_PROTOCOL_VIOLATION 0x0a
#define QUIC_INVALID_TOKEN 0x0b
#define QUIC_APPLICATION_ERROR 0x0c
#define QUIC_CRYPTO_BUFFER_EXCEEDED 0x0d
#define QUIC_KEY_UPDATE_ERROR 0x0e
#define QUIC_AEAD_LIMIT_REACHED 0x0f
#define QUIC_NO_VIABLE_PATH 0x10
/* CRYPTO_ERROR 0x0100-0x01ff: 0x100 + the TLS alert (RFC 9001 §4.8). */
#define QUIC_CRYPTO_ERROR(alert) (0x100 + (uint8_t)(alert))

/* "NO_ERROR", "PROTOCOL_VIOLATION", ... for 0x00-0x10, "CRYPTO_ERROR" for
 * 0x100-0x1ff; NULL for any other code (§20.1). */
const char *quic_transport_error_name(uint64_t code);

/* --- frame types (RFC 9000 §12.4 Table 3) ---------------------------------
 * A decoded frame carries both its wire type (f->type, e.g. 0x0b) and its
 * base kind (f->kind, e.g. QUIC_FT_STREAM); the low bits of ACK, STREAM,
 * MAX_STREAMS, STREAMS_BLOCKED and CONNECTION_CLOSE types are flags (§12.4),
 * unpacked into the frame's fields. */
enum quic_frame_type {
    QUIC_FT_PADDING = 0x00,
    QUIC_FT_PING = 0x01,
    QUIC_FT_ACK = 0x02,           /* 0x03: ACK with ECN counts */
    QUIC_FT_ACK_ECN = 0x03,
    QUIC_FT_RESET_STREAM = 0x04,
    QUIC_FT_STOP_SENDING = 0x05,
    QUIC_FT_CRYPTO = 0x06,
    QUIC_FT_NEW_TOKEN = 0x07,
    QUIC_FT_STREAM = 0x08,        /* 0x08-0x0f: | OFF 0x04 | LEN 0x02 | FIN 0x01 */
    QUIC_FT_MAX_DATA = 0x10,
    QUIC_FT_MAX_STREAM_DATA = 0x11,
    QUIC_FT_MAX_STREAMS = 0x12,   /* 0x13: unidirectional */
    QUIC_FT_DATA_BLOCKED = 0x14,
    QUIC_FT_STREAM_DATA_BLOCKED = 0x15,
    QUIC_FT_STREAMS_BLOCKED = 0x16, /* 0x17: unidirectional */
    QUIC_FT_NEW_CONNECTION_ID = 0x18,
    QUIC_FT_RETIRE_CONNECTION_ID = 0x19,
    QUIC_FT_PATH_CHALLENGE = 0x1a,
    QUIC_FT_PATH_RESPONSE = 0x1b,
    QUIC_FT_CONNECTION_CLOSE = 0x1c, /* 0x1d: application close */
    QUIC_FT_CONNECTION_CLOSE_APP = 0x1d,
    QUIC_FT_HANDSHAKE_DONE = 0x1e,
};

#define QUIC_STREAM_BIT_OFF 0x04
#define QUIC_STREAM_BIT_LEN 0x02
#define QUIC_STREAM_BIT_FIN 0x01

#define QUIC_MAX_STREAMS_LIMIT (1ull << 60) /* §19.11: a stream count above 2^60 cannot be encoded */
#define QUIC_MAX_OFFSET ((1ull << 62) - 1) /* §19.6, §19.8: offset + length never exceeds 2^62-1 */

/* --- decoded frames ------------------------------------------------------- */

struct quic_frame_ack {
    uint64_t largest;      /* Largest Acknowledged */
    uint64_t ack_delay;    /* the raw field: microseconds >> the peer's ack_delay_exponent */
    uint64_t range_count;  /* ACK Range Count: ranges after the first */
    uint64_t first_range;  /* First ACK Range */
    uint64_t smallest;     /* smallest packet number the frame acknowledges (checked >= 0) */
    const uint8_t *ranges; /* the encoded Gap / ACK Range Length pairs, read by quic_ack_iter */
    const uint8_t *ranges_end;
    bool ecn;              /* type 0x03: the three counts below are present (§19.3.2) */
    uint64_t ect0, ect1, ce;
};

struct quic_frame {
    uint64_t type;         /* wire type, 0x00-0x1e */
    uint8_t kind;          /* enum quic_frame_type: the base type (STREAM for 0x08-0x0f, ...) */
    union {
        struct { size_t len; } padding; /* a run of PADDING bytes, coalesced into one frame */
        struct quic_frame_ack ack;      /* ACK and ACK_ECN */
        struct { uint64_t stream_id, error_code, final_size; } reset_stream;
        struct { uint64_t stream_id, error_code; } stop_sending;
        struct { uint64_t offset; const uint8_t *data; size_t len; } crypto;
        struct { const uint8_t *token; size_t len; } new_token;
        struct {
            uint64_t stream_id, offset; /* offset 0 when the OFF bit is clear */
            const uint8_t *data;
            size_t len;                  /* to the end of the packet when the LEN bit is clear */
            bool fin;
        } stream;
        struct { uint64_t max; } max_data;
        struct { uint64_t stream_id, max; } max_stream_data;
        struct { uint64_t max; bool uni; } max_streams;
        struct { uint64_t limit; } data_blocked;
        struct { uint64_t stream_id, limit; } stream_data_blocked;
        struct { uint64_t limit; bool uni; } streams_blocked;
        struct {
            uint64_t seq, retire_prior_to;
            uint8_t cid_len;             /* 1..20 */
            const uint8_t *cid;
            const uint8_t *reset_token;  /* 16 bytes */
        } new_cid;
        struct { uint64_t seq; } retire_cid;
        struct { const uint8_t *data; } path;  /* PATH_CHALLENGE / PATH_RESPONSE: 8 bytes */
        struct {
            uint64_t error_code;
            uint64_t frame_type;         /* type 0x1c only; 0 for 0x1d */
            const uint8_t *reason;
            size_t reason_len;
            bool app;                    /* type 0x1d: an application error code */
        } close;
    };
};

/* Decodes the frame at *p (< end) and advances *p past it. Returns 0, or a
 * negated transport error code: -QUIC_FRAME_ENCODING_ERROR for an unknown
 * type (§12.4), a truncated frame or a field out of range, and
 * -QUIC_PROTOCOL_VIOLATION for a known type in a longer encoding than its one
 * byte (§12.4, a MAY). On error f->type holds the frame type when it could be
 * read (0 otherwise), which is what CONNECTION_CLOSE's Frame Type field wants,
 * and *p is left where it was. Loop while *p < end; an empty payload is the
 * caller's PROTOCOL_VIOLATION (§12.4). */
int quic_frame_next(const uint8_t **p, const uint8_t *end, struct quic_frame *f);

/* Walks an ACK frame's ranges from the largest down, as [lo, hi] inclusive:
 * the first is [largest - first_range, largest], then one per ACK Range.
 * quic_frame_next has already checked the whole frame, so this cannot fail
 * on a frame it returned. */
struct quic_ack_iter {
    const uint8_t *p, *end;
    uint64_t left;       /* ranges still to read after the current one */
    uint64_t prev_lo;    /* smallest of the range returned last */
    uint64_t largest, first_range;
    bool started;
};
void quic_ack_iter_init(struct quic_ack_iter *it, const struct quic_frame_ack *ack);
bool quic_ack_iter_next(struct quic_ack_iter *it, uint64_t *lo, uint64_t *hi);

/* --- frame-type rules (RFC 9000 §12.4 Table 3, §12.5) ---------------------- */

/* Packet types, as a bit each, for quic_frame_allowed: 1u << the packet's
 * enum quic_pkt_type of quic/packet.h (the unit test checks they agree). */
#define QUIC_FRAME_IN_INITIAL 0x01u
#define QUIC_FRAME_IN_0RTT 0x02u
#define QUIC_FRAME_IN_HANDSHAKE 0x04u
#define QUIC_FRAME_IN_1RTT 0x10u

/* True when a frame of wire type `type` may appear in a packet of type
 * `pkt` (one QUIC_FRAME_IN_* bit). A frame in a packet type that does not
 * allow it is a PROTOCOL_VIOLATION (§12.4). Unknown types: false. */
bool quic_frame_allowed(uint64_t type, unsigned pkt);

/* True when a frame of this wire type makes its packet ack-eliciting: all
 * but PADDING, ACK and CONNECTION_CLOSE (§13.2.1; Table 3's "N"). */
bool quic_frame_ack_eliciting(uint64_t type);

/* --- encoders --------------------------------------------------------------
 * Each writes one frame at out and returns the bytes written, or 0 when the
 * frame does not fit in room (out[0..room) may then hold scratch bytes, as if
 * nothing was written). */

/* n PADDING bytes (n >= 1). */
size_t quic_frame_enc_padding(uint8_t *out, size_t room, size_t n);
size_t quic_frame_enc_ping(uint8_t *out, size_t room);

/* A packet-number range, inclusive. */
struct quic_ack_range {
    uint64_t lo, hi;
};
struct quic_ecn_counts {
    uint64_t ect0, ect1, ce;
};

/* ACK from r[0..n) in ascending order (r[n-1] holds the largest; ranges
 * disjoint and not adjacent: r[i].hi + 1 < r[i+1].lo), as quic_ackset keeps
 * them. ack_delay is the field value, already scaled by our
 * ack_delay_exponent. ecn NULL: type 0x02; else 0x03 with the counts. When
 * not every range fits in room, the oldest (lowest) ranges are left out
 * (§13.2.3); *n_sent (may be NULL) says how many of the newest went in.
 * Returns 0 when not even the largest range fits, or for n == 0 or ranges
 * that break the order above. */
size_t quic_frame_enc_ack(uint8_t *out, size_t room, const struct quic_ack_range *r, size_t n,
                          uint64_t ack_delay, const struct quic_ecn_counts *ecn, size_t *n_sent);

/* CRYPTO with as much of data[0..len) as fits; *n_data says how much went
 * in (every byte when room allows). Returns 0 when not one byte fits
 * (len > 0), or when offset + len would pass 2^62-1 (§19.6). */
size_t quic_frame_enc_crypto(uint8_t *out, size_t room, uint64_t offset, const uint8_t *data, size_t len,
                             size_t *n_data);

/* STREAM with as much of data[0..len) as fits; *n_data says how much went
 * in. The OFF bit is set only for offset > 0; FIN only when fin is asked
 * and all of data went in. fill: the frame ends the packet, so the Length
 * field is left out (LEN bit clear, §19.8) and the data runs to the end of
 * the packet: the caller must put nothing after it. Returns 0 when neither
 * a byte of data nor (for len 0) the empty frame fits, or when offset +
 * len would pass 2^62-1 (§19.8). */
size_t quic_frame_enc_stream(uint8_t *out, size_t room, uint64_t stream_id, uint64_t offset, const uint8_t *data,
                             size_t len, bool fin, bool fill, size_t *n_data);

size_t quic_frame_enc_max_data(uint8_t *out, size_t room, uint64_t max);
size_t quic_frame_enc_max_stream_data(uint8_t *out, size_t room, uint64_t stream_id, uint64_t max);
/* max > 2^60 is refused (0): the peer would have to reject it (§19.11). */
size_t quic_frame_enc_max_streams(uint8_t *out, size_t room, bool uni, uint64_t max);
size_t quic_frame_enc_reset_stream(uint8_t *out, size_t room, uint64_t stream_id, uint64_t error_code,
                                   uint64_t final_size);
size_t quic_frame_enc_stop_sending(uint8_t *out, size_t room, uint64_t stream_id, uint64_t error_code);
size_t quic_frame_enc_retire_cid(uint8_t *out, size_t room, uint64_t seq);
size_t quic_frame_enc_path_response(uint8_t *out, size_t room, const uint8_t data[8]);

/* CONNECTION_CLOSE: app false gives type 0x1c (a transport error_code and
 * the frame_type that caused it, 0 when none); app true gives type 0x1d
 * (an application error code; frame_type unused). The reason phrase is
 * cut short to fit room (it is diagnostic only, and the close must go
 * out); returns 0 only when the frame does not fit with an empty reason. */
size_t quic_frame_enc_close(uint8_t *out, size_t room, bool app, uint64_t error_code, uint64_t frame_type,
                            const char *reason, size_t reason_len);

#endif
