/* test/fuzz/fuzz_auth.c — the credential parsers (cli/auth.c)
 * on any bytes: netrc files, a URL's userinfo, -u's USER[:PASSWORD], and
 * the masking of a URL's password.
 *
 * Input: [mode byte], then the bytes. Mode % 3: 0 a netrc file, looked up
 * for host "127.0.0.1" with no login, then with the login it gave; 1 an
 * authority ("user:pass@host:port"); 2 -u's value. The bytes also go, as
 * a NUL-terminated string, through auth_redact. What must hold:
 *   - nothing crashes, reads out of bounds or leaks (ASan, UBSan);
 *   - every result is 0/1 or -1 with a one-line message;
 *   - parsed parts are NUL-terminated, under CRED_MAX, free of control
 *     characters (RFC 7617 §2), and the user has no ':';
 *   - auth_basic's value is "Basic " and the base64 of "user:password";
 *   - auth_redact's copy is the input with the password (as
 *     auth_password_in finds it) replaced by "***", and keeps none of it. */
#include "cli/auth.h"
#include "fuzz.h"

static bool clean(const char *s)
{
    size_t n = strnlen(s, CRED_MAX);
    if (n >= CRED_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return false;
    return true;
}

static void one_line(const char *err)
{
    FZ_CHECK(err[0] != '\0' && !strchr(err, '\n'), "a refusal says why in one line: '%s'", err);
}

static int b64_value(char c)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *at = strchr(b64, c);
    return c && at ? (int)(at - b64) : -1;
}

/* auth_basic(c) decodes to "user:password". */
static void check_basic(const struct cred *c)
{
    char *v = auth_basic(c);
    FZ_CHECK(v != NULL, "auth_basic: out of memory");
    FZ_CHECK(strncmp(v, "Basic ", 6) == 0, "'%s'", v);
    char want[2 * CRED_MAX + 2], got[2 * CRED_MAX + 2];
    int w = snprintf(want, sizeof want, "%s:%s", c->user, c->password);
    size_t wn = w > 0 ? (size_t)w : 0, gn = 0;
    const char *b = v + 6;
    size_t bl = strlen(b);
    FZ_CHECK(bl % 4 == 0, "base64 length %zu", bl);
    for (size_t i = 0; i < bl; i += 4) {
        int q[4];
        for (size_t k = 0; k < 4; k++)
            q[k] = b[i + k] == '=' ? 0 : b64_value(b[i + k]);
        FZ_CHECK(q[0] >= 0 && q[1] >= 0 && q[2] >= 0 && q[3] >= 0, "not base64: '%s'", b);
        uint32_t x = (uint32_t)q[0] << 18 | (uint32_t)q[1] << 12 | (uint32_t)q[2] << 6 | (uint32_t)q[3];
        got[gn++] = (char)(x >> 16);
        if (b[i + 2] != '=')
            got[gn++] = (char)(x >> 8);
        if (b[i + 3] != '=')
            got[gn++] = (char)x;
    }
    FZ_CHECK(gn == wn && memcmp(got, want, wn) == 0, "base64 of '%s' decodes to %zu other bytes", want, gn);
    free(v);
}

static void check_cred(const struct cred *c)
{
    FZ_CHECK(clean(c->user) && clean(c->password), "a part too long or with a control character");
    FZ_CHECK(!strchr(c->user, ':'), "a ':' in the user name '%s'", c->user);
    check_basic(c);
}

static void check_netrc(const char *text, size_t n)
{
    struct cred c, again;
    char err[160];
    int rc = auth_netrc_find(text, n, "127.0.0.1", NULL, &c, err, sizeof err);
    FZ_CHECK(rc >= -1 && rc <= 1, "rc %d", rc);
    if (rc < 0) {
        one_line(err);
        return;
    }
    if (rc == 0)
        return;
    FZ_CHECK(c.has_user, "an entry found without a login");
    FZ_CHECK(strnlen(c.user, CRED_MAX) < CRED_MAX && strnlen(c.password, CRED_MAX) < CRED_MAX, "unterminated");
    /* The same entry is found again by its login. */
    FZ_CHECK(auth_netrc_find(text, n, "127.0.0.1", c.user, &again, err, sizeof err) == 1, "not found by its login");
    FZ_CHECK(strcmp(again.user, c.user) == 0, "another login");
}

static void check_redact(char *s)
{
    size_t n = strlen(s), len;
    char *copy = strdup(s);
    FZ_CHECK(copy != NULL, "strdup");
    char *pw = auth_password_in(copy, &len);
    char *r = auth_redact(s);
    FZ_CHECK(r != NULL, "auth_redact: out of memory");
    if (!pw) {
        FZ_CHECK(strcmp(r, s) == 0, "changed a text without a password");
    } else {
        size_t at = (size_t)(pw - copy);
        FZ_CHECK(strlen(r) == n - len + 3, "length");
        FZ_CHECK(memcmp(r, s, at) == 0 && memcmp(r + at, "***", 3) == 0 &&
                     strcmp(r + at + 3, s + at + len) == 0,
                 "not the input with its password as ***");
        size_t again;
        char *left = auth_password_in(r, &again);
        FZ_CHECK(left && again == 3 && memcmp(left, "***", 3) == 0, "the masked copy has a password again");
    }
    free(r);
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > FZ_MAX_INPUT)
        return 0;
    uint8_t mode = data[0] % 3;
    const char *p = (const char *)data + 1;
    size_t n = size - 1;
    char *s = malloc(n + 1);
    FZ_CHECK(s != NULL, "malloc");
    memcpy(s, p, n);
    s[n] = '\0';
    struct cred c;
    char err[160];
    const char *host;
    switch (mode) {
    case 0:
        check_netrc(s, n); /* exactly n bytes: no NUL needed */
        break;
    case 1:
        if (auth_from_authority(s, n, &c, &host, err, sizeof err) == 0) {
            FZ_CHECK(host >= s && host <= s + n, "host outside the authority");
            if (c.has_user)
                check_cred(&c);
        } else {
            one_line(err);
        }
        break;
    default:
        if (auth_from_option(s, &c, err, sizeof err) == 0)
            check_cred(&c);
        else
            one_line(err);
        break;
    }
    check_redact(s);
    free(s);
    return 0;
}
