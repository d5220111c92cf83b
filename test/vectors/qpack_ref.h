/* test/vectors/qpack_ref.h — the reference unit_qpack and unit_h3 hold the
 * :status scan to: RFC 9114's rules for a response's field section applied
 * to the fields qpack_decode delivers (a plain loop per rule, nothing
 * shared with qpack.c). Included by those two tests only. */
#ifndef SHB_TEST_QPACK_REF_H
#define SHB_TEST_QPACK_REF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../qpack.h"

/* The reference: :status rules applied to what qpack_decode delivers. */
struct ref {
    bool regular, bad;
    int st;
};

static inline int ref_cb(void *ctx, const uint8_t *name, size_t nlen, const uint8_t *value, size_t vlen)
{
    struct ref *r = ctx;
    /* RFC 9114 §4.2, §10.3 (RFC 9113 §8.2.1's rule): no NUL, LF or CR, no
     * SP or HTAB at either end. */
    if (vlen && (value[0] == ' ' || value[0] == '\t' || value[vlen - 1] == ' ' || value[vlen - 1] == '\t'))
        r->bad = true;
    for (size_t i = 0; i < vlen; i++)
        if (value[i] == 0 || value[i] == '\r' || value[i] == '\n')
            r->bad = true;
    /* RFC 9114 §4.2 (RFC 9113 §8.2.1's rule): a name holds no octet
     * 0x00-0x20, 'A'-'Z' or 0x7f-0xff, and a ':' only first (§4.3). */
    for (size_t i = 0; i < nlen; i++)
        if (name[i] <= 0x20 || (name[i] >= 'A' && name[i] <= 'Z') || name[i] >= 0x7f || (name[i] == ':' && i > 0))
            r->bad = true;
    if (nlen == 0 || name[0] != ':') {
        r->regular = true;
        return 0;
    }
    if (r->regular || nlen != 7 || memcmp(name, ":status", 7) != 0 || r->st) {
        r->bad = true;
        return 0;
    }
    int x = 0;
    bool digits = vlen == 3;
    for (size_t i = 0; digits && i < 3; i++) {
        digits = value[i] >= '0' && value[i] <= '9';
        x = x * 10 + (value[i] - '0');
    }
    if (!digits || x < 100)
        r->bad = true;
    else
        r->st = x;
    return 0;
}

static inline int ref_result(const struct ref *r, uint16_t *st)
{
    *st = 0;
    if (r->bad)
        return QPACK_ERR_STATUS;
    if (!r->st)
        return QPACK_ERR_NO_STATUS;
    *st = (uint16_t)r->st;
    return 0;
}

#endif
