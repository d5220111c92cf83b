/* tls13/handshake.h — the TLS 1.3 client handshake (RFC 8446 §4), sans-I/O.
 *
 * One engine for both transports (picotls's design): handshake messages go
 * in and out tagged with an epoch, and traffic secrets are handed out per
 * epoch through a callback. Over TCP the TLS connection wraps them in
 * records; under QUIC (RFC 9001 §4) they travel in CRYPTO frames.
 *
 * Certificates are parsed for framing only and not verified (a benchmarker
 * trusts every certificate) unless the config carries a verifier
 * (--cacert, tls13/verify.h); the server's Finished is always verified. No syscalls, no clock, no allocation: randomness comes in
 * as bytes at start. */
#ifndef SHB_TLS13_HANDSHAKE_H
#define SHB_TLS13_HANDSHAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tls13/cert_request.h"
#include "tls13/keysched.h"
#include "tls13/negotiated.h"

enum tls13_epoch {
    TLS13_EPOCH_INITIAL = 0,   /* cleartext: ClientHello, ServerHello, HRR */
    TLS13_EPOCH_EARLY = 1,     /* 0-RTT (--early-data): our early data and EndOfEarlyData (RFC 8446 §4.5) */
    TLS13_EPOCH_HANDSHAKE = 2, /* EncryptedExtensions .. Finished */
    TLS13_EPOCH_APP = 3,       /* post-handshake: NewSessionTicket, KeyUpdate */
};

/* Entropy the caller supplies per handshake: client random, legacy session
 * id, X25519 private key, P-256 and P-384 private scalars (any bytes; the
 * engine reduces them as the curves need), and the RSASSA-PSS salt of a
 * client CertificateVerify (up to SHA-512's 64 bytes). */
#define TLS13_ENTROPY_LEN (32 + 32 + 32 + 32 + 48 + 64)

struct tls13_credential; /* tls13/credentials.h */
struct tls13_verifier;   /* tls13/verify.h */

/* A session ticket from NewSessionTicket (RFC 8446 §4.6.1) with its PSK
 * already derived, and what it was made under. The engine hands one out
 * (tls13_resume.on_ticket) and offers one (tls13_resume.ticket); keeping it
 * is the caller's business. Room for what the next step (0-RTT) needs:
 * max_early_data and the ALPN, to which QUIC adds the server's transport
 * parameters (RFC 9000 §7.4.1) in the caller's record around this one. */
#define TLS13_TICKET_MAX 2048 /* a longer ticket is not kept */
struct tls13_ticket {
    uint32_t lifetime_s;       /* ticket_lifetime, at most 604800 (§4.6.1) */
    uint32_t age_add;          /* ticket_age_add */
    uint32_t max_early_data;   /* early_data's max_early_data_size (§4.2.10); 0: no 0-RTT */
    uint16_t suite;            /* the suite of the handshake that made it: the PSK's hash is its */
    uint16_t ticket_len;       /* 1..TLS13_TICKET_MAX */
    uint8_t psk[TLS13_MAX_HASH];
    uint8_t ticket[TLS13_TICKET_MAX];
    char server_name[256];     /* the SNI it was made under, "" for none */
    char alpn[TLS_ALPN_NAME_MAX]; /* the ALPN selected then, "" for none */
};

/* --tls-resume, per handshake. ticket (kept by the caller until the
 * handshake is done) is offered when it suits this handshake: made under
 * the same SNI, a suite of the same hash offered, and ticket_age_ms (from
 * the caller's clock: the engine reads none) within its lifetime.
 * on_ticket, if set, receives each NewSessionTicket (the struct lives for
 * the call only); without it NewSessionTicket is skipped unread. */
struct tls13_resume {
    const struct tls13_ticket *ticket;
    uint32_t ticket_age_ms;
    /* --early-data: with a ticket that allows it (max_early_data > 0, made
     * under the ALPN this handshake offers first), offer 0-RTT (RFC 8446
     * §4.2.10; under QUIC, RFC 9001 §4.6): the early write secret follows
     * ClientHello. */
    bool early_data;
    void (*on_ticket)(void *ctx, const struct tls13_ticket *t);
    void *ctx;
};

struct tls13_hs_config {
    const char *server_name;   /* SNI; NULL for an IP literal (RFC 6066 §3: no literals) */
    const uint8_t *alpn;       /* ALPN protocol_name_list body: 1-byte length + name, repeated */
    size_t alpn_len;
    bool quic;                 /* QUIC: no legacy session id, no middlebox CCS, transport parameters below */
    const uint8_t *quic_params; /* quic_transport_parameters extension body (RFC 9001 §8.2) */
    size_t quic_params_len;
    /* What the user chose (tls13/choice.h), NULL/0 for every one we have:
     * the cipher suites in our order of preference (RFC 8446 §4.1.2) and
     * the groups for supported_groups, the first getting the key share
     * (§4.2.7, §4.2.8). Each must be one the engine implements. */
    const uint16_t *suites;
    size_t nsuites;
    const uint16_t *groups;
    size_t ngroups;
    /* The group to send the key share for instead of the first listed: the
     * one a HelloRetryRequest asked for on an earlier connection to this
     * server (tls13_hs_hrr_group), so that later handshakes skip the retry.
     * supported_groups still lists them all: RFC 8446 §4.2.8 lets the
     * client share for a subset of them. 0, or one not listed: the first. */
    uint16_t key_share_group;
    bool tls13_only;           /* a TLS 1.2 ServerHello is protocol_version (§D.1), not a fallback */
    /* A client certificate (--cert/--key) for a CertificateRequest, or NULL
     * (an empty Certificate answers it, RFC 8446 §4.4.2). Outlives every
     * handshake: the Certificate message streams out of it. */
    const struct tls13_credential *cred;
    /* --tls-resume: a ticket to offer and where new ones go, or NULL
     * (copied at start). */
    const struct tls13_resume *resume;
    /* --cacert: the server's chain and name are verified as the
     * Certificate streams past, then its CertificateVerify (RFC 8446
     * §4.4.3); NULL trusts every certificate. The caller's, one per
     * connection (tls13_verifier_start'ed), outliving the handshake. */
    struct tls13_verifier *verifier;
};

struct tls13_hs_callbacks {
    /* Handshake bytes to send at an epoch, in order. */
    void (*emit)(void *ctx, enum tls13_epoch epoch, const uint8_t *p, size_t n);
    /* A new traffic secret: write=true for ours (client), false for the
     * peer's. Called for HANDSHAKE and APP epochs, and again for APP after a
     * KeyUpdate; with 0-RTT offered, for EARLY (write) right after
     * ClientHello, and over TCP our HANDSHAKE write secret then waits
     * until after EndOfEarlyData (emitted at EARLY when the server
     * accepted); under QUIC it comes with the server's, and no
     * EndOfEarlyData is emitted (RFC 9001 §8.3). */
    void (*secret)(void *ctx, enum tls13_epoch epoch, bool write, const struct tls13_suite *suite,
                   const uint8_t *secret);
};

/* Results (negative = fatal: a TLS alert to send, negated). */
#define TLS13_HS_IN_PROGRESS 0
#define TLS13_HS_DONE 1                /* client Finished emitted; application data may flow */
#define TLS13_ERR_FALLBACK_TLS12 (-1000) /* the server chose TLS 1.2: hand the connection to the 1.2 engine */
#define TLS13_ERR_PEER_ALERT_BASE (-2000) /* -2000 - alert: the peer sent this fatal alert */
/* QUIC (cfg.quic): a NewSessionTicket whose early_data is not 0xffffffff,
 * which RFC 9001 §4.6.1 makes a connection error of type PROTOCOL_VIOLATION,
 * not a TLS alert. */
#define TLS13_ERR_QUIC_EARLY_DATA_SIZE (-1001)
/* otherwise -alert, e.g. -40 handshake_failure, -47 illegal_parameter,
 * -50 decode_error, -51 decrypt_error (bad Finished), -10 unexpected_message,
 * -70 protocol_version, -109 missing_extension, -110 unsupported_extension,
 * -120 no_application_protocol; -40 handshake_failure also when a
 * CertificateRequest allows no signature scheme our cfg.cred can make.
 * With cfg.verifier: -42 bad_certificate, -43 unsupported_certificate, -45
 * certificate_expired, -48 unknown_ca (the chain or name, the reason in the
 * verifier), -51 decrypt_error (CertificateVerify's signature) */

/* Opaque in spirit: fields are the engine's. Sized for the largest message
 * it has to hold whole (ServerHello, EncryptedExtensions, Finished,
 * NewSessionTicket/KeyUpdate headers); Certificate, CertificateRequest and
 * CertificateVerify are hashed and read as they stream past, so a long
 * chain or CA list costs no memory. */
struct tls13_hs {
    uint8_t state;               /* internal: where the handshake stands (handshake.c) */
    uint8_t hrr_done;            /* a HelloRetryRequest was answered */
    uint8_t got_cr;              /* CertificateRequest seen: an empty Certificate goes before our Finished */
    uint8_t sid_len;             /* legacy_session_id sent: 32 over TCP (RFC 8446 §D.4), 0 under QUIC */
    uint8_t ku_answered;         /* our KeyUpdate answered an update_requested, and no data went since */
    uint16_t cv_scheme;          /* CertificateRequest with cfg.cred: the scheme our CertificateVerify uses */
    int err;                     /* sticky: the first negative result, returned ever after */
    uint16_t suite_id;
    uint16_t group;              /* the key_share group offered/accepted */
    const struct tls13_suite *suite;
    struct tls13_hs_config cfg;  /* copied; the buffers it points to must outlive the handshake */
    struct tls13_hs_callbacks cb;
    void *ctx;
    uint8_t entropy[TLS13_ENTROPY_LEN]; /* private keys wiped once the ServerHello is in */
    struct tls13_transcript transcript;
    struct tls13_keysched ks;
    uint8_t alpn[256];           /* the selected protocol, NUL-terminated ("" if none) */
    uint16_t cookie_len;
    uint8_t cookie[512];         /* HRR cookie echoed in ClientHello2 (a longer one is internal_error) */
    uint32_t msg_len, msg_have;  /* the message being received */
    uint8_t msg_type;
    uint8_t msg_mode;            /* how its body is taken: collected, hashed as it streams, or skipped */
    uint8_t hdr[4];
    uint8_t hdr_have;
    uint8_t cw_phase, cw_need;   /* Certificate framing walker (streamed, never stored) */
    uint32_t cw_acc, cw_skip, cw_left;
    struct tls13_cr_reader cr;   /* CertificateRequest reader (streamed, never stored) */
    const uint8_t *test_ch2;     /* tests only: ClientHello2 bytes replayed instead of built */
    size_t test_ch2_len;
    uint8_t msg[4096];           /* small messages are collected here; ClientHellos are built here */
    uint8_t quic_params_peer[1024]; /* QUIC: the server's transport parameters */
    uint16_t quic_params_peer_len;
    /* --tls-resume (cfg.resume): */
    struct tls13_resume resume;
    uint8_t psk;                 /* PSK_NONE, PSK_OFFERED (in our ClientHello), PSK_ACCEPTED (the server's
                                    pre_shared_key chose it: no Certificate/CertificateVerify, §2.2) */
    uint16_t suites_psk[3];      /* cfg.suites with the ticket's first (§4.2.11) */
    uint8_t res_master[TLS13_MAX_HASH]; /* resumption_master_secret, for NewSessionTicket (§7.1) */
    /* --early-data (resume.early_data): */
    uint8_t early;               /* EARLY_NONE, _OFFERED, _ACCEPTED, _REJECTED (handshake.c) */
    uint32_t early_max;          /* the ticket's max_early_data_size (§4.2.10) */
    uint16_t early_suite;        /* the ticket's suite: 0-RTT is sealed with it */
};

/* Starts a handshake: emits ClientHello at TLS13_EPOCH_INITIAL. Returns 0 or
 * a negative alert (e.g. a config that does not fit). */
int tls13_hs_start(struct tls13_hs *hs, const struct tls13_hs_config *cfg, const uint8_t *entropy,
                   const struct tls13_hs_callbacks *cb, void *ctx);

/* Feeds handshake bytes received at an epoch (any split, several messages at
 * once; over TCP one call per record: a KeyUpdate must end its input, RFC
 * 8446 §5.1, else unexpected_message). Returns TLS13_HS_IN_PROGRESS,
 * TLS13_HS_DONE (once, when the handshake completes; later post-handshake
 * input returns 0), or a negative error. Messages at the wrong epoch are
 * unexpected_message. */
int tls13_hs_input(struct tls13_hs *hs, enum tls13_epoch epoch, const uint8_t *p, size_t n);

/* The handshake resumed a session: the server accepted our ticket's PSK
 * (RFC 8446 §4.2.11). */
bool tls13_hs_resumed(const struct tls13_hs *hs);

/* 0-RTT (--early-data): how many bytes of early data the offered ticket
 * allows (RFC 8446 §4.2.10 max_early_data_size), 0 when none was offered
 * (or a HelloRetryRequest ended it, §4.2.10). */
uint32_t tls13_hs_early_budget(const struct tls13_hs *hs);

/* After the handshake: the server accepted our early data (its
 * EncryptedExtensions carried early_data, §4.2.10). False means any early
 * data sent was discarded and must be sent again under the 1-RTT keys. */
bool tls13_hs_early_accepted(const struct tls13_hs *hs);

/* The group a HelloRetryRequest of this handshake settled on (its
 * selected_group, or with a cookie alone the one we shared for), 0 when
 * the server sent none: what cfg.key_share_group is for next time. */
uint16_t tls13_hs_hrr_group(const struct tls13_hs *hs);

/* The negotiated application protocol ("" when the server chose none). */
const char *tls13_hs_alpn(const struct tls13_hs *hs);

/* What the completed handshake settled on: TLS 1.3, the suite and
 * key_share group from the ServerHello (RFC 8446 §4.1.3, §4.2.8), the ALPN
 * from EncryptedExtensions. */
void tls13_hs_negotiated(const struct tls13_hs *hs, struct tls_negotiated *out);

/* Application data went out under our current keys: the next KeyUpdate
 * with update_requested gets an answer of its own. Until then further ones
 * are answered by the one already sent (RFC 8446 §4.6.3: an implementation
 * "which receives multiple KeyUpdates while it is silent" responds "with a
 * single update"), so a storm of them costs one record, not one each. */
void tls13_hs_app_data_sent(struct tls13_hs *hs);

/* Asks the peer to update its keys and updates ours (RFC 8446 §4.6.3):
 * emits KeyUpdate(update_requested) at APP and installs our next secret. */
int tls13_hs_key_update(struct tls13_hs *hs);

#endif
