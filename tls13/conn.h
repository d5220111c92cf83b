/* tls13/conn.h — a TLS connection over a byte stream (TCP): the TLS 1.3
 * handshake engine plus the record layer, behind the buffer-and-ack contract
 * the worker uses for every transport. A connection can instead run
 * BearSSL's TLS 1.2 client engine (tls12.h), for a server that does not
 * speak 1.3; every function below then means the same thing.
 *
 * Ciphertext in (tls_conn_recv) -> application plaintext out through a
 * callback; application plaintext in (tls_conn_send) -> records appended to
 * the output buffer (tls_conn_out / tls_conn_out_ack). Sans-I/O: no
 * syscalls, no clock, no allocation (the caller gives each connection one
 * block of tls_conn_size() bytes at start-up); entropy comes in per
 * handshake. */
#ifndef SHB_TLS13_CONN_H
#define SHB_TLS13_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tls13/choice.h"
#include "tls13/handshake.h"
#include "tls13/negotiated.h"
#include "tls13/verify.h"

struct tls_config {
    const char *server_name; /* SNI, NULL for an IP literal */
    const uint8_t *alpn;     /* protocol_name_list body (1-byte length + name, ...) */
    size_t alpn_len;
    const struct tls_choice *choice; /* versions, suites and groups chosen; NULL: the defaults */
    const struct tls13_credential *cred; /* --cert/--key for a server that asks (both engines), or NULL */
    /* --cacert (tls13/verify.h): what each slot's verifier is made from,
     * or NULL to trust every certificate; and the connection's own
     * verifier, set on a per-connection copy of this config (read only by
     * tls_conn_init, which hands it to either engine). */
    const struct tls13_verify_config *verify;
    struct tls13_verifier *verifier;
    /* The 1.3 engine's key share group when not the first chosen (what a
     * HelloRetryRequest asked for before: tls13_hs_config.key_share_group),
     * set on the same per-connection copy; 0: the first. */
    uint16_t key_share_group;
};

/* Results of tls_conn_recv (negative: the connection is finished). */
#define TLS_OK 0
#define TLS_HANDSHAKE_DONE 1       /* this call completed the handshake */
#define TLS_CLOSED (-1)            /* close_notify received */
#define TLS_ERR_HANDSHAKE (-2)     /* handshake failed (our alert or theirs; see tls_conn_alert) */
#define TLS_ERR_RECORD (-3)        /* bad record after the handshake (MAC, overflow, unexpected type) */
#define TLS_ERR_PEER_ALERT (-4)    /* the peer sent a fatal alert after the handshake */
#define TLS_ERR_FALLBACK_TLS12 (-5) /* the server chose TLS 1.2: connect again with tls12 (1.3 engine only) */

typedef void (*tls_plain_fn)(void *ctx, uint8_t *p, size_t n);

struct tls_conn;

/* Enough for either engine. */
size_t tls_conn_size(void);

/* Starts a handshake in mem: the ClientHello is queued in the output.
 * tls12: offer TLS 1.2 only, through BearSSL's engine (the same SNI and
 * ALPN list; certificates are validated by either engine only when
 * cfg->verifier is set). */
struct tls_conn *tls_conn_init(void *mem, const struct tls_config *cfg, const uint8_t entropy[TLS13_ENTROPY_LEN],
                               bool tls12);
/* The same with --tls-resume: for the 1.3 engine the ticket to offer and
 * the ticket callback (tls13/handshake.h; copied, NULL for none), for the
 * 1.2 engine a session to resume by its id (tls_conn_session12; NULL for
 * none). */
struct tls_conn *tls_conn_init_resume(void *mem, const struct tls_config *cfg,
                                      const uint8_t entropy[TLS13_ENTROPY_LEN], bool tls12,
                                      const struct tls13_resume *resume, const br_ssl_session_parameters *session12);

/* The 1.2 engine's completed handshake: its session (id and master
 * secret), to resume on a later connection. False for the 1.3 engine, or
 * a server that gave the session no id. */
bool tls_conn_session12(const struct tls_conn *t, br_ssl_session_parameters *out);

/* The completed handshake resumed a session (RFC 8446 §2.2, or an
 * abbreviated TLS 1.2 one). */
bool tls_conn_resumed(const struct tls_conn *t);

/* The group a HelloRetryRequest of the completed handshake asked for (RFC
 * 8446 §4.1.4; tls13_hs_hrr_group), 0 for none and for the 1.2 engine. */
uint16_t tls_conn_hrr_group(const struct tls_conn *t);

/* Feeds ciphertext. p is writable: whole records found in it are decrypted in
 * place (no copy); a record split across calls is gathered first (the 1.2
 * engine copies everything into its own buffer instead). Every
 * piece of application data is passed to fn in order; fn may call
 * tls_conn_send. Returns TLS_OK, TLS_HANDSHAKE_DONE, or a negative TLS_*. */
int tls_conn_recv(struct tls_conn *t, uint8_t *p, size_t n, tls_plain_fn fn, void *ctx);

bool tls_conn_ready(const struct tls_conn *t);

/* Seals up to n bytes of application data into records (2^14 bytes of
 * plaintext each). Returns how many bytes were taken: fewer when the output
 * buffer is full (call again after tls_conn_out_ack). The 1.2 engine holds
 * one application data record at a time: it takes nothing more until that
 * one is acknowledged. */
size_t tls_conn_send(struct tls_conn *t, const uint8_t *p, size_t n);

/* 0-RTT (--early-data, RFC 8446 §4.2.10): while the handshake runs with
 * early data offered and the ticket's max_early_data_size not spent, n
 * bytes of application data may go right after the ClientHello, sealed
 * with the early key. tls_conn_send_early takes all n bytes or none (false:
 * not open, over the budget, or no room). Whether the server took them is
 * tls_conn_early_accepted once the handshake is done; if not, the caller
 * sends them again with tls_conn_send. */
bool tls_conn_early_open(const struct tls_conn *t);
bool tls_conn_send_early(struct tls_conn *t, const uint8_t *p, size_t n);
bool tls_conn_early_accepted(const struct tls_conn *t);

/* Room for at least this much plaintext right now (one record's worth; 0
 * from the 1.2 engine before the handshake ends or while its record waits). */
size_t tls_conn_send_room(const struct tls_conn *t);

/* Pending ciphertext: [0, len) stays put until acknowledged. */
const uint8_t *tls_conn_out(const struct tls_conn *t, size_t *len);
void tls_conn_out_ack(struct tls_conn *t, size_t n);

/* The negotiated application protocol, "" if none. */
const char *tls_conn_alpn(const struct tls_conn *t);

/* What the completed handshake settled on (version, suite, group, ALPN,
 * which engine): call once tls_conn_ready. */
void tls_conn_negotiated(const struct tls_conn *t, struct tls_negotiated *out);

/* The alert that ended the handshake or the connection: positive = we sent
 * it, negative = the peer did, 0 = none. */
int tls_conn_alert(const struct tls_conn *t);
const char *tls_alert_name(int alert);

#endif
