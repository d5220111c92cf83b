/* request.c — the request's rules, in one place for every protocol: the
 * default method and target, the headers shb adds unless the user gave
 * them, the Content-Length it sends, and what HTTP/2 and HTTP/3 send in
 * place of HTTP/1.1's Host and connection-specific headers.
 *
 * h1_build_request, hpack_encode_request and qpack_encode_request each
 * take the field list from here once, at start-up, and only choose its
 * encoding. */
#include "request.h"

#include <stdlib.h>
#include <string.h>

static char ascii_lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c + ('a' - 'A')) : c;
}

static bool names_equal(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (ascii_lower(*a) != ascii_lower(*b))
            return false;
    return *a == *b;
}

const char *shb_request_method(const struct shb_request *r)
{
    /* As curl: POST when there is a body (-d), GET otherwise. */
    return r->method ? r->method : r->has_body ? "POST" : "GET";
}

const char *shb_request_target(const struct shb_request *r)
{
    return r->target && *r->target ? r->target : "/";
}

void shb_request_origin(const struct shb_request *r, const char **scheme, const char **authority)
{
    *scheme = r->absolute_form ? "http://" : "";
    *authority = r->absolute_form ? r->authority : "";
}

const struct shb_header *shb_request_header(const struct shb_request *r, const char *name)
{
    for (size_t i = 0; i < r->nheaders; i++)
        if (names_equal(r->headers[i].name, name))
            return &r->headers[i];
    return NULL;
}

/* Whether the request carries a Content-Length when the user gave none:
 * with a body (-d, even an empty one), and for a method whose semantics
 * anticipate content (POST, PUT, PATCH) without one: RFC 9110 §8.6, a user
 * agent sends Content-Length: 0 there. Its value is body_len (0 without a
 * body). Methods are case-sensitive (RFC 9110 §9.1): "post" is not POST. */
static bool sends_length(const struct shb_request *r)
{
    return r->has_body ||
           (r->method && (strcmp(r->method, "POST") == 0 || strcmp(r->method, "PUT") == 0 ||
                          strcmp(r->method, "PATCH") == 0));
}

/* Headers HTTP/2 and HTTP/3 forbid (RFC 9113 §8.2.2, RFC 9114 §4.2), and
 * Host, which becomes :authority (RFC 9113 §8.3.1, RFC 9114 §4.3.1). TE
 * is kept only as "trailers". */
static bool dropped_in_h2(const struct shb_header *h)
{
    static const char *const names[] = { "connection", "keep-alive", "proxy-connection",
                                         "transfer-encoding", "upgrade", "host" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names_equal(h->name, names[i]))
            return true;
    return names_equal(h->name, "te") && !names_equal(h->value, "trailers");
}

/* Collects the field list: with f NULL it only counts (n fields, bytes of
 * their strings with the NULs), else it copies into f and store, names
 * lowercased for HTTP/2 and HTTP/3 (RFC 9113 §8.2, RFC 9114 §4.2). */
struct field_sink {
    enum shb_field_form form;
    struct shb_field *f;
    char *store;
    size_t n, bytes;
};

static void add(struct field_sink *s, const char *name, const char *value)
{
    size_t nl = strlen(name) + 1, vl = strlen(value) + 1;
    if (s->f) {
        char *copy = s->store + s->bytes;
        for (size_t i = 0; i < nl; i++)
            copy[i] = s->form == SHB_FIELDS_H2 ? ascii_lower(name[i]) : name[i];
        memcpy(copy + nl, value, vl);
        s->f[s->n].name = copy;
        s->f[s->n].value = copy + nl;
    }
    s->n++;
    s->bytes += nl + vl;
}

static void list_fields(const struct shb_request *r, struct field_sink *s)
{
    bool h2 = s->form == SHB_FIELDS_H2;
    const struct shb_header *host = shb_request_header(r, "Host");
    if (h2) {
        add(s, ":method", shb_request_method(r));
        add(s, ":scheme", r->https ? "https" : "http");
        add(s, ":authority", host ? host->value : r->authority);
        add(s, ":path", shb_request_target(r));
    } else if (!host) {
        add(s, "Host", r->authority); /* RFC 9112 §3.2: every request has one */
    }
    /* The user's own Authorization wins over credentials, as in curl. */
    if (r->authorization && !shb_request_header(r, "Authorization"))
        add(s, "Authorization", r->authorization);
    /* RFC 9110 §11.7.2: for the proxy; only HTTP/1.1 talks to one (a
     * tunnel's credentials go in its CONNECT). */
    if (!h2 && r->proxy_authorization && !shb_request_header(r, "Proxy-Authorization"))
        add(s, "Proxy-Authorization", r->proxy_authorization);
    if (!shb_request_header(r, "User-Agent"))
        add(s, "User-Agent", "shb");
    if (!shb_request_header(r, "Accept"))
        add(s, "Accept", "*/*");
    for (size_t i = 0; i < r->nheaders; i++) {
        const struct shb_header *h = &r->headers[i];
        if (h2 && dropped_in_h2(h))
            continue;
        add(s, h->name, h2 && names_equal(h->name, "te") ? "trailers" : h->value);
    }
    /* -d '' and a POST without -d say Content-Length: 0 (RFC 9110 §8.6). */
    if (sends_length(r) && !shb_request_header(r, "Content-Length")) {
        char digits[21];
        size_t i = sizeof digits;
        uint64_t v = r->has_body ? r->body_len : 0;
        digits[--i] = '\0';
        do {
            digits[--i] = (char)('0' + v % 10);
            v /= 10;
        } while (v);
        add(s, "Content-Length", digits + i);
    }
    /* --disable-keepalive (RFC 9112 §9.6); HTTP/2 and HTTP/3 have no such
     * header and end a connection otherwise. */
    if (!h2 && r->connection_close && !shb_request_header(r, "Connection"))
        add(s, "Connection", "close");
}

struct shb_field *shb_request_fields(const struct shb_request *r, enum shb_field_form form, size_t *n)
{
    struct field_sink s = { form, NULL, NULL, 0, 0 };
    list_fields(r, &s);
    struct shb_field *f = malloc(s.n * sizeof *f + s.bytes);
    if (!f)
        return NULL;
    s = (struct field_sink){ form, f, (char *)(f + s.n), 0, 0 };
    list_fields(r, &s);
    *n = s.n;
    return f;
}

uint8_t *shb_request_encode(const struct shb_request *r, enum shb_field_form form, shb_request_writer *write,
                            size_t *len)
{
    size_t n;
    struct shb_field *f = shb_request_fields(r, form, &n);
    if (!f)
        return NULL;
    size_t need = write(r, f, n, NULL);
    uint8_t *buf = malloc(need ? need : 1);
    if (buf)
        *len = write(r, f, n, buf);
    free(f);
    return buf;
}
