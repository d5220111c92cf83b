/* stats/reqstats.c — per-target figures of a request list (reqstats.h). */
#include "stats/reqstats.h"

#include <stdlib.h>
#include <string.h>

int reqstats_init(struct reqstats *r, uint32_t n)
{
    r->n = 0;
    r->t = NULL;
    if (n == 0)
        return 0;
    if (!(r->t = calloc(n, sizeof *r->t)))
        return -1;
    r->n = n;
    return 0;
}

void reqstats_free(struct reqstats *r)
{
    free(r->t);
    r->t = NULL;
    r->n = 0;
}

void reqstats_code(struct reqstats_target *t, uint16_t code, uint64_t count)
{
    for (unsigned i = 0; i < REQSTATS_CODES; i++) {
        if (t->code[i] == code) {
            t->code_count[i] += count;
            return;
        }
        if (t->code[i] == 0) {
            t->code[i] = code;
            t->code_count[i] = count;
            return;
        }
    }
    t->code_other += count;
}

int reqstats_merge(struct reqstats *dst, const struct reqstats *src)
{
    if (src->n == 0)
        return 0;
    if (dst->n == 0 && reqstats_init(dst, src->n) < 0)
        return -1;
    uint32_t n = dst->n < src->n ? dst->n : src->n;
    for (uint32_t i = 0; i < n; i++) {
        struct reqstats_target *d = &dst->t[i];
        const struct reqstats_target *s = &src->t[i];
        d->e.ok += s->e.ok;
        d->e.errors += s->e.errors;
        d->e.bytes_recv += s->e.bytes_recv;
        for (unsigned b = 0; b < TL_BUCKETS; b++)
            d->e.lat[b] += s->e.lat[b];
        for (unsigned c = 0; c < REQSTATS_CODES && s->code[c]; c++)
            reqstats_code(d, s->code[c], s->code_count[c]);
        d->code_other += s->code_other;
    }
    return 0;
}
