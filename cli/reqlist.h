/* cli/reqlist.h — a request list (--targets FILE): many requests to one
 * server, read once at start-up. Two formats (docs/workloads.md):
 *
 *   vegeta's HTTP format: "METHOD URL", then "Name: value" header lines,
 *   then an optional "@path" body file; a blank line between targets;
 *   '#' starts a comment line.
 *
 *   a bare URL list: every line that is not blank (or a '#' comment) is
 *   one URL (as oha's --urls-from-file and h2load's -i).
 *
 * Every target shares the scheme, host and port of the first: they share
 * connections. The reader is sans-I/O (a buffer in, entries out) so the
 * fuzzer drives it; body files are read by the caller (cli.c).
 *
 * "Request list" here, never "target": struct shb_target (cli.h) is a URL
 * argument, of which a run with --targets has exactly one, the list's
 * first URL. */
#ifndef SHB_CLI_REQLIST_H
#define SHB_CLI_REQLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/cli.h"
#include "request.h"

/* At most this many targets: each costs about 1 KB of figures per worker
 * thread (report/reqstats.h). */
#define REQLIST_MAX 100000u
/* A targets file (and each body file) is at most this large. */
#define REQLIST_FILE_MAX (1ull << 30)

struct reqlist_entry {
    char *method;              /* HTTP format: as written; bare list: NULL (-m, or GET/POST as without a list) */
    char *url_text;            /* the URL as written, its password as "***": what every output shows */
    struct shb_url url;        /* parsed (cli_parse_url); url.target is the path */
    struct shb_header *headers; /* the target's own header lines, in order */
    size_t nheaders;
    char *body_path;           /* "@path" as written (without '@'), or NULL */
    uint8_t *body;             /* read by the caller from body_path; NULL when none */
    size_t body_len;
    bool has_body;
    char *authorization;       /* Basic credentials of the URL's user:password@, or NULL */
    struct shb_header *merged; /* what it sends: -H minus the names it has, then its own (cli.c); the
                                  array is owned, the strings borrowed */
    size_t nmerged;
    unsigned line;             /* where its request line (or URL) is */
};

struct reqlist {
    struct reqlist_entry *e;
    size_t n;
    bool http_format;          /* vegeta's format; false: a bare URL list */
};

/* Parses len bytes of text (NULs refused) into l. 0, or -1 with err set to
 * one line ("line 7: ..."); l is then empty. Entries' URLs are checked
 * (cli_parse_url) and compared with the first's scheme, host and port. */
int reqlist_parse(const char *text, size_t len, struct reqlist *l, char *err, size_t errlen);

void reqlist_free(struct reqlist *l);

/* Reads file (- : stdin) and parses it, then reads every body file it
 * names (reqlist_file.c: relative to the file's directory). 0, or -1 with
 * err set to one line. */
int reqlist_load(const char *file, struct reqlist *l, char *err, size_t errlen);

/* All of fd, at most max bytes (malloc'd), CR and LF dropped with
 * strip_crlf (-d @file). 0, or -1 with errno set (EFBIG: above max). */
int cli_read_fd(int fd, size_t max, bool strip_crlf, uint8_t **out, size_t *out_len);

/* The order requests take their targets in (--targets-order). */
enum reqlist_order { REQLIST_SEQ, REQLIST_RANDOM };

/* Which target a worker's requests take: the worker's requests are
 * numbered first, first + stride, ... of the whole run (as -q's schedule
 * is shared out: worker_config.pace_first/pace_stride), and seq gives
 * request j target j mod n, so the mix is exact over any whole number of
 * rounds whatever -c/-t/--shard are; random draws from a generator
 * seeded with (seed, first), reproducible for the same -n/-c/-t. */
struct reqlist_picker {
    uint32_t n, next, step;    /* seq: the next target, and stride mod n */
    bool random;
    uint64_t state;            /* random: splitmix64 */
};

void reqlist_picker_init(struct reqlist_picker *p, uint32_t n, enum reqlist_order order, uint64_t seed,
                         uint64_t first, uint64_t stride);

static inline uint32_t reqlist_pick(struct reqlist_picker *p)
{
    if (p->n <= 1)
        return 0;
    if (!p->random) {
        uint32_t t = p->next;
        p->next += p->step;
        if (p->next >= p->n)
            p->next -= p->n;
        return t;
    }
    /* splitmix64 (Steele, Lea, Flood 2014), then Lemire's multiply-shift
     * onto [0, n): no division on the request path. */
    uint64_t z = (p->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (uint32_t)(((z >> 32) * (uint64_t)p->n) >> 32);
}

#endif
