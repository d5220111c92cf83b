/* quic/varint.h — QUIC variable-length integers (RFC 9000 §16).
 *
 * The two most significant bits of the first byte give the length (1, 2, 4
 * or 8 bytes); the value is the remaining 6, 14, 30 or 62 bits, big-endian.
 * A value may be sent on more bytes than it needs (§16: only the Frame Type
 * must be minimal, §12.4), which is what the forced-length encoder is for:
 * a Length field reserved before the payload it counts is known.
 *
 * Cursor style: writers take (p, end) and return the byte after what they
 * wrote, or NULL when it does not fit; the reader takes (&p, end), advances
 * p only on success and returns 0, or -1 on truncated input. Sans-I/O. */
#ifndef SHB_QUIC_VARINT_H
#define SHB_QUIC_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define QUIC_VARINT_MAX ((UINT64_C(1) << 62) - 1)

/* Bytes of the minimal encoding of v: 1, 2, 4 or 8; 0 when v > 2^62-1. */
static inline size_t quic_varint_size(uint64_t v)
{
    if (v <= 63)
        return 1;
    if (v <= 16383)
        return 2;
    if (v <= 1073741823)
        return 4;
    if (v <= QUIC_VARINT_MAX)
        return 8;
    return 0;
}

/* Length of the varint whose first byte is b (its two high bits). */
static inline size_t quic_varint_len_of(uint8_t b) { return (size_t)1 << (b >> 6); }

/* Writes v on exactly len bytes (1, 2, 4 or 8). NULL when len is not one of
 * those, v does not fit in len bytes' 6/14/30/62 bits, or p + len > end. */
static inline uint8_t *quic_varint_put_len(uint8_t *p, const uint8_t *end, uint64_t v, size_t len)
{
    unsigned prefix;

    switch (len) {
    case 1:
        prefix = 0;
        break;
    case 2:
        prefix = 1;
        break;
    case 4:
        prefix = 2;
        break;
    case 8:
        prefix = 3;
        break;
    default:
        return NULL;
    }
    if (quic_varint_size(v) == 0 || quic_varint_size(v) > len || p == NULL || (size_t)(end - p) < len)
        return NULL;
    for (size_t i = 0; i < len; i++)
        p[i] = (uint8_t)(v >> (8 * (len - 1 - i)));
    p[0] |= (uint8_t)(prefix << 6);
    return p + len;
}

/* Writes v on the fewest bytes; NULL when v > 2^62-1 or it does not fit. */
static inline uint8_t *quic_varint_put(uint8_t *p, const uint8_t *end, uint64_t v)
{
    return quic_varint_put_len(p, end, v, quic_varint_size(v));
}

/* Reads one varint at *p (RFC 9000 Appendix A.1) into *v and advances *p;
 * -1 (nothing read, *p unchanged) when the input ends inside it. */
static inline int quic_varint_get(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    const uint8_t *q = *p;
    size_t len;
    uint64_t x;

    if (q >= end)
        return -1;
    len = quic_varint_len_of(q[0]);
    if ((size_t)(end - q) < len)
        return -1;
    x = q[0] & 0x3f;
    for (size_t i = 1; i < len; i++)
        x = x << 8 | q[i];
    *v = x;
    *p = q + len;
    return 0;
}

#endif
