/* hpack.h — HPACK (RFC 7541) for HTTP/2: the request block encoded once, a
 * complete decoder, and the hot-path :status scanner. The Huffman code, the
 * prefix integers and string literals live here and are shared with qpack.c
 * (RFC 9204 reuses them, §4.1.1 and §4.1.2), and so is the request's field
 * list, which HTTP/2 and HTTP/3 send alike.
 *
 * Sans-I/O and allocation-free: every context is a caller-owned struct. */
#ifndef SHB_HPACK_H
#define SHB_HPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "request.h"

/* Errors (negative). Any of them is a COMPRESSION_ERROR in HTTP/2 (RFC 9113 §4.3). */
#define HPACK_ERR_TRUNCATED (-1)  /* block ended inside a representation */
#define HPACK_ERR_INTEGER (-2)    /* integer overflow (> 2^32-1) */
#define HPACK_ERR_HUFFMAN (-3)    /* invalid code, EOS, padding > 7 bits or not all ones (§5.2) */
#define HPACK_ERR_INDEX (-4)      /* index 0 or beyond the tables */
#define HPACK_ERR_TABLE_SIZE (-5) /* size update above the limit, or not at the block start (§4.2) */
#define HPACK_ERR_TOO_LONG (-6)   /* a decoded field does not fit the caller's buffer */
#define HPACK_ERR_STATUS (-7)     /* :status malformed (not 3 digits) or repeated (RFC 9113 §8.3); the
                                   * scanner reports it as s->malformed, not as a return value */

/* --- primitives (RFC 7541 §5.1, §5.2); shared with QPACK ------------------ */

/* Encodes v with an N-bit prefix; first holds the bits above the prefix.
 * Returns bytes written (at most 6 for values up to 2^32-1, 11 in all), or 0 if cap is too small. */
size_t hpack_int_encode(uint8_t *out, size_t cap, unsigned prefix_bits, uint8_t first, uint64_t v);
/* Decodes an N-bit-prefix integer at *p (< end). Advances *p. Returns 0 or a HPACK_ERR_*. */
int hpack_int_decode(const uint8_t **p, const uint8_t *end, unsigned prefix_bits, uint64_t *v);
/* The same integer decoded in pieces, for parsers that resume at any byte:
 * b is the next octet after an all-ones prefix, *v the value so far (the
 * prefix's bits to start with), *count the continuation octets before b (0
 * to start). Returns 1 when the integer is complete, 0 when another octet
 * follows, or HPACK_ERR_INTEGER (the limits hpack_int_decode applies). */
int hpack_int_step(uint64_t *v, uint8_t *count, uint8_t b);
/* Starts such an integer at its first octet b (§5.1): the prefix's bits
 * into *v, *count to 0. Returns true when the prefix holds the whole value,
 * false when continuation octets (hpack_int_step) follow. */
static inline bool hpack_int_first(uint64_t *v, uint8_t *count, uint8_t b, unsigned prefix_bits)
{
    uint8_t mask = (uint8_t)((1u << prefix_bits) - 1);
    *v = b & mask;
    *count = 0;
    return *v < mask;
}
/* hpack_int_decode with other limits: step takes each continuation octet
 * as hpack_int_step does, and returns its own error codes (QPACK's 62-bit
 * integers, RFC 9204 §4.1.1). HPACK_ERR_TRUNCATED when the input ends. */
int hpack_int_decode_by(const uint8_t **p, const uint8_t *end, unsigned prefix_bits,
                        int (*step)(uint64_t *v, uint8_t *count, uint8_t b), uint64_t *v);

/* Huffman (RFC 7541 Appendix B). Decode returns the decoded length, or a
 * HPACK_ERR_* (invalid code, EOS, bad padding, output overflow). */
long hpack_huffman_decode(const uint8_t *in, size_t n, uint8_t *out, size_t cap);
size_t hpack_huffman_encoded_len(const uint8_t *in, size_t n);
size_t hpack_huffman_encode(const uint8_t *in, size_t n, uint8_t *out); /* out >= encoded_len */

/* Field values (RFC 9113 §8.2.1; RFC 9114 §4.2, §10.3 for HTTP/3): no NUL,
 * LF or CR anywhere, no SP or HTAB first or last; anything else is fine,
 * obs-text (0x80-0xff) included. A value is checked as its octets go by,
 * in any number of pieces, raw or Huffman-coded (then the code's tree is
 * walked as the octets come, symbols going only into the check: one node
 * is all that is kept between pieces, and the coding is checked as
 * hpack_huffman_decode does, RFC 7541 §5.2).
 * Shared with qpack.c; hpack.c's scanner uses the same code inline. */
struct hpack_value_check {
    uint8_t node;  /* internal: Huffman-coded: where in the code's tree the octets so far end */
    uint8_t v;     /* internal: what the octets so far say */
};
void hpack_value_check_start(struct hpack_value_check *c, bool huff);
void hpack_value_check_feed(struct hpack_value_check *c, const uint8_t *p, size_t n);
/* The value ended: 0 valid, 1 an octet §8.2.1 forbids (where it is),
 * HPACK_ERR_HUFFMAN bad Huffman coding (a decoding error, reported here
 * rather than mid-value so that any split gives the same result). */
int hpack_value_check_end(const struct hpack_value_check *c);
/* The same for a whole value. */
int hpack_value_check(const uint8_t *p, size_t n, bool huff);
/* Field names, checked the same way (start, then hpack_value_check_feed and
 * _end, or whole): 1 when an octet RFC 9113 §8.2.1 forbids in a name is in
 * it (0x00-0x20, 'A'-'Z', 0x7f-0xff, a ':' other than a leading one, which
 * makes a pseudo-header: §8.3 is the caller's). For QPACK's literal names
 * (RFC 9114 §4.2: the same rule); hpack.c's scanner has its own. */
void hpack_name_check_start(struct hpack_value_check *c, bool huff);
int hpack_name_check(const uint8_t *p, size_t n, bool huff);

/* Static table (Appendix A), 1-based index 1..61. */
#define HPACK_STATIC_COUNT 61
bool hpack_static_entry(unsigned index, const char **name, const char **value);

/* --- request encoding (done once, at start-up) ---------------------------- */

/* The request's fields are shb_request_fields(..., SHB_FIELDS_H2, ...)
 * (request.h). The writer and the two put functions below are shared with
 * qpack.c, whose encoder sends the same fields with QPACK's representations
 * (RFC 9204 §4.1 reuses the prefix integers and string literals). */

/* The request encoders write twice through one code path: once with buf NULL
 * to count (len), then into a buffer of that size. */
struct hpack_writer {
    uint8_t *buf;
    size_t len;
};

/* A prefix integer (§5.1); first holds the bits above the prefix. */
void hpack_put_int(struct hpack_writer *w, unsigned prefix_bits, uint8_t first, uint64_t v);
/* A string literal (§5.2), Huffman-coded only when that is strictly shorter.
 * prefix_bits is HPACK's 8, or QPACK's N-bit prefix string literal (RFC 9204
 * §4.1.2, N = 2..8): the H flag is bit N-1 and the length an (N-1)-bit
 * prefix integer; first holds the bits above the N-bit prefix. */
void hpack_put_str(struct hpack_writer *w, unsigned prefix_bits, uint8_t first, const char *s);

/* Encodes the request header block every stream sends: the fields of
 * shb_request_fields (SHB_FIELDS_H2), in that order. Static-table indices where an entry
 * matches exactly (or by name), literals without indexing otherwise
 * (§6.2.2), so no dynamic table is ever involved.
 * Returns the malloc'd block and *len; NULL on allocation failure. */
uint8_t *hpack_encode_request(const struct shb_request *o, size_t *len);

/* The same request as two blocks for a connection whose peer keeps the
 * dynamic table it is entitled to (4096 bytes until its SETTINGS say
 * otherwise, RFC 9113 §6.5.2): `first`, for the connection's first stream,
 * sends every field the static table lacks as a literal with incremental
 * indexing (§6.2.1), and `next`, for every later stream, refers to those
 * entries (§6.1) — one byte a field, nothing for the server to decode or
 * Huffman-decode again, as browsers and h2load do: the default request's
 * HEADERS payload goes from 30 bytes to 7, and nginx's CPU per request
 * down by about 3 % (6.6 to 6.4 us, h2c 100 x 100). table_bytes is what
 * the entries take (§4.1: name + value + 32 each). One malloc'd buffer
 * holds both blocks (free b->first). Returns 0; 1 when the entries would
 * not fit the 4096 bytes (nothing allocated: send the plain block); -1 on
 * allocation failure. */
struct hpack_request_blocks {
    uint8_t *first, *next;
    size_t first_len, next_len;
    uint32_t table_bytes;
};
int hpack_encode_request_indexed(const struct shb_request *o, struct hpack_request_blocks *b);

/* --- complete decoder (RFC 7541 §3, §4, §6) -------------------------------- */

#define HPACK_TABLE_MAX 4096 /* the most we ever allow: the protocol's default */
#define HPACK_VMEMO 256      /* see vmemo below */
#define HPACK_BMEMO 512      /* see bmemo below */

/* What the status scanner found in a block (see struct hpack_status_scan). */
struct hpack_block_verdict {
    uint16_t status;
    bool malformed, names_bad, status_late, values_bad, clen_bad;
    int64_t content_length;
};

struct hpack_decoder {
    uint32_t limit;       /* the most a size update may set (<= HPACK_TABLE_MAX): see h2.c */
    uint32_t capacity;    /* current maximum size (from size updates) */
    uint32_t size;        /* sum of entry sizes (name + value + 32 each, §4.1) */
    uint32_t count;       /* entries */
    uint32_t head;        /* internal: ring slot of the next insert */
    uint32_t tail;        /* internal: arena offset just past the newest entry */
    uint16_t off[HPACK_TABLE_MAX / 32]; /* internal: entry offsets into arena */
    uint16_t nlen[HPACK_TABLE_MAX / 32];
    uint16_t vlen[HPACK_TABLE_MAX / 32];
    uint8_t arena[HPACK_TABLE_MAX];     /* entry bytes, oldest first, compacted on insert: never wraps */
    bool vbad[HPACK_TABLE_MAX / 32];    /* internal: the entry's value breaks RFC 9113 §8.2.1 */
    /* internal, the status scanner's: Huffman-coded values of the
     * connection's last blocks found valid (RFC 9113 §8.2.1, RFC 7541
     * §5.2), each as its length octet then its octets, in block order. A
     * value equal to the one at the same place is not decoded again: most
     * servers send the same values block after block, and decoding them all
     * would cost more than the rest of the response. */
    uint16_t vmemo_len;
    uint8_t vmemo[HPACK_VMEMO];
    /* internal, the status scanner's: the connection's last block that
     * came in one piece and found and left the table empty, what the
     * scanner said of it, and the capacity before and after it. The same
     * bytes on the same empty table say the same (the scan is a function of
     * the two), so a server that sends the same block again and again (all
     * but its date, which changes once a second) costs a compare. */
    uint16_t bmemo_len;          /* 0: none */
    uint32_t bmemo_cap_in, bmemo_cap_out;
    struct hpack_block_verdict bmemo_v;
    uint8_t bmemo[HPACK_BMEMO];
};

void hpack_decoder_init(struct hpack_decoder *d, uint32_t limit);

/* Called once per decoded field, in order. Non-zero return aborts decoding
 * (hpack_decode returns that value). */
typedef int (*hpack_field_fn)(void *ctx, const uint8_t *name, size_t nlen, const uint8_t *value, size_t vlen);

/* Decodes one complete header block, updating the dynamic table. scratch
 * (scratch_cap bytes) holds Huffman-decoded names and values. Returns 0 or a
 * HPACK_ERR_* (or the callback's non-zero value). */
int hpack_decode(struct hpack_decoder *d, const uint8_t *p, size_t n, uint8_t *scratch, size_t scratch_cap,
                 hpack_field_fn fn, void *ctx);

/* --- hot path: :status only, resumable at any byte ---------------------- */

/* The scanner reads :status from a response's header block and steps over
 * every other field by count, without copying or Huffman-decoding it. Header
 * blocks split across HEADERS and CONTINUATION frames are fed fragment by
 * fragment; any split gives the same result.
 *
 * Dynamic table. shb advertises SETTINGS_HEADER_TABLE_SIZE 0 unless told
 * otherwise (--header-table-size). Most servers honour 0: they insert
 * nothing, usually after a size update to 0 at the start of their first
 * block (nginx 1.22 does). Some ignore it and keep the protocol's default
 * of 4096 bytes (h2o 2.2); with a larger setting, servers whose encoder
 * indexes (Caddy's) insert fields and refer to them in later blocks. So
 * the scanner keeps the real table of the connection: `table`, a decoder
 * set up once per connection with hpack_decoder_init(table,
 * HPACK_TABLE_MAX), through which every block of
 * the connection goes, in order (RFC 9113 §4.3). Only a literal with
 * incremental indexing (§6.2.1) is collected, into col (Huffman-decoded), and
 * only while the table's capacity can hold an entry: with capacity 0 nothing
 * is ever collected, and the scan is as cheap as without a table. */
#define HPACK_SCAN_COLLECT (HPACK_TABLE_MAX - 32) /* the largest entry's name + value (§4.1) */

struct hpack_status_scan {
    struct hpack_decoder *table; /* the connection's dynamic table */
    uint8_t state;       /* internal */
    uint8_t flags;       /* internal */
    uint8_t ilen;        /* internal: partial integer */
    uint8_t slen;        /* internal */
    uint8_t hbits;       /* internal: Huffman bits pending while collecting */
    bool malformed;      /* :status malformed or repeated (RFC 9113 §8.3): a stream error, see below */
    bool names_bad;      /* a pseudo-header other than :status, or a name with characters RFC 9113 §8.2.1
                          * forbids (see "Field names" below) */
    bool status_late;    /* :status after a regular field (RFC 9113 §8.3) */
    bool values_bad;     /* a value with an octet RFC 9113 §8.2.1 forbids (see "Field values" below) */
    bool clen_bad;       /* a content-length that is not 1*DIGIT (up to 10^17), or two that differ
                          * (RFC 9110 §8.6) */
    bool in_clen;        /* internal: the current value is content-length's */
    bool cl_name;        /* internal: the literal name read so far can still be "content-length" */
    bool cl_bad_cur;     /* internal: a non-digit in the current content-length value */
    uint8_t cl_digits;   /* internal */
    int64_t content_length; /* the block's content-length, -1 if none (or clen_bad) */
    uint64_t cl_val;     /* internal */
    bool indexing;       /* internal: table->capacity >= 32: literals with incremental indexing insert */
    bool regular;        /* internal: a regular (not pseudo-header) field has been seen (RFC 9113 §8.3) */
    uint8_t vbits;       /* internal: Huffman bits pending while checking a literal name */
    uint32_t npos;       /* internal: name octets checked so far */
    uint64_t vacc;       /* internal: Huffman accumulator while checking a literal name */
    uint16_t status;     /* the :status found, 0 if none yet */
    uint8_t sbuf[8];     /* internal: :status value bytes (3 digits, maybe Huffman) */
    uint64_t ival;       /* internal */
    uint64_t skip;       /* internal: string bytes left to skip */
    uint64_t hacc;       /* internal: Huffman accumulator while collecting */
    uint32_t name_index; /* internal: the collected literal's name index (0: literal name, in col) */
    uint32_t nlen;       /* internal: literal name bytes at the start of col */
    uint32_t clen;       /* internal: bytes in col */
    uint32_t cmax;       /* internal: what col may take before the entry is too big for the table */
    struct hpack_value_check vchk; /* internal: the current value's check */
    uint32_t vmemo_pos;  /* internal: where this block's next Huffman value falls in table->vmemo */
    bool fed;            /* internal: a non-empty fragment of this block has been fed */
    uint8_t col[HPACK_SCAN_COLLECT]; /* internal: the literal being inserted (never cleared) */
};

/* Field names (RFC 9113 §8.2.1, §8.3): every name is checked, whichever way
 * it comes (static or dynamic index, literal, Huffman-coded literal: those
 * are decoded for the check, a few bytes each, and bad Huffman in them is a
 * decoding error). s->names_bad: one holds a character in 0x00-0x20,
 * 'A'-'Z', 0x7f-0xff or a colon past the first octet, or is a pseudo-header
 * other than :status (a request's among them, or one undefined);
 * s->status_late: :status came after a regular field. Either makes an
 * HTTP/2 response malformed (§8.1.1); the scanner only reports them, like
 * s->malformed.
 *
 * Field values (RFC 9113 §8.2.1, see hpack_value_check): every value is
 * checked too, literal or from the dynamic table (the static table's are
 * all fine), Huffman-coded ones walked for it symbol by symbol into
 * nothing but the check, so bad Huffman in any value is a decoding error (RFC 7541
 * §5.2) even where shb has no use for the value. s->values_bad: one holds
 * a NUL, LF or CR, or starts or ends with SP or HTAB; the response is
 * malformed (§8.1.1), which the scanner only reports. content-length (static name index 28, a dynamic entry, or a
 * literal name, raw or Huffman) is read into s->content_length, for
 * RFC 9113 §8.1.1's check against the DATA; s->clen_bad if unreadable. */

/* Starts a header block (call before every block; cheap: col is not
 * touched). table: the connection's decoder, kept across its blocks. */
void hpack_status_scan_init(struct hpack_status_scan *s, struct hpack_decoder *table);
/* Feeds one fragment of a header block. last: this fragment ends the block
 * (END_HEADERS). Returns 0, or a HPACK_ERR_* (a reference beyond the tables,
 * a size update above table->limit or after a field, a block ending
 * mid-field, an integer overflow, bad Huffman in a name or a value): a
 * COMPRESSION_ERROR, after which the table is out
 * of step and the connection must go; the error is sticky. After the last
 * fragment, s->status holds :status (0: the block had none — a malformed
 * response, RFC 9113 §8.3.2). A malformed or repeated :status is not a
 * decoding error: the scanner sets s->malformed and goes on decoding, so
 * that the table stays in step; the caller resets the stream (§8.1.1). */
int hpack_status_scan_feed(struct hpack_status_scan *s, const uint8_t *p, size_t n, bool last);

#endif
