/* hdr.h — struct hist in HdrHistogram's V2 encoding, base64'd: what the JSON
 * report's "histogram" fields, --hdr-log and `shb merge` carry.
 *
 * stats.h's layout is HdrHistogram's own for lowestDiscernibleValue 1 and 3
 * significant digits (2048 sub-buckets, hist_index == HdrHistogram's counts
 * index), over 45 buckets: highestTrackableValue 2^55-1 ns. So a histogram
 * crosses over count for count, with nothing rounded.
 *
 * The format, as HdrHistogram (Java, C, Go, Rust...) reads and writes it:
 * the V2 encoding is a 40-byte big-endian header (cookie 0x1c849313, payload
 * length, normalizing index offset 0, significant digits, lowest
 * discernible value, highest trackable value, integer-to-double ratio 1.0)
 * and the counts as ZigZag LEB128 varints, a negative one standing for that
 * many empty buckets. The compressed form (cookie 0x1c849314, then the
 * zlib stream's length) wraps it in zlib (RFC 1950) over deflate (RFC 1951).
 * We write one dynamic Huffman block over LZ77 matches (our own
 * compressor: no zlib), or stored blocks where those come out shorter,
 * and read every block type, so histograms that HdrHistogram itself
 * compressed decode too. Text form: RFC 4648 base64 with padding. */
#ifndef SHB_HDR_H
#define SHB_HDR_H

#include <stddef.h>
#include <stdint.h>

#include "stats/hist.h"

#define HDR_SIGNIFICANT_DIGITS 3
#define HDR_HIGHEST_TRACKABLE ((1ull << 55) - 1)

/* The encoder's work space, owned by the caller and reused from one
 * histogram to the next (a report's timeline encodes one per entry): it
 * grows to what the largest histogram so far needs, which its highest
 * non-empty bucket bounds, and nothing is allocated while that suffices.
 * Start it zeroed ({0}); hdr_buf_free when done. */
struct hdr_buf {
    uint8_t *p;
    size_t cap;
};
void hdr_buf_free(struct hdr_buf *b);

/* h's counts as a compressed V2 histogram in base64, NUL-terminated, in
 * b (valid until b's next use); *len (may be NULL) gets strlen. NULL when
 * out of memory. */
const char *hdr_encode_base64(struct hdr_buf *b, const struct hist *h, size_t *len);

/* The same bytes before base64: compressed V2, in b; NULL on OOM. */
const uint8_t *hdr_encode(struct hdr_buf *b, const struct hist *h, size_t *len);

/* Decodes a base64 histogram (compressed or plain V2) of shb's layout
 * (lowest discernible value 1, 3 significant digits; any highest trackable
 * value up to 2^63-1: counts past our last bucket are refused) and adds its
 * counts into h->counts and h->count. min, max and sum are left for the
 * caller, who knows them exactly (the report prints them). Returns 0, or
 * -1 with a one-line reason in err (h unchanged). */
int hdr_decode_base64_add(const char *b64, size_t len, struct hist *h, char *err, size_t errlen);

/* The same from the bytes base64 carries (compressed or plain V2). */
int hdr_decode_add(const uint8_t *p, size_t n, struct hist *h, char *err, size_t errlen);

/* RFC 4648 §4 base64, with padding: writes 4*ceil(n/3) characters and a
 * NUL into out (which must hold that many + 1); returns the characters. */
size_t hdr_base64(const uint8_t *p, size_t n, char *out);

#endif
