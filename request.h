/* request.h — the request the user described (method, target, headers,
 * body), as the protocol engines need it to build their request bytes once at
 * start-up (h1_build_request, hpack_encode_request, qpack_encode_request),
 * and the rules every one of them follows (request.c).
 *
 * Kept apart from the command line (cli.h) so that no protocol engine
 * depends on how the request was asked for: a test, a fuzzer or another
 * front end fills this in directly. Nothing here is owned: every pointer
 * stays valid for as long as the engines use the request. */
#ifndef SHB_REQUEST_H
#define SHB_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct shb_header {
    char *name;  /* trimmed */
    char *value; /* leading/trailing whitespace trimmed */
};

struct shb_request {
    const char *method;               /* NULL: GET, or POST when has_body (like curl) */
    bool https;                       /* :scheme https (HTTP/2 and HTTP/3) */
    const char *authority;            /* Host header / :authority: host, [v6], ":port" unless default */
    const char *target;               /* path + query, verbatim; NULL or "" means "/" */
    const struct shb_header *headers; /* -H, in the order given */
    size_t nheaders;
    const uint8_t *body;              /* -d */
    size_t body_len;
    bool has_body;                    /* -d given (possibly empty: Content-Length: 0) */
    bool connection_close;            /* --disable-keepalive: HTTP/1.1 sends Connection: close */
    const char *authorization;        /* credentials' Authorization value ("Basic ..."), or NULL */
    bool absolute_form;               /* HTTP/1.1 through a proxy: the target in absolute-form */
    const char *proxy_authorization;  /* HTTP/1.1 through a proxy: the proxy's credentials, or NULL */
};

/* The method: r->method, else POST with a body and GET without (as curl). */
const char *shb_request_method(const struct shb_request *r);

/* The request target: r->target, "/" when NULL or empty. */
const char *shb_request_target(const struct shb_request *r);

/* What HTTP/1.1's request line writes before the target: with
 * absolute_form "http://" and the authority (RFC 9112 §3.2.2: a request to
 * a proxy names the whole URI), else two empty strings. */
void shb_request_origin(const struct shb_request *r, const char **scheme, const char **authority);

/* The user's first header named name (ASCII case-insensitive), or NULL. */
const struct shb_header *shb_request_header(const struct shb_request *r, const char *name);

/* One header field as a protocol sends it. */
struct shb_field {
    const char *name, *value;
};

/* The two shapes of a request's header section. */
enum shb_field_form {
    /* HTTP/1.1 (RFC 9112): Host (unless the user gave one), Authorization
     * with credentials unless the user gave one, Proxy-Authorization
     * likewise, User-Agent and Accept
     * unless given, the user's headers in order and as written,
     * Content-Length (with a body, even an empty one, and for POST, PUT and
     * PATCH without one: RFC 9110 §8.6; unless given), and
     * Connection: close with connection_close unless the user gave a
     * Connection header. */
    SHB_FIELDS_H1,
    /* HTTP/2 and HTTP/3: :method, :scheme, :authority (the user's Host
     * value when given), :path, then authorization, user-agent and
     * accept unless given,
     * the user's headers in order minus host and the connection-specific
     * ones both forbid (RFC 9113 §8.2.2, RFC 9114 §4.2: connection,
     * keep-alive, proxy-connection, transfer-encoding, upgrade; te unless
     * its value is "trailers", sent as "trailers"), then content-length as
     * for HTTP/1.1. Every name lowercased (RFC 9113 §8.2, RFC 9114 §4.2). */
    SHB_FIELDS_H2,
};

/* The request's header fields in form's shape and wire order. One
 * malloc'd block (free() it) holding *n fields and their strings; NULL when
 * out of memory. Called once at start-up by each request encoder. */
struct shb_field *shb_request_fields(const struct shb_request *r, enum shb_field_form form, size_t *n);

/* One encoding of a request: writes the n fields, and what its protocol
 * puts around them (HTTP/1.1's request line and body, QPACK's section
 * prefix), into out, and returns the length;
 * with out NULL it only counts, so one code path sizes the buffer and
 * fills it and the two cannot disagree. */
typedef size_t shb_request_writer(const struct shb_request *r, const struct shb_field *f, size_t n, uint8_t *out);

/* The request's bytes in one encoding: the fields of form (above), written
 * by write twice (count, then fill). Returns the malloc'd bytes and *len;
 * NULL when out of memory. */
uint8_t *shb_request_encode(const struct shb_request *r, enum shb_field_form form, shb_request_writer *write,
                            size_t *len);

#endif
