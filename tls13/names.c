/* tls13/names.c — IANA's names for what a handshake settled on and for
 * TLS alerts (negotiated.h, conn.h): plain tables, apart from the engines so
 * that what only names things (the option parser, the man page's builder)
 * needs none of them. */
#include <bearssl.h>
#include <stddef.h>

#include "tls13/conn.h"
#include "tls13/negotiated.h"

/* ---- what was negotiated, named ----------------------------------------- */

const char *tls_version_name(uint16_t version)
{
    switch (version) {
    case TLS_VERSION_13: return "TLSv1.3";
    case TLS_VERSION_12: return "TLSv1.2";
    default: return NULL;
    }
}

/* Every suite either engine offers (RFC 8446 §B.4; tls12.c's list), under
 * its IANA name: BearSSL's constant less "BR_", which is that name. */
#define SUITE(name) { BR_##name, #name }
static const struct {
    uint16_t id;
    const char *name;
} cipher_names[] = {
    {0x1301, "TLS_AES_128_GCM_SHA256"},
    {0x1302, "TLS_AES_256_GCM_SHA384"},
    {0x1303, "TLS_CHACHA20_POLY1305_SHA256"},
    SUITE(TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256),
    SUITE(TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256),
    SUITE(TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384),
    SUITE(TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384),
    SUITE(TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256),
    SUITE(TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256),
    SUITE(TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256),
    SUITE(TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256),
    SUITE(TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384),
    SUITE(TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384),
    SUITE(TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA),
    SUITE(TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA),
    SUITE(TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA),
    SUITE(TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA),
    SUITE(TLS_RSA_WITH_AES_128_GCM_SHA256),
    SUITE(TLS_RSA_WITH_AES_256_GCM_SHA384),
    SUITE(TLS_RSA_WITH_AES_128_CBC_SHA256),
    SUITE(TLS_RSA_WITH_AES_256_CBC_SHA256),
    SUITE(TLS_RSA_WITH_AES_128_CBC_SHA),
    SUITE(TLS_RSA_WITH_AES_256_CBC_SHA),
};
#undef SUITE

const char *tls_cipher_name(uint16_t cipher)
{
    for (size_t i = 0; i < sizeof cipher_names / sizeof cipher_names[0]; i++)
        if (cipher_names[i].id == cipher)
            return cipher_names[i].name;
    return NULL;
}

/* The groups either engine may agree on: TLS 1.3's key_share groups
 * (handshake.c) and BearSSL's ECDHE curves, whose ids are the TLS ones
 * (RFC 8422 §5.1.1, RFC 8446 §4.2.7). */
const char *tls_group_name(uint16_t group)
{
    switch (group) {
    case 23: return "secp256r1";
    case 24: return "secp384r1";
    case 25: return "secp521r1";
    case 29: return "x25519";
    case 30: return "x448";
    default: return NULL;
    }
}

const char *tls_alert_name(int alert)
{
    switch (alert < 0 ? -alert : alert) {
    case 0: return "close_notify";
    case 10: return "unexpected_message";
    case 20: return "bad_record_mac";
    case 22: return "record_overflow";
    case 40: return "handshake_failure";
    case 42: return "bad_certificate";
    case 43: return "unsupported_certificate";
    case 44: return "certificate_revoked";
    case 45: return "certificate_expired";
    case 46: return "certificate_unknown";
    case 47: return "illegal_parameter";
    case 48: return "unknown_ca";
    case 49: return "access_denied";
    case 50: return "decode_error";
    case 51: return "decrypt_error";
    case 70: return "protocol_version";
    case 71: return "insufficient_security";
    case 80: return "internal_error";
    case 86: return "inappropriate_fallback";
    case 90: return "user_canceled";
    case 109: return "missing_extension";
    case 110: return "unsupported_extension";
    case 112: return "unrecognized_name";
    case 113: return "bad_certificate_status_response";
    case 115: return "unknown_psk_identity";
    case 116: return "certificate_required";
    case 120: return "no_application_protocol";
    default: return "unknown alert";
    }
}
