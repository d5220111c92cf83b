/* cli.h — command line, durations and URLs (spec: Options, shb -h).
 *
 * Everything here runs once, before any traffic. Misuse is reported as one
 * line in err (no "shb: " prefix, no newline); shb.c prints it and exits 2. */
#ifndef SHB_CLI_H
#define SHB_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "cli/auth.h"
#include "cli/override.h"
#include "report/thresholds.h"
#include "request.h"
#include "tls13/choice.h"

struct shb_url {
    bool https;
    char host[256];      /* as written, without brackets: "127.0.0.1", "::1", "example.com" */
    bool host_is_ipv6;   /* the URL had [brackets] */
    bool host_is_ip;     /* IPv4 or IPv6 literal: no resolution, no SNI */
    uint16_t port;       /* explicit, or 80 / 443 */
    char authority[300]; /* Host header value: host, [v6] with brackets, ":port" only if given and not default */
    char *target;        /* path + query, verbatim; "/" when the URL has none. malloc'd */
    struct cred cred;    /* user[:password]@ (RFC 3986 §3.2.1), %-decoded; cli_parse wipes it
                            once the target's Authorization is built */
};

/* The HTTP proxy a target goes through (-x/--proxy, or the environment:
 * cli/proxy.h). */
struct shb_proxy {
    struct shb_url url;   /* its host and port (1080 unless given); cred wiped once authorization is built */
    char *url_text;       /* as given, its password as "***": what every output shows. malloc'd */
    char *authorization;  /* the Proxy-Authorization value its credentials make, or NULL. malloc'd */
    bool tunnel;          /* CONNECT (https://, HTTP/2); else HTTP/1.1 absolute-form requests */
};

/* One URL argument: "URL" or "label=URL" (shb [OPTIONS] <URL>...). */
struct shb_target {
    char *label;          /* the label of label=URL, malloc'd; NULL when none was given */
    char *url_text;       /* the URL as given (after "label="), its password as "***"
                             (auth.h): what every output shows. malloc'd */
    struct shb_url url;
    char *authorization;  /* the Authorization value its credentials make, or NULL. malloc'd */
    struct shb_proxy *proxy; /* the proxy it goes through, or NULL: direct. malloc'd */
};

/* The longest label: it names a row of the comparison table. */
#define CLI_LABEL_MAX 64

struct reqlist; /* cli/reqlist.h */

struct shb_opts {
    uint32_t connections;       /* -c, default 50 */
    uint64_t requests;          /* -n, default 200; ignored when duration_ns != 0 */
    uint64_t duration_ns;       /* -z; 0 = request-count mode */
    uint32_t parallel;          /* -p, default 1 */
    uint32_t threads;           /* -t; default: physical cores. Not yet capped at -c (shb.c does that) */
    const char *method;         /* -m; default GET, or POST when -d is given */
    struct shb_header *headers; /* -H, in the order given; names and values malloc'd */
    size_t nheaders;
    uint8_t *body;              /* -d or --data-binary: inline text, @file or @- (stdin); -d strips CR and LF
                                   from file/stdin data, --data-binary keeps every byte */
    size_t body_len;
    bool has_body;
    uint64_t connect_timeout_ns; /* --connect-timeout, default 5s */
    uint64_t timeout_ns;         /* --timeout, per request, default 30s; 0 = none */
    uint64_t warmup_ns;          /* --warmup; 0 = none */
    double rate_from, rate_to;   /* -q, requests per second in total; 0 = not given (closed model) */
    bool rate_ramp;              /* -q FROM..TO: rate_from to rate_to over -z */
    uint32_t shard_index, shard_count; /* --shard I/N; default 0/1 (the whole run) */
    uint64_t start_at_ns;        /* --start-at: Unix time in ns (CLOCK_REALTIME); 0 = start now */
    const char *start_at_text;   /* --start-at as given (for messages) */
    const char *unix_socket;     /* --unix-socket: connect to this path instead of the URL's host and port */
    struct sockaddr_storage *bind; /* --bind: source addresses (port 0), one family; malloc'd */
    uint32_t nbind;
    struct connect_to *connect_to; /* --connect-to, in the order given (the first that matches wins); malloc'd */
    size_t nconnect_to;
    struct resolve_entry *resolve; /* --resolve, in the order given; malloc'd */
    size_t nresolve;
    int family;                  /* -4: AF_INET, -6: AF_INET6; AF_UNSPEC (0): either */
    bool disable_keepalive;
    bool no_progress;            /* --no-progress: no live view even on a terminal */
    bool http2, http3, json;
    /* HTTP/2's side of the connection (h2.h's struct h2_local): -w and -W
     * as h2load (windows of 2^N - 1 bytes), --max-frame-size,
     * --header-table-size. Defaults: h2.h's H2_OUR_*. */
    uint8_t h2_window_bits, h2_conn_window_bits;
    uint32_t h2_max_frame_size, h2_header_table_size;
    /* HTTP/3: --max-stream-data and --max-data (QUIC's initial_max_stream_data_*
     * and initial_max_data, RFC 9000 §18.2), bytes; 0: sized by -p (shb.c). */
    uint64_t max_stream_data, max_data;
    struct tls_choice tls;       /* --tls-max, --tlsv1.2/--tlsv1.3, --tls13-ciphers, --ciphers, --curves */
    bool tls_resume;             /* --tls-resume: each slot resumes with its newest session ticket */
    bool early_data;             /* --early-data: 0-RTT requests on resumed handshakes (implies tls_resume) */
    bool insecure;               /* -k/--insecure: trust every certificate (the default), even with --cacert */
    const char *cacert;          /* --cacert FILE (argv's): CA certificates (PEM) to verify servers against; NULL: none */
    bool histograms;             /* --histograms, or --shard: the JSON carries the encoded histograms */
    const char *hdr_log;         /* --hdr-log FILE (argv's), or NULL */
    const char *log;             /* --log FILE (argv's), or NULL */
    const char *html;            /* --html FILE (argv's), or NULL */
    uint8_t log_format;          /* --log-format: enum reqlog_format (report/reqlog_line.h) */
    struct threshold *thresholds; /* --fail-if, in the order given; malloc'd */
    size_t nthresholds;
    const char *cert;            /* --cert FILE (argv's): client certificate chain, PEM; NULL: none */
    const char *key;             /* --key FILE (argv's): its private key, PEM; NULL: in the --cert file */
    /* -x/--proxy URL, --proxy-user USER[:PASSWORD], --noproxy LIST (argv's;
     * NULL: not given): each target's proxy is its shb_target.proxy. */
    const char *proxy, *proxy_user, *noproxy;
    /* --targets FILE: the request list (cli/reqlist.h), or NULL; targets[0]
     * is then its first URL (the server every target shares). malloc'd */
    struct reqlist *reqlist;
    bool targets_random;         /* --targets-order random (default seq) */
    uint64_t seed;               /* --seed (random order), default 0 */
    struct shb_target *targets;  /* the URL arguments, in order: at least one. malloc'd */
    size_t ntargets;
};

#define CLI_RATE_MAX 1e8 /* -q: requests per second */
#define CLI_SHARDS_MAX 65536u /* --shard I/N */
#define CLI_BIND_MAX 4096u    /* --bind: addresses */
#define CLI_QUIC_WINDOW_MIN 1024u           /* --max-stream-data, --max-data: bytes */
#define CLI_QUIC_WINDOW_MAX (1ull << 30)    /* what quic/stream.c's reassembly pool is sized for */

enum cli_result { CLI_OK = 0, CLI_HELP = 1, CLI_VERSION = 2, CLI_ERROR = -1 };

/* Parses argv into o (all defaults filled in). CLI_HELP: -h/--help was given and
 * the help text has been written to out. CLI_VERSION: -V/--version was given
 * (and not -h); the caller prints the version. CLI_ERROR: err holds the
 * message. -h and -V win over any error, wherever they appear.
 * default_threads is what -t defaults to and what the help text shows. */
enum cli_result cli_parse(int argc, char **argv, struct shb_opts *o, unsigned default_threads,
                          FILE *out, char *err, size_t errlen);

/* "10s", "1m30s", "500ms", "2h", "1h2m3s4ms", bare digits are refused.
 * Returns 0 and *ns, or -1. Zero durations are refused. */
int cli_parse_duration(const char *s, uint64_t *ns);
/* A decimal number, len bytes at v: digits with at most one '.' inside
 * them ("2000", "0.5"; not ".5" or "5."), and an SI suffix k/K, M or G
 * (2.5k is 2500) as wrk and oha take. False when it is not one. */
bool cli_decimal(const char *v, size_t len, double *out);

/* http:// or https://, host name / IPv4 / [IPv6], optional :port, path+query
 * kept verbatim (a fragment is dropped). Returns 0, or -1 with err set. */
int cli_parse_url(const char *s, struct shb_url *u, char *err, size_t errlen);

void cli_print_help(FILE *f, unsigned default_threads);

/* RFC 9110 §5.6.2: len bytes of tchar (a method, a header name). */
bool cli_is_token(const char *s, size_t len);
/* A field value without control characters (RFC 9110 §5.5), tab allowed. */
bool cli_field_value_ok(const char *v);
/* [b, e) without leading and trailing spaces and tabs, malloc'd. */
char *cli_dup_trimmed(const char *b, const char *e);

/* ------------------------------------------------- the option table
 * One table (cli.c's opt_specs) is what the parser accepts, what -h prints,
 * and what the man page (manpage.c) and the completion scripts
 * (completions.c) are generated from: a new option is one entry there. */

#define CLI_SUMMARY "io_uring HTTP/1.1 / HTTP/2 / HTTP/3 benchmarker"
#define CLI_URL_HELP                                                                                              \
    "Target URL, e.g. http://127.0.0.1:8080/ or https://example.com/ (TLS trusts every certificate: this is a " \
    "benchmarker); label=URL names it (e.g. nginx=http://127.0.0.1:8080/). Several run one after another with "   \
    "the same options, each with its report, then a table compares them"

/* What a shell offers for an option's value or a subcommand's operands. */
enum cli_complete {
    CLI_COMPLETE_NONE,  /* free text (a number, a duration): nothing to offer */
    CLI_COMPLETE_FILE,  /* a path */
    CLI_COMPLETE_BODY,  /* -d: text, or @ and a path */
    CLI_COMPLETE_WORDS, /* one of words */
};

struct cli_option {
    char short_name;          /* 0: long only */
    const char *long_name;    /* without "--" */
    const char *value_name;   /* -h's <VALUE>; NULL: a flag, it takes no value */
    const char *help;         /* one line, as -h prints it */
    const char *default_text; /* -h's [default: ...]; NULL: none shown */
    bool default_cores;       /* the default is the number of physical cores, known only at run time */
    bool repeatable;          /* may be given more than once (-H); other value options refuse that */
    enum cli_complete complete;
    const char *words;        /* CLI_COMPLETE_WORDS: the values, space-separated */
};

/* The i-th option of shb [OPTIONS] <URL>, in -h's order; NULL past the last. */
const struct cli_option *cli_option(size_t i);

/* The short form of a help text, for completion menus: up to the first
 * ". ", ": " or "; ", parenthesised asides left out ("HTTP method (defaults
 * to GET, ...)" is "HTTP method"). */
void cli_help_summary(const char *help, char *buf, size_t len);

/* Subcommands: `shb NAME ...` (shb.c dispatches on argv[1]; a URL is never
 * one of these words). Described here for the man page and completions. */
struct cli_subcommand {
    const char *name;
    const char *synopsis; /* what follows the name in a synopsis */
    const char *help;     /* what it does, one paragraph */
    const struct cli_option *options;
    size_t noptions;
    const char *operand;  /* as the synopsis names it: FILE, SHELL */
    enum cli_complete complete; /* for the operands */
    const char *words;
};

/* The i-th subcommand; NULL past the last. */
const struct cli_subcommand *cli_subcommand(size_t i);

/* Blanks every password cli_parse took from argv (-u/--user's, a URL's)
 * with '*', so that ps and /proc/PID/cmdline no longer show it. Call once
 * cli_parse has returned CLI_OK: it keeps no pointer into argv's
 * passwords. */
void cli_hide_secrets(int argc, char **argv);

/* The request o describes for target t (one of o->targets), for the
 * protocol engines (request.h). Its pointers borrow from o and t, which
 * must outlive it. */
struct shb_request cli_request(const struct shb_opts *o, const struct shb_target *t);

/* With --targets: the request of the list's entry i, as cli_request for t
 * (targets[0]): its method, path, headers (-H, a name it gives itself
 * replaced), body, and its own credentials or else t's. */
struct shb_request cli_reqlist_request(const struct shb_opts *o, const struct shb_target *t, size_t i);

/* Number of physical cores (distinct core ids per package in /sys topology);
 * online CPUs if the topology cannot be read; at least 1. */
unsigned cli_physical_cores(void);

void cli_free(struct shb_opts *o);

#endif
