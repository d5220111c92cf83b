/* tls13/choice.h — the TLS a run may negotiate, as the user chose it
 * (--tls-max, --tlsv1.2/--tlsv1.3, --tls13-ciphers, --ciphers, --curves):
 * versions, the suites each engine offers and the groups both offer.
 *
 * The parsers turn curl's lists (colon-separated OpenSSL or IANA names)
 * into IANA numbers once, before any traffic; the engines read the numbers
 * (handshake.c builds its ClientHello from them, tls12.c hands them to
 * BearSSL). Plain data and pure functions: nothing here does I/O. */
#ifndef SHB_TLS13_CHOICE_H
#define SHB_TLS13_CHOICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tls13/negotiated.h"

#define TLS_CHOICE_SUITES13_MAX 3  /* RFC 8446 §B.4: the three shb implements */
#define TLS_CHOICE_SUITES12_MAX 20 /* tls12.c's suites */
#define TLS_CHOICE_GROUPS_MAX 3    /* x25519, secp256r1, secp384r1 */
#define TLS_CHOICE_WHAT_MAX 200

struct tls_choice {
    uint16_t min_version, max_version; /* TLS_VERSION_12 / TLS_VERSION_13; default 1.2 .. 1.3 */
    uint8_t nsuites13, nsuites12, ngroups; /* 0: the engine's own list */
    uint16_t suites13[TLS_CHOICE_SUITES13_MAX]; /* in the order given: our preference */
    uint16_t suites12[TLS_CHOICE_SUITES12_MAX];
    uint16_t groups[TLS_CHOICE_GROUPS_MAX];     /* groups[0] gets TLS 1.3's key share */
    char what[TLS_CHOICE_WHAT_MAX]; /* tls_choice_describe's, for messages; "" for the defaults */
};

/* The defaults: TLS 1.2 to 1.3, every suite and group, nothing chosen. */
void tls_choice_init(struct tls_choice *c);

/* Each parser takes one option's value. 0, or -1 with a one-line message
 * in err naming the problem (and, for an unknown name, the valid ones). */
int tls_choice_version(const char *v, uint16_t *version, char *err, size_t errlen); /* "1.2" / "1.3" */
int tls_choice_suites13(struct tls_choice *c, const char *list, char *err, size_t errlen);
int tls_choice_suites12(struct tls_choice *c, const char *list, char *err, size_t errlen);
int tls_choice_groups(struct tls_choice *c, const char *list, char *err, size_t errlen);

/* Fills c->what with the options that make c differ from the defaults, in
 * one canonical spelling ("--tlsv1.3 --curves P-384"); "" when none do. */
void tls_choice_describe(struct tls_choice *c);

/* A failed handshake's alert (positive: we sent it; negative: the server
 * did) that says the server could not meet c: "cannot meet --tlsv1.3:
 * received alert protocol_version" into out. False (out untouched) when
 * nothing was chosen or the alert says something else. */
bool tls_choice_refused(const struct tls_choice *c, int alert, char *out, size_t n);

/* The BearSSL curve bitmask (bit n: TLS named group n) of c's groups; every
 * ECDHE curve BearSSL has when none were chosen. */
uint32_t tls_choice_curve_mask(const struct tls_choice *c);

#endif
