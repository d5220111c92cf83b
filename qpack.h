/* qpack.h — QPACK (RFC 9204) for HTTP/3, without a dynamic table: the
 * request's field section encoded once, a complete decoder, the hot-path
 * :status scan, and the check of the peer's encoder stream.
 *
 * shb's HTTP/3 client advertises SETTINGS_QPACK_MAX_TABLE_CAPACITY 0 and
 * SETTINGS_QPACK_BLOCKED_STREAMS 0 (RFC 9204 §5), and its encoder never
 * inserts, so neither side ever has a dynamic table: every field section
 * has Required Insert Count 0 and refers to the static table only, and any
 * reference to the dynamic table is an error (§2.2.3, §4.5.1.1).
 *
 * Sans-I/O: no syscalls, no clock, no allocation except in
 * qpack_encode_request (once, at start-up). Prefix integers, string literals
 * and the Huffman code are hpack.c's (§4.1.1, §4.1.2). */
#ifndef SHB_QPACK_H
#define SHB_QPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hpack.h"
#include "request.h"

/* RFC 9204 §6: the HTTP/3 error codes of QPACK failures (connection errors
 * unless the RFC says otherwise; see qpack_error_code). */
#define QPACK_DECOMPRESSION_FAILED 0x0200 /* a field section could not be decoded */
#define QPACK_ENCODER_STREAM_ERROR 0x0201 /* an instruction on the peer's encoder stream */
#define QPACK_DECODER_STREAM_ERROR 0x0202 /* an instruction on the peer's decoder stream */

/* Errors returned here (negative). The first three keep the values of the
 * matching HPACK_ERR_* (the primitives are shared). */
#define QPACK_ERR_TRUNCATED (-1) /* the section ends inside its prefix or a field line */
#define QPACK_ERR_INTEGER (-2)   /* an integer above the limit (§4.1.1, §7.4) */
#define QPACK_ERR_HUFFMAN (-3)   /* invalid Huffman code, EOS, or bad padding (RFC 7541 §5.2) */
#define QPACK_ERR_INDEX (-4)     /* a static index beyond Appendix A (§3.1) */
#define QPACK_ERR_DYNAMIC (-5)   /* Required Insert Count not 0, or any reference to the dynamic
                                  * table (relative or post-Base): we have none (§2.2.3, §4.5.1.1) */
#define QPACK_ERR_BASE (-6)      /* Sign bit set: Base below a Required Insert Count of 0 (§4.5.1.2) */
#define QPACK_ERR_TOO_LONG (-7)  /* Huffman-decoded name and value do not fit the caller's scratch */
#define QPACK_ERR_STATUS (-8)    /* qpack_status: a malformed response (RFC 9114 §4.1.2, §4.3):
                                  * :status repeated or not 3 digits (100..999), another
                                  * pseudo-header, a pseudo-header after a regular field, or a
                                  * value with NUL, LF or CR, or SP or HTAB at either end (§4.2,
                                  * §10.3; RFC 9113 §8.2.1's rule) */
#define QPACK_ERR_NO_STATUS (-9) /* qpack_status: otherwise fine, but no :status (RFC 9114 §4.3.2) */
#define QPACK_ERR_ENCODER_STREAM (-10) /* the peer's encoder stream carried an instruction other
                                        * than Set Dynamic Table Capacity 0 (§4.3) */

/* The HTTP/3 error code for one of the errors above: QPACK_DECOMPRESSION_FAILED
 * for a field section that cannot be decoded (§2.2.3, §3.1, §4.5.1; for
 * QPACK_ERR_INTEGER and QPACK_ERR_TOO_LONG, §7.4 makes it a stream error),
 * QPACK_ENCODER_STREAM_ERROR for QPACK_ERR_ENCODER_STREAM. 0 for
 * QPACK_ERR_STATUS and QPACK_ERR_NO_STATUS, which are not QPACK failures: the
 * section decoded, the response is malformed (RFC 9114 §4.1.2: a stream error
 * of type H3_MESSAGE_ERROR, the HTTP/3 layer's business), and 0 for anything
 * else (a callback's own return value). */
unsigned qpack_error_code(int err);

/* --- static table (Appendix A) ------------------------------------------- */

#define QPACK_STATIC_COUNT 99 /* indices 0..98; QPACK counts from 0 (§3.1) */

/* Entry index (0-based): its name and value. false if index >= 99. */
bool qpack_static_entry(unsigned index, const char **name, const char **value);

/* --- request encoding (done once, at start-up) --------------------------- */

/* Encodes the HEADERS frame payload every request stream sends: the field
 * section of shb_request_fields (SHB_FIELDS_H2: the same fields HTTP/2 sends),
 * with the prefix Required Insert Count 0, Base 0 (§4.5.1: 00 00), then one
 * field line per field: an indexed field line (§4.5.2) where a static entry
 * matches name and value, a literal with static name reference (§4.5.4)
 * where one matches the name, a literal with literal name (§4.5.6)
 * otherwise; strings Huffman-coded where that is shorter. Returns the
 * malloc'd payload and *len; NULL on allocation failure. */
uint8_t *qpack_encode_request(const struct shb_request *o, size_t *len);

/* --- complete decoder (§4.5) --------------------------------------------- */

/* Called once per field line, in order (§2.2). A non-zero return aborts
 * decoding, and qpack_decode returns that value. name and value are valid
 * only during the call: they point into the section, into scratch, or into
 * the static table. */
typedef int (*qpack_field_fn)(void *ctx, const uint8_t *name, size_t nlen, const uint8_t *value, size_t vlen);

/* Decodes one complete encoded field section (a whole HEADERS frame
 * payload), calling fn (may be NULL) for every field line. scratch
 * (scratch_cap bytes, may be NULL if nothing is Huffman-coded) holds
 * Huffman-decoded strings; a field's name and value share it. Field names
 * and values are not validated (RFC 9114 §4.1.2 is the HTTP/3 layer's).
 * Returns 0, a QPACK_ERR_* (never QPACK_ERR_STATUS, _NO_STATUS or
 * _ENCODER_STREAM), or the callback's non-zero value. */
int qpack_decode(const uint8_t *p, size_t n, uint8_t *scratch, size_t scratch_cap, qpack_field_fn fn, void *ctx);

/* --- hot path: :status only ---------------------------------------------- */

/* The :status of a response's field section, read without decoding the
 * other field lines' names: literal names are stepped over by length (so
 * their coding errors go unnoticed), every value is checked (hpack.h's
 * hpack_value_check: its octets, and its Huffman coding, decoded for the
 * check only); every structural error qpack_decode would find is found.
 * Returns 0 and *status (100..999); the first QPACK_ERR_* a structural
 * problem of the section gives (QPACK_ERR_HUFFMAN: in a value, RFC 9204
 * §4.1.2); else QPACK_ERR_STATUS for a malformed response (see above;
 * checked over the whole section), else QPACK_ERR_NO_STATUS. *status is 0 on error. Agrees with qpack_decode on
 * every section qpack_decode accepts (the tests check this).
 * A trailer section is well-formed exactly when this returns
 * QPACK_ERR_NO_STATUS (RFC 9114 §4.3: no pseudo-headers in trailers). */
int qpack_status(const uint8_t *p, size_t n, uint16_t *status);

/* The same, resumable: one field section fed in pieces as they arrive (a
 * HEADERS frame's payload split across QUIC packets). Any split gives
 * exactly qpack_status's result on the whole section; qpack_status is this
 * scan fed once. The state is small and bounded: strings are stepped over
 * by length; only a literal name's first 7 octets (enough to tell :status
 * and pseudo-headers apart) and a value's first 8 (the most a :status value
 * may take, see qpack_status) are kept. No allocation. */
struct qpack_status_scan {
    uint8_t state;      /* internal: where in the section the next octet falls */
    uint8_t ilen;       /* internal: continuation octets of the integer being read */
    bool indexed;       /* internal: the line is an indexed field line (§4.5.2) */
    bool nhuff, vhuff;  /* internal: the literal name / value is Huffman-coded */
    uint8_t name[7];    /* internal: a literal name's first octets */
    uint8_t value[8];   /* internal: a value's first octets */
    int16_t sidx;       /* internal: the static entry naming the line, -1 for a literal name */
    struct qpack_status_verdict {
        bool regular;    /* a regular field has been seen */
        bool malformed;  /* a :status repeated or bad, another pseudo-header, or one after a regular field */
        uint16_t status; /* the first good :status */
    } v;                /* internal: what the lines so far say */
    int8_t nres;        /* internal: what vchk said of the line's literal name (in v's padding) */
    int err;            /* internal: 0, or the sticky QPACK_ERR_* */
    uint32_t nlen, vlen; /* internal: the literal name's and value's encoded lengths */
    uint32_t left;      /* internal: octets of the current string still to come */
    uint64_t ival;      /* internal: the integer being read */
    struct hpack_value_check vchk; /* internal: the literal name, then the value, being read, checked as
                                    * they go by */
};

void qpack_status_scan_init(struct qpack_status_scan *s);
/* Feeds the next n bytes of one field section. Returns 0 (more may come)
 * or a QPACK_ERR_* as soon as one is certain: a structural error, or bad
 * Huffman in a :status value; never QPACK_ERR_STATUS or _NO_STATUS, which
 * only the end can tell. The error is sticky. */
int qpack_status_scan_feed(struct qpack_status_scan *s, const uint8_t *p, size_t n);
/* The section ended: qpack_status's result on the whole section (0 and
 * *status, or a QPACK_ERR_* with *status 0: QPACK_ERR_TRUNCATED when it
 * ended inside its prefix or a line). */
int qpack_status_scan_end(struct qpack_status_scan *s, uint16_t *status);

/* --- the peer's encoder stream (§4.2, §4.3) ------------------------------ */

/* With our maximum table capacity 0, the only instruction the server's
 * encoder stream may carry is Set Dynamic Table Capacity 0 (§4.3.1: more
 * than our maximum is a QPACK_ENCODER_STREAM_ERROR; §3.2.3 even asks the
 * encoder to send nothing at all, but a capacity of 0 changes nothing and is
 * accepted). Inserts (§4.3.2, §4.3.3) cannot fit a table of capacity 0
 * (§3.2.2) and Duplicate (§4.3.4) refers to an entry that cannot exist
 * (§2.2.3): all QPACK_ENCODER_STREAM_ERROR.
 *
 * Our decoder stream sends nothing: a Section Acknowledgment (§4.4.1,
 * §2.2.2.1) follows only field sections with dynamic references (Required
 * Insert Count not 0), which we refuse; Insert Count Increment (§4.4.3)
 * only acknowledges inserts, of which there are none; and a decoder whose
 * maximum capacity is 0 may omit Stream Cancellation (§2.2.2.2). */
struct qpack_encoder_stream {
    int err;             /* 0, or the sticky QPACK_ERR_ENCODER_STREAM */
    uint64_t capacity0;  /* Set Dynamic Table Capacity 0 instructions seen */
};

void qpack_encoder_stream_init(struct qpack_encoder_stream *s);
/* Feeds the next n bytes of the encoder stream (after its stream type);
 * any split of the stream gives the same result. Returns 0 or
 * QPACK_ERR_ENCODER_STREAM (then for every later call too): a connection
 * error of type QPACK_ENCODER_STREAM_ERROR. */
int qpack_encoder_stream_feed(struct qpack_encoder_stream *s, const uint8_t *p, size_t n);

#endif
