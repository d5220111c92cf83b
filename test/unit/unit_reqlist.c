/* test/unit/unit_reqlist.c — the request list reader (cli/reqlist.c):
 * both formats, CRLF, comments, line-numbered refusals, the first
 * target's server for all; the picker: seq exact over any split of the
 * run's numbering across workers and shards, random reproducible. */
#include <stdlib.h>
#include <string.h>

#include "cli/reqlist.h"
#include "t.h"

static int parse(const char *text, struct reqlist *l, char *err, size_t errlen)
{
    return reqlist_parse(text, strlen(text), l, err, errlen);
}

static void test_http_format(void)
{
    struct reqlist l;
    char err[512];
    const char *text = "# a comment\r\n"
                       "GET http://127.0.0.1:8080/a?x=1\r\n"
                       "X-One: 1\r\n"
                       "Accept:  text/plain  \r\n"
                       "\r\n"
                       "POST http://127.0.0.1:8080/b\n"
                       "@body.json\n"
                       "\n\n"
                       "HEAD http://u:secret@127.0.0.1:8080/c\n";
    int rc = parse(text, &l, err, sizeof err);
    T_CHECK("http: three targets, CRLF and LF lines, a comment", rc == 0 && l.n == 3 && l.http_format, "rc %d n %zu: %s",
            rc, l.n, err);
    if (rc == 0 && l.n == 3) {
        T_CHECK("http: method, path and query, headers trimmed",
                strcmp(l.e[0].method, "GET") == 0 && strcmp(l.e[0].url.target, "/a?x=1") == 0 &&
                    l.e[0].nheaders == 2 && strcmp(l.e[0].headers[1].name, "Accept") == 0 &&
                    strcmp(l.e[0].headers[1].value, "text/plain") == 0 && l.e[0].line == 2,
                "%s %s", l.e[0].method, l.e[0].url.target);
        T_CHECK("http: @body names the body file", l.e[1].body_path && strcmp(l.e[1].body_path, "body.json") == 0,
                "%s", l.e[1].body_path ? l.e[1].body_path : "(none)");
        T_CHECK("http: credentials make an Authorization, the password shown as ***",
                l.e[2].authorization && strstr(l.e[2].url_text, "***") && !strstr(l.e[2].url_text, "secret"),
                "%s", l.e[2].url_text);
        reqlist_free(&l);
    }
}

static void test_bare(void)
{
    struct reqlist l;
    char err[512];
    int rc = parse("http://h:81/a\n\n  http://h:81/b  \n# no\nhttp://h:81/c", &l, err, sizeof err);
    T_CHECK("bare: every non-blank line a URL, no trailing newline needed",
            rc == 0 && l.n == 3 && !l.http_format && l.e[0].method == NULL && strcmp(l.e[1].url.target, "/b") == 0,
            "rc %d n %zu: %s", rc, l.n, err);
    if (rc == 0)
        reqlist_free(&l);
}

/* Each refusal: -1, one line naming the line number, the list empty. */
static void refused(const char *name, const char *text, size_t len, const char *want)
{
    struct reqlist l;
    char err[512] = "";
    int rc = reqlist_parse(text, len, &l, err, sizeof err);
    T_CHECK(name, rc == -1 && strstr(err, want) && !strchr(err, '\n') && l.n == 0 && l.e == NULL, "rc %d: %s", rc,
            err);
}

static void test_refusals(void)
{
    const char *t;
    t = "GET http://a:80/x\n\nGET http://b:80/y\n";
    refused("refused: another host, with its line", t, strlen(t), "line 3: http://b:80/y is not on http://a:80");
    t = "http://a/x\nhttps://a/y\n";
    refused("refused: another scheme (and port)", t, strlen(t), "line 2:");
    t = "GET http://a/x\nnot a header\n";
    refused("refused: a line that is no header", t, strlen(t), "line 2: expected a header line");
    t = "GET http://a/x\n@b\nX: 1\n";
    refused("refused: a header after the body", t, strlen(t), "line 3: expected a blank line after the body");
    t = "G(T http://a/x\n";
    refused("refused: a method that is no token", t, strlen(t), "line 1:");
    t = "GET ftp://a/x\n";
    refused("refused: a URL shb cannot request", t, strlen(t), "line 1:");
    t = "GET http://a/x\nBad Name: 1\n";
    refused("refused: a header name with a space", t, strlen(t), "line 2: header name");
    refused("refused: a NUL byte, with its line", "http://a/x\nhttp://a/\0y\n", 22, "line 2: a NUL byte");
    refused("refused: an empty file", "# only\n\n", 8, "no target");
    t = "http://a/x y\n";
    refused("refused: bare list of METHOD lines is the HTTP format", t, strlen(t), "line 1:");
}

/* seq: the run's requests 0..n-1, shared by S shards of T workers each as
 * shb.c does (shard s's worker i takes s + S*i, stride S*T, its share of
 * the budget), give each target exactly n/N. */
static uint64_t share(uint64_t total, unsigned parts, unsigned i)
{
    return total / parts + (i < total % parts ? 1 : 0);
}

static void test_seq_exact(void)
{
    bool ok = true;
    const unsigned shards[] = { 1, 2, 3 }, workers[] = { 1, 2, 3, 7 };
    const uint32_t ntargets[] = { 2, 3, 5 };
    for (size_t a = 0; a < 3; a++)
        for (size_t b = 0; b < 4; b++)
            for (size_t c = 0; c < 3; c++) {
                unsigned S = shards[a], T = workers[b];
                uint32_t N = ntargets[c];
                uint64_t n = (uint64_t)N * 41, counts[8] = { 0 };
                for (unsigned s = 0; s < S; s++)
                    for (unsigned i = 0; i < T; i++) {
                        struct reqlist_picker p;
                        reqlist_picker_init(&p, N, REQLIST_SEQ, 0, s + (uint64_t)S * i, (uint64_t)S * T);
                        uint64_t budget = share(share(n, S, s), T, i);
                        for (uint64_t k = 0; k < budget; k++)
                            counts[reqlist_pick(&p)]++;
                    }
                for (uint32_t t = 0; t < N; t++)
                    ok &= T_QUIET("seq: exact per target", counts[t] == 41,
                                  "shards %u workers %u targets %u: target %u got %llu", S, T, N, t,
                                  (unsigned long long)counts[t]);
            }
    T_CHECK("seq: n = 41 rounds gives 41 each, for any shards x workers split", ok, "see above");
}

static void test_random(void)
{
    uint64_t a[4] = { 0 }, b[4] = { 0 }, c[4] = { 0 };
    for (unsigned w = 0; w < 2; w++) {
        struct reqlist_picker p, q, r;
        reqlist_picker_init(&p, 4, REQLIST_RANDOM, 7, w, 2);
        reqlist_picker_init(&q, 4, REQLIST_RANDOM, 7, w, 2);
        reqlist_picker_init(&r, 4, REQLIST_RANDOM, 8, w, 2);
        for (int k = 0; k < 1000; k++) {
            a[reqlist_pick(&p)]++;
            b[reqlist_pick(&q)]++;
            c[reqlist_pick(&r)]++;
        }
    }
    T_CHECK("random: the same seed gives the same counts", memcmp(a, b, sizeof a) == 0, "differ");
    T_CHECK("random: another seed gives others", memcmp(a, c, sizeof a) != 0, "same");
    bool spread = true;
    for (int t = 0; t < 4; t++)
        spread &= a[t] > 400 && a[t] < 600;
    T_CHECK("random: about uniform (2000 draws over 4)", spread, "%llu %llu %llu %llu", (unsigned long long)a[0],
            (unsigned long long)a[1], (unsigned long long)a[2], (unsigned long long)a[3]);
}

int main(void)
{
    test_http_format();
    test_bare();
    test_refusals();
    test_seq_exact();
    test_random();
    T_DONE();
}
