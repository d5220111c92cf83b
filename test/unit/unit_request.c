/* test/unit/unit_request.c — the request's rules (request.c), once for every
 * protocol: each case gives a request and the header fields HTTP/1.1 sends
 * for it beside those HTTP/2 and HTTP/3 send. The encoders' own tests
 * (unit_h1, unit_hpack, unit_qpack) check the bytes each makes of them. */
#include <stdlib.h>
#include <string.h>

#include "request.h"
#include "request_base.h"
#include "t.h"

/* The fields of form as "name: value\n" lines, into out. */
static bool fields_text(const struct shb_request *r, enum shb_field_form form, char *out, size_t cap)
{
    size_t n, used = 0;
    struct shb_field *f = shb_request_fields(r, form, &n);
    if (!f)
        return false;
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        int k = snprintf(out + used, cap - used, "%s: %s\n", f[i].name, f[i].value);
        if (k < 0 || (size_t)k >= cap - used) {
            free(f);
            return false;
        }
        used += (size_t)k;
    }
    free(f);
    return true;
}

/* Checks both forms of r against h1 and h2 (NULL: not checked). */
static void check(const char *name, const struct shb_request *r, const char *h1, const char *h2)
{
    char got1[4096], got2[4096];
    bool ok1 = !h1 || (fields_text(r, SHB_FIELDS_H1, got1, sizeof got1) && strcmp(got1, h1) == 0);
    bool ok2 = !h2 || (fields_text(r, SHB_FIELDS_H2, got2, sizeof got2) && strcmp(got2, h2) == 0);
    T_CHECK(name, ok1 && ok2, "HTTP/1.1 %s, HTTP/2 %s\n  HTTP/1.1 got:\n%s  HTTP/2 got:\n%s", ok1 ? "ok" : "wrong",
            ok2 ? "ok" : "wrong", ok1 ? "" : got1, ok2 ? "" : got2);
}

#define H1_HEAD "Host: example.com:8080\nUser-Agent: shb\nAccept: */*\n"
#define H2_DEFAULTS "user-agent: shb\naccept: */*\n"
#define H2_PSEUDO(method) ":method: " method "\n:scheme: http\n:authority: example.com:8080\n:path: /\n"

static void test_method_and_target(void)
{
    struct shb_request r = t_request_base();
    check("request: a GET: Host (HTTP/1.1) or the four pseudo-headers (HTTP/2), then User-Agent and Accept", &r,
          H1_HEAD, H2_PSEUDO("GET") H2_DEFAULTS);
    T_CHECK("request: method and target as given", strcmp(shb_request_method(&r), "GET") == 0 &&
            strcmp(shb_request_target(&r), "/") == 0, "wrong");

    r.method = NULL;
    r.target = NULL;
    T_CHECK("request: no method and no body: GET; no target: /",
            strcmp(shb_request_method(&r), "GET") == 0 && strcmp(shb_request_target(&r), "/") == 0, "%s %s",
            shb_request_method(&r), shb_request_target(&r));
    r.target = "";
    r.has_body = true;
    T_CHECK("request: no method with a body: POST; an empty target: /",
            strcmp(shb_request_method(&r), "POST") == 0 && strcmp(shb_request_target(&r), "/") == 0, "%s %s",
            shb_request_method(&r), shb_request_target(&r));

    r = t_request_base();
    r.https = true;
    r.target = "/a/b?x=1&y=%20";
    check("request: https and a query: :scheme https, :path verbatim", &r, H1_HEAD,
          ":method: GET\n:scheme: https\n:authority: example.com:8080\n:path: /a/b?x=1&y=%20\n" H2_DEFAULTS);
}

/* RFC 9110 §8.6: a body, even an empty one, has its length sent; so has a
 * POST, PUT or PATCH without one (0). Methods are case-sensitive (§9.1). */
static void test_content_length(void)
{
    static const uint8_t body[] = "{\"a\":1}";
    struct shb_header ct[] = { { "Content-Type", "application/json" } };
    struct shb_request r = t_request_base();
    r.method = NULL;
    r.headers = ct;
    r.nheaders = 1;
    r.body = body;
    r.body_len = 7;
    r.has_body = true;
    check("request: a body: Content-Length after the user's headers", &r,
          H1_HEAD "Content-Type: application/json\nContent-Length: 7\n",
          H2_PSEUDO("POST") H2_DEFAULTS "content-type: application/json\ncontent-length: 7\n");

    r = t_request_base();
    r.method = NULL;
    r.has_body = true; /* -d '' */
    check("request: an empty body: POST, Content-Length: 0", &r, H1_HEAD "Content-Length: 0\n",
          H2_PSEUDO("POST") H2_DEFAULTS "content-length: 0\n");

    static const char *const with_length[] = { "POST", "PUT", "PATCH" };
    for (size_t i = 0; i < sizeof with_length / sizeof with_length[0]; i++) {
        char h2[256];
        snprintf(h2, sizeof h2, ":method: %s\n:scheme: http\n:authority: example.com:8080\n:path: /\n" H2_DEFAULTS
                 "content-length: 0\n", with_length[i]);
        r = t_request_base();
        r.method = with_length[i];
        check("request: POST, PUT or PATCH without a body: Content-Length: 0", &r, H1_HEAD "Content-Length: 0\n",
              h2);
    }
    static const char *const without[] = { "post", "POSTX", "GET", "DELETE", "HEAD", "OPTIONS" };
    for (size_t i = 0; i < sizeof without / sizeof without[0]; i++) {
        char h2[256];
        snprintf(h2, sizeof h2, ":method: %s\n:scheme: http\n:authority: example.com:8080\n:path: /\n" H2_DEFAULTS,
                 without[i]);
        r = t_request_base();
        r.method = without[i];
        check("request: other methods ('post' included) without a body: no Content-Length", &r, H1_HEAD, h2);
    }

    struct shb_header cl0[] = { { "Content-Length", "0" } };
    r = t_request_base();
    r.method = "POST";
    r.headers = cl0;
    r.nheaders = 1;
    check("request: a POST without a body and the user's Content-Length: 0 sends it once", &r,
          H1_HEAD "Content-Length: 0\n", H2_PSEUDO("POST") H2_DEFAULTS "content-length: 0\n");

    r = t_request_base();
    r.method = "PUT";
    r.body = body;
    r.body_len = 12345678901;
    r.has_body = true;
    check("request: Content-Length has every digit of a large body's length", &r,
          H1_HEAD "Content-Length: 12345678901\n", ":method: PUT\n:scheme: http\n:authority: example.com:8080\n"
                                                   ":path: /\n" H2_DEFAULTS "content-length: 12345678901\n");

    struct shb_header cl[] = { { "content-length", "3" } };
    r = t_request_base();
    r.method = "PUT";
    r.headers = cl;
    r.nheaders = 1;
    r.body = body;
    r.body_len = 3;
    r.has_body = true;
    check("request: the user's Content-Length (any case) is the only one", &r, H1_HEAD "content-length: 3\n",
          ":method: PUT\n:scheme: http\n:authority: example.com:8080\n:path: /\n" H2_DEFAULTS "content-length: 3\n");
}

static void test_user_headers(void)
{
    struct shb_header hs[] = { { "X-B", "2" }, { "HOST", "other.test:81" }, { "host", "second.test" },
                               { "ACCEPT", "text/html" }, { "user-agent", "Bench/1.0" } };
    struct shb_request r = t_request_base();
    r.headers = hs;
    r.nheaders = 5;
    check("request: the user's Host (first of two) replaces ours: in place in HTTP/1.1, :authority in HTTP/2 "
          "(RFC 9113 §8.3.1); the user's Accept and User-Agent replace the defaults (any case)",
          &r, "X-B: 2\nHOST: other.test:81\nhost: second.test\nACCEPT: text/html\nuser-agent: Bench/1.0\n",
          ":method: GET\n:scheme: http\n:authority: other.test:81\n:path: /\nx-b: 2\naccept: text/html\n"
          "user-agent: Bench/1.0\n");

    struct shb_header conn[] = { { "Connection", "keep-alive" },      { "Keep-Alive", "timeout=5" },
                                 { "Transfer-Encoding", "chunked" }, { "Upgrade", "h2c" },
                                 { "Proxy-Connection", "close" },    { "TE", "gzip" },
                                 { "X-Kept", "yes" } };
    r = t_request_base();
    r.headers = conn;
    r.nheaders = 7;
    check("request: connection-specific headers: sent by HTTP/1.1 as given, dropped by HTTP/2 and HTTP/3 "
          "(RFC 9113 §8.2.2, RFC 9114 §4.2)",
          &r,
          H1_HEAD "Connection: keep-alive\nKeep-Alive: timeout=5\nTransfer-Encoding: chunked\nUpgrade: h2c\n"
                  "Proxy-Connection: close\nTE: gzip\nX-Kept: yes\n",
          H2_PSEUDO("GET") H2_DEFAULTS "x-kept: yes\n");

    struct shb_header te[] = { { "TE", "Trailers" } };
    r = t_request_base();
    r.headers = te;
    r.nheaders = 1;
    check("request: te: trailers kept by HTTP/2, its value normalised", &r, H1_HEAD "TE: Trailers\n",
          H2_PSEUDO("GET") H2_DEFAULTS "te: trailers\n");

    struct shb_header mixed[] = { { "X-Custom-Header", "Mixed Case Value" }, { "x-empty", "" }, { "COOKIE", "a=b" } };
    r = t_request_base();
    r.headers = mixed;
    r.nheaders = 3;
    check("request: names as written in HTTP/1.1, lowercased in HTTP/2 (RFC 9113 §8.2); values kept, empty ones too",
          &r, H1_HEAD "X-Custom-Header: Mixed Case Value\nx-empty: \nCOOKIE: a=b\n",
          H2_PSEUDO("GET") H2_DEFAULTS "x-custom-header: Mixed Case Value\nx-empty: \ncookie: a=b\n");
}

static void test_connection_close(void)
{
    struct shb_request r = t_request_base();
    r.connection_close = true;
    check("request: --disable-keepalive: Connection: close last in HTTP/1.1, nothing in HTTP/2", &r,
          H1_HEAD "Connection: close\n", H2_PSEUDO("GET") H2_DEFAULTS);

    struct shb_header c[] = { { "connection", "Keep-Alive" } };
    r.headers = c;
    r.nheaders = 1;
    check("request: the user's Connection wins over --disable-keepalive", &r, H1_HEAD "connection: Keep-Alive\n",
          H2_PSEUDO("GET") H2_DEFAULTS);

    const struct shb_header *h = shb_request_header(&r, "CONNECTION");
    T_CHECK("request: shb_request_header finds a name in any case, and not a prefix of one",
            h == &c[0] && shb_request_header(&r, "connectio") == NULL && shb_request_header(&r, "connections") == NULL,
            "wrong");
}

int main(void)
{
    test_method_and_target();
    test_content_length();
    test_user_headers();
    test_connection_close();
    T_DONE();
}
