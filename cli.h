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

#include "request.h"

struct shb_url {
    bool https;
    char host[256];      /* as written, without brackets: "127.0.0.1", "::1", "example.com" */
    bool host_is_ipv6;   /* the URL had [brackets] */
    bool host_is_ip;     /* IPv4 or IPv6 literal: no resolution, no SNI */
    uint16_t port;       /* explicit, or 80 / 443 */
    char authority[300]; /* Host header value: host, [v6] with brackets, ":port" only if given and not default */
    char *target;        /* path + query, verbatim; "/" when the URL has none. malloc'd */
};

struct shb_opts {
    uint32_t connections;       /* -c, default 50 */
    uint64_t requests;          /* -n, default 200; ignored when duration_ns != 0 */
    uint64_t duration_ns;       /* -z; 0 = request-count mode */
    uint32_t parallel;          /* -p, default 1 */
    uint32_t threads;           /* -t; default: physical cores. Not yet capped at -c (shb.c does that) */
    const char *method;         /* -m; default GET, or POST when -d is given */
    struct shb_header *headers; /* -H, in the order given; names and values malloc'd */
    size_t nheaders;
    uint8_t *body;              /* -d: inline text, @file or @- (stdin); CR and LF stripped from file/stdin */
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
    bool disable_keepalive;
    bool no_progress;            /* --no-progress: no live view even on a terminal */
    bool http2, http3, json;
    const char *url_text;        /* the URL argument as given */
    struct shb_url url;
};

#define CLI_RATE_MAX 1e8 /* -q: requests per second */
#define CLI_SHARDS_MAX 65536u /* --shard I/N */
#define CLI_BIND_MAX 4096u    /* --bind: addresses */

enum cli_result { CLI_OK = 0, CLI_HELP = 1, CLI_ERROR = -1 };

/* Parses argv into o (all defaults filled in). CLI_HELP: -h/--help was given and
 * the help text has been written to out. CLI_ERROR: err holds the message.
 * default_threads is what -t defaults to and what the help text shows. */
enum cli_result cli_parse(int argc, char **argv, struct shb_opts *o, unsigned default_threads,
                          FILE *out, char *err, size_t errlen);

/* "10s", "1m30s", "500ms", "2h", "1h2m3s4ms", bare digits are refused.
 * Returns 0 and *ns, or -1. Zero durations are refused. */
int cli_parse_duration(const char *s, uint64_t *ns);

/* http:// or https://, host name / IPv4 / [IPv6], optional :port, path+query
 * kept verbatim (a fragment is dropped). Returns 0, or -1 with err set. */
int cli_parse_url(const char *s, struct shb_url *u, char *err, size_t errlen);

void cli_print_help(FILE *f, unsigned default_threads);

/* The request o describes, for the protocol engines (request.h). Its
 * pointers borrow from o, which must outlive it. */
struct shb_request cli_request(const struct shb_opts *o);

/* Number of physical cores (distinct core ids per package in /sys topology);
 * online CPUs if the topology cannot be read; at least 1. */
unsigned cli_physical_cores(void);

void cli_free(struct shb_opts *o);

#endif
