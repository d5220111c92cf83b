/* tls13/tls12.c — TLS 1.2 through BearSSL's client engine (RFC 5246).
 *
 * The engine already works sans-I/O (recvrec/sendrec for ciphertext,
 * recvapp/sendapp for plaintext), so this file is mostly glue to conn.h's
 * contract:
 *
 *  - Input: ciphertext is copied into the engine's input buffer as it
 *    accepts it; every piece of application data it yields goes to the
 *    callback straight from that buffer.
 *  - Output: the engine holds one record at a time and builds the next only
 *    once that one is acknowledged, so a handshake flight (ClientKeyExchange,
 *    ChangeCipherSpec, Finished: three records) would take three sends.
 *    Handshake and alert records are therefore moved into hs_out as soon as
 *    they appear, and the whole flight leaves in one send. Application data
 *    records are not copied: tls12_out hands out the engine's own buffer,
 *    which BearSSL leaves alone until the record is acknowledged, exactly
 *    the "[0, len) stays put until acknowledged" rule. A record that may
 *    have been handed out that way is never moved ('exposed').
 *
 * Besides the API, four fields of br_ssl_engine_context are read or set
 * (all in the public header, described there as engine state):
 * rng_os_rand_done (no OS seeding), application_data (the handshake is
 * done), shutdown_recv (a close_notify came in) and record_type_out (which
 * pending records are handshake or alert). BearSSL is linked statically,
 * from the headers it was built with.
 */
#include "tls13/tls12.h"

#include "tls13/credentials.h"

#include <string.h>

enum { ST_HANDSHAKE, ST_READY, ST_DONE };

#define CT_APPLICATION_DATA 23 /* ContentType (RFC 5246 §6.2.1) */

/* ---- accept-any X.509 ---------------------------------------------------
 * The chain is not validated at all (a benchmarker trusts every
 * certificate, as the TLS 1.3 engine does); the end-entity certificate (the
 * first one, RFC 5246 §7.4.2) is decoded only for its public key, which the
 * engine needs to check the ServerKeyExchange signature (§7.4.3) or to
 * encrypt the RSA premaster secret (§7.4.7.1). */

static struct tls12_x509 *x509_of(const br_x509_class *const *ctx)
{
    return (struct tls12_x509 *)(void *)(uintptr_t)ctx;
}

static void x509_start_chain(const br_x509_class **ctx, const char *server_name)
{
    (void)server_name;
    struct tls12_x509 *x = x509_of(ctx);
    x->certs = 0;
    x->pkey = NULL;
}

static void x509_start_cert(const br_x509_class **ctx, uint32_t length)
{
    (void)length;
    struct tls12_x509 *x = x509_of(ctx);
    if (x->certs++ == 0)
        br_x509_decoder_init(&x->dc, 0, NULL);
}

static void x509_append(const br_x509_class **ctx, const unsigned char *buf, size_t len)
{
    struct tls12_x509 *x = x509_of(ctx);
    if (x->certs != 1 || x->dc.err != 0)
        return;
    /* BearSSL 0.6's decoder must not be fed past the certificate's end
     * (a later push crashes it): trailing bytes fail the chain instead. */
    if (x->dc.decoded)
        x->dc.err = BR_ERR_X509_EXTRA_ELEMENT;
    else
        br_x509_decoder_push(&x->dc, buf, len);
}

static void x509_end_cert(const br_x509_class **ctx) { (void)ctx; }

static unsigned x509_end_chain(const br_x509_class **ctx)
{
    struct tls12_x509 *x = x509_of(ctx);
    if (x->certs == 0)
        return BR_ERR_X509_EMPTY_CHAIN;
    x->pkey = br_x509_decoder_get_pkey(&x->dc);
    if (x->pkey == NULL) {
        int err = br_x509_decoder_last_error(&x->dc);
        return err ? (unsigned)err : BR_ERR_X509_TRUNCATED;
    }
    return 0;
}

static const br_x509_pkey *x509_get_pkey(const br_x509_class *const *ctx, unsigned *usages)
{
    const struct tls12_x509 *x = x509_of(ctx);
    /* Both usages: the engine checks the one its cipher suite needs. */
    if (usages)
        *usages = x->pkey ? BR_KEYTYPE_KEYX | BR_KEYTYPE_SIGN : 0;
    return x->pkey;
}

static const br_x509_class accept_any_vtable = {
    sizeof(struct tls12_x509), x509_start_chain, x509_start_cert, x509_append,
    x509_end_cert,             x509_end_chain,   x509_get_pkey,
};

/* ---- configuration ------------------------------------------------------ */

/* Forward-secret AEAD suites first, then CBC, then RSA key exchange for the
 * servers that have nothing else. Between AES-GCM and ChaCha20 the faster
 * one on this CPU goes first (the server usually follows the client's order
 * unless told otherwise). */
#define SUITES_AEAD_AES                                                                                         \
    BR_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, BR_TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,                       \
        BR_TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, BR_TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384
#define SUITES_AEAD_CHACHA                                                                                      \
    BR_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, BR_TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256
#define SUITES_REST                                                                                             \
    BR_TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256, BR_TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256,                       \
        BR_TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384, BR_TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384,                   \
        BR_TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, BR_TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,                         \
        BR_TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA, BR_TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,                         \
        BR_TLS_RSA_WITH_AES_128_GCM_SHA256, BR_TLS_RSA_WITH_AES_256_GCM_SHA384,                                 \
        BR_TLS_RSA_WITH_AES_128_CBC_SHA256, BR_TLS_RSA_WITH_AES_256_CBC_SHA256, BR_TLS_RSA_WITH_AES_128_CBC_SHA, \
        BR_TLS_RSA_WITH_AES_256_CBC_SHA

static const uint16_t suites_aes_first[] = { SUITES_AEAD_AES, SUITES_AEAD_CHACHA, SUITES_REST };
static const uint16_t suites_chacha_first[] = { SUITES_AEAD_CHACHA, SUITES_AEAD_AES, SUITES_REST };

/* --curves: BearSSL offers (RFC 8422 §5.1.1 supported_groups) and accepts
 * in a ServerKeyExchange (§5.4) the curves its EC implementation says it
 * supports; a copy of that implementation that names only the chosen ones
 * offers exactly those. The arithmetic is the default's, unchanged. */
static void restrict_curves(struct tls12_conn *t, const struct tls_choice *ch)
{
    t->ec = *br_ssl_engine_get_ec(&t->cc.eng);
    t->ec.supported_curves &= tls_choice_curve_mask(ch);
    br_ssl_engine_set_ec(&t->cc.eng, &t->ec);
}

/* Splits the ALPN protocol_name_list body (RFC 7301 §3.1) into the
 * NUL-terminated names BearSSL wants. Returns how many, or -1 if it does
 * not fit. */
static int alpn_split(struct tls12_conn *t, const uint8_t *p, size_t n)
{
    size_t used = 0;
    int count = 0;
    while (n > 0) {
        size_t len = p[0];
        if (len == 0 || len + 1 > n || count == TLS12_ALPN_MAX || used + len + 1 > sizeof t->alpn_text)
            return -1;
        memcpy(t->alpn_text + used, p + 1, len);
        t->alpn_text[used + len] = '\0';
        t->alpn_names[count++] = t->alpn_text + used;
        used += len + 1;
        p += len + 1;
        n -= len + 1;
    }
    return count;
}

/* ---- output ------------------------------------------------------------- */

/* Moves the engine's handshake and alert records into hs_out, as long as
 * none of them can have been handed out and they fit. Acknowledging one lets
 * the engine go on (it may write the next record of the flight, or finish
 * failing after a fatal alert). */
static void pump(struct tls12_conn *t)
{
    br_ssl_engine_context *eng = &t->cc.eng;
    while (t->exposed == 0) {
        size_t len;
        unsigned char *rec = br_ssl_engine_sendrec_buf(eng, &len);
        if (rec == NULL || eng->record_type_out == CT_APPLICATION_DATA || len > sizeof t->hs_out - t->hs_len)
            return;
        memcpy(t->hs_out + t->hs_len, rec, len);
        t->hs_len += len;
        br_ssl_engine_sendrec_ack(eng, len);
    }
}

/* At the end of every call that can change the output: once hs_out is
 * empty, tls12_out shows the engine's pending record, which must then stay
 * where it is until acknowledged. */
static void mark_exposed(struct tls12_conn *t)
{
    size_t len;
    if (t->hs_len == 0 && t->exposed == 0 && br_ssl_engine_sendrec_buf(&t->cc.eng, &len) != NULL)
        t->exposed = len;
}

static bool engine_closed(const struct tls12_conn *t)
{
    return br_ssl_engine_current_state(&t->cc.eng) == BR_SSL_CLOSED;
}

const uint8_t *tls12_out(const struct tls12_conn *t, size_t *len)
{
    if (t->hs_len > 0) {
        *len = t->hs_len;
        return t->hs_out;
    }
    const uint8_t *rec = br_ssl_engine_sendrec_buf(&t->cc.eng, len);
    return rec ? rec : t->hs_out;
}

void tls12_out_ack(struct tls12_conn *t, size_t n)
{
    if (t->hs_len > 0) {
        if (n >= t->hs_len) {
            t->hs_len = 0;
        } else {
            memmove(t->hs_out, t->hs_out + n, t->hs_len - n);
            t->hs_len -= n;
        }
    } else if (n > 0) {
        size_t len;
        if (!engine_closed(t) && br_ssl_engine_sendrec_buf(&t->cc.eng, &len) != NULL)
            br_ssl_engine_sendrec_ack(&t->cc.eng, n < len ? n : len);
        t->exposed = t->exposed > n ? t->exposed - n : 0;
    }
    if (!engine_closed(t))
        pump(t);
    mark_exposed(t);
}

size_t tls12_send(struct tls12_conn *t, const uint8_t *p, size_t n)
{
    if (t->state != ST_READY)
        return 0;
    br_ssl_engine_context *eng = &t->cc.eng;
    size_t taken = 0;
    while (taken < n) {
        size_t room;
        unsigned char *buf = br_ssl_engine_sendapp_buf(eng, &room);
        if (buf == NULL)
            break; /* a record is waiting to be sent: one at a time */
        size_t chunk = n - taken < room ? n - taken : room;
        memcpy(buf, p + taken, chunk);
        br_ssl_engine_sendapp_ack(eng, chunk); /* a full buffer becomes a record by itself */
        taken += chunk;
    }
    if (taken > 0)
        br_ssl_engine_flush(eng, 0);
    mark_exposed(t);
    return taken;
}

size_t tls12_send_room(const struct tls12_conn *t)
{
    size_t room;
    if (t->state != ST_READY || br_ssl_engine_sendapp_buf(&t->cc.eng, &room) == NULL)
        return 0;
    return room;
}

/* ---- input -------------------------------------------------------------- */

/* --cacert: BearSSL ends a handshake whose chain failed without a word;
 * RFC 5246 §7.2.2 wants the matching alert (bad_certificate,
 * certificate_expired, unknown_ca, ...), sent here as BearSSL would: a
 * fatal alert in a plaintext record (the Certificate comes before any
 * keys, §7.4.2). */
static void alert_verify_failure(struct tls12_conn *t)
{
    int alert = tls13_verify_reason_alert((enum tls13_verify_reason)t->verifier->reason);
    const uint8_t rec[7] = {21 /* alert */, 3, 3, 0, 2, 2 /* fatal */, (uint8_t)alert};
    if (t->verifier->reason == TLS13_VERIFY_OK || t->exposed || sizeof rec > sizeof t->hs_out - t->hs_len)
        return;
    memcpy(t->hs_out + t->hs_len, rec, sizeof rec);
    t->hs_len += sizeof rec;
    t->alert = alert;
}

/* The connection is over: maps BearSSL's sticky error (alerts at +256
 * received, +512 sent) onto conn.h's results. */
static int finish(struct tls12_conn *t, int br_err)
{
    bool hs = t->state == ST_HANDSHAKE;
    int err;
    if (br_err >= BR_ERR_RECV_FATAL_ALERT && br_err < BR_ERR_SEND_FATAL_ALERT)
        err = hs ? TLS_ERR_HANDSHAKE : TLS_ERR_PEER_ALERT;
    else if (br_err == BR_ERR_OK) /* close_notify (RFC 5246 §7.2.1) */
        err = hs ? TLS_ERR_HANDSHAKE : TLS_CLOSED;
    else /* our alert, or a failure BearSSL sends none for (bad MAC, bad Finished, ...) */
        err = hs ? TLS_ERR_HANDSHAKE : TLS_ERR_RECORD;
    if (hs && br_err >= BR_ERR_X509_OK && br_err < BR_ERR_X509_OK + 32 && t->verifier)
        alert_verify_failure(t);
    t->state = ST_DONE;
    t->err = err;
    return err;
}

/* Where the connection stands after the engine ran. */
static int status(struct tls12_conn *t)
{
    br_ssl_engine_context *eng = &t->cc.eng;
    if (engine_closed(t))
        return finish(t, br_ssl_engine_last_error(eng));
    /* A close_notify came in; ours waits behind a record still being
     * sent. Nothing more will be read either way. */
    if (eng->shutdown_recv)
        return finish(t, BR_ERR_OK);
    if (t->state == ST_HANDSHAKE && (eng->application_data & 1)) {
        /* Our Finished is out and the server's verified (§7.4.9). */
        const char *sel = br_ssl_engine_get_selected_protocol(eng);
        t->alpn = sel ? sel : "";
        t->state = ST_READY;
        /* RFC 5246 §7.4.1.3: the server resumes by echoing the session id
         * we offered; a new session gets a new id (or none). */
        t->resumed = t->offered_id_len > 0 && eng->session.session_id_len == t->offered_id_len &&
                     memcmp(eng->session.session_id, t->offered_id, t->offered_id_len) == 0;
        return TLS_HANDSHAKE_DONE;
    }
    return TLS_OK;
}

int tls12_recv(struct tls12_conn *t, uint8_t *p, size_t n, tls_plain_fn fn, void *ctx)
{
    if (t->state == ST_DONE)
        return t->err;
    br_ssl_engine_context *eng = &t->cc.eng;
    int result = TLS_OK;
    for (;;) {
        size_t len;
        unsigned char *app = br_ssl_engine_recvapp_buf(eng, &len);
        if (app != NULL) {
            fn(ctx, app, len); /* may call tls12_send: the output side only */
            br_ssl_engine_recvapp_ack(eng, len);
            continue;
        }
        pump(t);
        int rc = status(t);
        if (rc < 0) {
            mark_exposed(t);
            return rc;
        }
        if (rc == TLS_HANDSHAKE_DONE)
            result = rc;
        if (n == 0)
            break;
        unsigned char *in = br_ssl_engine_recvrec_buf(eng, &len);
        if (in == NULL) {
            /* With separate input and output buffers the engine refuses
             * input only after a close_notify (handled above) or while
             * application data waits to be read (drained above). */
            mark_exposed(t);
            return finish(t, BR_ERR_BAD_STATE);
        }
        if (len > n)
            len = n;
        memcpy(in, p, len);
        br_ssl_engine_recvrec_ack(eng, len);
        p += len;
        n -= len;
    }
    mark_exposed(t);
    return result;
}

/* ---- set-up ------------------------------------------------------------- */

void tls12_init(struct tls12_conn *t, const struct tls_config *cfg, const uint8_t *entropy, size_t entropy_len)
{
    tls12_init_resume(t, cfg, entropy, entropy_len, NULL);
}

void tls12_init_resume(struct tls12_conn *t, const struct tls_config *cfg, const uint8_t *entropy, size_t entropy_len,
                       const br_ssl_session_parameters *sess)
{
    br_ssl_client_context *cc = &t->cc;
    br_ssl_engine_context *eng = &cc->eng;
    t->state = ST_HANDSHAKE;
    t->err = 0;
    t->alert = 0;
    t->alpn = "";
    t->exposed = 0;
    t->hs_len = 0;
    t->resumed = false;
    t->offered_id_len = 0;

    br_ssl_client_zero(cc);
    br_ssl_engine_set_versions(eng, BR_TLS12, BR_TLS12);
    const struct tls_choice *ch = cfg->choice;
    if (ch && ch->nsuites12 > 0) /* --ciphers: exactly those, in the order given */
        br_ssl_engine_set_suites(eng, ch->suites12, ch->nsuites12);
    else if (br_aes_x86ni_ctr_get_vtable() != NULL)
        br_ssl_engine_set_suites(eng, suites_aes_first, sizeof suites_aes_first / sizeof suites_aes_first[0]);
    else
        br_ssl_engine_set_suites(eng, suites_chacha_first, sizeof suites_chacha_first / sizeof suites_chacha_first[0]);
    /* SHA-256/384 for the PRF (§5) and the transcript; all of SHA-1..512
     * for the server's ServerKeyExchange signature (§7.4.1.4.1). */
    br_ssl_engine_set_hash(eng, br_sha1_ID, &br_sha1_vtable);
    br_ssl_engine_set_hash(eng, br_sha224_ID, &br_sha224_vtable);
    br_ssl_engine_set_hash(eng, br_sha256_ID, &br_sha256_vtable);
    br_ssl_engine_set_hash(eng, br_sha384_ID, &br_sha384_vtable);
    br_ssl_engine_set_hash(eng, br_sha512_ID, &br_sha512_vtable);
    br_ssl_engine_set_prf_sha256(eng, &br_tls12_sha256_prf);
    br_ssl_engine_set_prf_sha384(eng, &br_tls12_sha384_prf);
    br_ssl_engine_set_default_aes_gcm(eng);
    br_ssl_engine_set_default_chapol(eng);
    br_ssl_engine_set_default_aes_cbc(eng);
    br_ssl_engine_set_default_ec(eng);
    br_ssl_engine_set_default_ecdsa(eng); /* sets the EC implementation again */
    if (ch && ch->ngroups > 0)
        restrict_curves(t, ch);
    br_ssl_engine_set_default_rsavrfy(eng);
    br_ssl_client_set_default_rsapub(cc);
    /* --cacert: BearSSL's X.509 validation, through the caller's verifier
     * (tls13/verify.h), with the same anchors and time as TLS 1.3. */
    t->x509.vtable = &accept_any_vtable;
    t->verifier = cfg->verifier;
    br_ssl_engine_set_x509(eng, cfg->verifier ? &cfg->verifier->vtable : &t->x509.vtable);
    /* A client certificate, for a server that sends CertificateRequest
     * (RFC 5246 §7.4.6): BearSSL signs CertificateVerify with the key,
     * ECDSA or RSA PKCS#1 v1.5 as TLS 1.2 has them (§7.4.8). */
    if (cfg->cred && cfg->cred->key_type == BR_KEYTYPE_EC)
        br_ssl_client_set_single_ec(cc, cfg->cred->chain, cfg->cred->chain_len, &cfg->cred->ec, BR_KEYTYPE_SIGN, 0,
                                    br_ec_get_default(), br_ecdsa_sign_asn1_get_default());
    else if (cfg->cred)
        br_ssl_client_set_single_rsa(cc, cfg->cred->chain, cfg->cred->chain_len, &cfg->cred->rsa,
                                     br_rsa_pkcs1_sign_get_default());
    /* A HelloRequest is declined (§7.4.1.1): a load test never renegotiates. */
    br_ssl_engine_set_all_flags(eng, BR_OPT_NO_RENEGOTIATION);
    br_ssl_engine_set_buffer(eng, t->iobuf, sizeof t->iobuf, 1);

    int names = cfg->alpn_len ? alpn_split(t, cfg->alpn, cfg->alpn_len) : 0;
    const char *sni = cfg->server_name;
    if (names < 0 || (sni && strlen(sni) >= sizeof eng->server_name)) {
        t->alert = 80; /* internal_error: the configuration does not fit */
        finish(t, BR_ERR_BAD_PARAM);
        return;
    }
    if (names > 0)
        br_ssl_engine_set_protocol_names(eng, t->alpn_names, (size_t)names);

    /* The engine's DRBG (client random, ECDHE keys, the RSA premaster
     * secret) is seeded from the caller's bytes only. Marking the OS seeding
     * as done keeps br_ssl_client_reset from reading the OS's randomness
     * (a syscall per handshake). */
    eng->rng_os_rand_done = 1;
    br_ssl_engine_inject_entropy(eng, entropy, entropy_len);
    /* --tls-resume: the session's id in our ClientHello (§7.4.1.2), its
     * master secret ready for the abbreviated handshake (§7.3). BearSSL
     * offers it only if its version and suite are still among ours. */
    bool resume = sess && sess->session_id_len > 0 && sess->session_id_len <= sizeof t->offered_id;
    if (resume) {
        br_ssl_engine_set_session_parameters(eng, sess);
        t->offered_id_len = sess->session_id_len;
        memcpy(t->offered_id, sess->session_id, sess->session_id_len);
    }
    if (!br_ssl_client_reset(cc, sni, resume)) {
        finish(t, br_ssl_engine_last_error(eng));
        return;
    }
    pump(t); /* the ClientHello */
    mark_exposed(t);
}

bool tls12_ready(const struct tls12_conn *t) { return t->state == ST_READY; }

bool tls12_session(const struct tls12_conn *t, br_ssl_session_parameters *out)
{
    if (t->state != ST_READY || t->cc.eng.session.session_id_len == 0)
        return false;
    br_ssl_engine_get_session_parameters(&t->cc.eng, out);
    return true;
}

const char *tls12_alpn(const struct tls12_conn *t) { return t->alpn; }

/* The engine's session (read in place: its copy would carry the master
 * secret) and, for an ECDHE suite, the curve of the ServerKeyExchange (RFC
 * 8422 §5.4); BearSSL's curve ids are the TLS named groups. RSA key
 * transport has no group. */
void tls12_negotiated(const struct tls12_conn *t, struct tls_negotiated *out)
{
    const char *name = tls_cipher_name(t->cc.eng.session.cipher_suite);
    out->version = (uint16_t)br_ssl_engine_get_version(&t->cc.eng);
    out->cipher = t->cc.eng.session.cipher_suite;
    out->group = name && strncmp(name, "TLS_ECDHE_", 10) == 0 ? (uint16_t)t->cc.eng.ecdhe_curve : 0;
    out->fallback = true;
    tls_negotiated_alpn(out, t->alpn);
}

int tls12_alert(const struct tls12_conn *t)
{
    int e = br_ssl_engine_last_error(&t->cc.eng);
    if (e >= BR_ERR_SEND_FATAL_ALERT)
        return e - BR_ERR_SEND_FATAL_ALERT;
    if (e >= BR_ERR_RECV_FATAL_ALERT)
        return -(e - BR_ERR_RECV_FATAL_ALERT);
    return t->alert;
}
