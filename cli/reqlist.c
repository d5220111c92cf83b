/* cli/reqlist.c — the request list reader (--targets FILE, reqlist.h).
 *
 * Line by line over a buffer: no I/O (cli.c reads the file and the bodies
 * it names), so the fuzzer drives exactly what users' files reach. Every
 * refusal is one line naming the line number, as a compiler would. */
#include "cli/reqlist.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/auth.h"

struct reader {
    const char *p, *end;
    unsigned line;          /* of the line last taken */
    struct reqlist *l;
    char *err;
    size_t errlen;
    bool failed;
};

static void rfail(struct reader *r, unsigned line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void rfail(struct reader *r, unsigned line, const char *fmt, ...)
{
    if (r->failed)
        return;
    r->failed = true;
    if (!r->err || !r->errlen)
        return;
    int k = snprintf(r->err, r->errlen, "--targets: line %u: ", line);
    if (k < 0 || (size_t)k >= r->errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err + k, r->errlen - (size_t)k, fmt, ap);
    va_end(ap);
}

/* The next line, without its LF and a CR before it (CRLF files); false at
 * the end of the text. */
static bool next_line(struct reader *r, const char **b, const char **e)
{
    if (r->p >= r->end)
        return false;
    const char *nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
    *b = r->p;
    *e = nl ? nl : r->end;
    r->p = nl ? nl + 1 : r->end;
    if (*e > *b && (*e)[-1] == '\r')
        (*e)--;
    r->line++;
    return true;
}

static bool blank(const char *b, const char *e)
{
    for (; b < e; b++)
        if (*b != ' ' && *b != '\t')
            return false;
    return true;
}

/* '#' first (after blanks): a comment line, as vegeta skips them. */
static bool comment(const char *b, const char *e)
{
    while (b < e && (*b == ' ' || *b == '\t'))
        b++;
    return b < e && *b == '#';
}

static struct reqlist_entry *add_entry(struct reader *r)
{
    struct reqlist *l = r->l;
    if (l->n >= REQLIST_MAX) {
        rfail(r, r->line, "more than %u targets", REQLIST_MAX);
        return NULL;
    }
    if ((l->n & (l->n - 1)) == 0) { /* 0, 1, 2, 4, ...: double the room */
        size_t cap = l->n ? l->n * 2 : 1;
        struct reqlist_entry *grown = realloc(l->e, cap * sizeof *grown);
        if (!grown) {
            rfail(r, r->line, "out of memory");
            return NULL;
        }
        l->e = grown;
    }
    struct reqlist_entry *e = &l->e[l->n++];
    memset(e, 0, sizeof *e);
    e->line = r->line;
    return e;
}

/* The URL of an entry: parsed, credentials made into its Authorization,
 * and on the first's scheme, host and port (they share connections). */
static void entry_url(struct reader *r, struct reqlist_entry *e, const char *b, const char *end)
{
    char *url = strndup(b, (size_t)(end - b));
    if (!url || !(e->url_text = auth_redact(url))) {
        free(url);
        rfail(r, e->line, "out of memory");
        return;
    }
    char why[400];
    if (cli_parse_url(url, &e->url, why, sizeof why) < 0) {
        free(url);
        rfail(r, e->line, "%s", why);
        return;
    }
    /* The URL's text held the password: gone before anything else runs. */
    size_t plen;
    char *pw = auth_password_in(url, &plen);
    if (pw)
        memset(pw, '*', plen);
    free(url);
    if (e->url.cred.has_user && !(e->authorization = auth_basic(&e->url.cred)))
        rfail(r, e->line, "out of memory");
    auth_wipe(&e->url.cred);
    const struct reqlist_entry *first = &r->l->e[0];
    if (e != first && (e->url.https != first->url.https || strcmp(e->url.host, first->url.host) != 0 ||
                       e->url.port != first->url.port))
        rfail(r, e->line,
              "%s is not on %s://%s%s%s:%u, the first target's server (every target shares its connections)",
              e->url_text, first->url.https ? "https" : "http", first->url.host_is_ipv6 ? "[" : "", first->url.host,
              first->url.host_is_ipv6 ? "]" : "", first->url.port);
}

/* "Name: value" of an HTTP-format target. */
static void entry_header(struct reader *r, struct reqlist_entry *e, const char *b, const char *end)
{
    const char *colon = memchr(b, ':', (size_t)(end - b));
    if (!colon) {
        rfail(r, r->line, "expected a header line (Name: value), '@' and a body file, or a blank line");
        return;
    }
    char *name = cli_dup_trimmed(b, colon), *value = cli_dup_trimmed(colon + 1, end);
    struct shb_header *grown = name && value ? realloc(e->headers, (e->nheaders + 1) * sizeof *grown) : NULL;
    if (!grown) {
        free(name);
        free(value);
        rfail(r, r->line, "out of memory");
        return;
    }
    e->headers = grown;
    e->headers[e->nheaders++] = (struct shb_header){ name, value };
    /* A name with blanks inside (or none at all) is no field name (RFC 9110 §5.1). */
    if (!cli_is_token(name, strlen(name)))
        rfail(r, r->line, "header name '%s' is not a token", name);
    else if (!cli_field_value_ok(value))
        rfail(r, r->line, "header value of '%s' contains control characters", name);
}

/* "METHOD URL": one space (or more) between, nothing after the URL. */
static void http_request_line(struct reader *r, const char *b, const char *end)
{
    struct reqlist_entry *e = add_entry(r);
    if (!e)
        return;
    const char *sp = b;
    while (sp < end && *sp != ' ' && *sp != '\t')
        sp++;
    const char *u = sp;
    while (u < end && (*u == ' ' || *u == '\t'))
        u++;
    if (sp == end || u == end) {
        rfail(r, r->line, "expected METHOD URL (e.g. GET http://host/path)");
        return;
    }
    if (!cli_is_token(b, (size_t)(sp - b))) {
        rfail(r, r->line, "'%.*s' is not a method (RFC 9110 §9: a token)", (int)(sp - b > 40 ? 40 : sp - b), b);
        return;
    }
    if (!(e->method = strndup(b, (size_t)(sp - b)))) {
        rfail(r, r->line, "out of memory");
        return;
    }
    /* CONNECT asks a proxy for a tunnel (RFC 9110 §9.3.6): no path to request. */
    if (strcmp(e->method, "CONNECT") == 0) {
        rfail(r, r->line, "CONNECT opens a tunnel through a proxy, which shb does not do");
        return;
    }
    entry_url(r, e, u, end);
}

/* vegeta's format: request line, header lines, an optional @body line, then
 * a blank line (or the end) before the next target. */
static void read_http(struct reader *r)
{
    enum { BETWEEN, HEADERS, AFTER_BODY } state = BETWEEN;
    const char *b, *e;
    while (!r->failed && next_line(r, &b, &e)) {
        if (comment(b, e))
            continue;
        if (blank(b, e)) {
            state = BETWEEN;
            continue;
        }
        struct reqlist_entry *cur = r->l->n ? &r->l->e[r->l->n - 1] : NULL;
        switch (state) {
        case BETWEEN:
            http_request_line(r, b, e);
            state = HEADERS;
            break;
        case HEADERS:
            if (*b == '@') {
                if (e - b < 2) {
                    rfail(r, r->line, "'@' without a body file name");
                } else if (!(cur->body_path = strndup(b + 1, (size_t)(e - b - 1)))) {
                    rfail(r, r->line, "out of memory");
                }
                state = AFTER_BODY;
            } else {
                entry_header(r, cur, b, e);
            }
            break;
        case AFTER_BODY:
            rfail(r, r->line, "expected a blank line after the body file (one body per target)");
            break;
        }
    }
}

/* One URL a line. */
static void read_bare(struct reader *r)
{
    const char *b, *e;
    while (!r->failed && next_line(r, &b, &e)) {
        if (comment(b, e) || blank(b, e))
            continue;
        while (b < e && (*b == ' ' || *b == '\t'))
            b++;
        while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        struct reqlist_entry *ent = add_entry(r);
        if (ent)
            entry_url(r, ent, b, e);
    }
}

int reqlist_parse(const char *text, size_t len, struct reqlist *l, char *err, size_t errlen)
{
    memset(l, 0, sizeof *l);
    struct reader r = { .p = text, .end = text + len, .l = l, .err = err, .errlen = errlen };
    if (err && errlen)
        err[0] = '\0';
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        unsigned line = 1;
        for (const char *q = text; q < nul; q++)
            line += *q == '\n';
        rfail(&r, line, "a NUL byte: a targets file is text");
    } else {
        /* The format is the first target's: a request line has a blank
         * between METHOD and URL, a bare URL none (a URL has no spaces:
         * they must be %-encoded). */
        const char *b, *e;
        struct reader probe = r;
        bool http = false;
        while (next_line(&probe, &b, &e)) {
            if (comment(b, e) || blank(b, e))
                continue;
            while (b < e && (*b == ' ' || *b == '\t'))
                b++;
            http = memchr(b, ' ', (size_t)(e - b)) || memchr(b, '\t', (size_t)(e - b));
            break;
        }
        l->http_format = http;
        if (http)
            read_http(&r);
        else
            read_bare(&r);
        if (!r.failed && l->n == 0)
            rfail(&r, r.line ? r.line : 1, "no target in the file");
    }
    if (r.failed) {
        reqlist_free(l);
        return -1;
    }
    return 0;
}

void reqlist_free(struct reqlist *l)
{
    for (size_t i = 0; i < l->n; i++) {
        struct reqlist_entry *e = &l->e[i];
        free(e->method);
        free(e->url_text);
        free(e->url.target);
        auth_wipe(&e->url.cred);
        for (size_t h = 0; h < e->nheaders; h++) {
            free(e->headers[h].name);
            free(e->headers[h].value);
        }
        free(e->headers);
        free(e->body_path);
        free(e->body);
        free(e->authorization);
        free(e->merged);
    }
    free(l->e);
    memset(l, 0, sizeof *l);
}

void reqlist_picker_init(struct reqlist_picker *p, uint32_t n, enum reqlist_order order, uint64_t seed,
                         uint64_t first, uint64_t stride)
{
    memset(p, 0, sizeof *p);
    p->n = n ? n : 1;
    p->random = order == REQLIST_RANDOM;
    p->next = (uint32_t)(first % p->n);
    p->step = (uint32_t)(stride % p->n);
    /* Each worker (and shard) its own stream: the seed and its place in
     * the run's numbering, mixed so that neighbouring workers' streams do
     * not overlap. */
    p->state = seed ^ (first * 0xd1b54a32d192ed03ull + 0x8cb92ba72f3d8dd7ull);
}
