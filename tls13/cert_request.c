/* tls13/cert_request.c — a server's CertificateRequest, read as it streams
 * past (see cert_request.h for why). RFC 8446 §4.3.2:
 *   opaque certificate_request_context<0..2^8-1>;  (empty in the handshake)
 *   Extension extensions<2..2^16-1>;
 *   Extension = ExtensionType extension_type (2); opaque extension_data<0..2^16-1>;
 *   signature_algorithms (§4.2.3): SignatureScheme supported_signature_algorithms<2..2^16-2>;
 * Lengths and types are gathered a byte at a time (need, acc); extension
 * bodies other than signature_algorithms are skipped unread, so
 * certificate_authorities, however long and wherever it stands, is only
 * counted. */
#include "tls13/cert_request.h"

#include "tls13/credentials.h"

#define E_HANDSHAKE_FAILURE (-40)
#define E_ILLEGAL_PARAM (-47)
#define E_DECODE (-50)
#define E_MISSING_EXT (-109)

#define EXT_SIGNATURE_ALGORITHMS 13 /* §4.2 */

enum { CR_CTX_LEN, CR_EXTS_LEN, CR_EXT_TYPE, CR_EXT_LEN, CR_LIST_LEN, CR_SCHEME, CR_SKIP };

int tls13_cr_start(struct tls13_cr_reader *r, uint32_t msg_len, const struct tls13_credential *cred)
{
    *r = (struct tls13_cr_reader){.cred = cred, .msg_len = msg_len, .phase = CR_CTX_LEN, .need = 1};
    return msg_len > TLS13_CR_MAX ? E_DECODE : 0;
}

static void next_extension(struct tls13_cr_reader *r)
{
    r->phase = CR_EXT_TYPE;
    r->need = 2;
}

/* A length or type is whole in v. */
static int gathered(struct tls13_cr_reader *r, uint32_t v)
{
    switch (r->phase) {
    case CR_CTX_LEN:
        /* §4.3.2: the context "SHALL be zero length unless used for the
         * post-handshake authentication exchanges". */
        if (v != 0)
            return E_ILLEGAL_PARAM;
        r->phase = CR_EXTS_LEN;
        r->need = 2;
        return 0;
    case CR_EXTS_LEN:
        if (v != r->msg_len - 3) /* the extensions fill the rest of the message */
            return E_DECODE;
        r->left = v;
        next_extension(r);
        return 0;
    case CR_EXT_TYPE:
        r->ext_type = (uint16_t)v;
        r->phase = CR_EXT_LEN;
        r->need = 2;
        return 0;
    case CR_EXT_LEN:
        if (v > r->left)
            return E_DECODE;
        r->skip = v;
        if (r->ext_type == EXT_SIGNATURE_ALGORITHMS) {
            /* §4.2: "There MUST NOT be more than one extension of the same
             * type in a given extension block." */
            if (r->sigalgs_seen)
                return E_DECODE;
            r->sigalgs_seen = 1;
            if (r->cred) {
                if (v < 2)
                    return E_DECODE;
                r->phase = CR_LIST_LEN;
                r->need = 2;
                return 0;
            }
        }
        if (v == 0)
            next_extension(r);
        else
            r->phase = CR_SKIP;
        return 0;
    case CR_LIST_LEN:
        r->skip -= 2;
        /* the list fills the extension, of whole 2-byte schemes, not empty */
        if (v != r->skip || v == 0 || v % 2 != 0)
            return E_DECODE;
        r->phase = CR_SCHEME;
        r->need = 2;
        return 0;
    default: { /* CR_SCHEME: the first in the server's order our key can make */
        uint8_t s[2] = {(uint8_t)(v >> 8), (uint8_t)v};
        if (r->scheme == 0)
            r->scheme = tls13_credential_scheme(r->cred, s, 2);
        r->skip -= 2;
        if (r->skip == 0)
            next_extension(r);
        else
            r->need = 2;
        return 0;
    }
    }
}

int tls13_cr_feed(struct tls13_cr_reader *r, const uint8_t *p, size_t n)
{
    while (n > 0) {
        if (r->phase >= CR_EXT_TYPE && r->left == 0)
            return E_DECODE; /* past the extensions block */
        if (r->phase == CR_SKIP) {
            size_t take = n < r->skip ? n : r->skip;
            r->skip -= (uint32_t)take;
            r->left -= (uint32_t)take;
            p += take;
            n -= take;
            if (r->skip == 0)
                next_extension(r);
            continue;
        }
        if (r->phase >= CR_EXT_TYPE)
            r->left--;
        r->acc = r->acc << 8 | *p++;
        n--;
        if (--r->need > 0)
            continue;
        uint32_t v = r->acc;
        r->acc = 0;
        int e = gathered(r, v);
        if (e < 0)
            return e;
    }
    return 0;
}

int tls13_cr_end(struct tls13_cr_reader *r)
{
    /* whole extensions only: the body ended between two of them */
    if (r->phase != CR_EXT_TYPE || r->need != 2 || r->left != 0)
        return E_DECODE;
    if (!r->cred)
        return 0;
    /* §4.3.2: "The "signature_algorithms" extension MUST be specified". */
    if (!r->sigalgs_seen)
        return E_MISSING_EXT;
    /* No usable scheme: no chain we can offer (§4.4.2.2), see handshake.c. */
    return r->scheme ? 0 : E_HANDSHAKE_FAILURE;
}
