/* request.h — the request the user described (method, target, headers,
 * body), as the protocol engines need it to build their request bytes once at
 * start-up (h1_build_request, hpack_request_fields, qpack_encode_request).
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
#include <string.h>

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
};

/* Whether the request carries a Content-Length when the user gave none:
 * with a body (-d, even an empty one), and for a method whose semantics
 * anticipate content (POST, PUT, PATCH) without one: RFC 9110 §8.6, a user
 * agent sends Content-Length: 0 there. Its value is body_len (0 without a
 * body). Methods are case-sensitive (RFC 9110 §9.1): "post" is not POST. */
static inline bool shb_request_sends_length(const struct shb_request *r)
{
    return r->has_body ||
           (r->method && (strcmp(r->method, "POST") == 0 || strcmp(r->method, "PUT") == 0 ||
                          strcmp(r->method, "PATCH") == 0));
}

#endif
