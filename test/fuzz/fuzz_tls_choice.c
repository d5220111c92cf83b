/* test/fuzz/fuzz_tls_choice.c — the parsers of --tls13-ciphers, --ciphers,
 * --curves and --tls-max (tls13/choice.h): what a user types, taken whole.
 *
 * Input: [which parser] then the value, NUL-free (cut at the first NUL).
 * Each call must either succeed with a list the engines can take (1 to the
 * array's size, every id known, none twice, in the order of the names) or
 * fail with a one-line message, and never write past its arrays; the
 * description built from a successful parse must parse back to the same
 * list. */
#include "tls13/choice.h"
#include "fuzz.h"

static char value[4096];

/* The value after "--option " in c->what, up to the next space. */
static const char *listed_value(const char *what, const char *option, char *out, size_t n)
{
    const char *p = strstr(what, option);
    if (!p)
        return NULL;
    p += strlen(option) + 1;
    size_t len = strcspn(p, " ");
    if (len >= n)
        return NULL;
    memcpy(out, p, len);
    out[len] = '\0';
    return out;
}

static void check_list(const uint16_t *ids, uint8_t n, size_t cap)
{
    FZ_CHECK(n >= 1 && n <= cap, "%u ids", n);
    for (uint8_t i = 0; i < n; i++) {
        FZ_CHECK(ids[i] != 0, "id 0 at %u", i);
        for (uint8_t k = 0; k < i; k++)
            FZ_CHECK(ids[k] != ids[i], "0x%04x twice", ids[i]);
    }
}

typedef int (*parse_fn)(struct tls_choice *, const char *, char *, size_t);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz_reader r = {data, size};
    uint8_t which = fz_u8(&r) % 4;
    size_t n = strnlen((const char *)r.p, r.n < sizeof value - 1 ? r.n : sizeof value - 1);
    memcpy(value, r.p, n);
    value[n] = '\0';

    struct tls_choice c;
    char err[600];
    err[0] = '\0';
    tls_choice_init(&c);
    if (which == 3) {
        uint16_t v = 0;
        int rc = tls_choice_version(value, &v, err, sizeof err);
        FZ_CHECK(rc == 0 ? (v == TLS_VERSION_12 || v == TLS_VERSION_13) : (err[0] && !strchr(err, '\n')), "rc %d", rc);
        return 0;
    }
    static const parse_fn parse[] = {tls_choice_suites13, tls_choice_suites12, tls_choice_groups};
    static const char *const option[] = {"--tls13-ciphers", "--ciphers", "--curves"};
    if (parse[which](&c, value, err, sizeof err) < 0) {
        FZ_CHECK(err[0] && strlen(err) < sizeof err && !strchr(err, '\n'), "message '%s'", err);
        return 0;
    }
    const uint16_t *ids = which == 0 ? c.suites13 : which == 1 ? c.suites12 : c.groups;
    uint8_t count = which == 0 ? c.nsuites13 : which == 1 ? c.nsuites12 : c.ngroups;
    size_t cap = which == 0 ? TLS_CHOICE_SUITES13_MAX : which == 1 ? TLS_CHOICE_SUITES12_MAX : TLS_CHOICE_GROUPS_MAX;
    check_list(ids, count, cap);

    /* The canonical spelling parses back to the same list. */
    tls_choice_describe(&c);
    char again[1024];
    const char *v = listed_value(c.what, option[which], again, sizeof again);
    FZ_CHECK(v != NULL, "'%s' lacks %s", c.what, option[which]);
    struct tls_choice d;
    tls_choice_init(&d);
    FZ_CHECK(parse[which](&d, v, err, sizeof err) == 0, "'%s' does not parse back: %s", v, err);
    const uint16_t *ids2 = which == 0 ? d.suites13 : which == 1 ? d.suites12 : d.groups;
    uint8_t count2 = which == 0 ? d.nsuites13 : which == 1 ? d.nsuites12 : d.ngroups;
    FZ_CHECK(count2 == count && memcmp(ids, ids2, count * sizeof *ids) == 0, "'%s' parses back otherwise", v);
    return 0;
}
