/* report.c — the text and JSON reports (spec: Output).
 *
 * Both reports show the same numbers. Latencies are kept in integer
 * nanoseconds until printed: the JSON writes seconds straight from them
 * ("0.000030961") so no binary-float rounding creeps into the digits. */
#include "report/report.h"

#include "h3.h"         /* h3_error_name */
#include "report/hdr.h"        /* hdr_encode_base64 */
#include "report/thresholds.h"
#include "quic/frame.h" /* quic_transport_error_name */
#include "tls13/conn.h" /* tls_alert_name */

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_SEC UINT64_C(1000000000)
#define NS_PER_MS 1e6
#define BYTES_PER_MB 1048576.0 /* the spec's MB/s figures are MiB/s */

/* The percentiles both reports list, and the label each is printed under. */
static const struct {
    double p;
    const char *label;
} percentiles[] = {
    {10, "10"}, {25, "25"}, {50, "50"}, {75, "75"}, {90, "90"},
    {95, "95"}, {99, "99"}, {99.9, "99.9"}, {99.99, "99.99"},
};
#define N_PERCENTILES (sizeof percentiles / sizeof percentiles[0])

/* ---- numbers shared by both reports ---------------------------------- */

static uint64_t total_requests(const struct stats *s)
{
    return s->ok + stats_errors(s);
}

/* amount per second of run time; 0 for a zero-length run rather than inf. */
static double per_second(uint64_t amount, uint64_t duration_ns)
{
    if (duration_ns == 0)
        return 0;
    return (double)amount * (double)NS_PER_SEC / (double)duration_ns;
}

/* Mean latency in ns; 0 when nothing completed (no 0/0 NaN in the output). */
static double mean_latency_ns(const struct hist *h)
{
    if (h->count == 0)
        return 0;
    double mean = h->sum / (double)h->count;
    return isfinite(mean) ? mean : 0;
}

/* min/max are UINT64_MAX/0 on an empty histogram: report both as 0. */
static uint64_t min_latency_ns(const struct hist *h)
{
    return h->count ? h->min : 0;
}

static uint64_t max_latency_ns(const struct hist *h)
{
    return h->count ? h->max : 0;
}

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

/* -q: the asked-for rate over the measured window (a ramp's mean there). */
static double rate_requested(const struct report_info *ri)
{
    if (ri->merged)
        return ri->merged->rate_requested;
    return pace_mean_rate(ri->rate, ri->warmup_ns, ri->warmup_ns + ri->duration_ns);
}

/* -q: the rate shb sent at: requests sent over the time they took to go
 * out. The schedule gives each request a slot of its own (1/R at a
 * constant rate R), and a run that -n ends stops as soon as the last
 * response is in, often inside the last request's slot: 5 requests at
 * 100/s end near 40 ms, and 5 over 40 ms would read 125/s. So the time
 * is the report's window when requests due in it were never sent (shb
 * was behind until the end), else the later of
 *  - the end of the last sent request's slot (from the window's start):
 *    on schedule, that gives the rate asked exactly, never more;
 *  - when the last one can have gone out, behind schedule: its due time
 *    plus the largest schedule lag, but not past the window's end (the
 *    window's tail after the last send is only waiting for responses).
 * A merged report has no one schedule: its window, as it is. */
static double rate_achieved(const struct report_info *ri, const struct pace_stats *p)
{
    if (ri->merged || p->unsent || !p->sent)
        return per_second(p->sent, ri->duration_ns);
    uint64_t first = pace_count_before(ri->rate, ri->warmup_ns); /* due at or after the window's start */
    uint64_t slots_end = pace_due_ns(ri->rate, first + p->sent) - ri->warmup_ns;
    uint64_t last_due = pace_due_ns(ri->rate, first + p->sent - 1) - ri->warmup_ns;
    uint64_t lag = p->lag.count ? p->lag.max : 0;
    uint64_t last_out = last_due + lag < ri->duration_ns ? last_due + lag : ri->duration_ns;
    return per_second(p->sent, slots_end > last_out ? slots_end : last_out);
}

/* -q: the busiest worker thread was on a CPU this much of the run: shb,
 * not the server, may have set the pace. */
#define CLIENT_SATURATED 0.9

/* ---- text -------------------------------------------------------------- */

static double ns_to_ms(double ns)
{
    return ns / NS_PER_MS;
}

/* shb merge: "Merged:       4 reports: shards 0-3 of 4, the whole run". */
static void text_merged(FILE *f, const struct report_merged *m)
{
    fprintf(f, "Merged:       %u report%s", m->reports, m->reports == 1 ? "" : "s");
    if (m->shard_count) {
        fputs(": shard", f);
        fputs(m->n_shards == 1 ? " " : "s ", f);
        for (unsigned i = 0; i < m->n_shards;) {
            unsigned j = i;
            while (j + 1 < m->n_shards && m->shards[j + 1] == m->shards[j] + 1)
                j++;
            fprintf(f, "%s%" PRIu32, i ? ", " : "", m->shards[i]);
            if (j > i)
                fprintf(f, "%s%" PRIu32, j == i + 1 ? ", " : "-", m->shards[j]);
            i = j + 1;
        }
        fprintf(f, " of %u", m->shard_count);
        if (m->n_shards == m->shard_count)
            fputs(", the whole run", f);
        else
            fprintf(f, " (%u missing)", m->shard_count - m->n_shards);
    }
    if (m->shard_twice)
        fputs("; a shard came in more than once", f);
    fputc('\n', f);
}

/* A cipher suite's or group's IANA name ("TLS_AES_128_GCM_SHA256",
 * "x25519"), or its number in hex for one without a name here. */
static const char *iana_text(char *buf, size_t cap, const char *(*name_of)(uint16_t), uint16_t id)
{
    const char *name = name_of(id);
    if (name)
        return name;
    snprintf(buf, cap, "0x%04x", id);
    return buf;
}

/* A merged report whose reports' handshakes differ: the values joined. */
static const struct report_tls_joined *tls_joined(const struct report_info *ri, const struct stats *s)
{
    return s->tls_mixed && ri->merged ? ri->merged->tls : NULL;
}

/* https:// and HTTP/3: "TLS:          TLSv1.3, TLS_AES_128_GCM_SHA256,
 * x25519, ALPN h2", from the first handshake that completed; nothing when
 * none did (http://, or every handshake failed). */
static void text_tls(FILE *f, const struct report_info *ri, const struct stats *s)
{
    const struct tls_negotiated *t = &s->tls;
    char cipher[8], group[8];
    const struct report_tls_joined *j = tls_joined(ri, s);
    if (j) { /* "TLS:          TLSv1.3, TLS_AES_128_GCM_SHA256 + TLS_AES_256_GCM_SHA384, x25519, ALPN h2" */
        fprintf(f, "TLS:          %s, %s, %s, ", j->version, j->cipher,
                strcmp(j->group, "none") == 0 ? "RSA key exchange" : j->group);
        if (strcmp(j->alpn, "none") == 0)
            fputs("no ALPN", f);
        else
            fprintf(f, "ALPN %s", j->alpn);
        fputs(!j->fallback_any ? "\n" : j->fallback_all ? " (TLS 1.2 fallback)\n" : " (TLS 1.2 fallback in some)\n", f);
        return;
    }
    if (s->tls_mixed) {
        fputs("TLS:          differs between the merged reports\n", f);
        return;
    }
    if (t->version == 0)
        return;
    fprintf(f, "TLS:          %s, %s, %s, ", tls_version_name(t->version) ? tls_version_name(t->version) : "?",
            iana_text(cipher, sizeof cipher, tls_cipher_name, t->cipher),
            t->group ? iana_text(group, sizeof group, tls_group_name, t->group) : "RSA key exchange");
    if (t->alpn[0])
        fprintf(f, "ALPN %s", t->alpn);
    else
        fputs("no ALPN", f);
    fputs(t->fallback ? " (TLS 1.2 fallback)\n" : "\n", f);
}

/* With --tls-resume, or once a handshake needed a HelloRetryRequest:
 * "Handshakes:   4 full, 996 resumed", then ", 3 after a HelloRetryRequest"
 * when any did. */
static bool handshakes_shown(const struct stats *s) { return s->handshakes.on || s->handshakes.hello_retries > 0; }

static void text_handshakes(FILE *f, const struct stats *s)
{
    if (handshakes_shown(s)) {
        fprintf(f, "Handshakes:   %" PRIu64 " full, %" PRIu64 " resumed", s->handshakes.full, s->handshakes.resumed);
        if (s->handshakes.hello_retries > 0)
            fprintf(f, ", %" PRIu64 " after a HelloRetryRequest", s->handshakes.hello_retries);
        fputc('\n', f);
    }
    if (s->early.on) /* --early-data: "Early data:   940 requests sent early, 940 accepted, 0 resent" */
        fprintf(f, "Early data:   %" PRIu64 " requests sent early, %" PRIu64 " accepted, %" PRIu64 " resent\n",
                s->early.sent, s->early.accepted, s->early.resent);
}

static void text_run(FILE *f, const struct report_info *ri, const struct stats *s)
{
    fprintf(f, "URL:          %s\n", or_empty(ri->url));
    if (ri->connected_to) /* only when --connect-to, --resolve or --unix-socket sent the traffic elsewhere */
        fprintf(f, "Connected to: %s%s%s%s\n", ri->connected_to, ri->connected_via ? " (" : "",
                ri->connected_via ? ri->connected_via : "", ri->connected_via ? ")" : "");
    if (ri->proxy) /* tunnels: one per connection, or none (absolute-form HTTP/1.1) */
        fprintf(f, "Proxy:        %s (%" PRIu64 " tunnels)\n", ri->proxy, s->proxy_tunnels);
    fprintf(f, "Protocol:     %s\n", or_empty(ri->protocol));
    text_tls(f, ri, s);
    text_handshakes(f, s);
    fprintf(f, "Threads:      %u\n", ri->threads);
    fprintf(f, "Connections:  %u\n", ri->connections);
    if (ri->shard_count > 1) /* not in the spec: only with --shard */
        fprintf(f, "Shard:        %u of %u (its share of -c, -n and -q)\n", ri->shard_index, ri->shard_count);
    if (ri->merged)
        text_merged(f, ri->merged);
}

static void text_requests(FILE *f, const struct report_info *ri, const struct stats *s)
{
    uint64_t total = total_requests(s);
    fprintf(f,
            "Requests:     %" PRIu64 " (%" PRIu64 " ok, %" PRIu64 " errors, of which %" PRIu64
            " connect) in %.3fs\n",
            total, s->ok, stats_errors(s), stats_connect_errors(s),
            (double)ri->duration_ns / (double)NS_PER_SEC);
    fprintf(f, "Requests/sec: %.1f\n", per_second(total, ri->duration_ns));
    /* Not in the spec's sample: a run that ended (-z, Ctrl-C) with requests
     * on the wire says how many, rather than letting them vanish. */
    if (s->in_flight)
        fprintf(f, "In flight:    %" PRIu64 " (the run ended before their responses)\n", s->in_flight);
    /* Only with --warmup: what the figures leave out. */
    if (ri->warmup_ns)
        fprintf(f,
                "Warm-up:      %.3fs, not counted: %" PRIu64 " requests (%" PRIu64 " ok, %" PRIu64
                " errors), %" PRIu64 " bytes received, %" PRIu64 " sent\n",
                (double)ri->warmup_ns / (double)NS_PER_SEC, s->warmup.ok + s->warmup.errors, s->warmup.ok,
                s->warmup.errors, s->warmup.bytes_recv, s->warmup.bytes_sent);
}

/* Only when a signal stopped the run: its figures cover the run until then. */
static void text_interrupted(FILE *f, const struct report_info *ri)
{
    if (!ri->interrupted)
        return;
    if (ri->interrupted_by)
        fprintf(f, "Interrupted:  yes (%s: the figures cover the run until then)\n", ri->interrupted_by);
    else
        fputs("Interrupted:  yes (a run merged here was stopped early by a signal)\n", f);
}

/* Only with -q: the schedule, and whether shb kept to it. */
static void text_rate(FILE *f, const struct report_info *ri, const struct stats *s)
{
    if (!ri->rate)
        return;
    const struct pace_stats *p = &s->pace;
    fputs("Rate:         asked ", f);
    if (ri->rate->ramp_ns)
        fprintf(f, "%.1f..%.1f/s (%.1f/s over the report's window)", ri->rate->from, ri->rate->to,
                rate_requested(ri));
    else
        fprintf(f, "%.1f/s", ri->rate->from);
    fprintf(f, ", achieved %.1f/s (%" PRIu64 " sent); latency counts from when each request was due\n",
            rate_achieved(ri, p), p->sent);
    /* The lag is measured on answered requests: with none, there is no
     * figure, and zeros would claim a perfect schedule. */
    if (p->lag.count == 0)
        fputs("Schedule lag: no responses (it is measured on answered requests)", f);
    else
        fprintf(f,
                "Schedule lag: %" PRIu64 " of %" PRIu64 " answered requests were sent more than %.0f ms late; p50 %.3f "
                "ms, p99 %.3f ms, max %.3f ms",
                p->late, p->lag.count, ns_to_ms((double)PACE_LATE_NS), ns_to_ms((double)hist_percentile(&p->lag, 50)),
                ns_to_ms((double)hist_percentile(&p->lag, 99)), ns_to_ms((double)max_latency_ns(&p->lag)));
    if (p->unsent)
        fprintf(f, "; %" PRIu64 " due and never sent", p->unsent);
    fputc('\n', f);
    if (ri->client_busy >= CLIENT_SATURATED)
        fprintf(f,
                "Client:       saturated: its busiest thread was on a CPU %.0f%% of the run, so shb may have set the "
                "pace (add -t, or another machine)\n",
                ri->client_busy * 100);
}

static void text_transfer(FILE *f, const struct report_info *ri, const struct stats *s)
{
    fprintf(f,
            "Transfer:     recv %.2f MB/s (%" PRIu64 " bytes), sent %.2f MB/s (%" PRIu64
            " bytes)\n",
            per_second(s->bytes_recv, ri->duration_ns) / BYTES_PER_MB, s->bytes_recv,
            per_second(s->bytes_sent, ri->duration_ns) / BYTES_PER_MB, s->bytes_sent);
}

static void text_status_codes(FILE *f, const struct stats *s)
{
    fputs("Status codes:\n", f);
    for (unsigned code = 0; code < STATUS_MAX; code++)
        if (s->status[code])
            fprintf(f, "  [%u] %" PRIu64 "\n", code, s->status[code]);
    /* As wrk prints it: responses that came, but not with a 2xx. */
    uint64_t non2xx = stats_non2xx(s);
    if (non2xx)
        fprintf(f, "Non-2xx responses: %" PRIu64 "\n", non2xx);
}

/* Not in the spec's sample (a clean run has none), but a run with errors
 * is useless without knowing which kind they were. */
static void text_errors(FILE *f, const struct stats *s)
{
    if (stats_errors(s) == 0)
        return;
    fputs("Errors:\n", f);
    for (int k = 0; k < ERR_KINDS; k++) {
        if (!s->errors[k])
            continue;
        fprintf(f, "  [%s] %" PRIu64, err_kind_name((enum err_kind)k), s->errors[k]);
        if (s->why[k][0])
            fprintf(f, ": %s", s->why[k]);
        fputc('\n', f);
    }
    /* A likely mistake (https:// to a plain-HTTP port...), said once more
     * on its own line. */
    for (int k = 0; k < ERR_KINDS; k++)
        if (s->errors[k] && s->why_hint[k])
            fprintf(f, "Hint:         %s\n", s->why[k]);
}

/* TLS alerts that ended connections, named: "received handshake_failure". */
static bool any_alerts(const struct stats *s)
{
    for (int a = 0; a < 256; a++)
        if (s->alerts_received[a] || s->alerts_sent[a])
            return true;
    return false;
}

static void text_alerts(FILE *f, const struct stats *s)
{
    if (!any_alerts(s))
        return;
    fputs("TLS alerts:\n", f);
    for (int a = 0; a < 256; a++) {
        if (s->alerts_received[a])
            fprintf(f, "  [received %s] %" PRIu64 "\n", tls_alert_name(a), s->alerts_received[a]);
        if (s->alerts_sent[a])
            fprintf(f, "  [sent %s] %" PRIu64 "\n", tls_alert_name(a), s->alerts_sent[a]);
    }
}

/* "Latency" (the spec's block), or with -q "Service time" too. */
static void text_latency(FILE *f, const char *what, const struct hist *h)
{
    if (h->count == 0) { /* nothing answered: no table of zeros */
        fprintf(f, "%s: %*sno responses\n", what, (int)(12 - strlen(what)), "");
        return;
    }
    fprintf(f, "%s (ms):\n", what);
    fprintf(f, "  min %.3f  mean %.3f  max %.3f\n", ns_to_ms((double)min_latency_ns(h)),
            ns_to_ms(mean_latency_ns(h)), ns_to_ms((double)max_latency_ns(h)));
    fprintf(f, "%s distribution:\n", what);
    for (size_t i = 0; i < N_PERCENTILES; i++)
        fprintf(f, "  %s%% in %.3f ms\n", percentiles[i].label,
                ns_to_ms((double)hist_percentile(h, percentiles[i].p)));
}

/* Where the time goes: each phase that occurred, in the order a request
 * meets them. The QUIC handshake is the QUIC block's own histogram. */
static const struct {
    const char *label, *key;
    size_t offset; /* of its histogram in struct stats */
} phases[] = {
    {"connect", "connect", offsetof(struct stats, phases.connect)},
    {"tls handshake", "tlsHandshake", offsetof(struct stats, phases.tls_handshake)},
    {"quic handshake", "quicHandshake", offsetof(struct stats, quic.handshake)},
    {"first byte", "firstByte", offsetof(struct stats, phases.first_byte)},
};
#define N_PHASES (sizeof phases / sizeof phases[0])

static const struct hist *phase_hist(const struct stats *s, size_t i)
{
    return (const struct hist *)((const char *)s + phases[i].offset);
}

_Static_assert(N_PHASES == REPORT_PHASES, "report.h's REPORT_PHASES counts the phases table");

const char *report_phase_key(size_t i)
{
    return phases[i].key;
}

struct hist *report_phase_hist(struct stats *s, size_t i)
{
    return (struct hist *)((char *)s + phases[i].offset);
}

static bool any_phase(const struct stats *s)
{
    for (size_t i = 0; i < N_PHASES; i++)
        if (phase_hist(s, i)->count)
            return true;
    return false;
}

/* Not in the spec: one row per phase that occurred, nothing if none did.
 * Counts take up to 10 digits, times up to 99999.999 ms, and stay aligned. */
static void text_phases(FILE *f, const struct stats *s)
{
    if (!any_phase(s))
        return;
    fprintf(f, "%-16s %10s %9s %9s %9s %9s\n", "Phases (ms):", "count", "p50", "p90", "p99", "max");
    for (size_t i = 0; i < N_PHASES; i++) {
        const struct hist *h = phase_hist(s, i);
        if (h->count)
            fprintf(f, "  %-14s %10" PRIu64 " %9.3f %9.3f %9.3f %9.3f\n", phases[i].label, h->count,
                    ns_to_ms((double)hist_percentile(h, 50)), ns_to_ms((double)hist_percentile(h, 90)),
                    ns_to_ms((double)hist_percentile(h, 99)), ns_to_ms((double)max_latency_ns(h)));
    }
}

/* "H3_NO_ERROR", "PROTOCOL_VIOLATION", "CRYPTO_ERROR handshake_failure",
 * or the code in hex when it has no name (GREASE, private codes). */
void report_close_name(char *out, size_t cap, const struct quic_close_count *k)
{
    const char *n = k->app ? h3_error_name(k->code) : quic_transport_error_name(k->code);
    if (n == NULL)
        snprintf(out, cap, "%s0x%" PRIx64, k->app ? "application " : "", k->code);
    else if (!k->app && k->code >= 0x100 && k->code <= 0x1ff)
        snprintf(out, cap, "%s %s", n, tls_alert_name((int)(k->code - 0x100)));
    else
        snprintf(out, cap, "%s", n);
}

/* HTTP/3 only: what the QUIC connections saw, summed over them. The
 * handshake time is per connection, from our first Initial to the
 * handshake's completion (one round trip plus the server's work). */
static double datagrams_per_send(const struct quic_stats *q)
{
    return q->sends ? (double)q->datagrams_sent / (double)q->sends : 0.0;
}

/* The text report's lines of the counters of group g (quic_counters). */
static void text_quic_counters(FILE *f, const struct quic_stats *q, enum quic_counter_group g)
{
    for (size_t i = 0; i < quic_ncounters; i++) {
        const struct quic_counter *c = &quic_counters[i];
        if (c->group != g || !c->label)
            continue;
        char label[32];
        snprintf(label, sizeof label, "%s:", c->label);
        fprintf(f, "  %-17s %" PRIu64 "\n", label, quic_counter_get(q, c)); /* values in one column */
    }
}

static void text_quic(FILE *f, const struct stats *s)
{
    const struct quic_stats *q = &s->quic;
    if (!q->quic)
        return;
    fputs("QUIC:\n", f);
    text_quic_counters(f, q, QC_PACKETS);
    fprintf(f, "  Handshake (ms):   min %.3f  median %.3f\n", ns_to_ms((double)min_latency_ns(&q->handshake)),
            ns_to_ms((double)hist_percentile(&q->handshake, 50)));
    fprintf(f, "  Datagrams/send:   %.2f\n", datagrams_per_send(q));
    text_quic_counters(f, q, QC_EVENTS);
    if (q->n_closes > 0 || q->closes_other > 0) {
        fputs("  Connection closes:\n", f);
        for (unsigned i = 0; i < q->n_closes; i++) {
            char name[64];
            report_close_name(name, sizeof name, &q->closes[i]);
            fprintf(f, "    [%s %s] %" PRIu64 "\n", q->closes[i].by_server ? "by server" : "by shb", name,
                    q->closes[i].count);
        }
        if (q->closes_other > 0)
            fprintf(f, "    [other codes] %" PRIu64 "\n", q->closes_other);
    }
}

/* ---- the timeline (both reports) ---------------------------------------- */

/* Seconds each timeline entry covers. */
static uint64_t tl_width_ns(const struct timeline *t)
{
    return NS_PER_SEC << t->shift;
}

/* How long entry i of the measured window covers: the last one ends with
 * the window. */
static uint64_t tl_entry_ns(const struct report_info *ri, const struct timeline *t, uint32_t i)
{
    uint64_t w = tl_width_ns(t), start = (uint64_t)i * w;
    if (start >= ri->duration_ns)
        return 0;
    return ri->duration_ns - start < w ? ri->duration_ns - start : w;
}

static bool tl_empty(const struct timeline *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (t->e[i].ok || t->e[i].errors)
            return false;
    return true;
}

/* "Timeline:     ▁▅████▇█ requests/s, 1 s a mark, min 0.0, max 50123.4":
 * the whole entries of the window, at most TEXT_MARKS marks (neighbours
 * averaged when there are more: tl_marks), each one of eight heights from
 * 0 to the highest. Only for a window of two whole entries or more. */
#define TEXT_MARKS 60
static void text_timeline(FILE *f, const struct report_info *ri, const struct timeline *t)
{
    static const char *const bars[8] = { "\u2581", "\u2582", "\u2583", "\u2584",
                                         "\u2585", "\u2586", "\u2587", "\u2588" };
    uint64_t w = tl_width_ns(t);
    uint32_t whole = (uint32_t)(ri->duration_ns / w);
    if (whole > t->n)
        whole = t->n;
    if (whole < 2 || tl_empty(t))
        return;
    double rate[TEXT_MARKS], lo = 0, hi = 0;
    struct tl_marks k;
    tl_marks(t, whole, TEXT_MARKS, rate, &k);
    for (uint32_t m = 0; m < k.marks; m++) {
        lo = m == 0 || rate[m] < lo ? rate[m] : lo;
        hi = rate[m] > hi ? rate[m] : hi;
    }
    fputs("Timeline:     ", f);
    for (uint32_t m = 0; m < k.marks; m++)
        fputs(bars[hi > 0 ? (int)(rate[m] / hi * 7 + 0.5) : 0], f);
    uint64_t secs = w / NS_PER_SEC;
    fputs(" requests/s, ", f);
    if (k.shortest != k.longest) /* "1-2 s a mark": 65 s in 60 marks */
        fprintf(f, "%" PRIu64 "-", secs * k.shortest);
    fprintf(f, "%" PRIu64 " s a mark, min %.1f, max %.1f\n", secs * k.longest, lo, hi);
}

/* A target's status codes, compact: "200×98 404×2". */
static void text_target_codes(FILE *f, const struct reqstats_target *t)
{
    for (unsigned c = 0; c < REQSTATS_CODES && t->code[c]; c++)
        fprintf(f, "%s%u\u00d7%" PRIu64, c ? " " : "", t->code[c], t->code_count[c]);
    if (t->code_other)
        fprintf(f, " other\u00d7%" PRIu64, t->code_other);
}

/* --targets: a row per target (the first REPORT_TARGETS_SHOWN), latencies
 * at the per-target histogram's precision (stats/reqstats.h). */
static void text_targets(FILE *f, const struct report_info *ri, const struct stats *s)
{
    const struct reqstats *r = &s->targets;
    if (r->n < 2 || !ri->target_names)
        return;
    size_t w = 6;
    uint32_t shown = r->n < REPORT_TARGETS_SHOWN ? r->n : REPORT_TARGETS_SHOWN;
    for (uint32_t i = 0; i < shown; i++) {
        size_t k = strlen(ri->target_names[i].method) + 1 + strlen(ri->target_names[i].url);
        if (k > w)
            w = k;
    }
    if (w > 60)
        w = 60;
    fprintf(f, "Targets:\n  %-*s %9s %9s %7s %9s %9s  status codes\n", (int)w, "target", "requests", "ok", "errors",
            "p50 (ms)", "p99 (ms)");
    for (uint32_t i = 0; i < shown; i++) {
        const struct reqstats_target *t = &r->t[i];
        char name[512];
        snprintf(name, sizeof name, "%s %s", ri->target_names[i].method, ri->target_names[i].url);
        fprintf(f, "  %-*s %9" PRIu64 " %9" PRIu64 " %7" PRIu64, (int)w, name, t->e.ok + t->e.errors, t->e.ok,
                t->e.errors);
        if (t->e.ok)
            fprintf(f, " %9.3f %9.3f  ", ns_to_ms((double)tl_percentile(&t->e, 50)),
                    ns_to_ms((double)tl_percentile(&t->e, 99)));
        else
            fprintf(f, " %9s %9s  ", "-", "-");
        text_target_codes(f, t);
        fputc('\n', f);
    }
    if (r->n > shown)
        fprintf(f, "  ... %u more (the JSON report (-j) has every target)\n", r->n - shown);
}

void report_text(FILE *f, const struct report_info *ri, const struct stats *s)
{
    text_run(f, ri, s);
    text_requests(f, ri, s);
    text_interrupted(f, ri);
    text_rate(f, ri, s);
    text_transfer(f, ri, s);
    text_status_codes(f, s);
    text_errors(f, s);
    text_alerts(f, s);
    text_quic(f, s);
    text_latency(f, "Latency", &s->latency);
    if (ri->rate)
        text_latency(f, "Service time", &s->pace.service);
    text_phases(f, s);
    text_targets(f, ri, s);
    text_timeline(f, ri, &s->timeline);
    thresholds_text(f, ri, s);
}

/* ---- JSON -------------------------------------------------------------- */

/* Length of the well-formed UTF-8 sequence starting at s (NUL-terminated),
 * or 0 if it is not one. A JSON document must be valid UTF-8, and a URL from
 * argv can hold any bytes. The NUL terminator fails the continuation test,
 * so this never reads past the string. */
static size_t utf8_sequence_length(const unsigned char *s)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    size_t n = c < 0xc2 ? 0 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : c < 0xf5 ? 4 : 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xf0 && s[1] < 0x90)) /* overlong */
        return 0;
    if ((c == 0xed && s[1] >= 0xa0) || (c == 0xf4 && s[1] >= 0x90)) /* surrogate, > U+10FFFF */
        return 0;
    return n;
}

static void json_escape_control(FILE *f, unsigned char c)
{
    switch (c) {
    case '\b': fputs("\\b", f); break;
    case '\f': fputs("\\f", f); break;
    case '\n': fputs("\\n", f); break;
    case '\r': fputs("\\r", f); break;
    case '\t': fputs("\\t", f); break;
    default: fprintf(f, "\\u%04x", (unsigned)c); break;
    }
}

/* A JSON string literal; bytes that are not UTF-8 become U+FFFD. */
static void json_string(FILE *f, const char *str)
{
    const unsigned char *p = (const unsigned char *)or_empty(str);
    fputc('"', f);
    while (*p) {
        size_t n = utf8_sequence_length(p);
        if (*p == '"' || *p == '\\') {
            fputc('\\', f);
            fputc(*p, f);
        } else if (*p < 0x20) {
            json_escape_control(f, *p);
        } else if (n == 0) {
            fputs("\\ufffd", f);
        } else {
            fwrite(p, 1, n, f);
        }
        p += n ? n : 1;
    }
    fputc('"', f);
}

/* A figure to at most `places` decimals, as a reader wants it (a rate to
 * 0.1, not 19887.306930693068): trailing zeros and a bare point dropped,
 * never "-0"; JSON has no NaN or infinity, so those print as 0. */
#define RATE_PLACES 1  /* every ...PerSec key and the -q rates */
#define RATIO_PLACES 4 /* clientBusy, a fraction of the run */
#define MS_PLACES 6    /* milliseconds to the nanosecond */
static void json_decimal(FILE *f, double v, int places)
{
    char buf[400]; /* %.*f of the largest double: 309 digits, then the decimals */
    if (!isfinite(v))
        v = 0;
    snprintf(buf, sizeof buf, "%.*f", places, v);
    size_t n = strlen(buf);
    if (strchr(buf, '.')) {
        while (buf[n - 1] == '0')
            buf[--n] = '\0';
        if (buf[n - 1] == '.')
            buf[--n] = '\0';
    }
    fputs(strcmp(buf, "-0") == 0 ? "0" : buf, f);
}

/* Nanoseconds as exact decimal seconds with 9 places: 30961 -> 0.000030961. */
static void json_seconds(FILE *f, uint64_t ns)
{
    fprintf(f, "%" PRIu64 ".%09" PRIu64, ns / NS_PER_SEC, ns % NS_PER_SEC);
}

static void json_run(FILE *f, const struct report_info *ri)
{
    if (ri->label) { /* only when given: one unlabelled URL's report is as it always was */
        fputs("  \"label\": ", f);
        json_string(f, ri->label);
        fputs(",\n", f);
    }
    fputs("  \"url\": ", f);
    json_string(f, ri->url);
    if (ri->connected_to) {
        fputs(",\n  \"connectedTo\": ", f);
        json_string(f, ri->connected_to);
    }
    fputs(",\n  \"protocol\": ", f);
    json_string(f, ri->protocol);
    fprintf(f, ",\n  \"threads\": %u,\n  \"connections\": %u,\n", ri->threads, ri->connections);
    if (ri->parallel)
        fprintf(f, "  \"parallel\": %u,\n", ri->parallel);
    fputs("  \"durationSeconds\": ", f);
    json_seconds(f, ri->duration_ns);
    fputs(",\n", f);
    fprintf(f, "  \"interrupted\": %s,\n", ri->interrupted ? "true" : "false");
    if (ri->version) {
        fputs("  \"shbVersion\": ", f);
        json_string(f, ri->version);
        fputs(",\n", f);
    }
}

static void json_requests(FILE *f, const struct report_info *ri, const struct stats *s)
{
    uint64_t total = total_requests(s);
    fprintf(f,
            "  \"requests\": { \"total\": %" PRIu64 ", \"ok\": %" PRIu64 ", \"errors\": %" PRIu64
            ", \"connectErrors\": %" PRIu64 ", \"non2xx\": %" PRIu64 " },\n",
            total, s->ok, stats_errors(s), stats_connect_errors(s), stats_non2xx(s));
    fputs("  \"requestsPerSec\": ", f);
    json_decimal(f, per_second(total, ri->duration_ns), RATE_PLACES);
    fputs(",\n", f);
}

static void json_transfer(FILE *f, const struct report_info *ri, const struct stats *s)
{
    fprintf(f, "  \"bytesReceived\": %" PRIu64 ",\n  \"bytesReceivedPerSec\": ", s->bytes_recv);
    json_decimal(f, per_second(s->bytes_recv, ri->duration_ns), RATE_PLACES);
    fprintf(f, ",\n  \"bytesSent\": %" PRIu64 ",\n  \"bytesSentPerSec\": ", s->bytes_sent);
    json_decimal(f, per_second(s->bytes_sent, ri->duration_ns), RATE_PLACES);
    fputs(",\n", f);
}

/* One-line objects read "{ "a": 1 }" like the spec's, or "{}" when empty. */
static void json_close_inline_object(FILE *f, bool empty)
{
    fputs(empty ? "},\n" : " },\n", f);
}

/* "statusCodes": { "200": 5, "404": 1 } — ascending, non-zero only. */
static void json_status_codes(FILE *f, const struct stats *s)
{
    bool empty = true;
    fputs("  \"statusCodes\": {", f);
    for (unsigned code = 0; code < STATUS_MAX; code++) {
        if (!s->status[code])
            continue;
        fprintf(f, "%s\"%u\": %" PRIu64, empty ? " " : ", ", code, s->status[code]);
        empty = false;
    }
    json_close_inline_object(f, empty);
}

/* Not in the spec's sample: which kinds of error there were, non-zero only. */
static void json_error_kinds(FILE *f, const struct stats *s)
{
    bool empty = true;
    fputs("  \"errorKinds\": {", f);
    for (int k = 0; k < ERR_KINDS; k++) {
        if (!s->errors[k])
            continue;
        fputs(empty ? " " : ", ", f);
        json_string(f, err_kind_name((enum err_kind)k));
        fprintf(f, ": %" PRIu64, s->errors[k]);
        empty = false;
    }
    json_close_inline_object(f, empty);
}

/* "errorDetails": { "connect": { "count": 10, "first": "Connection
 * refused" } }: each kind that occurred, with the first message seen for
 * it ("hint": true after a message that names a likely mistake); {} when
 * there were no errors. */
static void json_error_details(FILE *f, const struct stats *s)
{
    bool empty = true;
    fputs("  \"errorDetails\": {", f);
    for (int k = 0; k < ERR_KINDS; k++) {
        if (!s->errors[k])
            continue;
        fputs(empty ? " " : ", ", f);
        json_string(f, err_kind_name((enum err_kind)k));
        fprintf(f, ": { \"count\": %" PRIu64 ", \"first\": ", s->errors[k]);
        json_string(f, s->why[k]);
        /* Only when the message names a likely mistake (the text's Hint:
         * line): shb merge shows the hint again from it. */
        fputs(s->why_hint[k] ? ", \"hint\": true }" : " }", f);
        empty = false;
    }
    json_close_inline_object(f, empty);
}

/* A joined group or ALPN: NULL (null) when every report had none. */
static const char *unless_none(const char *text)
{
    return strcmp(text, "none") == 0 ? NULL : text;
}

/* "tls": {"version": "TLSv1.3", "cipher": "TLS_AES_128_GCM_SHA256",
 * "group": "x25519", "alpn": "h2", "fallback": false}, what text_tls
 * shows; null when it shows nothing. A merged report whose reports differ
 * joins each field's values (report_tls_joined); the handshake counts are
 * the reports' sums either way. */
static void json_tls(FILE *f, const struct report_info *ri, const struct stats *s)
{
    const struct tls_negotiated *t = &s->tls;
    const struct report_tls_joined *j = tls_joined(ri, s);
    char cipher_buf[8], group_buf[8];
    const char *version, *cipher, *group, *alpn; /* group, alpn: NULL for null */
    bool fallback;
    if (j) {
        version = j->version;
        cipher = j->cipher;
        group = unless_none(j->group);
        alpn = unless_none(j->alpn);
        fallback = j->fallback_any;
    } else if (t->version == 0 || s->tls_mixed) {
        fputs("  \"tls\": null,\n", f);
        return;
    } else {
        version = tls_version_name(t->version) ? tls_version_name(t->version) : "?";
        cipher = iana_text(cipher_buf, sizeof cipher_buf, tls_cipher_name, t->cipher);
        group = t->group ? iana_text(group_buf, sizeof group_buf, tls_group_name, t->group) : NULL;
        alpn = t->alpn[0] ? t->alpn : NULL;
        fallback = t->fallback;
    }
    fputs("  \"tls\": {\"version\": ", f);
    json_string(f, version);
    fputs(", \"cipher\": ", f);
    json_string(f, cipher);
    fputs(", \"group\": ", f);
    if (group)
        json_string(f, group);
    else
        fputs("null", f);
    fputs(", \"alpn\": ", f);
    if (alpn)
        json_string(f, alpn);
    else
        fputs("null", f);
    fprintf(f, ", \"fallback\": %s", fallback ? "true" : "false");
    if (handshakes_shown(s))
        fprintf(f, ", \"handshakes\": {\"full\": %" PRIu64 ", \"resumed\": %" PRIu64 ", \"helloRetries\": %" PRIu64 "}",
                s->handshakes.full, s->handshakes.resumed, s->handshakes.hello_retries);
    if (s->early.on)
        fprintf(f, ", \"earlyData\": {\"sent\": %" PRIu64 ", \"accepted\": %" PRIu64 ", \"resent\": %" PRIu64 "}",
                s->early.sent, s->early.accepted, s->early.resent);
    fputs("},\n", f);
}

/* Only when a TLS alert ended some connection: "tlsAlerts": { "received
 * handshake_failure": 3 }. */
static void json_tls_alerts(FILE *f, const struct stats *s)
{
    if (!any_alerts(s))
        return;
    bool empty = true;
    fputs("  \"tlsAlerts\": {", f);
    for (int a = 0; a < 256; a++) {
        for (int dir = 0; dir < 2; dir++) {
            uint64_t n = dir == 0 ? s->alerts_received[a] : s->alerts_sent[a];
            if (!n)
                continue;
            fputs(empty ? " \"" : ", \"", f);
            fputs(dir == 0 ? "received " : "sent ", f);
            fputs(tls_alert_name(a), f);
            fprintf(f, "\": %" PRIu64, n);
            empty = false;
        }
    }
    json_close_inline_object(f, empty);
}

/* Three to a line, as in the spec; indent: the spaces before the key. */
static void json_percentiles(FILE *f, int indent, const struct hist *h)
{
    fprintf(f, "%*s\"percentiles\": {", indent, "");
    for (size_t i = 0; i < N_PERCENTILES; i++) {
        fprintf(f, "%s%*s", i == 0 ? "\n" : i % 3 == 0 ? ",\n" : ", ", i % 3 == 0 ? indent + 2 : 0, "");
        fprintf(f, "\"p%s\": ", percentiles[i].label);
        json_seconds(f, hist_percentile(h, percentiles[i].p));
    }
    fprintf(f, "\n%*s}", indent, "");
}

/* The whole histogram, lossless: HdrHistogram's compressed V2 encoding in
 * base64 (hdr.h), which `shb merge` and HdrHistogram's own tools read;
 * null only if memory ran out. enc: the report's one encoding buffer.
 * Only with --histograms (or --shard): it is most of a report's bytes,
 * and only merge needs it (the callers get enc NULL without it). */
static void json_hdr(FILE *f, struct hdr_buf *enc, const struct hist *h)
{
    const char *b64 = hdr_encode_base64(enc, h, NULL);
    if (b64)
        fprintf(f, "\"%s\"", b64);
    else
        fputs("null", f);
}

/* A histogram's lines, each starting with indent spaces: min, mean, max
 * and the percentiles. */
static void json_hist(FILE *f, int indent, struct hdr_buf *enc, const struct hist *h)
{
    fprintf(f, "%*s\"min\": ", indent, "");
    json_seconds(f, min_latency_ns(h));
    fprintf(f, ",\n%*s\"mean\": ", indent, "");
    json_seconds(f, (uint64_t)llround(mean_latency_ns(h))); /* to the ns, as every time */
    fprintf(f, ",\n%*s\"max\": ", indent, "");
    json_seconds(f, max_latency_ns(h));
    fputs(",\n", f);
    json_percentiles(f, indent, h);
    if (enc) {
        fprintf(f, ",\n%*s\"histogram\": ", indent, "");
        json_hdr(f, enc, h);
    }
    fputc('\n', f);
}

/* "latencySeconds" (the spec's), or with -q "serviceTimeSeconds" too, in
 * the same shape. Like every key that may end the report, without the
 * comma or newline that follows it. */
static void json_latency(FILE *f, const char *key, struct hdr_buf *enc, const struct hist *h)
{
    if (h->count == 0) { /* nothing answered: no figures, rather than zeros */
        fprintf(f, "  \"%s\": null", key);
        return;
    }
    fprintf(f, "  \"%s\": {\n", key);
    json_hist(f, 4, enc, h);
    fputs("  }", f);
}

/* Not in the spec: "phases", after the latency keys (the timeline follows), one object per
 * phase that occurred (latencySeconds' shape plus a count); absent when
 * none did, so the spec's report stays as it is. */
static void json_phases(FILE *f, struct hdr_buf *enc, const struct stats *s)
{
    if (!any_phase(s))
        return;
    fputs(",\n  \"phases\": {", f);
    bool first = true;
    for (size_t i = 0; i < N_PHASES; i++) {
        const struct hist *h = phase_hist(s, i);
        if (!h->count)
            continue;
        fprintf(f, "%s\n    \"%s\": {\n      \"count\": %" PRIu64 ",\n", first ? "" : ",", phases[i].key, h->count);
        json_hist(f, 6, enc, h);
        fputs("    }", f);
        first = false;
    }
    fputs("\n  }", f);
}

/* Only with -q: "rate" and "scheduleLag". */
static void json_rate(FILE *f, const struct report_info *ri, struct hdr_buf *enc, const struct stats *s)
{
    if (!ri->rate)
        return;
    const struct pace_stats *p = &s->pace;
    fputs("  \"rate\": {\"requested\": ", f);
    json_decimal(f, rate_requested(ri), RATE_PLACES);
    fputs(", \"achieved\": ", f);
    json_decimal(f, rate_achieved(ri, p), RATE_PLACES);
    if (ri->rate->ramp_ns) {
        fputs(", \"from\": ", f);
        json_decimal(f, ri->rate->from, RATE_PLACES);
        fputs(", \"to\": ", f);
        json_decimal(f, ri->rate->to, RATE_PLACES);
    }
    fprintf(f, ", \"sent\": %" PRIu64 ", \"clientBusy\": ", p->sent);
    json_decimal(f, ri->client_busy, RATIO_PLACES);
    fprintf(f, ", \"clientSaturated\": %s},\n", ri->client_busy >= CLIENT_SATURATED ? "true" : "false");
    fprintf(f, "  \"scheduleLag\": {\"late\": %" PRIu64 ", \"lateAfterSeconds\": ", p->late);
    json_seconds(f, PACE_LATE_NS);
    fprintf(f, ", \"responses\": %" PRIu64 ", \"unsent\": %" PRIu64, p->lag.count, p->unsent);
    if (p->lag.count == 0) { /* nothing answered: no figures, rather than zeros (as latencySeconds) */
        fputs(", \"p50\": null, \"p99\": null, \"max\": null", f);
    } else {
        fputs(", \"p50\": ", f);
        json_seconds(f, hist_percentile(&p->lag, 50));
        fputs(", \"p99\": ", f);
        json_seconds(f, hist_percentile(&p->lag, 99));
        fputs(", \"max\": ", f);
        json_seconds(f, max_latency_ns(&p->lag));
    }
    if (enc) {
        fputs(", \"histogram\": ", f);
        json_hdr(f, enc, &p->lag);
    }
    fputs("},\n", f);
}

/* The JSON keys of the counters of group g (quic_counters), on one line:
 * "\n    \"key\": N, \"key\": N" (each after a comma unless first). */
static void json_quic_counters(FILE *f, const struct quic_stats *q, enum quic_counter_group g, bool first)
{
    bool line = false;
    for (size_t i = 0; i < quic_ncounters; i++) {
        const struct quic_counter *c = &quic_counters[i];
        if (c->group != g)
            continue;
        fputs(line ? ", " : first ? "\n    " : ",\n    ", f);
        line = true;
        fprintf(f, "\"%s\": %" PRIu64, c->key, quic_counter_get(q, c));
    }
}

static void json_quic(FILE *f, const struct stats *s)
{
    const struct quic_stats *q = &s->quic;
    if (!q->quic)
        return;
    fputs("  \"quic\": {", f);
    json_quic_counters(f, q, QC_PACKETS, true);
    json_quic_counters(f, q, QC_DATAGRAMS, false);
    fputs(", \"datagramsPerSend\": ", f);
    json_decimal(f, datagrams_per_send(q), 2); /* as the text shows it */
    fputs(",\n    \"handshakeRttMinMs\": ", f);
    json_decimal(f, ns_to_ms((double)min_latency_ns(&q->handshake)), MS_PLACES);
    fputs(", \"handshakeRttMedianMs\": ", f);
    json_decimal(f, ns_to_ms((double)hist_percentile(&q->handshake, 50)), MS_PLACES);
    json_quic_counters(f, q, QC_EVENTS, false);
    /* "connectionCloses": {"server H3_NO_ERROR": 3, "shb PROTOCOL_VIOLATION": 1} */
    fputs(",\n    \"connectionCloses\": {", f);
    for (unsigned i = 0; i < q->n_closes; i++) {
        char name[64], key[80];
        report_close_name(name, sizeof name, &q->closes[i]);
        snprintf(key, sizeof key, "%s %s", q->closes[i].by_server ? "server" : "shb", name);
        fputs(i ? ", " : "", f);
        json_string(f, key);
        fprintf(f, ": %" PRIu64, q->closes[i].count);
    }
    if (q->closes_other > 0)
        fprintf(f, "%s\"other\": %" PRIu64, q->n_closes ? ", " : "", q->closes_other);
    fputs("}\n  },\n", f);
}

/* A timeline entry's ", \"histogram\": ..." (the only place that writes
 * one): its latencies at the timeline's resolution (timeline.h), in the
 * encoding of the report's other histograms, what `shb merge` adds up
 * second by second. scratch: an empty histogram (NULL: out of memory, the
 * value is null), left empty again; enc is reused from entry to entry, so
 * a long run's timeline allocates nothing per entry. */
static void json_timeline_histogram(FILE *f, struct hdr_buf *enc, struct hist *scratch, const struct tl_entry *e)
{
    if (!enc)
        return; /* without --histograms */
    fputs(", \"histogram\": ", f);
    if (!scratch) {
        fputs("null", f);
        return;
    }
    tl_entry_to_hist(e, scratch);
    json_hdr(f, enc, scratch);
    tl_hist_clear(e, scratch);
}

/* After the spec's keys: "timeline": one object per entry of the measured
 * window, the last one as long as what was left of it; absent when nothing
 * ended (as for an empty run). */
static void json_timeline(FILE *f, const struct report_info *ri, struct hdr_buf *enc, const struct timeline *t)
{
    if (tl_empty(t))
        return;
    struct hist scratch = { 0 };
    bool hists = enc && hist_init(&scratch) == 0; /* only to encode the entries' histograms */
    fputs(",\n  \"timeline\": [", f);
    for (uint32_t i = 0; i < t->n; i++) {
        const struct tl_entry *e = &t->e[i];
        fputs(i ? ",\n    {\"start\": " : "\n    {\"start\": ", f);
        json_seconds(f, (uint64_t)i * tl_width_ns(t));
        fputs(", \"seconds\": ", f);
        json_seconds(f, tl_entry_ns(ri, t, i));
        fprintf(f, ", \"ok\": %" PRIu64 ", \"errors\": %" PRIu64 ", \"bytesReceived\": %" PRIu64 ", \"p50\": ", e->ok,
                e->errors, e->bytes_recv);
        json_seconds(f, tl_percentile(e, 50));
        fputs(", \"p99\": ", f);
        json_seconds(f, tl_percentile(e, 99));
        json_timeline_histogram(f, enc, hists ? &scratch : NULL, e);
        fputc('}', f);
    }
    fputs("\n  ]", f);
    hist_free(&scratch);
}

/* "targets": each target of --targets' list, in the file's order: its
 * requests, ok, errors, p50 and p99 (at the per-target histogram's
 * precision), status codes ("other": those beyond REQSTATS_CODES
 * distinct ones), and with --histograms its latencies (the timeline's
 * resolution, encoded as the timeline's), what `shb merge` adds up. */
static void json_targets(FILE *f, const struct report_info *ri, struct hdr_buf *enc, const struct stats *s)
{
    const struct reqstats *r = &s->targets;
    if (r->n < 2 || !ri->target_names)
        return;
    struct hist scratch = { 0 };
    bool hists = enc && hist_init(&scratch) == 0;
    fputs(",\n  \"targets\": [", f);
    for (uint32_t i = 0; i < r->n; i++) {
        const struct reqstats_target *t = &r->t[i];
        fputs(i ? ",\n    {\"method\": " : "\n    {\"method\": ", f);
        json_string(f, ri->target_names[i].method);
        fputs(", \"url\": ", f);
        json_string(f, ri->target_names[i].url);
        fprintf(f, ", \"requests\": %" PRIu64 ", \"ok\": %" PRIu64 ", \"errors\": %" PRIu64 ", \"latency\": ",
                t->e.ok + t->e.errors, t->e.ok, t->e.errors);
        if (t->e.ok) {
            fputs("{\"p50\": ", f);
            json_seconds(f, tl_percentile(&t->e, 50));
            fputs(", \"p99\": ", f);
            json_seconds(f, tl_percentile(&t->e, 99));
            fputc('}', f);
        } else {
            fputs("null", f);
        }
        fputs(", \"status\": {", f);
        for (unsigned c = 0; c < REQSTATS_CODES && t->code[c]; c++)
            fprintf(f, "%s\"%u\": %" PRIu64, c ? ", " : "", t->code[c], t->code_count[c]);
        if (t->code_other)
            fprintf(f, "%s\"other\": %" PRIu64, t->code[0] ? ", " : "", t->code_other);
        fputc('}', f);
        json_timeline_histogram(f, enc, hists ? &scratch : NULL, &t->e);
        fputc('}', f);
    }
    fputs("\n  ]", f);
    hist_free(&scratch);
}

/* "thresholds": each --fail-if expression, the report's figure in the
 * limit's terms (seconds for a latency, a percentage, a count, requests
 * per second; null when no response was there to measure) and whether it
 * failed. Absent without --fail-if. */
static void json_thresholds(FILE *f, const struct report_info *ri, const struct stats *s)
{
    if (!ri->nthresholds)
        return;
    fputs(",\n  \"thresholds\": [", f);
    for (size_t i = 0; i < ri->nthresholds; i++) {
        const struct threshold *t = &ri->thresholds[i];
        struct threshold_verdict v;
        threshold_judge(t, ri, s, &v);
        fputs(i ? ",\n    {\"expression\": " : "\n    {\"expression\": ", f);
        json_string(f, t->text);
        fputs(", \"value\": ", f);
        if (v.no_data)
            fputs("null", f);
        else if (t->latency)
            json_seconds(f, (uint64_t)v.value);
        else
            json_decimal(f, v.value, t->metric == TH_RPS ? RATE_PLACES : RATIO_PLACES);
        fprintf(f, ", \"failed\": %s}", v.failed ? "true" : "false");
    }
    fputs("\n  ]", f);
}

void report_json_object(FILE *f, const struct report_info *ri, const struct stats *s)
{
    fputs("{\n", f);
    json_run(f, ri);
    json_requests(f, ri, s);
    json_transfer(f, ri, s);
    json_status_codes(f, s);
    json_error_kinds(f, s);
    json_error_details(f, s);
    fprintf(f, "  \"inFlight\": %" PRIu64 ",\n", s->in_flight);
    fprintf(f, "  \"connectionsOpened\": %" PRIu64 ",\n", s->connections_opened);
    if (ri->proxy) {
        fputs("  \"proxy\": {\"url\": ", f);
        json_string(f, ri->proxy);
        fprintf(f, ", \"tunnels\": %" PRIu64 "},\n", s->proxy_tunnels);
    }
    json_tls(f, ri, s);
    /* The wall-clock window, to the ns (a double would keep only µs), and
     * which shard of the run this is: what shards' reports line up by. */
    uint64_t end_wall = ri->start_wall_ns + ri->duration_ns;
    fprintf(f, "  \"startTime\": %" PRIu64 ".%09" PRIu64 ", \"endTime\": %" PRIu64 ".%09" PRIu64 ",\n",
            ri->start_wall_ns / NS_PER_SEC, ri->start_wall_ns % NS_PER_SEC, end_wall / NS_PER_SEC, end_wall % NS_PER_SEC);
    fprintf(f, "  \"shard\": {\"index\": %u, \"count\": %u},\n", ri->shard_index, ri->shard_count);
    if (ri->merged) {
        const struct report_merged *m = ri->merged;
        fprintf(f, "  \"merged\": {\"reports\": %u, \"shardCount\": %u, \"shards\": [", m->reports, m->shard_count);
        for (unsigned i = 0; i < m->n_shards; i++)
            fprintf(f, "%s%" PRIu32, i ? ", " : "", m->shards[i]);
        fprintf(f, "], \"complete\": %s, \"shardTwice\": %s},\n",
                m->shard_count && m->n_shards == m->shard_count ? "true" : "false", m->shard_twice ? "true" : "false");
    }
    if (ri->warmup_ns) {
        fputs("  \"warmup\": {\"durationSeconds\": ", f);
        json_seconds(f, ri->warmup_ns);
        fprintf(f,
                ", \"requests\": %" PRIu64 ", \"ok\": %" PRIu64 ", \"errors\": %" PRIu64
                ", \"bytesReceived\": %" PRIu64 ", \"bytesSent\": %" PRIu64 "},\n",
                s->warmup.ok + s->warmup.errors, s->warmup.ok, s->warmup.errors, s->warmup.bytes_recv,
                s->warmup.bytes_sent);
    }
    /* Every histogram's encoding, one after another; none without --histograms. */
    struct hdr_buf buf = { 0 };
    struct hdr_buf *enc = ri->histograms ? &buf : NULL;
    json_rate(f, ri, enc, s);
    json_tls_alerts(f, s);
    json_quic(f, s);
    json_latency(f, "latencySeconds", enc, &s->latency);
    if (ri->rate) {
        fputs(",\n", f);
        json_latency(f, "serviceTimeSeconds", enc, &s->pace.service);
    }
    json_phases(f, enc, s);
    json_timeline(f, ri, enc, &s->timeline);
    json_targets(f, ri, enc, s);
    json_thresholds(f, ri, s);
    hdr_buf_free(&buf);
    fputs("\n", f);
    fputs("}", f);
}

void report_json(FILE *f, const struct report_info *ri, const struct stats *s)
{
    report_json_object(f, ri, s);
    fputc('\n', f);
}

/* ---- a summary, for the comparison of several targets ------------------ */

void report_summary(const struct report_info *ri, const struct stats *s, struct report_summary *out)
{
    out->requests_per_sec = per_second(total_requests(s), ri->duration_ns);
    out->p50_ns = hist_percentile(&s->latency, 50);
    out->p99_ns = hist_percentile(&s->latency, 99);
    out->errors = stats_errors(s);
    out->no_responses = s->latency.count == 0;
}
