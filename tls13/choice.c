/* tls13/choice.c — curl's TLS options parsed into IANA numbers (choice.h). */
#include "tls13/choice.h"

#include <bearssl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "tls13/conn.h"

#define GROUP_SECP256R1 23 /* TLS Supported Groups (RFC 8446 §4.2.7) */
#define GROUP_SECP384R1 24
#define GROUP_X25519 29

void tls_choice_init(struct tls_choice *c)
{
    memset(c, 0, sizeof *c);
    c->min_version = TLS_VERSION_12;
    c->max_version = TLS_VERSION_13;
}

/* The user's text as a message may quote it: at most 40 bytes, anything
 * but printable ASCII as '?', so that the message stays one line. */
static const char *quotable(char out[41], const char *p, size_t len)
{
    size_t n = len < 40 ? len : 40;
    for (size_t i = 0; i < n; i++)
        out[i] = p[i] >= 0x20 && p[i] < 0x7f ? p[i] : '?';
    out[n] = '\0';
    return out;
}

int tls_choice_version(const char *v, uint16_t *version, char *err, size_t errlen)
{
    char q[41];
    if (strcmp(v, "1.2") == 0)
        *version = TLS_VERSION_12;
    else if (strcmp(v, "1.3") == 0)
        *version = TLS_VERSION_13;
    else {
        snprintf(err, errlen, "invalid value '%s' for --tls-max: expected 1.2 or 1.3", quotable(q, v, strlen(v)));
        return -1;
    }
    return 0;
}

/* ---- the names ----------------------------------------------------------- */

struct name {
    const char *name;
    uint16_t id;
};

/* RFC 8446 §B.4; OpenSSL and curl use the IANA names for these. */
static const struct name suites13[] = {
    {"TLS_AES_128_GCM_SHA256", 0x1301},
    {"TLS_AES_256_GCM_SHA384", 0x1302},
    {"TLS_CHACHA20_POLY1305_SHA256", 0x1303},
};

/* tls12.c's suites under OpenSSL's names (what curl's --ciphers takes with
 * OpenSSL); their IANA names (tls_cipher_name) are taken too. */
static const struct name suites12[] = {
    {"ECDHE-ECDSA-AES128-GCM-SHA256", BR_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256},
    {"ECDHE-RSA-AES128-GCM-SHA256", BR_TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256},
    {"ECDHE-ECDSA-AES256-GCM-SHA384", BR_TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384},
    {"ECDHE-RSA-AES256-GCM-SHA384", BR_TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384},
    {"ECDHE-ECDSA-CHACHA20-POLY1305", BR_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256},
    {"ECDHE-RSA-CHACHA20-POLY1305", BR_TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256},
    {"ECDHE-ECDSA-AES128-SHA256", BR_TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256},
    {"ECDHE-RSA-AES128-SHA256", BR_TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256},
    {"ECDHE-ECDSA-AES256-SHA384", BR_TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384},
    {"ECDHE-RSA-AES256-SHA384", BR_TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384},
    {"ECDHE-ECDSA-AES128-SHA", BR_TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA},
    {"ECDHE-RSA-AES128-SHA", BR_TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA},
    {"ECDHE-ECDSA-AES256-SHA", BR_TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA},
    {"ECDHE-RSA-AES256-SHA", BR_TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA},
    {"AES128-GCM-SHA256", BR_TLS_RSA_WITH_AES_128_GCM_SHA256},
    {"AES256-GCM-SHA384", BR_TLS_RSA_WITH_AES_256_GCM_SHA384},
    {"AES128-SHA256", BR_TLS_RSA_WITH_AES_128_CBC_SHA256},
    {"AES256-SHA256", BR_TLS_RSA_WITH_AES_256_CBC_SHA256},
    {"AES128-SHA", BR_TLS_RSA_WITH_AES_128_CBC_SHA},
    {"AES256-SHA", BR_TLS_RSA_WITH_AES_256_CBC_SHA},
};

/* curl's --curves names (OpenSSL's): the NIST names and their aliases. */
static const struct name groups[] = {
    {"x25519", GROUP_X25519},       {"P-256", GROUP_SECP256R1},     {"prime256v1", GROUP_SECP256R1},
    {"secp256r1", GROUP_SECP256R1}, {"P-384", GROUP_SECP384R1},     {"secp384r1", GROUP_SECP384R1},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

struct list_kind {
    const char *option;
    const struct name *names;
    size_t count;
    const char *valid; /* for the message */
};

static const struct list_kind kind13 = {"--tls13-ciphers", suites13, COUNT(suites13),
                                        "TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384, "
                                        "TLS_CHACHA20_POLY1305_SHA256"};
static const struct list_kind kind12 = {"--ciphers", suites12, COUNT(suites12),
                                        "ECDHE-ECDSA- or ECDHE-RSA- then AES128-GCM-SHA256, AES256-GCM-SHA384, "
                                        "CHACHA20-POLY1305, AES128-SHA256, AES256-SHA384, AES128-SHA or AES256-SHA; "
                                        "AES128-GCM-SHA256, AES256-GCM-SHA384, AES128-SHA256, AES256-SHA256, "
                                        "AES128-SHA, AES256-SHA (RSA key exchange); or their IANA names"};
static const struct list_kind kind_groups = {"--curves", groups, COUNT(groups),
                                             "x25519, P-256 (prime256v1, secp256r1), P-384 (secp384r1)"};

/* The id of one name of the list, or 0. A TLS 1.2 suite may also go by its
 * IANA name ("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"). */
static uint16_t lookup(const struct list_kind *k, const char *name, size_t len)
{
    for (size_t i = 0; i < k->count; i++) {
        const char *n = k->names[i].name;
        const char *iana = k == &kind12 ? tls_cipher_name(k->names[i].id) : NULL;
        if ((strlen(n) == len && strncasecmp(n, name, len) == 0) ||
            (iana && strlen(iana) == len && strncasecmp(iana, name, len) == 0))
            return k->names[i].id;
    }
    return 0;
}

/* Why a name is not in this list: a suite of the other TLS version gets a
 * pointer to the option that takes it. */
static void unknown(const struct list_kind *k, const char *name, size_t len, char *err, size_t errlen)
{
    char q[41];
    if (k == &kind12 && lookup(&kind13, name, len))
        snprintf(err, errlen, "'%s' in --ciphers is a TLS 1.3 suite: --ciphers sets TLS 1.2's, use --tls13-ciphers",
                 quotable(q, name, len));
    else if (k == &kind13 && lookup(&kind12, name, len))
        snprintf(err, errlen, "'%s' in --tls13-ciphers is a TLS 1.2 suite: --tls13-ciphers sets TLS 1.3's, use "
                              "--ciphers", quotable(q, name, len));
    else
        snprintf(err, errlen, "unknown name '%s' in %s: valid ones are %s", quotable(q, name, len), k->option,
                 k->valid);
}

/* Splits list at ':' (curl's separator; ',' too, as OpenSSL takes) into
 * ids, in order. An empty item, an unknown name or one given twice is
 * refused, and so is a list with nothing in it. */
static int parse_list(const struct list_kind *k, const char *list, uint16_t *ids, uint8_t *n, char *err,
                      size_t errlen)
{
    *n = 0;
    const char *p = list;
    for (;;) {
        size_t len = strcspn(p, ":,");
        if (len == 0) {
            char q[41];
            snprintf(err, errlen, "invalid value '%s' for %s: %s", quotable(q, list, strlen(list)), k->option,
                     *list ? "an empty name in the list" : "expected a colon-separated list of names");
            return -1;
        }
        uint16_t id = lookup(k, p, len);
        if (!id) {
            unknown(k, p, len, err, errlen);
            return -1;
        }
        for (uint8_t i = 0; i < *n; i++)
            if (ids[i] == id) {
                char q[41];
                snprintf(err, errlen, "'%s' is listed twice in %s", quotable(q, p, len), k->option);
                return -1;
            }
        ids[(*n)++] = id; /* fits: known ids, none twice (choice.h sizes the arrays) */
        if (p[len] == '\0')
            return 0;
        p += len + 1;
    }
}

int tls_choice_suites13(struct tls_choice *c, const char *list, char *err, size_t errlen)
{
    return parse_list(&kind13, list, c->suites13, &c->nsuites13, err, errlen);
}

int tls_choice_suites12(struct tls_choice *c, const char *list, char *err, size_t errlen)
{
    return parse_list(&kind12, list, c->suites12, &c->nsuites12, err, errlen);
}

int tls_choice_groups(struct tls_choice *c, const char *list, char *err, size_t errlen)
{
    return parse_list(&kind_groups, list, c->groups, &c->ngroups, err, errlen);
}

uint32_t tls_choice_curve_mask(const struct tls_choice *c)
{
    if (!c || c->ngroups == 0)
        return (1u << BR_EC_secp256r1) | (1u << BR_EC_secp384r1) | (1u << BR_EC_secp521r1) | (1u << BR_EC_curve25519);
    uint32_t mask = 0;
    for (uint8_t i = 0; i < c->ngroups; i++)
        mask |= 1u << c->groups[i]; /* BearSSL's curve ids are the TLS named groups (RFC 8422 §5.1.1) */
    return mask;
}

/* The name a list's id goes by in messages: the first the table has. */
static const char *name_of(const struct list_kind *k, uint16_t id)
{
    for (size_t i = 0; i < k->count; i++)
        if (k->names[i].id == id)
            return k->names[i].name;
    return "?";
}

static void describe_list(char *out, size_t cap, const struct list_kind *k, const uint16_t *ids, uint8_t n)
{
    size_t len = strlen(out);
    if (n == 0 || len >= cap)
        return;
    len += (size_t)snprintf(out + len, cap - len, "%s%s ", len ? " " : "", k->option);
    for (uint8_t i = 0; i < n && len < cap; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s%s", i ? ":" : "", name_of(k, ids[i]));
}

void tls_choice_describe(struct tls_choice *c)
{
    char *w = c->what;
    size_t cap = sizeof c->what;
    w[0] = '\0';
    if (c->min_version == TLS_VERSION_13)
        snprintf(w, cap, "--tlsv1.3");
    if (c->max_version == TLS_VERSION_12)
        snprintf(w + strlen(w), cap - strlen(w), "%s--tls-max 1.2", w[0] ? " " : "");
    describe_list(w, cap, &kind13, c->suites13, c->nsuites13);
    describe_list(w, cap, &kind12, c->suites12, c->nsuites12);
    describe_list(w, cap, &kind_groups, c->groups, c->ngroups);
}

/* handshake_failure: no common suite or group (RFC 8446 §4.1.1);
 * protocol_version and insufficient_security: no common version, or suites
 * below the server's floor (§6.2); protocol_version sent by us: the server
 * chose TLS 1.2 against --tlsv1.3 (§D.1). */
bool tls_choice_refused(const struct tls_choice *c, int alert, char *out, size_t n)
{
    if (!c || !c->what[0] || (alert != -40 && alert != -70 && alert != -71 && alert != 70))
        return false;
    snprintf(out, n, "cannot meet %s: %s alert %s", c->what, alert < 0 ? "received" : "sent", tls_alert_name(alert));
    return true;
}
