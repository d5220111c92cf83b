/* quic/ackset.c — received packet numbers as ACK ranges (RFC 9000 §13.2.3).
 * See ackset.h. Ranges are kept ascending so that the common case, the next
 * packet number in order, extends the last range in place. */
#include "quic/ackset.h"

#include <string.h>

void quic_ackset_init(struct quic_ackset *s)
{
    memset(s, 0, sizeof *s);
}

/* Index of the first range whose lo is above pn (n when none), searching
 * from the top: received packet numbers are mostly near the largest. */
static size_t upper(const struct quic_ackset *s, uint64_t pn)
{
    size_t i = s->n;
    while (i > 0 && s->r[i - 1].lo > pn)
        i--;
    return i;
}

/* What inserting pn would do; *at is upper(s, pn), for insert to reuse. */
static enum quic_ackset_result classify(const struct quic_ackset *s, uint64_t pn, size_t *at)
{
    size_t i;

    if (pn < s->floor)
        return QUIC_ACKSET_TOO_OLD;
    i = *at = upper(s, pn);
    if (i > 0 && pn <= s->r[i - 1].hi)
        return QUIC_ACKSET_DUP;
    /* Full, and pn would start a range below every other: insert refuses it. */
    if (s->n == QUIC_ACKSET_CAP && i == 0 && s->r[0].lo != pn + 1)
        return QUIC_ACKSET_TOO_OLD;
    return QUIC_ACKSET_NEW;
}

enum quic_ackset_result quic_ackset_check(const struct quic_ackset *s, uint64_t pn)
{
    size_t i;
    return classify(s, pn, &i);
}

enum quic_ackset_result quic_ackset_insert(struct quic_ackset *s, uint64_t pn)
{
    size_t i = 0;
    enum quic_ackset_result res = classify(s, pn, &i);
    bool joins_below, joins_above;

    if (res != QUIC_ACKSET_NEW)
        return res;
    joins_below = i > 0 && s->r[i - 1].hi + 1 == pn; /* extends r[i-1] upwards */
    joins_above = i < s->n && s->r[i].lo == pn + 1;  /* extends r[i] downwards */
    if (joins_below && joins_above) {
        /* pn fills the one-packet gap between two ranges: they become one. */
        s->r[i - 1].hi = s->r[i].hi;
        memmove(&s->r[i], &s->r[i + 1], (s->n - i - 1) * sizeof s->r[0]);
        s->n--;
    } else if (joins_below) {
        s->r[i - 1].hi = pn;
    } else if (joins_above) {
        s->r[i].lo = pn;
    } else {
        if (s->n == QUIC_ACKSET_CAP) {
            /* §13.2.3: forget the oldest range, and never accept its packets
             * again (quic_ackset_check refused pn itself if it were oldest). */
            s->floor = s->r[0].hi + 1;
            memmove(&s->r[0], &s->r[1], (s->n - 1) * sizeof s->r[0]);
            s->n--;
            i--;
        }
        memmove(&s->r[i + 1], &s->r[i], (s->n - i) * sizeof s->r[0]);
        s->r[i].lo = s->r[i].hi = pn;
        s->n++;
    }
    return QUIC_ACKSET_NEW;
}

void quic_ackset_drop_below(struct quic_ackset *s, uint64_t pn)
{
    size_t k = 0;

    if (pn <= s->floor)
        return;
    s->floor = pn;
    while (k < s->n && s->r[k].hi < pn)
        k++;
    memmove(&s->r[0], &s->r[k], (s->n - k) * sizeof s->r[0]);
    s->n -= k;
    if (s->n > 0 && s->r[0].lo < pn)
        s->r[0].lo = pn;
}

bool quic_ackset_largest(const struct quic_ackset *s, uint64_t *pn)
{
    if (s->n == 0)
        return false;
    *pn = s->r[s->n - 1].hi;
    return true;
}
