/* test/fuzz/fuzz_override.c — the --connect-to and --resolve parsers
 * (cli/override.c), on any text a user may type.
 *
 * Input: [mode byte], then the value (cut at its first NUL). Mode bit 0
 * clear: a --connect-to value; set: a --resolve value. What must hold:
 *   - nothing crashes, reads out of bounds or leaks (ASan, UBSan);
 *   - a refusal says why in one line (not empty, no control characters
 *     but those the value itself held);
 *   - an accepted entry is well formed: hosts are names of at most 253
 *     characters or IPv6 literals (":" only there), "*" only as
 *     --resolve's whole host, ports 1-65535 where required, 1 to
 *     OVERRIDE_ADDRS_MAX addresses, each IPv4 or IPv6;
 *   - it writes back as the same entry: written out in curl's form and
 *     parsed again, it is the same, field for field;
 *   - it matches what it names: a --connect-to entry with a host and a
 *     port matches them (in upper case too), a --resolve entry its host and
 *     port, and neither matches port + 1 when it names a port. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>

#include "cli/override.h"
#include "fuzz.h"

#define TEXT_MAX 4096

static char text[TEXT_MAX + 1];
static char again[TEXT_MAX * 2];

static void check_why(const char *why)
{
    FZ_CHECK(why[0] != '\0', "a refusal without a reason");
    FZ_CHECK(strchr(why, '\n') == NULL || strchr(text, '\n') != NULL, "a reason of several lines: %s", why);
}

/* A host as parsed: "" (a field left empty), a name, or an IPv6 literal. */
static void check_host(const char *h, bool star)
{
    size_t len = strlen(h);
    FZ_CHECK(len <= 253, "host of %zu characters", len);
    if (strchr(h, ':')) {
        struct in6_addr a;
        FZ_CHECK(inet_pton(AF_INET6, h, &a) == 1, "a host with ':' that is no IPv6 address: %s", h);
        return;
    }
    if (star && strcmp(h, "*") == 0)
        return;
    for (size_t i = 0; i < len; i++)
        FZ_CHECK(isalnum((unsigned char)h[i]) || strchr("-._", h[i]), "host '%s' has '%c'", h, h[i]);
}

/* host in curl's form: [IPv6] in brackets. */
static int put_host(char *out, size_t cap, const char *h)
{
    return snprintf(out, cap, strchr(h, ':') ? "[%s]" : "%s", h);
}

static void upper(char *dst, const char *src)
{
    for (; *src; src++)
        *dst++ = (char)toupper((unsigned char)*src);
    *dst = '\0';
}

static void fuzz_connect_to(void)
{
    struct connect_to c, c2;
    char why[256] = "";
    if (connect_to_parse(text, &c, why, sizeof why) != 0) {
        check_why(why);
        return;
    }
    check_host(c.from_host, false);
    check_host(c.to_host, false);
    int n = put_host(again, sizeof again, c.from_host);
    n += snprintf(again + n, sizeof again - (size_t)n, ":");
    if (c.from_port)
        n += snprintf(again + n, sizeof again - (size_t)n, "%u", c.from_port);
    n += snprintf(again + n, sizeof again - (size_t)n, ":");
    n += put_host(again + n, sizeof again - (size_t)n, c.to_host);
    if (c.to_port)
        snprintf(again + n, sizeof again - (size_t)n, ":%u", c.to_port);
    FZ_CHECK(connect_to_parse(again, &c2, why, sizeof why) == 0, "'%s' written back as '%s' refused: %s", text, again,
             why);
    FZ_CHECK(memcmp(&c, &c2, sizeof c) == 0, "'%s' written back as '%s' differs", text, again);
    if (c.from_host[0] && c.from_port) {
        char up[OVERRIDE_HOST_MAX];
        upper(up, c.from_host);
        FZ_CHECK(connect_to_match(&c, 1, up, c.from_port) == &c, "'%s' does not match %s:%u", text, up, c.from_port);
        FZ_CHECK(c.from_port == 65535 || !connect_to_match(&c, 1, c.from_host, (uint16_t)(c.from_port + 1)),
                 "'%s' matches another port", text);
    }
}

static void fuzz_resolve(void)
{
    struct resolve_entry e, e2;
    char why[256] = "";
    if (resolve_parse(text, &e, why, sizeof why) != 0) {
        check_why(why);
        return;
    }
    FZ_CHECK(e.host[0], "empty host accepted");
    check_host(e.host, true);
    FZ_CHECK(e.port >= 1, "port 0 accepted");
    FZ_CHECK(e.naddrs >= 1 && e.naddrs <= OVERRIDE_ADDRS_MAX, "%u addresses", e.naddrs);
    int n = put_host(again, sizeof again, e.host);
    n += snprintf(again + n, sizeof again - (size_t)n, ":%u:", e.port);
    for (unsigned k = 0; k < e.naddrs; k++) {
        const struct sockaddr_storage *a = &e.addrs[k];
        FZ_CHECK(a->ss_family == AF_INET || a->ss_family == AF_INET6, "family %d", a->ss_family);
        char ip[INET6_ADDRSTRLEN];
        const void *bytes = a->ss_family == AF_INET6 ? (const void *)&((const struct sockaddr_in6 *)a)->sin6_addr
                                                     : (const void *)&((const struct sockaddr_in *)a)->sin_addr;
        FZ_CHECK(inet_ntop(a->ss_family, bytes, ip, sizeof ip), "inet_ntop");
        n += snprintf(again + n, sizeof again - (size_t)n, "%s%s", k ? "," : "", ip);
    }
    FZ_CHECK(resolve_parse(again, &e2, why, sizeof why) == 0, "'%s' written back as '%s' refused: %s", text, again,
             why);
    FZ_CHECK(e.port == e2.port && e.naddrs == e2.naddrs && strcmp(e.host, e2.host) == 0 &&
                 memcmp(e.addrs, e2.addrs, e.naddrs * sizeof e.addrs[0]) == 0,
             "'%s' written back as '%s' differs", text, again);
    const char *name = strcmp(e.host, "*") == 0 ? "any.example" : e.host;
    FZ_CHECK(resolve_match(&e, 1, name, e.port) == &e, "'%s' does not match %s:%u", text, name, e.port);
    FZ_CHECK(e.port == 65535 || !resolve_match(&e, 1, name, (uint16_t)(e.port + 1)), "'%s' matches another port",
             text);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0 || size > TEXT_MAX)
        return 0;
    uint8_t mode = data[0];
    size_t len = strnlen((const char *)data + 1, size - 1);
    memcpy(text, data + 1, len);
    text[len] = '\0';
    if (mode & 1)
        fuzz_resolve();
    else
        fuzz_connect_to();
    return 0;
}
