/* h3.h — HTTP/3 (RFC 9114) for a client, over streams a QUIC engine
 * delivers in order: the bytes of our own streams (built once at start-up),
 * the reader of a response on a request stream, and the reader of the
 * server's unidirectional streams (control, QPACK encoder and decoder).
 *
 * Sans-I/O, no allocation except h3_request_build (once, at start-up).
 * Every reader is resumable at any byte: feed the stream's bytes in order,
 * split anywhere, and the result is the same as for one whole feed.
 *
 * Only :status is read from a response (qpack_status_scan, resumable); DATA
 * and unknown frames are skipped by length, 1xx responses stepped over,
 * trailers checked for shape and otherwise ignored. */
#ifndef SHB_H3_H
#define SHB_H3_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qpack.h"
#include "request.h"

/* Unidirectional stream types (RFC 9114 §6.2, RFC 9204 §4.2). */
#define H3_STREAM_CONTROL 0x00
#define H3_STREAM_PUSH 0x01
#define H3_STREAM_QPACK_ENCODER 0x02
#define H3_STREAM_QPACK_DECODER 0x03

/* Frame types (RFC 9114 §7.2). */
#define H3_FRAME_DATA 0x00
#define H3_FRAME_HEADERS 0x01
#define H3_FRAME_CANCEL_PUSH 0x03
#define H3_FRAME_SETTINGS 0x04
#define H3_FRAME_PUSH_PROMISE 0x05
#define H3_FRAME_GOAWAY 0x07
#define H3_FRAME_MAX_PUSH_ID 0x0d

/* Settings (RFC 9114 §7.2.4.1, RFC 9204 §5). */
#define H3_SETTING_QPACK_MAX_TABLE_CAPACITY 0x01
#define H3_SETTING_MAX_FIELD_SECTION_SIZE 0x06
#define H3_SETTING_QPACK_BLOCKED_STREAMS 0x07

/* Error codes (RFC 9114 §8.1). QPACK's are in qpack.h (0x200-0x202). */
#define H3_NO_ERROR 0x100
#define H3_GENERAL_PROTOCOL_ERROR 0x101
#define H3_INTERNAL_ERROR 0x102
#define H3_STREAM_CREATION_ERROR 0x103
#define H3_CLOSED_CRITICAL_STREAM 0x104
#define H3_FRAME_UNEXPECTED 0x105
#define H3_FRAME_ERROR 0x106
#define H3_EXCESSIVE_LOAD 0x107
#define H3_ID_ERROR 0x108
#define H3_SETTINGS_ERROR 0x109
#define H3_MISSING_SETTINGS 0x10a
#define H3_REQUEST_REJECTED 0x10b
#define H3_REQUEST_CANCELLED 0x10c
#define H3_REQUEST_INCOMPLETE 0x10d
#define H3_MESSAGE_ERROR 0x10e
#define H3_CONNECT_ERROR 0x10f
#define H3_VERSION_FALLBACK 0x110

/* "H3_FRAME_UNEXPECTED", "QPACK_DECOMPRESSION_FAILED", ... for the codes
 * above and qpack.h's; NULL for any other (a reserved/GREASE code, §8.1). */
const char *h3_error_name(uint64_t code);

/* --- our streams (built once) --------------------------------------------- */

/* The whole of our control stream: its type (0x00) and one SETTINGS frame
 * with QPACK_MAX_TABLE_CAPACITY 0 and QPACK_BLOCKED_STREAMS 0 (RFC 9204 §5;
 * both are the defaults, sent anyway so the peer sees them stated) and one
 * reserved setting 0x1f * N + 0x21 (§7.2.4.1: GREASE, so peers that choke on
 * unknown settings are found). Never followed by anything: we send no
 * GOAWAY and no MAX_PUSH_ID. Returns the bytes written, 0 if cap is short
 * (32 bytes always suffice). */
size_t h3_control_stream(uint8_t *out, size_t cap);

/* The QPACK encoder and decoder streams carry only their type byte (0x02,
 * 0x03): without a dynamic table neither has anything to say (qpack.h). */

/* Every request stream's bytes: a HEADERS frame (qpack_encode_request's
 * field section) and, when the request has a body, one DATA frame with it
 * (none for an empty body). The stream's FIN follows the last byte. */
struct h3_request {
    uint8_t *bytes; /* malloc'd */
    size_t len;
};
/* 0, or -1 on allocation failure. */
int h3_request_build(struct h3_request *r, const struct shb_request *o);
void h3_request_free(struct h3_request *r);

/* --- a response, on a request stream ------------------------------------- */

/* Results of h3_resp_feed. Negative values are errors: -code, with code an
 * HTTP/3 error code above or qpack.h's QPACK_DECOMPRESSION_FAILED. */
#define H3_RESP_MORE 0 /* nothing decided yet: feed more */
#define H3_RESP_DONE 1 /* the stream ended (fin) after a complete response */

struct h3_resp {
    /* internal: frame header being read, frame payload left, where the
     * response stands (before the final HEADERS, in the body, after the
     * trailers) and the resumable QPACK scan of the HEADERS being read */
    uint8_t state;
    bool in_payload; /* internal: the frame header is read, left payload bytes to come */
    uint8_t hdr[16];
    uint8_t hdr_have;
    int rc;          /* internal: the result given, once it is not H3_RESP_MORE */
    uint64_t type, left;
    struct qpack_status_scan scan;
    uint16_t status;    /* the final status once its HEADERS frame is complete; 0 before */
    int8_t qpack_err;   /* the QPACK_ERR_* behind a QPACK_DECOMPRESSION_FAILED result, else 0 */
    uint64_t body_len;  /* DATA payload bytes seen so far */
};

void h3_resp_init(struct h3_resp *r);

/* Feeds the next n bytes of the stream; fin: they are the last (n may be
 * 0). Returns H3_RESP_MORE, H3_RESP_DONE (at fin, after a final response),
 * or -code; after a result other than MORE nothing more may be fed. Rules
 * (RFC 9114 §4.1, §7.2):
 * - HEADERS with a 1xx :status is an interim response, skipped (§4.1: any
 *   number of them, never recorded); 101 is H3_MESSAGE_ERROR (§4.5: no
 *   upgrade in HTTP/3);
 * - the final HEADERS sets r->status; DATA before it is H3_FRAME_UNEXPECTED;
 * - a HEADERS after DATA (or after the final HEADERS) is the trailer
 *   section: it must have no pseudo-header (qpack_status_scan says
 *   QPACK_ERR_NO_STATUS), else H3_MESSAGE_ERROR; after trailers only unknown
 *   frame types may follow (anything else H3_FRAME_UNEXPECTED);
 * - a field section QPACK cannot decode is QPACK_DECOMPRESSION_FAILED (the
 *   code qpack_error_code gives), a malformed one (no :status, bad :status,
 *   pseudo-header order) H3_MESSAGE_ERROR;
 * - CANCEL_PUSH, SETTINGS, GOAWAY, MAX_PUSH_ID and the HTTP/2 frame types
 *   0x02, 0x06, 0x08, 0x09 are H3_FRAME_UNEXPECTED (§7.2.8); PUSH_PROMISE is
 *   H3_ID_ERROR (we never send MAX_PUSH_ID, §7.2.5);
 * - unknown frame types (GREASE 0x1f * N + 0x21 among them) are skipped by
 *   length (§9);
 * - a frame whose type or length varint is not minimal is still accepted
 *   (§7.1 only asks for the shortest type encoding from senders);
 * - fin inside a frame, or before a final response, is H3_FRAME_ERROR
 *   (§7.1: a frame cut by the end of its stream) resp. H3_REQUEST_INCOMPLETE;
 * - a HEADERS frame longer than 64 KiB (our advertised limit... we advertise
 *   none, but a section that long is not a response we can want) is
 *   H3_EXCESSIVE_LOAD. */
int h3_resp_feed(struct h3_resp *r, const uint8_t *p, size_t n, bool fin);

/* Whether the error h3_resp_feed gave ends the whole connection rather than
 * the stream: a frame where it may not be (RFC 9114 §4.1: "an invalid
 * sequence of frames", H3_FRAME_UNEXPECTED), a frame cut short (§7.1,
 * H3_FRAME_ERROR), a push ID we never allowed (§7.2.5, H3_ID_ERROR), a field
 * section that references a dynamic table we never allowed or an index
 * beyond the static one (RFC 9204 §2.2.3, §4.5.1.1, §3.1: connection errors
 * of type QPACK_DECOMPRESSION_FAILED). A malformed message
 * (H3_MESSAGE_ERROR), an incomplete one, a value too large to decode (RFC
 * 9204 §7.4) and a section that does not decode otherwise are the stream's
 * alone. false while the result is not an error. */
bool h3_resp_error_is_connection(const struct h3_resp *r);

/* What the server's RESET_STREAM (stop_sending false) or STOP_SENDING
 * (true) with error code `code` on a request stream means for the request:
 * - H3_RESET_IGNORE: a STOP_SENDING with H3_NO_ERROR asks only that we send
 *   no more of the request, and the response may still come (§4.1.1); so
 *   does one with a code HTTP/3 and QPACK do not define (0x0, GREASE, any
 *   other: §8, "receipt of an unknown error code MUST be treated as
 *   equivalent to H3_NO_ERROR"; h3_error_name gives NULL for them);
 * - H3_RESET_RETRY: H3_REQUEST_REJECTED, either frame: not processed,
 *   safe to send again (§4.1.1);
 * - H3_RESET_ERROR: anything else, among them every RESET_STREAM of the
 *   response that is not H3_REQUEST_REJECTED (an unknown code too: §8 says
 *   "closing a stream can have other effects regardless of the error
 *   code", and a reset response is not a response). */
enum h3_reset_action { H3_RESET_IGNORE, H3_RESET_RETRY, H3_RESET_ERROR };
enum h3_reset_action h3_request_reset_action(uint64_t code, bool stop_sending);

/* --- the server's unidirectional streams --------------------------------- */

/* What the server's streams told the connection. */
struct h3_peer {
    bool control_seen, encoder_seen, decoder_seen; /* each at most once (§6.2.1, RFC 9204 §4.2) */
    bool settings_seen;         /* the control stream's first frame */
    uint64_t goaway_id;         /* the last GOAWAY's stream id; UINT64_MAX before any */
    uint64_t max_field_section_size; /* SETTINGS_MAX_FIELD_SECTION_SIZE, UINT64_MAX when absent */
    struct qpack_encoder_stream encoder;
};
void h3_peer_init(struct h3_peer *p);

/* One server-initiated unidirectional stream. */
struct h3_uni {
    uint8_t state;  /* internal */
    bool in_payload; /* internal: control stream: inside a frame's payload */
    uint8_t hdr[16];
    uint8_t hdr_have;
    int rc;         /* internal: the sticky error */
    uint64_t stream_type; /* once read */
    uint64_t type, left;  /* control stream: the frame being read */
    uint8_t setting[16];  /* SETTINGS: the identifier/value pair being read (GOAWAY: its id) */
    uint8_t setting_have;
    uint64_t setting_id;
    uint64_t seen_mask;   /* SETTINGS: identifiers below 64 seen, for duplicates */
};
void h3_uni_init(struct h3_uni *u);

/* Result of h3_uni_feed besides 0 and -code (connection errors, §8): */
#define H3_UNI_IGNORE 1 /* an unknown stream type (§6.2: "MUST NOT consider these
                           streams to be a connection error"; a reserved type is
                           GREASE, §6.2.3): the caller may STOP_SENDING it with
                           H3_STREAM_CREATION_ERROR and must ignore its data */

/* Feeds the next n bytes of a server unidirectional stream (in order); fin
 * at its end. Returns 0, H3_UNI_IGNORE (from the type byte on; later feeds
 * of that stream need not be made), or -code:
 * - control (§6.2.1): a second one is H3_STREAM_CREATION_ERROR; its first
 *   frame must be SETTINGS (else H3_MISSING_SETTINGS), a second SETTINGS is
 *   H3_FRAME_UNEXPECTED; a SETTINGS with an HTTP/2 identifier (0x02, 0x03,
 *   0x04, 0x05) or an identifier twice is H3_SETTINGS_ERROR (§7.2.4.1,
 *   §7.2.4; duplicates are found among identifiers below 64, seen_mask),
 *   unknown identifiers are ignored; QPACK_MAX_TABLE_CAPACITY and
 *   QPACK_BLOCKED_STREAMS values are the server's (for its decoder: ours
 *   never inserts, so they change nothing); GOAWAY carries a stream id that
 *   must be a client-initiated bidirectional one (id % 4 == 0, else
 *   H3_ID_ERROR) and never larger than a previous GOAWAY's (§5.2:
 *   H3_ID_ERROR), stored in peer->goaway_id; DATA, HEADERS, PUSH_PROMISE
 *   and the HTTP/2 types are H3_FRAME_UNEXPECTED (§7.2); CANCEL_PUSH is
 *   H3_ID_ERROR (we allowed no push, §7.2.3); MAX_PUSH_ID from a server is
 *   H3_FRAME_UNEXPECTED (§7.2.7); unknown types skipped; a frame cut by the
 *   end of its payload is H3_FRAME_ERROR;
 * - fin (or any end) of the control stream is H3_CLOSED_CRITICAL_STREAM
 *   (§6.2.1), and so is the end of a QPACK stream (RFC 9204 §4.2);
 * - encoder stream (0x02): a second one is H3_STREAM_CREATION_ERROR; its
 *   bytes go to qpack_encoder_stream_feed (an error there is
 *   QPACK_ENCODER_STREAM_ERROR);
 * - decoder stream (0x03): a second one is H3_STREAM_CREATION_ERROR; its
 *   bytes are ignored (we insert nothing, so there is nothing the server's
 *   decoder can acknowledge; any instruction would refer to nothing, but
 *   RFC 9204 §4.4 lets a decoder send Stream Cancellation freely, so none is
 *   an error);
 * - push stream (0x01): H3_ID_ERROR (§4.6: a client that sent no MAX_PUSH_ID
 *   cannot receive one... a server must not open it);
 * - any other type: H3_UNI_IGNORE;
 * - a stream that ends (fin) before its type is complete: 0 (§6.2: "MUST
 *   tolerate unidirectional streams being closed ... prior to the
 *   reception of the unidirectional stream header"). */
int h3_uni_feed(struct h3_peer *peer, struct h3_uni *u, const uint8_t *p, size_t n, bool fin);

/* Whether u is one of the server's critical streams (control, QPACK encoder
 * or decoder, its type read): resetting one is H3_CLOSED_CRITICAL_STREAM
 * (RFC 9114 §6.2.1, RFC 9204 §4.2). */
bool h3_uni_critical(const struct h3_uni *u);

#endif
