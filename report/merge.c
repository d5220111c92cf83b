/* merge.c — `shb merge` (merge.h): reports read back into struct stats,
 * merged with stats_merge, printed by report.c like any run's.
 *
 * What a report carries exactly is merged exactly: counts and bytes are
 * integers; each histogram comes back bucket for bucket from its
 * HdrHistogram encoding, with its exact min and max (and its sum from the
 * mean) from the keys beside it. The window is the union of the reports'
 * [startTime, endTime]: N shards of a 10 s run make a 10 s report, and
 * two runs an hour apart make one of an hour and their rates say so. The
 * timeline is merged second by second: each report's entries are laid on
 * the union window by when they began, their counts summed and their
 * latencies (each entry's histogram, at the timeline's resolution) added.
 *
 * Every file is read and parsed before any report is merged: where a
 * report's timeline lands depends on the earliest start of them all. */
#include "report/merge.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/reqlist.h"
#include "report/hdr.h"
#include "report/json.h"
#include "report/json_file.h"
#include "report/report.h"
#include "report/thresholds.h"
#include "stats/stats.h"
#include "tls13/conn.h"

#define NS_PER_SEC 1000000000ull

struct merged_run;
struct reader;
static void get_targets(struct reader *rd, const struct json *r, struct stats *s, struct merged_run *m,
                        bool first);
static char *joined(char *have, const char *add);

/* A string the merged report shows only when every report has the same
 * one: the address connected to, the proxy gone through. Reports that
 * differ (or where one lacks it) leave it out, rather than claim for all
 * what was true of some. */
struct agreed {
    char *text;  /* the common value; NULL: none (yet, or any more) */
    bool differ; /* some report's value differs or is missing */
};

/* The first report's identity, what every other is checked against, and
 * the figures report_info takes from all of them. */
struct merged_run {
    bool force;
    char first_name[4096];      /* the first report's file (and [index] in an array) */
    unsigned extra_reports;     /* reports that merged reports among the input were made of, less one each */
    char *url, *protocol;       /* the first report's; several, joined, under --force */
    struct agreed connected_to; /* connectedTo (--connect-to, --resolve) */
    struct agreed proxy;        /* proxy.url (-x, the environment) */
    struct agreed version;      /* shbVersion: the shb that made the runs */
    /* tls: each field's values across the reports, joined, shown when
     * they differ (report_tls_joined); seen: some report had a handshake. */
    struct {
        char *version, *cipher, *group, *alpn;
        bool fallback_any, fallback_all, seen;
    } tls;
    struct report_tls_joined tls_joined;
    unsigned parallel;          /* -p when every report has the same, else 0 */
    bool paced;                 /* -q: the open model */
    bool ramp;
    unsigned threads, connections;
    uint64_t start_ns, end_ns;  /* the union window, Unix ns */
    uint64_t anchor_ns;         /* the earliest startTime: where the merged timeline begins */
    struct hist scratch;        /* a timeline entry's histogram, decoded */
    uint64_t warmup_ns;
    double client_busy;
    bool interrupted;           /* some report's run was stopped by a signal */
    struct pace_rate rate;      /* summed; ramp_ns only marks a ramp */
    struct report_merged info;
    uint32_t *shards;           /* indexes seen (sorted at the end) */
    size_t n_shards, cap_shards;
    /* --targets: the first report's list (method and url of each); every
     * other report must have the same, or the table is left out with a
     * note (targets_dropped says why). */
    struct report_target_name *tnames;
    uint32_t ntnames;
    const char *targets_dropped;
};

/* One report being read: where, and the first problem found. */
struct reader {
    const char *name; /* "FILE" or "FILE[2]" for an array's element */
    char *err;
    size_t errlen;
    bool failed;
};

/* The first failure's line: "NAME: " (when named) and the message. */
static void failed(struct reader *rd, bool named, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void failed(struct reader *rd, bool named, const char *fmt, ...)
{
    if (rd->failed)
        return;
    rd->failed = true;
    int n = named ? snprintf(rd->err, rd->errlen, "%s: ", rd->name) : 0;
    if (n >= 0 && (size_t)n < rd->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(rd->err + n, rd->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
}

/* Something wrong with this report: the line names it first. */
#define bad(rd, ...) failed(rd, true, __VA_ARGS__)
/* Two reports that do not go together: the message names both itself. */
#define clash(rd, ...) failed(rd, false, __VA_ARGS__)

static uint64_t get_u64(struct reader *rd, const struct json *obj, const char *what, const char *key)
{
    uint64_t v = 0;
    if (json_to_u64(json_get(obj, key), &v) < 0)
        bad(rd, "%s%s is missing or not a whole number", what, key);
    return v;
}

static uint64_t get_ns(struct reader *rd, const struct json *obj, const char *what, const char *key)
{
    uint64_t v = 0;
    if (json_to_ns(json_get(obj, key), &v) < 0)
        bad(rd, "%s%s is missing or not a number of seconds", what, key);
    return v;
}

static double get_double(struct reader *rd, const struct json *obj, const char *what, const char *key)
{
    double v = 0;
    if (json_to_double(json_get(obj, key), &v) < 0 || !isfinite(v) || v < 0)
        bad(rd, "%s%s is missing or not a number", what, key);
    return v;
}

static const struct json *get_object(struct reader *rd, const struct json *obj, const char *key)
{
    const struct json *v = json_get(obj, key);
    if (!v || v->type != JSON_OBJECT) {
        bad(rd, "%s is missing or not an object", key);
        return NULL;
    }
    return v;
}

/* The lowest value a bucket holds (for a histogram whose min the report
 * does not print: the schedule lag's). */
static uint64_t lowest_recorded(const struct hist *h)
{
    for (size_t i = 0; i < HIST_BUCKETS; i++)
        if (h->counts[i])
            return hist_bucket_lowest(i);
    return UINT64_MAX;
}

/* obj's "histogram" into h (fresh from hist_init), with min, max and the
 * sum from obj's "min", "mean" and "max" seconds where it has them. */
static void get_hist(struct reader *rd, const struct json *obj, const char *what, struct hist *h)
{
    if (obj && obj->type == JSON_NULL)
        return; /* a latency object of a run where nothing answered: no samples */
    const struct json *b64 = json_get(obj, "histogram");
    if (!b64 || b64->type != JSON_STRING) {
        bad(rd, "%s has no histogram: its percentiles cannot be merged exactly", what);
        return;
    }
    char why[160];
    if (hdr_decode_base64_add(b64->text, b64->len, h, why, sizeof why) < 0) {
        bad(rd, "%s.histogram: %s", what, why);
        return;
    }
    if (h->count == 0)
        return;
    char at[64];
    snprintf(at, sizeof at, "%s.", what);
    h->max = get_ns(rd, obj, at, "max");
    h->min = json_get(obj, "min") ? get_ns(rd, obj, at, "min") : lowest_recorded(h);
    if (json_get(obj, "mean"))
        h->sum = get_double(rd, obj, at, "mean") * 1e9 * (double)h->count;
    else
        h->sum = 0; /* the schedule lag: no mean is printed from it */
}

/* An entry's histogram (a timeline entry's, a target's: the timeline's
 * resolution) decoded from b64 into e's buckets, through scratch (left
 * empty); it must hold e->ok latencies. 0, or -1 with rd failed. */
static int entry_hist(struct reader *rd, const struct json *b64, const char *what, struct tl_entry *e,
                      struct hist *scratch)
{
    char why[160];
    if (hdr_decode_base64_add(b64->text, b64->len, scratch, why, sizeof why) < 0) {
        bad(rd, "%shistogram: %s", what, why);
        return -1;
    }
    uint64_t counted = scratch->count;
    tl_entry_add_hist(e, scratch); /* empties scratch */
    if (counted != e->ok) {
        bad(rd, "%shistogram holds %llu latencies, but ok is %llu", what, (unsigned long long)counted,
            (unsigned long long)e->ok);
        return -1;
    }
    return 0;
}

/* The report's timeline, laid on the merged one: an entry that began
 * offset_ns + its "start" after the earliest report's start joins the
 * merged entry holding that instant, so shards begun together line up
 * second for second and runs apart keep their distance. The entries'
 * length (2^k seconds: timeline.h) is read off their starts. */
static void get_timeline(struct reader *rd, const struct json *r, struct stats *s, struct merged_run *m,
                         uint64_t offset_ns)
{
    const struct json *tl = json_get(r, "timeline");
    if (!tl)
        return; /* an empty run has none */
    if (tl->type != JSON_ARRAY) {
        bad(rd, "timeline is not an array");
        return;
    }
    unsigned shift = 0;
    if (tl->child && tl->child->next) {
        uint64_t second = get_ns(rd, tl->child->next, "timeline[1].", "start");
        while (shift < 20 && (NS_PER_SEC << shift) < second)
            shift++;
        if (!rd->failed && (NS_PER_SEC << shift) != second) {
            bad(rd, "timeline[1].start is not a power of two seconds: not a timeline shb wrote");
            return;
        }
    }
    unsigned k = 0;
    for (const struct json *e = tl->child; e && !rd->failed; e = e->next, k++) {
        char what[48];
        snprintf(what, sizeof what, "timeline[%u].", k);
        struct tl_entry entry;
        memset(&entry, 0, sizeof entry);
        uint64_t start = get_ns(rd, e, what, "start");
        entry.ok = get_u64(rd, e, what, "ok");
        entry.errors = get_u64(rd, e, what, "errors");
        entry.bytes_recv = get_u64(rd, e, what, "bytesReceived");
        if (rd->failed)
            return;
        if (start != ((uint64_t)k * NS_PER_SEC) << shift) {
            bad(rd, "%sstart is not %u times the entries' length", what, k);
            return;
        }
        const struct json *b64 = json_get(e, "histogram");
        if (!b64 || b64->type != JSON_STRING) {
            bad(rd, "%shistogram is missing: the timeline's latencies cannot be merged", what);
            return;
        }
        if (entry_hist(rd, b64, what, &entry, &m->scratch) < 0)
            return;
        tl_add_at(&s->timeline, offset_ns + start, shift, &entry);
    }
}

static int alert_number(const char *name)
{
    for (int a = 0; a < 256; a++)
        if (strcmp(tls_alert_name(a), name) == 0)
            return a;
    return -1;
}

static void get_alerts(struct reader *rd, const struct json *r, struct stats *s)
{
    const struct json *alerts = json_get(r, "tlsAlerts");
    if (!alerts)
        return;
    for (const struct json *m = alerts->type == JSON_OBJECT ? alerts->child : NULL; m; m = m->next) {
        bool received = strncmp(m->key, "received ", 9) == 0;
        const char *name = received ? m->key + 9 : strncmp(m->key, "sent ", 5) == 0 ? m->key + 5 : NULL;
        int a = name ? alert_number(name) : -1;
        uint64_t n = 0;
        if (a < 0 || json_to_u64(m, &n) < 0) {
            bad(rd, "tlsAlerts: \"%s\" is not an alert count", m->key);
            return;
        }
        (received ? s->alerts_received : s->alerts_sent)[a] += n;
    }
}

/* A name report.c printed back to its number: the name a lookup gives, or
 * "0x" and four hex digits for one it has no name for. -1: neither. */
static int tls_number(const char *text, const char *(*name_of)(uint16_t))
{
    for (unsigned v = 0; v <= 0xffff; v++) {
        const char *n = name_of((uint16_t)v);
        if (n && strcmp(n, text) == 0)
            return (int)v;
    }
    char *end;
    errno = 0;
    unsigned long v = strncmp(text, "0x", 2) == 0 ? strtoul(text + 2, &end, 16) : ULONG_MAX;
    return v <= 0xffff && !errno && end == text + 6 && *end == '\0' ? (int)v : -1;
}

/* "handshakes" (--tls-resume, or some HelloRetryRequest): {"full": N,
 * "resumed": M, "helloRetries": R}, added across the reports by
 * stats_merge; a report without helloRetries counts none. */
static void get_handshakes(struct reader *rd, const struct json *h, struct stats *s)
{
    if (!h)
        return;
    if (h->type != JSON_OBJECT) {
        bad(rd, "tls.handshakes is not an object");
        return;
    }
    s->handshakes.full = get_u64(rd, h, "tls.handshakes.", "full");
    s->handshakes.resumed = get_u64(rd, h, "tls.handshakes.", "resumed");
    if (json_get(h, "helloRetries"))
        s->handshakes.hello_retries = get_u64(rd, h, "tls.handshakes.", "helloRetries");
    s->handshakes.on = true;
}

/* "earlyData" (--early-data): {"sent": N, "accepted": A, "resent": R},
 * added across the reports by stats_merge. */
static void get_early_data(struct reader *rd, const struct json *e, struct stats *s)
{
    if (!e)
        return;
    if (e->type != JSON_OBJECT) {
        bad(rd, "tls.earlyData is not an object");
        return;
    }
    s->early.sent = get_u64(rd, e, "tls.earlyData.", "sent");
    s->early.accepted = get_u64(rd, e, "tls.earlyData.", "accepted");
    s->early.resent = get_u64(rd, e, "tls.earlyData.", "resent");
    s->early.on = true;
}

/* A TLS field's text, piece by piece (" + " joins the values of a merged
 * report whose reports differed): each must be one shb prints. */
enum tls_field { TLS_VERSION, TLS_CIPHER, TLS_GROUP, TLS_ALPN };

static bool tls_piece_ok(enum tls_field f, const char *piece)
{
    switch (f) {
    case TLS_VERSION:
        return tls_number(piece, tls_version_name) > 0;
    case TLS_CIPHER:
        return tls_number(piece, tls_cipher_name) >= 0;
    case TLS_GROUP:
        return strcmp(piece, "none") == 0 || tls_number(piece, tls_group_name) >= 0;
    case TLS_ALPN:
        /* shb offers h2, http/1.1 and h3 only (RFC 7301 §3.2: the server
         * picks one of those), so printable ASCII that fits. Anything
         * else would not survive a merge of the merge: the JSON writer
         * turns a byte that is not UTF-8 into \ufffd, three bytes. */
        if (!piece[0] || strlen(piece) >= TLS_ALPN_NAME_MAX)
            return false;
        for (const char *c = piece; *c; c++)
            if (*c < 0x21 || *c > 0x7e)
                return false;
        return true;
    }
    return false;
}

/* Each piece of text checked, and added to *have (once: joined() keeps
 * the first-seen order). -1: a piece is not a value; -2: out of memory. */
static int tls_join(char **have, enum tls_field f, const char *text)
{
    for (const char *p = text;;) {
        const char *end = strstr(p, " + ");
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char piece[256];
        if (n >= sizeof piece)
            return -1;
        memcpy(piece, p, n);
        piece[n] = '\0';
        if (!tls_piece_ok(f, piece))
            return -1;
        char *next = *have ? joined(*have, piece) : strdup(piece);
        if (!next)
            return -2;
        *have = next;
        if (!end)
            return 0;
        p = end + 3;
    }
}

/* A string member's text, "none" for null (group, ALPN); NULL: neither,
 * or a string with a NUL inside. */
static const char *tls_text(const struct json *v, bool null_ok)
{
    if (v && v->type == JSON_NULL && null_ok)
        return "none";
    return v && v->type == JSON_STRING && strlen(v->text) == v->len ? v->text : NULL;
}

/* "tls": what the first handshake settled on, or null (none completed).
 * Each field's value goes into m->tls too, for a merged report whose
 * reports differ; a report merge made of such reports has each field's
 * values joined already (s->tls_mixed). */
static void get_tls(struct reader *rd, const struct json *r, struct stats *s, struct merged_run *m)
{
    const struct json *t = json_get(r, "tls");
    if (!t || t->type == JSON_NULL)
        return;
    const struct json *fallback = t->type == JSON_OBJECT ? json_get(t, "fallback") : NULL;
    const char *text[4] = { NULL };
    if (t->type == JSON_OBJECT) {
        text[TLS_VERSION] = tls_text(json_get(t, "version"), false);
        text[TLS_CIPHER] = tls_text(json_get(t, "cipher"), false);
        text[TLS_GROUP] = tls_text(json_get(t, "group"), true);
        text[TLS_ALPN] = tls_text(json_get(t, "alpn"), true);
    }
    char **have[4] = { &m->tls.version, &m->tls.cipher, &m->tls.group, &m->tls.alpn };
    int rc = fallback && (fallback->type == JSON_TRUE || fallback->type == JSON_FALSE) ? 0 : -1;
    for (int f = 0; f < 4 && rc == 0; f++)
        rc = text[f] ? tls_join(have[f], (enum tls_field)f, text[f]) : -1;
    if (rc == -2) {
        bad(rd, "out of memory");
        return;
    }
    if (rc < 0) {
        bad(rd, "tls is not what shb reports of a handshake");
        return;
    }
    bool fell_back = fallback->type == JSON_TRUE;
    m->tls.fallback_all = m->tls.seen ? m->tls.fallback_all && fell_back : fell_back;
    m->tls.fallback_any |= fell_back;
    m->tls.seen = true;
    bool several = false;
    for (int f = 0; f < 4; f++)
        several |= strstr(text[f], " + ") != NULL;
    if (several) {
        s->tls_mixed = true; /* a merge of reports that differed: no one answer */
    } else {
        s->tls.version = (uint16_t)tls_number(text[TLS_VERSION], tls_version_name);
        s->tls.cipher = (uint16_t)tls_number(text[TLS_CIPHER], tls_cipher_name);
        s->tls.group = strcmp(text[TLS_GROUP], "none") == 0 ? 0 : (uint16_t)tls_number(text[TLS_GROUP], tls_group_name);
        s->tls.fallback = fell_back;
        tls_negotiated_alpn(&s->tls, strcmp(text[TLS_ALPN], "none") == 0 ? "" : text[TLS_ALPN]);
    }
    get_handshakes(rd, json_get(t, "handshakes"), s);
    get_early_data(rd, json_get(t, "earlyData"), s);
}

static bool same_tls(const struct tls_negotiated *a, const struct tls_negotiated *b)
{
    return a->version == b->version && a->cipher == b->cipher && a->group == b->group &&
           a->fallback == b->fallback && strcmp(a->alpn, b->alpn) == 0;
}

/* "server H3_NO_ERROR", "shb CRYPTO_ERROR handshake_failure", "server
 * application 0x1f": the close report_close_name printed. */
static bool close_from_key(const char *key, struct quic_close_count *k)
{
    k->by_server = strncmp(key, "server ", 7) == 0;
    if (!k->by_server && strncmp(key, "shb ", 4) != 0)
        return false;
    const char *name = key + (k->by_server ? 7 : 4);
    for (int app = 0; app < 2; app++) {
        k->app = app;
        for (k->code = 0; k->code < 0x400; k->code++) {
            char printed[64];
            report_close_name(printed, sizeof printed, k);
            if (strcmp(printed, name) == 0)
                return true;
        }
    }
    /* Codes with no name print in hex; any of them may come back. */
    k->app = strncmp(name, "application ", 12) == 0;
    const char *hex = name + (k->app ? 12 : 0);
    char *end;
    errno = 0;
    unsigned long long code = strncmp(hex, "0x", 2) == 0 ? strtoull(hex + 2, &end, 16) : 0;
    if (strncmp(hex, "0x", 2) != 0 || errno || end == hex + 2 || *end)
        return false;
    k->code = code;
    return true;
}

static void get_quic(struct reader *rd, const struct json *r, struct stats *s)
{
    const struct json *q = json_get(r, "quic");
    if (!q)
        return;
    struct quic_stats *o = &s->quic;
    o->quic = true;
    /* Every counter the report has (sends too: datagramsPerSend's divisor). */
    for (size_t i = 0; i < quic_ncounters; i++)
        if (quic_counters[i].group != QC_TEST)
            *quic_counter_at(o, &quic_counters[i]) = get_u64(rd, q, "quic.", quic_counters[i].key);
    const struct json *closes = json_get(q, "connectionCloses");
    for (const struct json *m = closes && closes->type == JSON_OBJECT ? closes->child : NULL; m; m = m->next) {
        uint64_t n = 0;
        struct quic_close_count k = { 0 };
        if (json_to_u64(m, &n) < 0) {
            bad(rd, "quic.connectionCloses: \"%s\" is not a count", m->key);
            return;
        }
        if (strcmp(m->key, "other") == 0)
            o->closes_other += n;
        else if (close_from_key(m->key, &k))
            stats_quic_close(s, k.by_server, k.app, k.code, n);
        else {
            bad(rd, "quic.connectionCloses: \"%s\" is not a close shb reports", m->key);
            return;
        }
    }
}

static void get_phases(struct reader *rd, const struct json *r, struct stats *s)
{
    const struct json *phases = json_get(r, "phases");
    for (const struct json *m = phases && phases->type == JSON_OBJECT ? phases->child : NULL; m; m = m->next) {
        size_t i = 0;
        while (i < REPORT_PHASES && strcmp(report_phase_key(i), m->key) != 0)
            i++;
        if (i == REPORT_PHASES) {
            bad(rd, "phases: \"%s\" is not a phase this shb knows", m->key);
            return;
        }
        char what[64];
        snprintf(what, sizeof what, "phases.%s", m->key);
        get_hist(rd, m, what, report_phase_hist(s, i));
    }
}

/* The statusCodes and errorKinds objects; they must add up to the
 * requests' ok and errors, as every report's do. */
static void get_outcomes(struct reader *rd, const struct json *r, struct stats *s)
{
    const struct json *req = get_object(rd, r, "requests");
    const struct json *codes = get_object(rd, r, "statusCodes");
    const struct json *kinds = get_object(rd, r, "errorKinds");
    if (!req || !codes || !kinds)
        return;
    s->ok = get_u64(rd, req, "requests.", "ok");
    uint64_t errors = get_u64(rd, req, "requests.", "errors"), ok_sum = 0, err_sum = 0;
    for (const struct json *m = codes->child; m; m = m->next) {
        char *end;
        errno = 0;
        unsigned long code = strtoul(m->key, &end, 10);
        uint64_t n = 0;
        if (errno || end == m->key || *end || code >= STATUS_MAX || json_to_u64(m, &n) < 0) {
            bad(rd, "statusCodes: \"%s\" is not a status code's count", m->key);
            return;
        }
        s->status[code] += n;
        ok_sum += n;
    }
    for (const struct json *m = kinds->child; m; m = m->next) {
        int k = 0;
        while (k < ERR_KINDS && strcmp(err_kind_name((enum err_kind)k), m->key) != 0)
            k++;
        uint64_t n = 0;
        if (k == ERR_KINDS || json_to_u64(m, &n) < 0) {
            bad(rd, "errorKinds: \"%s\" is not an error kind shb counts", m->key);
            return;
        }
        s->errors[k] += n;
        err_sum += n;
    }
    if (!rd->failed && (ok_sum != s->ok || err_sum != errors))
        bad(rd, "statusCodes and errorKinds do not add up to requests.ok and requests.errors");
}

/* "errorDetails" (absent from reports older than it): each kind's first
 * message, kept as the first seen across the reports (one that is a hint
 * before one that is not: stats_merge). */
static void get_error_details(struct reader *rd, const struct json *r, struct stats *s)
{
    const struct json *d = json_get(r, "errorDetails");
    if (!d)
        return;
    if (d->type != JSON_OBJECT) {
        bad(rd, "errorDetails is not an object");
        return;
    }
    for (const struct json *m = d->child; m; m = m->next) {
        int k = 0;
        while (k < ERR_KINDS && strcmp(err_kind_name((enum err_kind)k), m->key) != 0)
            k++;
        const struct json *first = m->type == JSON_OBJECT ? json_get(m, "first") : NULL;
        const struct json *hint = m->type == JSON_OBJECT ? json_get(m, "hint") : NULL;
        if (k == ERR_KINDS || !first || first->type != JSON_STRING ||
            (hint && hint->type != JSON_TRUE && hint->type != JSON_FALSE)) {
            bad(rd, "errorDetails: \"%s\" is not an error kind shb counts with its first message", m->key);
            return;
        }
        /* "hint": the message names a likely mistake: the merged text
         * report repeats it on a Hint: line, as the run's did. */
        stats_why(s, (enum err_kind)k, first->text, NULL, hint && hint->type == JSON_TRUE);
    }
}

static void get_pace(struct reader *rd, const struct json *r, struct stats *s, struct merged_run *m)
{
    const struct json *rate = get_object(rd, r, "rate");
    const struct json *lag = get_object(rd, r, "scheduleLag");
    const struct json *service = json_get(r, "serviceTimeSeconds");
    if (!service || (service->type != JSON_OBJECT && service->type != JSON_NULL)) {
        bad(rd, "serviceTimeSeconds is missing or not an object");
        return;
    }
    if (!rate || !lag)
        return;
    m->info.rate_requested += get_double(rd, rate, "rate.", "requested");
    bool ramp = json_get(rate, "from") != NULL;
    if (ramp) {
        m->rate.from += get_double(rd, rate, "rate.", "from");
        m->rate.to += get_double(rd, rate, "rate.", "to");
    }
    if (m->info.reports > 0 && ramp != m->ramp)
        bad(rd, "a -q ramp cannot be merged with a steady -q rate (%s)", m->first_name);
    m->ramp = ramp;
    double busy = get_double(rd, rate, "rate.", "clientBusy");
    if (busy > m->client_busy)
        m->client_busy = busy;
    s->pace.sent = get_u64(rd, rate, "rate.", "sent");
    s->pace.late = get_u64(rd, lag, "scheduleLag.", "late");
    s->pace.unsent = get_u64(rd, lag, "scheduleLag.", "unsent");
    get_hist(rd, lag, "scheduleLag", &s->pace.lag);
    get_hist(rd, service, "serviceTimeSeconds", &s->pace.service);
}

static void get_warmup(struct reader *rd, const struct json *r, struct stats *s, struct merged_run *m)
{
    const struct json *w = json_get(r, "warmup");
    if (!w)
        return;
    uint64_t ns = get_ns(rd, w, "warmup.", "durationSeconds");
    if (ns > m->warmup_ns)
        m->warmup_ns = ns;
    s->warmup.ok = get_u64(rd, w, "warmup.", "ok");
    s->warmup.errors = get_u64(rd, w, "warmup.", "errors");
    s->warmup.bytes_recv = get_u64(rd, w, "warmup.", "bytesReceived");
    s->warmup.bytes_sent = get_u64(rd, w, "warmup.", "bytesSent");
}

static int add_shard(struct merged_run *m, uint32_t index)
{
    if (m->n_shards == m->cap_shards) {
        size_t cap = m->cap_shards ? m->cap_shards * 2 : 64;
        uint32_t *p = realloc(m->shards, cap * sizeof *p);
        if (!p)
            return -1;
        m->shards = p;
        m->cap_shards = cap;
    }
    m->shards[m->n_shards++] = index;
    return 0;
}

/* Which shards this report covers: its --shard I/N, or, for a report merge
 * made, the shards listed under "merged". */
static void get_shards(struct reader *rd, const struct json *r, struct merged_run *m)
{
    const struct json *shard = get_object(rd, r, "shard");
    if (!shard)
        return;
    uint64_t index = get_u64(rd, shard, "shard.", "index"), count = get_u64(rd, shard, "shard.", "count");
    const struct json *merged = json_get(r, "merged");
    if (merged) {
        uint64_t made_of = get_u64(rd, merged, "merged.", "reports");
        m->extra_reports += made_of > 1 ? (unsigned)made_of - 1 : 0;
        count = get_u64(rd, merged, "merged.", "shardCount");
    }
    if (rd->failed)
        return;
    if (count > CLI_SHARDS_MAX || (count > 0 && index >= count)) {
        bad(rd, "shard %llu of %llu is not a shard", (unsigned long long)index, (unsigned long long)count);
        return;
    }
    /* The first report sets N; a report of another N (or none) means the
     * reports are not shards of one run. */
    unsigned n = count > 1 ? (unsigned)count : 0;
    if (m->info.reports == 0 || m->info.shard_count == n)
        m->info.shard_count = n;
    else
        m->info.shard_count = UINT32_MAX; /* mixed: no shard list */
    if (n == 0)
        return;
    if (!merged) {
        if (add_shard(m, (uint32_t)index) < 0)
            bad(rd, "out of memory");
        return;
    }
    const struct json *list = json_get(merged, "shards");
    for (const struct json *e = list && list->type == JSON_ARRAY ? list->child : NULL; e; e = e->next) {
        uint64_t i = 0;
        if (json_to_u64(e, &i) < 0 || i >= n) {
            bad(rd, "merged.shards holds something other than shard indexes below %u", n);
            return;
        }
        if (add_shard(m, (uint32_t)i) < 0) {
            bad(rd, "out of memory");
            return;
        }
    }
    if (json_get(merged, "shardTwice") && json_get(merged, "shardTwice")->type == JSON_TRUE)
        m->info.shard_twice = true;
}

static char *joined(char *have, const char *add)
{
    if (strcmp(have, add) == 0)
        return have;
    /* Already listed? (" + " separates them.) */
    size_t n = strlen(add);
    for (const char *at = strstr(have, add); at; at = strstr(at + 1, add))
        if ((at == have || strncmp(at - 3, " + ", 3) == 0) && (at[n] == '\0' || strncmp(at + n, " + ", 3) == 0))
            return have;
    size_t len = strlen(have) + 3 + n + 1;
    char *out = malloc(len);
    if (!out)
        return have;
    snprintf(out, len, "%s + %s", have, add);
    free(have);
    return out;
}

/* One report's value (NULL: it has none) into a; first: the first report.
 * False when out of memory. */
static bool agree(struct agreed *a, const char *value, bool first)
{
    if (a->differ)
        return true;
    if (first) {
        a->text = value ? strdup(value) : NULL;
        return !value || a->text;
    }
    if (!value || !a->text || strcmp(value, a->text) != 0) {
        free(a->text);
        a->text = NULL;
        a->differ = true;
    }
    return true;
}

/* A string member of r (or of its object member outer), or NULL. */
static const char *string_at(const struct json *r, const char *outer, const char *key)
{
    if (outer && !(r = json_get(r, outer)))
        return NULL;
    const struct json *v = json_get(r, key);
    return v && v->type == JSON_STRING ? v->text : NULL;
}

/* One report (an object) into s, after checking it may join the others. */
static void read_report(struct reader *rd, const struct json *r, struct stats *s, struct merged_run *m)
{
    if (r->type != JSON_OBJECT || !json_get(r, "requests") || !json_get(r, "latencySeconds")) {
        bad(rd, "not an shb JSON report (no requests or latencySeconds)");
        return;
    }
    /* The encoded histograms are only in reports asked for them. */
    const struct json *latency = json_get(r, "latencySeconds");
    if (latency->type == JSON_OBJECT && !json_get(latency, "histogram")) {
        bad(rd, "no histograms: %s", json_get(r, "merged") ? "merge it with shb merge -j --histograms"
                                                            : "run it with --histograms (or --shard)");
        return;
    }
    const struct json *url = json_get(r, "url"), *proto = json_get(r, "protocol");
    if (!url || url->type != JSON_STRING || !proto || proto->type != JSON_STRING) {
        bad(rd, "url or protocol is missing");
        return;
    }
    bool first = m->info.reports == 0;
    if (!agree(&m->connected_to, string_at(r, NULL, "connectedTo"), first) ||
        !agree(&m->proxy, string_at(r, "proxy", "url"), first) ||
        !agree(&m->version, string_at(r, NULL, "shbVersion"), first)) {
        bad(rd, "out of memory");
        return;
    }
    bool paced = json_get(r, "rate") != NULL;
    if (m->info.reports == 0) {
        m->url = strdup(url->text);
        m->protocol = strdup(proto->text);
        m->paced = paced;
        snprintf(m->first_name, sizeof m->first_name, "%s", rd->name);
        if (!m->url || !m->protocol) {
            bad(rd, "out of memory");
            return;
        }
    } else {
        if (!m->force && (strcmp(m->url, url->text) != 0 || strcmp(m->protocol, proto->text) != 0)) {
            bad(rd, "a run of %s over %s, but %s is of %s over %s (--force merges them anyway)", url->text,
                proto->text, m->first_name, m->url, m->protocol);
            return;
        }
        if (paced != m->paced) {
            clash(rd,
                  "%s was run with -q (the open model), %s without (the closed model): they cannot be merged, "
                  "as their latencies do not measure the same thing",
                  paced ? rd->name : m->first_name, paced ? m->first_name : rd->name);
            return;
        }
        m->url = joined(m->url, url->text);
        m->protocol = joined(m->protocol, proto->text);
    }
    if (stats_init(s) < 0 || (paced && stats_init_pace(s) < 0)) {
        bad(rd, "out of memory");
        return;
    }
    m->threads += (unsigned)get_u64(rd, r, "", "threads");
    m->connections += (unsigned)get_u64(rd, r, "", "connections");
    /* -p is per connection: shards of one run share it, so it is kept
     * when all agree (0 once one differs or lacks it). */
    unsigned parallel = json_get(r, "parallel") ? (unsigned)get_u64(rd, r, "", "parallel") : 0;
    if (first)
        m->parallel = parallel;
    else if (parallel != m->parallel)
        m->parallel = 0;
    uint64_t start = get_ns(rd, r, "", "startTime"), end = get_ns(rd, r, "", "endTime");
    if (!rd->failed && end < start)
        bad(rd, "endTime is before startTime");
    if (m->info.reports == 0 || start < m->start_ns)
        m->start_ns = start;
    if (m->info.reports == 0 || end > m->end_ns)
        m->end_ns = end;
    get_outcomes(rd, r, s);
    get_error_details(rd, r, s);
    s->bytes_recv = get_u64(rd, r, "", "bytesReceived");
    s->bytes_sent = get_u64(rd, r, "", "bytesSent");
    s->in_flight = get_u64(rd, r, "", "inFlight");
    s->connections_opened = get_u64(rd, r, "", "connectionsOpened");
    const struct json *proxy = json_get(r, "proxy");
    if (proxy)
        s->proxy_tunnels = get_u64(rd, proxy, "proxy.", "tunnels");
    get_warmup(rd, r, s, m);
    if (paced)
        get_pace(rd, r, s, m);
    get_alerts(rd, r, s);
    get_tls(rd, r, s, m);
    get_quic(rd, r, s);
    get_hist(rd, json_get(r, "latencySeconds"), "latencySeconds", &s->latency);
    get_phases(rd, r, s);
    get_shards(rd, r, m);
    const struct json *interrupted = json_get(r, "interrupted");
    if (interrupted && interrupted->type == JSON_TRUE)
        m->interrupted = true;
    if (!rd->failed)
        get_timeline(rd, r, s, m, start - m->anchor_ns);
    if (!rd->failed)
        get_targets(rd, r, s, m, m->info.reports == 0);
}

/* "targets" (--targets): each target's counts, status codes and
 * histogram (--histograms, --shard) added to s->targets, when the list is
 * the first report's; else the merged report goes without the table. */
static void get_targets(struct reader *rd, const struct json *r, struct stats *s, struct merged_run *m,
                        bool first)
{
    const struct json *list = json_get(r, "targets");
    uint32_t n = 0;
    for (const struct json *e = list && list->type == JSON_ARRAY ? list->child : NULL; e; e = e->next)
        n++;
    if (list && list->type != JSON_ARRAY) {
        bad(rd, "targets is not an array");
        return;
    }
    if (first && n) {
        if (n > REQLIST_MAX || !(m->tnames = calloc(n, sizeof *m->tnames))) {
            bad(rd, "out of memory");
            return;
        }
        m->ntnames = n;
    }
    if (n != m->ntnames) {
        m->targets_dropped = "the reports' request lists (--targets) differ";
        return;
    }
    if (n == 0 || m->targets_dropped)
        return;
    if (reqstats_init(&s->targets, n) < 0) {
        bad(rd, "out of memory");
        return;
    }
    uint32_t i = 0;
    for (const struct json *e = list->child; e && !rd->failed; e = e->next, i++) {
        char what[48];
        snprintf(what, sizeof what, "targets[%u].", i);
        const struct json *method = json_get(e, "method"), *url = json_get(e, "url");
        if (!method || method->type != JSON_STRING || !url || url->type != JSON_STRING) {
            bad(rd, "%smethod or url is missing", what);
            return;
        }
        if (first) {
            m->tnames[i] = (struct report_target_name){ method->text, url->text };
        } else if (strcmp(m->tnames[i].method, method->text) != 0 || strcmp(m->tnames[i].url, url->text) != 0) {
            m->targets_dropped = "the reports' request lists (--targets) differ";
            return;
        }
        struct reqstats_target *t = &s->targets.t[i];
        t->e.ok = get_u64(rd, e, what, "ok");
        t->e.errors = get_u64(rd, e, what, "errors");
        const struct json *st = json_get(e, "status");
        for (const struct json *c = st && st->type == JSON_OBJECT ? st->child : NULL; c && !rd->failed; c = c->next) {
            uint64_t count;
            if (json_to_u64(c, &count) < 0) {
                bad(rd, "%sstatus.%s is not a count", what, c->key);
                return;
            }
            char *end;
            unsigned long code = strtoul(c->key, &end, 10);
            if (strcmp(c->key, "other") == 0)
                t->code_other += count;
            else if (*end || end == c->key || code == 0 || code >= STATUS_MAX)
                bad(rd, "%sstatus.%s is not a status code", what, c->key);
            else
                reqstats_code(t, (uint16_t)code, count);
        }
        const struct json *b64 = json_get(e, "histogram");
        if (!b64 || b64->type != JSON_STRING) {
            m->targets_dropped = "a report has no per-target histograms (run with --histograms or --shard)";
            return;
        }
        entry_hist(rd, b64, what, &t->e, &m->scratch);
    }
}

/* Every report in one file into total. 0, or -1 with err set. */
static int merge_file(const struct json_file *f, struct stats *total, struct merged_run *m, char *err, size_t errlen)
{
    int i = 0;
    JSON_FILE_EACH(r, f->root)
    {
        char name[4096];
        if (f->root->type == JSON_ARRAY)
            snprintf(name, sizeof name, "%s[%d]", f->path, i++);
        else
            snprintf(name, sizeof name, "%s", f->path);
        struct reader rd = { .name = name, .err = err, .errlen = errlen };
        struct stats s;
        memset(&s, 0, sizeof s);
        read_report(&rd, r, &s, m);
        if (!rd.failed) {
            /* One TLS answer when every report that made a handshake
             * gives the same one (a report with none, http:// or every
             * handshake failed, has nothing to disagree with). */
            if (s.tls_mixed || (total->tls.version && s.tls.version && !same_tls(&total->tls, &s.tls)))
                total->tls_mixed = true;
            stats_merge(total, &s);
            m->info.reports++;
        }
        stats_free(&s);
        if (rd.failed)
            return -1;
    }
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void usage(FILE *f)
{
    fputs("Usage: shb merge [-j [--histograms]] [--force] [--fail-if EXPR]... <FILE>...\n"
          "\n"
          "Merge shb JSON reports (shards of one run, or separate runs) into one report: counts summed,\n"
          "histograms added bucket by bucket (exact percentiles), rates over the union of their windows.\n"
          "\n"
          "Arguments:\n"
          "  <FILE>...  JSON reports from shb -j --histograms (or --shard; a file may hold an array of them,\n"
          "             or several one after another, as cat makes; - reads stdin)\n"
          "\n"
          "Options:\n"
          "  -j, --json        Print the merged report as JSON\n"
          "      --histograms  Put the merged histograms in the JSON, to merge it again\n"
          "      --force       Merge reports of different URLs or protocols\n"
          "      --fail-if EXPR  Exit with status 3 when EXPR is true of the merged report, as shb --fail-if\n"
          "                    (e.g. 'p99>250ms', 'errors>1%'; repeatable)\n"
          "  -h, --help        Print help\n",
          f);
}

/* --fail-if EXPR (or --fail-if=EXPR) at argv[*i]: one more of at most
 * MERGE_THRESHOLDS. 0, or 2 with the one line said. */
#define MERGE_THRESHOLDS 64
static int merge_fail_if(int argc, char **argv, int *i, struct threshold *list, size_t *n, FILE *errf)
{
    const char *v = strncmp(argv[*i], "--fail-if=", 10) == 0 ? argv[*i] + 10 : *i + 1 < argc ? argv[++*i] : NULL;
    char why[256];
    if (!v) {
        fputs("shb: merge: --fail-if needs an expression, e.g. --fail-if 'p99>250ms'\n", errf);
        return 2;
    }
    if (*n == MERGE_THRESHOLDS) {
        fprintf(errf, "shb: merge: more than %d --fail-if\n", MERGE_THRESHOLDS);
        return 2;
    }
    if (threshold_parse(v, &list[*n], why, sizeof why) < 0) {
        fprintf(errf, "shb: merge: invalid value '%s' for --fail-if: %s\n", v, why);
        return 2;
    }
    ++*n;
    return 0;
}

int merge_main(int argc, char **argv, FILE *out, FILE *errf)
{
    struct merge_options o = { 0 };
    int nfiles = 0, rc = 0;
    bool options_done = false;
    static struct threshold thresholds[MERGE_THRESHOLDS];
    size_t nthresholds = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (options_done || a[0] != '-' || strcmp(a, "-") == 0) {
            argv[1 + nfiles++] = argv[i]; /* files, in order, over what was read */
        } else if (strcmp(a, "--") == 0) {
            options_done = true;
        } else if (strcmp(a, "-j") == 0 || strcmp(a, "--json") == 0) {
            o.json = true;
        } else if (strcmp(a, "--histograms") == 0) {
            o.histograms = true;
        } else if (strcmp(a, "--force") == 0) {
            o.force = true;
        } else if (strcmp(a, "--fail-if") == 0 || strncmp(a, "--fail-if=", 10) == 0) {
            if (merge_fail_if(argc, argv, &i, thresholds, &nthresholds, errf) != 0)
                return 2;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(out);
            return 0;
        } else {
            fprintf(errf, "shb: merge: unknown option '%s' (shb merge [-j [--histograms]] [--force] FILE...)\n", a);
            return 2;
        }
    }
    if (nfiles == 0) {
        fputs("shb: merge: no report to merge (shb merge [-j [--histograms]] [--force] FILE...)\n", errf);
        return 2;
    }
    o.thresholds = thresholds;
    o.nthresholds = nthresholds;
    char err[4600] = "";
    struct json_file *files = calloc((size_t)nfiles, sizeof *files);
    if (!files) {
        fputs("shb: merge: out of memory\n", errf);
        return 1;
    }
    for (int i = 0; i < nfiles && rc == 0; i++)
        if (json_file_load(argv[1 + i], &files[i], err, sizeof err) < 0) {
            fprintf(errf, "shb: merge: %s\n", err);
            rc = 2;
        }
    if (rc == 0)
        rc = merge_files(files, (size_t)nfiles, &o, out, errf);
    for (int i = 0; i < nfiles; i++)
        json_file_free(&files[i]);
    free(files);
    return rc;
}

int merge_files(const struct json_file *files, size_t nfiles, const struct merge_options *o, FILE *out, FILE *errf)
{
    struct merged_run m = { .force = o->force };
    int rc = 0;
    struct stats total;
    char err[4600] = "";
    if (stats_init(&total) < 0 || stats_init_pace(&total) < 0 || hist_init(&m.scratch) < 0) {
        fputs("shb: merge: out of memory\n", errf);
        stats_free(&total);
        hist_free(&m.scratch);
        return 1;
    }
    total.pace.on = false; /* set again by the reports that have it */
    /* Every file first: the merged timeline starts at the earliest
     * report's start (a startTime that does not read is refused below). */
    bool anchored = false;
    for (size_t i = 0; i < nfiles; i++) {
        JSON_FILE_EACH(r, files[i].root)
        {
            uint64_t start;
            if (json_to_ns(json_get(r, "startTime"), &start) == 0 && (!anchored || start < m.anchor_ns)) {
                m.anchor_ns = start;
                anchored = true;
            }
        }
    }
    for (size_t i = 0; i < nfiles && rc == 0; i++)
        if (merge_file(&files[i], &total, &m, err, sizeof err) < 0) {
            fprintf(errf, "shb: merge: %s\n", err);
            rc = 2;
        }
    if (rc == 0) {
        m.info.reports += m.extra_reports;
        if (m.info.shard_count == UINT32_MAX) /* reports of different N */
            m.info.shard_count = 0;
        if (m.info.shard_count == 0)
            m.n_shards = 0;
        if (m.n_shards) /* qsort's array may not be NULL, even empty */
            qsort(m.shards, m.n_shards, sizeof *m.shards, cmp_u32);
        size_t unique = 0;
        for (size_t i = 0; i < m.n_shards; i++) {
            if (unique && m.shards[unique - 1] == m.shards[i])
                m.info.shard_twice = true;
            else
                m.shards[unique++] = m.shards[i];
        }
        m.info.shards = m.shards;
        m.info.n_shards = (unsigned)unique;
        m.rate.ramp_ns = m.ramp; /* only whether it was a ramp: rate_requested is summed */
        if (!m.ramp)
            m.rate.from = m.rate.to = m.info.rate_requested;
        if (total.tls_mixed && m.tls.version && m.tls.cipher && m.tls.group && m.tls.alpn) {
            m.tls_joined = (struct report_tls_joined){ m.tls.version, m.tls.cipher, m.tls.group, m.tls.alpn,
                                                       m.tls.fallback_any, m.tls.fallback_all };
            m.info.tls = &m.tls_joined;
        }
        if (m.targets_dropped) {
            reqstats_free(&total.targets);
            fprintf(errf, "shb: merge: no per-target table: %s\n", m.targets_dropped);
        }
        struct report_info ri = {
            .url = m.url,
            .target_names = m.tnames,
            .connected_to = m.connected_to.text,
            /* Only a --unix-socket path starts with a slash (an address
             * never does): the text report can say which it was. */
            .connected_via = m.connected_to.text && m.connected_to.text[0] == '/' ? "--unix-socket" : NULL,
            .proxy = m.proxy.text,
            .protocol = m.protocol,
            .threads = m.threads,
            .connections = m.connections,
            .parallel = m.parallel,
            .version = m.version.text,
            .duration_ns = m.end_ns - m.start_ns,
            .warmup_ns = m.warmup_ns,
            .rate = m.paced ? &m.rate : NULL,
            .client_busy = m.client_busy,
            .start_wall_ns = m.start_ns,
            .shard_index = 0,
            .shard_count = 1,
            .merged = &m.info,
            .interrupted = m.interrupted,
            .histograms = o->histograms,
            .thresholds = o->thresholds,
            .nthresholds = o->nthresholds,
        };
        if (o->json)
            report_json(out, &ri, &total);
        else
            report_text(out, &ri, &total);
        fflush(out);
        if (thresholds_failed(&ri, &total))
            rc = 3;
    }
    stats_free(&total);
    hist_free(&m.scratch);
    free(m.url);
    free(m.connected_to.text);
    free(m.proxy.text);
    free(m.version.text);
    free(m.tls.version);
    free(m.tls.cipher);
    free(m.tls.group);
    free(m.tls.alpn);
    free(m.protocol);
    free(m.shards);
    free(m.tnames);
    return rc;
}
