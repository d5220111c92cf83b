/* stats.h — per-worker counters and latency histograms (hist.h), merged
 * once at the end. */
#ifndef SHB_STATS_H
#define SHB_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats/hist.h"
#include "stats/reqstats.h"
#include "stats/timeline.h"
#include "tls13/negotiated.h"

/* Every request ends as exactly one of: a response (counted by status), or
 * one error of these kinds, or — when a -z run or Ctrl-C ends the run first —
 * in flight (stats.in_flight). The first five are connect errors: the
 * request never went out. docs/errors.md defines each kind for users. */
enum err_kind {
    ERR_CONNECT,         /* connect() refused / unreachable / failed */
    ERR_CONNECT_TIMEOUT, /* --connect-timeout expired (TCP connect + TLS handshake) */
    ERR_TLS_HANDSHAKE,   /* the TLS handshake failed (an alert, a bad Finished, EOF, garbage) */
    ERR_NO_PORT,         /* connect() found no free local port (EADDRNOTAVAIL) */
    ERR_PROXY,           /* the proxy refused the CONNECT tunnel (407, 403, 502...), closed before
                            answering it, or answered with no HTTP/1.x reply */
    ERR_RESET,           /* the connection failed under the request: a TCP reset, a failed send */
    ERR_CLOSED,          /* the server closed cleanly with the response cut short (or not begun,
                            on a fresh connection) */
    ERR_PROTOCOL,        /* a response that cannot be framed (bad status line, length, chunk, 101;
                            a malformed HTTP/2 response; an HTTP/2 protocol or compression error) */
    ERR_TLS,             /* TLS failed after the handshake: a record that does not decrypt or is
                            too large, an unexpected message, a fatal alert from the server */
    ERR_TIMEOUT,         /* --timeout passed with the response incomplete */
    ERR_STREAM_RESET,    /* HTTP/2: the server reset the stream (RST_STREAM) */
    ERR_REFUSED,         /* HTTP/2: refused (GOAWAY / REFUSED_STREAM / MAX_CONCURRENT_STREAMS 0)
                            more often than shb retries */
    ERR_KINDS
};
#define ERR_FIRST_NON_CONNECT ERR_RESET

/* "connect", "connect timeout", "tls handshake", "no local port", "proxy", "reset",
 * "closed", "protocol", "tls", "timeout", "stream reset", "refused" */
const char *err_kind_name(enum err_kind k);

/* -q: a request that left this long after it was due counts as late. */
#define PACE_LATE_NS 1000000ull

#define STATUS_MAX 1000 /* status codes 0..999 are counted; anything else is a protocol error */

/* The first message seen for an error kind: "Connection refused", "bad
 * status line", "received alert handshake_failure" (a server's host name
 * and a hint fit too). */
#define ERR_WHY_MAX 320

struct stats {
    uint64_t ok;                    /* complete responses, any status */
    uint64_t errors[ERR_KINDS];
    /* Why, per kind: the first message seen ("" until then), written only
     * when still empty, on the error path; why_hint: that message names a
     * likely mistake (an https:// URL to a plain-HTTP port...) and the text
     * report repeats it as a "Hint:" line. */
    char why[ERR_KINDS][ERR_WHY_MAX];
    bool why_hint[ERR_KINDS];
    uint64_t status[STATUS_MAX];
    uint64_t bytes_sent, bytes_recv; /* on the wire */
    uint64_t connections_opened;    /* successful connects */
    uint64_t proxy_tunnels;         /* CONNECT tunnels a proxy opened (one per connection through it) */
    uint64_t in_flight;             /* requests neither answered nor failed when the run ended */
    /* --warmup: requests that ended during it (kept out of everything
     * above), and the bytes moved during it (bytes_sent and bytes_recv
     * count from its end). Connections, TLS alerts and QUIC counters cover
     * the whole run. */
    struct warmup_stats {
        uint64_t ok, errors, bytes_sent, bytes_recv;
    } warmup;
    /* TLS alerts that ended a connection, by alert number (RFC 8446 §6):
     * the server's, and ours. Each such connection's requests are already
     * counted in errors[]; this says why. */
    uint64_t alerts_received[256];
    uint64_t alerts_sent[256];
    /* https:// and HTTP/3: what the first completed handshake settled on
     * (version 0 until one completes); tls_mixed: shb merge's reports
     * disagree, so no one answer is shown. */
    struct tls_negotiated tls;
    bool tls_mixed;
    /* Completed handshakes, full and resumed (RFC 8446 §2.2), over the
     * whole run, reported with --tls-resume (on) or once any needed a
     * HelloRetryRequest (hello_retries, RFC 8446 §4.1.4: those among
     * them that did). */
    struct tls_handshakes {
        bool on;
        uint64_t full, resumed, hello_retries;
    } handshakes;
    /* --early-data (on): requests sent as 0-RTT data (RFC 8446 §4.2.10),
     * those the server accepted early, and those it rejected, sent again
     * after the handshake (each request is counted once in the results). */
    struct early_data {
        bool on;
        uint64_t sent, accepted, resent;
    } early;
    struct hist latency;            /* first byte written -> last byte received, ok responses only;
                                       with -q from when the request was due */
    struct timeline timeline;       /* the measured window, second by second */
    struct reqstats targets;        /* --targets: each target's figures (n 0 without a list) */
    /* Where the time goes: each phase as it ended, after the warm-up. The
     * QUIC handshake is quic.handshake below (it is recorded as a connection
     * ends, over the whole run, like the rest of the QUIC figures). */
    struct phase_stats {
        struct hist connect;        /* TCP: connect SQE prepared -> connect completed */
        struct hist tls_handshake;  /* connect completed -> handshake over (a failed one is not recorded) */
        struct hist first_byte;     /* request sent -> first byte of its response (HTTP/2, /3: first HEADERS) */
    } phases;
    /* -q (on): the open model, over the measured responses. */
    struct pace_stats {
        bool on;
        uint64_t sent;              /* requests sent from the schedule after the warm-up */
        uint64_t late;              /* responses whose request left more than PACE_LATE_NS after it was due */
        uint64_t unsent;            /* due before the run ended, never sent */
        struct hist service;        /* sent -> response: what the server took (latency without the wait) */
        struct hist lag;            /* due -> sent: how late shb sent it */
    } pace;
    struct quic_stats {             /* HTTP/3 only (quic true): summed over every QUIC connection */
        bool quic;
        uint64_t packets_sent, packets_received, packets_lost, pto_count;
        uint64_t datagrams_sent, datagrams_received, sends; /* sends: sendmsg calls (GSO batches) */
        uint64_t retries, key_updates;
        uint64_t goaways;           /* connections the server sent GOAWAY on */
        /* Not in the report; the test build prints them for the long-run
         * tests (shb.c, SHB_TEST_KNOBS): key updates the server started,
         * ours it answered, the largest 1-RTT packet number sent (0 before any), 1-RTT
         * packets by packet number length (quic_conn_counters). Every
         * uint64_t above is a row of quic_counters (below). */
        uint64_t key_updates_peer, key_updates_answered, largest_app_pn_sent, app_pn_len[4];
        struct hist handshake;      /* first Initial sent -> handshake complete, per connection */
        /* CONNECTION_CLOSEs that ended connections, by who sent them and
         * their code (the first QUIC_CLOSE_KINDS distinct ones; the rest
         * are counted in closes_other). */
        struct quic_close_count {
            bool by_server, app;   /* app: an HTTP/3 code (0x1d), else a transport one (0x1c) */
            uint64_t code, count;
        } closes[16];
        unsigned n_closes;
        uint64_t closes_other;
    } quic;
};

int stats_init(struct stats *s);    /* zeroes and allocates the histograms */
int stats_init_pace(struct stats *s); /* -q: on, and its histograms (after stats_init); 0 or -1 */
void stats_free(struct stats *s);
/* src's timeline may be coarsened to match dst's (tl_merge). */
void stats_merge(struct stats *dst, struct stats *src);
uint64_t stats_errors(const struct stats *s);         /* all kinds */
uint64_t stats_connect_errors(const struct stats *s); /* the kinds before ERR_FIRST_NON_CONNECT */
uint64_t stats_non2xx(const struct stats *s);         /* complete responses with a status outside 200-299 */
/* Keeps msg (what + detail, either may be NULL) as kind's first message
 * unless it has one; hint: it names a likely mistake (see why_hint). */
void stats_why(struct stats *s, enum err_kind kind, const char *what, const char *detail, bool hint);
/* kind already has a message that stats_why would keep over this one (a
 * hint replaces a plain message, nothing replaces a hint): callers that
 * format a message ask first, so an error-heavy run formats each once. */
static inline bool stats_why_kept(const struct stats *s, enum err_kind kind, bool hint)
{
    return s->why[kind][0] && (s->why_hint[kind] || !hint);
}
/* The QUIC counters of struct quic_stats, one row each, in the order the
 * reports print them: summing a connection's (stats_quic_add_conn),
 * merging (stats_merge), the text and JSON reports, `shb merge`'s read-back
 * and the test build's shb-test line all walk this table. */
enum quic_counter_group {
    QC_PACKETS,   /* JSON's first line; labelled ones in the text's first lines */
    QC_DATAGRAMS, /* JSON's second line, before datagramsPerSend (not in the text) */
    QC_EVENTS,    /* JSON's last counters; in the text after Handshake and Datagrams/send */
    QC_TEST,      /* not in the report: the test build's shb-test line only */
};
struct quic_counter {
    const char *key;           /* JSON key in "quic", and the name on the shb-test line */
    const char *label;         /* the text report's label ("Packets sent"); NULL: not in the text */
    enum quic_counter_group group;
    bool largest;              /* summed and merged as the largest value (UINT64_MAX: none yet) */
    size_t off;                /* offsetof(struct quic_stats, field) */
    size_t conn_off;           /* offsetof(struct quic_conn_counters, field); QC_NOT_PER_CONN: counted by the worker */
};
#define QC_NOT_PER_CONN SIZE_MAX
extern const struct quic_counter quic_counters[];
extern const size_t quic_ncounters;
static inline uint64_t *quic_counter_at(struct quic_stats *q, const struct quic_counter *c)
{
    return (uint64_t *)((char *)q + c->off);
}
static inline uint64_t quic_counter_get(const struct quic_stats *q, const struct quic_counter *c)
{
    return *(const uint64_t *)((const char *)q + c->off);
}
/* Adds one QUIC connection's counters (quic/counters.h) to s. */
struct quic_conn_counters;
void stats_quic_add_conn(struct quic_stats *s, const struct quic_conn_counters *k);

/* Counts one CONNECTION_CLOSE in s->quic.closes. */
void stats_quic_close(struct stats *s, bool by_server, bool app, uint64_t code, uint64_t n);

#endif
