/* test/fuzz/fuzz_proxy.c — what shb reads from and about an HTTP proxy:
 * the proxy's reply to CONNECT (proxy.c's parser, which reads bytes off
 * the network), and the proxy URL and no-proxy list (cli/proxy.c).
 *
 * Input: [mode byte], then the bytes. Mode & 4 clear: a reply, split as
 * fz_split says (mode's low two bits, a 16-bit seed next); mode & 4 set:
 * a proxy URL up to the first NUL, and after it a no-proxy list matched
 * against the URL's host. What must hold:
 *   - nothing crashes, reads out of bounds or leaks (ASan, UBSan);
 *   - a reply fed in pieces gives what it gives whole: the same result,
 *     status, reason and head length;
 *   - a finished head has a status of 200-599 and a printable reason of
 *     fewer than PROXY_REASON_MAX bytes, and ends within the bytes fed and
 *     within PROXY_HEAD_MAX of its start; a refused one says why;
 *   - a parsed URL has a host and a port; a refused one says why in one
 *     line; "*" on the list matches every host. */
#include "cli/proxy.h"
#include "fuzz.h"
#include "proxy.h"

struct reply_result {
    enum proxy_reply_rc rc;
    struct proxy_reply r;
    size_t used; /* DONE: the head's bytes from the start of the input */
};

static void feed_reply(const uint8_t *p, size_t n, struct fz_split *sp, struct reply_result *out)
{
    proxy_reply_init(&out->r);
    out->rc = PROXY_REPLY_MORE;
    out->used = 0;
    size_t at = 0;
    do {
        size_t k = sp ? fz_split_next(sp, n - at) : n - at, used = 0;
        out->rc = proxy_reply_feed(&out->r, fz_place(p + at, k), k, &used);
        if (out->rc == PROXY_REPLY_DONE) {
            FZ_CHECK(used <= k, "used %zu of a %zu-byte feed", used, k);
            out->used = at + used;
        }
        at += k;
    } while (out->rc == PROXY_REPLY_MORE && at < n);
}

static void check_reply(const uint8_t *p, size_t n, uint8_t mode, uint16_t seed)
{
    struct reply_result whole, split;
    struct fz_split sp;
    fz_split_init(&sp, mode, seed);
    feed_reply(p, n, NULL, &whole);
    feed_reply(p, n, &sp, &split);
    FZ_CHECK(whole.rc == split.rc, "whole %d, in pieces %d", whole.rc, split.rc);
    if (whole.rc == PROXY_REPLY_BAD) {
        FZ_CHECK(whole.r.why && *whole.r.why && !strchr(whole.r.why, '\n'), "a refusal without its reason");
        return;
    }
    if (whole.rc != PROXY_REPLY_DONE)
        return;
    const struct proxy_reply *r = &whole.r;
    FZ_CHECK(r->status >= 200 && r->status <= 599, "status %u", r->status);
    FZ_CHECK(r->status == split.r.status && strcmp(r->reason, split.r.reason) == 0 && whole.used == split.used,
             "pieces disagree: %u '%s' %zu vs %u '%s' %zu", r->status, r->reason, whole.used, split.r.status,
             split.r.reason, split.used);
    FZ_CHECK(whole.used <= n && r->seen <= PROXY_HEAD_MAX, "head %zu of %zu, seen %u", whole.used, n, r->seen);
    size_t len = strnlen(r->reason, PROXY_REASON_MAX);
    FZ_CHECK(len < PROXY_REASON_MAX, "reason not terminated");
    for (size_t i = 0; i < len; i++)
        FZ_CHECK(r->reason[i] >= 0x20 && r->reason[i] < 0x7f, "reason byte 0x%02x", (unsigned char)r->reason[i]);
}

static void check_url(const char *url, const char *list)
{
    struct shb_url u;
    char err[512];
    if (proxy_parse_url(url, &u, err, sizeof err) == 0) {
        FZ_CHECK(u.host[0] && u.port != 0, "host '%s' port %u", u.host, u.port);
        free(u.target);
        (void)proxy_noproxy_match(list, u.host);
        FZ_CHECK(proxy_noproxy_match("x,*", u.host), "'*' does not match '%s'", u.host);
    } else {
        FZ_CHECK(err[0] && !strchr(err, '\n'), "a refusal says why in one line: '%s'", err);
    }
    auth_wipe(&u.cred);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > FZ_MAX_INPUT)
        return 0;
    struct fz_reader rd = { data, size };
    uint8_t mode = fz_u8(&rd);
    if (!(mode & 4)) {
        uint16_t seed = fz_u16(&rd);
        check_reply(rd.p, rd.n, mode, seed);
        return 0;
    }
    char *s = malloc(rd.n + 2);
    FZ_CHECK(s != NULL, "malloc");
    memcpy(s, rd.p, rd.n);
    s[rd.n] = '\0';
    s[rd.n + 1] = '\0';
    check_url(s, s + strlen(s) + 1);
    free(s);
    return 0;
}
