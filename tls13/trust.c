/* tls13/trust.c — --cacert's trust anchors (trust.h).
 *
 * The PEM text is walked by credentials.c's walker; each CERTIFICATE
 * object's DER streams into BearSSL's X.509 decoder as it is decoded (no
 * copy of the certificate is kept), which hands out the subject DN piece by
 * piece (copied into the pool) and, at the end, the public key and the CA
 * flag (copied into the pool too). */
#include "tls13/trust.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tls13/credentials.h" /* tls13_pem_walk */

struct trust_load {
    struct tls13_trust *t;
    br_x509_decoder_context dc;
    bool in_cert;       /* a CERTIFICATE object is being decoded */
    size_t certs;       /* CERTIFICATE objects met */
    size_t bad;         /* the first one that did not decode (1-based), 0: none */
    bool full;          /* more anchors than TLS13_TRUST_MAX, or the pool overflowed */
    size_t dn_start;    /* where this certificate's DN began in the pool */
    size_t dn_len;
};

static void *pool_take(struct trust_load *s, const void *p, size_t n)
{
    struct tls13_trust *t = s->t;
    if (n > TLS13_TRUST_POOL - t->used) {
        s->full = true;
        return NULL;
    }
    uint8_t *at = t->pool + t->used;
    if (n)
        memcpy(at, p, n);
    t->used += n;
    return at;
}

/* The decoder's subject DN, in pieces: appended in the pool. */
static void dn_append(void *ctx, const void *p, size_t n)
{
    struct trust_load *s = ctx;
    if (pool_take(s, p, n))
        s->dn_len += n;
}

static void load_begin(void *ctx, const char *name)
{
    struct trust_load *s = ctx;
    s->in_cert = strcmp(name, "CERTIFICATE") == 0;
    if (!s->in_cert)
        return;
    s->certs++;
    s->dn_start = s->t->used;
    s->dn_len = 0;
    br_x509_decoder_init(&s->dc, dn_append, s);
}

static void load_data(void *ctx, const void *p, size_t n)
{
    struct trust_load *s = ctx;
    if (!s->in_cert || s->dc.err != 0)
        return;
    /* BearSSL 0.6's decoder must not be fed past the certificate's end
     * (more bytes in a later push crash it): bytes after it make the
     * certificate one that does not parse, as they would in one push. */
    if (s->dc.decoded)
        s->dc.err = BR_ERR_X509_EXTRA_ELEMENT;
    else
        br_x509_decoder_push(&s->dc, p, n);
}

/* Copies the decoded key into the pool as the anchor's. */
static bool take_key(struct trust_load *s, const br_x509_pkey *pk, br_x509_trust_anchor *ta)
{
    ta->pkey.key_type = pk->key_type;
    if (pk->key_type == BR_KEYTYPE_RSA) {
        ta->pkey.key.rsa.n = pool_take(s, pk->key.rsa.n, pk->key.rsa.nlen);
        ta->pkey.key.rsa.nlen = pk->key.rsa.nlen;
        ta->pkey.key.rsa.e = pool_take(s, pk->key.rsa.e, pk->key.rsa.elen);
        ta->pkey.key.rsa.elen = pk->key.rsa.elen;
        return ta->pkey.key.rsa.n && ta->pkey.key.rsa.e;
    }
    ta->pkey.key.ec.curve = pk->key.ec.curve;
    ta->pkey.key.ec.q = pool_take(s, pk->key.ec.q, pk->key.ec.qlen);
    ta->pkey.key.ec.qlen = pk->key.ec.qlen;
    return ta->pkey.key.ec.q != NULL;
}

static void load_end(void *ctx)
{
    struct trust_load *s = ctx;
    if (!s->in_cert)
        return;
    s->in_cert = false;
    const br_x509_pkey *pk = br_x509_decoder_get_pkey(&s->dc);
    if (!pk) {
        if (!s->bad)
            s->bad = s->certs;
        return;
    }
    if (s->t->n == TLS13_TRUST_MAX || s->full) {
        s->full = true;
        return;
    }
    br_x509_trust_anchor *ta = &s->t->ta[s->t->n];
    ta->dn.data = s->t->pool + s->dn_start;
    ta->dn.len = s->dn_len;
    ta->flags = br_x509_decoder_isCA(&s->dc) ? BR_X509_TA_CA : 0;
    if (take_key(s, pk, ta))
        s->t->n++;
}

int tls13_trust_load(struct tls13_trust *t, const uint8_t *pem, size_t len, char *err, size_t errlen)
{
    static struct trust_load s; /* the decoder is a few KB: loaded once, before any thread starts */
    const struct tls13_pem_walker w = {load_begin, load_data, load_end, &s};

    memset(&s, 0, sizeof s);
    t->n = 0;
    t->used = 0;
    s.t = t;
    if (tls13_pem_walk(pem, len, &w) < 0) {
        snprintf(err, errlen, "not a PEM file (malformed or cut short)");
        return -1;
    }
    if (s.certs == 0) {
        snprintf(err, errlen, "no certificate in it (a \"BEGIN CERTIFICATE\" block)");
        return -1;
    }
    if (s.bad) {
        snprintf(err, errlen, "certificate %zu of the file is not a readable X.509 certificate", s.bad);
        return -1;
    }
    if (s.full) {
        snprintf(err, errlen, "more than %d certificates, or more than %d bytes of names and keys", TLS13_TRUST_MAX,
             TLS13_TRUST_POOL);
        return -1;
    }
    return 0;
}
