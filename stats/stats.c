/* stats.c — merging of per-worker counters, the table of QUIC counters, and
 * the names of error kinds. Everything here runs once a connection (the
 * QUIC counters) or once after the workers are done, so it favours clarity
 * over speed. */
#include "stats/stats.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quic/counters.h"

#define QS(f) offsetof(struct quic_stats, f)
#define QK(f) offsetof(struct quic_conn_counters, f)
const struct quic_counter quic_counters[] = {
    { "packetsSent", "Packets sent", QC_PACKETS, false, QS(packets_sent), QK(packets_sent) },
    { "packetsReceived", "Packets received", QC_PACKETS, false, QS(packets_received), QK(packets_received) },
    { "packetsLost", "Packets lost", QC_PACKETS, false, QS(packets_lost), QK(packets_lost) },
    { "ptoCount", "PTO count", QC_PACKETS, false, QS(pto_count), QK(pto_count) },
    { "datagramsSent", NULL, QC_DATAGRAMS, false, QS(datagrams_sent), QK(datagrams_sent) },
    { "datagramsReceived", NULL, QC_DATAGRAMS, false, QS(datagrams_received), QK(datagrams_received) },
    { "sends", NULL, QC_DATAGRAMS, false, QS(sends), QC_NOT_PER_CONN }, /* sendmsg calls (GSO batches) */
    { "retries", "Retries", QC_EVENTS, false, QS(retries), QK(retries) },
    { "keyUpdates", "Key updates", QC_EVENTS, false, QS(key_updates), QK(key_updates) },
    { "goaways", "GOAWAYs", QC_EVENTS, false, QS(goaways), QC_NOT_PER_CONN },
    { "keyUpdatesByServer", NULL, QC_TEST, false, QS(key_updates_peer), QK(key_updates_peer) },
    { "keyUpdatesAnswered", NULL, QC_TEST, false, QS(key_updates_answered), QK(key_updates_answered) },
    { "largestPnSent", NULL, QC_TEST, true, QS(largest_app_pn_sent), QK(largest_app_pn_sent) },
    { "pnLen1", NULL, QC_TEST, false, QS(app_pn_len[0]), QK(app_pn_len[0]) },
    { "pnLen2", NULL, QC_TEST, false, QS(app_pn_len[1]), QK(app_pn_len[1]) },
    { "pnLen3", NULL, QC_TEST, false, QS(app_pn_len[2]), QK(app_pn_len[2]) },
    { "pnLen4", NULL, QC_TEST, false, QS(app_pn_len[3]), QK(app_pn_len[3]) },
};
const size_t quic_ncounters = sizeof quic_counters / sizeof quic_counters[0];
/* Every uint64_t of struct quic_stats, packets_sent to app_pn_len, has its row. */
_Static_assert(QS(handshake) - QS(packets_sent) == sizeof quic_counters / sizeof quic_counters[0] * sizeof(uint64_t),
               "a quic_stats counter without its row in quic_counters");
#undef QS
#undef QK

/* Sums v into *dst, or keeps the larger (largest: UINT64_MAX is "none"). */
static void add_counter(uint64_t *dst, uint64_t v, bool largest)
{
    if (!largest)
        *dst += v;
    else if (v != UINT64_MAX && v > *dst)
        *dst = v;
}

void stats_quic_add_conn(struct quic_stats *s, const struct quic_conn_counters *k)
{
    for (size_t i = 0; i < quic_ncounters; i++) {
        const struct quic_counter *c = &quic_counters[i];
        if (c->conn_off != QC_NOT_PER_CONN)
            add_counter(quic_counter_at(s, c), *(const uint64_t *)((const char *)k + c->conn_off), c->largest);
    }
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
    reqstats_free(&s->targets);
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
    dst->proxy_tunnels += src->proxy_tunnels;
    dst->in_flight += src->in_flight;
    dst->pace.on |= src->pace.on;
    dst->pace.sent += src->pace.sent;
    dst->pace.late += src->pace.late;
    dst->pace.unsent += src->pace.unsent;
    hist_merge(&dst->pace.service, &src->pace.service);
    hist_merge(&dst->pace.lag, &src->pace.lag);
    tl_merge(&dst->timeline, &src->timeline);
    if (reqstats_merge(&dst->targets, &src->targets) < 0)
        reqstats_free(&dst->targets); /* out of memory: the run's figures stand, the table goes */
    struct quic_stats *q = &dst->quic;
    const struct quic_stats *r = &src->quic;
    q->quic |= r->quic;
    for (size_t i = 0; i < quic_ncounters; i++)
        add_counter(quic_counter_at(q, &quic_counters[i]), quic_counter_get(r, &quic_counters[i]),
                    quic_counters[i].largest);
    hist_merge(&q->handshake, &r->handshake);
    for (unsigned i = 0; i < r->n_closes; i++)
        stats_quic_close(dst, r->closes[i].by_server, r->closes[i].app, r->closes[i].code, r->closes[i].count);
    q->closes_other += r->closes_other;
    for (size_t a = 0; a < 256; a++) {
        dst->alerts_received[a] += src->alerts_received[a];
        dst->alerts_sent[a] += src->alerts_sent[a];
    }
    dst->handshakes.on |= src->handshakes.on;
    dst->handshakes.full += src->handshakes.full;
    dst->handshakes.resumed += src->handshakes.resumed;
    dst->handshakes.hello_retries += src->handshakes.hello_retries;
    dst->early.on |= src->early.on;
    dst->early.sent += src->early.sent;
    dst->early.accepted += src->early.accepted;
    dst->early.resent += src->early.resent;
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
