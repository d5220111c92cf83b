/* stats.c — merging of per-worker counters, and the names of error kinds.
 * Everything here runs once, after the workers are done, so it favours
 * clarity over speed. */
#include "stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
