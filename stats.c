/* stats.c — histogram queries and merging of per-worker counters.
 *
 * Recording lives inline in stats.h (hot path); everything here runs once,
 * after the workers are done, so it favours clarity over speed. */
#include "stats.h"
#include <stdio.h>

#include <stdlib.h>
#include <string.h>

#include "zpages.h"

int hist_init(struct hist *h)
{
    memset(h, 0, sizeof *h);
    h->min = UINT64_MAX; /* so the first hist_record always lowers it */
    h->counts = zpages_alloc(HIST_BUCKETS * sizeof *h->counts);
    return h->counts ? 0 : -1;
}

void hist_free(struct hist *h)
{
    zpages_free(h->counts, HIST_BUCKETS * sizeof *h->counts);
    h->counts = NULL;
}

/* Adds without wrapping: a wrapped bucket would silently move samples out of
 * the distribution, while a saturated one only makes the walk in
 * hist_percentile fall short, which it handles. */
static uint32_t add_saturating(uint32_t a, uint32_t b)
{
    uint32_t sum = a + b;
    return sum < a ? UINT32_MAX : sum;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
    if (src->count == 0 || !src->counts || !dst->counts)
        return;
    for (size_t i = 0; i < HIST_BUCKETS; i++)
        dst->counts[i] = add_saturating(dst->counts[i], src->counts[i]);
    dst->count += src->count;
    dst->sum += src->sum;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
}

/* The largest value hist_index maps to idx: the inverse of hist_index,
 * rounded up, so a reported percentile is never below the true one. */
static uint64_t bucket_highest_value(size_t idx)
{
    if (idx < HIST_SUB_COUNT)
        return idx; /* exact region: one value per bucket */
    if (idx == HIST_BUCKETS - 1)
        return UINT64_MAX; /* hist_index clamps every larger value here */
    unsigned shift = (unsigned)(idx / HIST_SUB_HALF) - 1;
    uint64_t step = idx - (size_t)shift * HIST_SUB_HALF; /* HIST_SUB_HALF..HIST_SUB_COUNT-1 */
    return ((step + 1) << shift) - 1;
}

uint64_t hist_highest_equivalent(uint64_t v)
{
    return bucket_highest_value(hist_index(v));
}

uint64_t hist_bucket_lowest(size_t idx)
{
    if (idx < HIST_SUB_COUNT)
        return idx;
    unsigned shift = (unsigned)(idx / HIST_SUB_HALF) - 1;
    return (uint64_t)(idx - (size_t)shift * HIST_SUB_HALF) << shift;
}

/* ceil(p% of count) without libm, at least 1 and at most count. p * count is
 * formed before dividing so whole percentiles of round counts stay exact. */
uint64_t percentile_rank(uint64_t count, double p)
{
    double exact = p * (double)count / 100.0;
    if (!(exact > 1.0)) /* also catches NaN */
        return 1;
    if (exact >= (double)count)
        return count;
    uint64_t rank = (uint64_t)exact;
    if ((double)rank < exact)
        rank++;
    return rank;
}

static uint64_t clamp_u64(uint64_t v, uint64_t lo, uint64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
    if (h->count == 0 || !h->counts)
        return 0;
    uint64_t rank = percentile_rank(h->count, p);
    uint64_t seen = 0;
    for (size_t i = 0; i < HIST_BUCKETS; i++) {
        seen += h->counts[i];
        if (seen >= rank)
            return clamp_u64(bucket_highest_value(i), h->min, h->max);
    }
    return h->max; /* only reachable if a bucket saturated */
}

int stats_init(struct stats *s)
{
    memset(s, 0, sizeof *s);
    if (hist_init(&s->latency) < 0 || hist_init(&s->quic.handshake) < 0 || tl_init(&s->timeline) < 0 ||
        hist_init(&s->phases.connect) < 0 || hist_init(&s->phases.tls_handshake) < 0 ||
        hist_init(&s->phases.first_byte) < 0)
        return -1;
    return 0;
}

int stats_init_pace(struct stats *s)
{
    s->pace.on = true;
    if (hist_init(&s->pace.service) < 0 || hist_init(&s->pace.lag) < 0)
        return -1;
    return 0;
}

void stats_free(struct stats *s)
{
    hist_free(&s->latency);
    hist_free(&s->quic.handshake);
    hist_free(&s->pace.service);
    hist_free(&s->pace.lag);
    tl_free(&s->timeline);
    hist_free(&s->phases.connect);
    hist_free(&s->phases.tls_handshake);
    hist_free(&s->phases.first_byte);
}

void stats_merge(struct stats *dst, struct stats *src)
{
    dst->ok += src->ok;
    for (size_t k = 0; k < ERR_KINDS; k++) {
        /* One first message per kind: dst's, unless src's says more (a
         * hint), or dst's came from no counted error (a retried request). */
        bool take = src->why[k][0] && (!dst->why[k][0] || (src->why_hint[k] && !dst->why_hint[k]) ||
                                       (dst->errors[k] == 0 && src->errors[k] > 0));
        if (take) {
            memcpy(dst->why[k], src->why[k], ERR_WHY_MAX);
            dst->why_hint[k] = src->why_hint[k];
        }
        dst->errors[k] += src->errors[k];
    }
    for (size_t c = 0; c < STATUS_MAX; c++)
        dst->status[c] += src->status[c];
    dst->bytes_sent += src->bytes_sent;
    dst->warmup.ok += src->warmup.ok;
    dst->warmup.errors += src->warmup.errors;
    dst->warmup.bytes_sent += src->warmup.bytes_sent;
    dst->warmup.bytes_recv += src->warmup.bytes_recv;
    dst->bytes_recv += src->bytes_recv;
    dst->connections_opened += src->connections_opened;
    dst->in_flight += src->in_flight;
    dst->pace.on |= src->pace.on;
    dst->pace.sent += src->pace.sent;
    dst->pace.late += src->pace.late;
    dst->pace.unsent += src->pace.unsent;
    hist_merge(&dst->pace.service, &src->pace.service);
    hist_merge(&dst->pace.lag, &src->pace.lag);
    tl_merge(&dst->timeline, &src->timeline);
    struct quic_stats *q = &dst->quic;
    const struct quic_stats *r = &src->quic;
    q->quic |= r->quic;
    q->packets_sent += r->packets_sent;
    q->packets_received += r->packets_received;
    q->packets_lost += r->packets_lost;
    q->pto_count += r->pto_count;
    q->datagrams_sent += r->datagrams_sent;
    q->datagrams_received += r->datagrams_received;
    q->sends += r->sends;
    q->retries += r->retries;
    q->key_updates += r->key_updates;
    q->key_updates_peer += r->key_updates_peer;
    q->key_updates_answered += r->key_updates_answered;
    if (r->largest_app_pn_sent > q->largest_app_pn_sent)
        q->largest_app_pn_sent = r->largest_app_pn_sent;
    for (int i = 0; i < 4; i++)
        q->app_pn_len[i] += r->app_pn_len[i];
    q->goaways += r->goaways;
    hist_merge(&q->handshake, &r->handshake);
    for (unsigned i = 0; i < r->n_closes; i++)
        stats_quic_close(dst, r->closes[i].by_server, r->closes[i].app, r->closes[i].code, r->closes[i].count);
    q->closes_other += r->closes_other;
    for (size_t a = 0; a < 256; a++) {
        dst->alerts_received[a] += src->alerts_received[a];
        dst->alerts_sent[a] += src->alerts_sent[a];
    }
    /* One run's workers: the first handshake's answer stands. */
    if (dst->tls.version == 0)
        dst->tls = src->tls;
    hist_merge(&dst->latency, &src->latency);
    hist_merge(&dst->phases.connect, &src->phases.connect);
    hist_merge(&dst->phases.tls_handshake, &src->phases.tls_handshake);
    hist_merge(&dst->phases.first_byte, &src->phases.first_byte);
}

uint64_t stats_errors(const struct stats *s)
{
    uint64_t total = 0;
    for (size_t k = 0; k < ERR_KINDS; k++)
        total += s->errors[k];
    return total;
}

uint64_t stats_connect_errors(const struct stats *s)
{
    uint64_t total = 0;
    for (size_t k = 0; k < ERR_FIRST_NON_CONNECT; k++)
        total += s->errors[k];
    return total;
}

uint64_t stats_non2xx(const struct stats *s)
{
    uint64_t total = 0;
    for (size_t c = 0; c < STATUS_MAX; c++)
        if (c < 200 || c > 299)
            total += s->status[c];
    return total;
}

void stats_why(struct stats *s, enum err_kind kind, const char *what, const char *detail, bool hint)
{
    if (stats_why_kept(s, kind, hint))
        return; /* a hint replaces a plain message: it says more */
    snprintf(s->why[kind], ERR_WHY_MAX, "%s%s", what ? what : "", detail ? detail : "");
    s->why_hint[kind] = hint;
}

const char *err_kind_name(enum err_kind k)
{
    switch (k) {
    case ERR_CONNECT:
        return "connect";
    case ERR_CONNECT_TIMEOUT:
        return "connect timeout";
    case ERR_TLS_HANDSHAKE:
        return "tls handshake";
    case ERR_NO_PORT:
        return "no local port";
    case ERR_RESET:
        return "reset";
    case ERR_CLOSED:
        return "closed";
    case ERR_PROTOCOL:
        return "protocol";
    case ERR_TLS:
        return "tls";
    case ERR_TIMEOUT:
        return "timeout";
    case ERR_STREAM_RESET:
        return "stream reset";
    case ERR_REFUSED:
        return "refused";
    case ERR_KINDS:
        break;
    }
    return "unknown";
}

void stats_quic_close(struct stats *s, bool by_server, bool app, uint64_t code, uint64_t n)
{
    struct quic_stats *q = &s->quic;
    for (unsigned i = 0; i < q->n_closes; i++) {
        struct quic_close_count *k = &q->closes[i];
        if (k->by_server == by_server && k->app == app && k->code == code) {
            k->count += n;
            return;
        }
    }
    if (q->n_closes < sizeof q->closes / sizeof q->closes[0])
        q->closes[q->n_closes++] = (struct quic_close_count){ by_server, app, code, n };
    else
        q->closes_other += n;
}
