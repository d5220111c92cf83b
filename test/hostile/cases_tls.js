// test/hostile/cases_tls.js — hostile TLS servers (the table's format:
// test/hostile/cases.js). Three kinds of server play them:
//   - `raw: true` cases that never do TLS: they read the ClientHello
//     (tls13.onClientHello) and answer with bytes made by hand — a
//     ServerHello with a wrong field, garbage, a close;
//   - `raw: true` cases played by tls13.serve(), a TLS 1.3 server written
//     with node:crypto (test/hostile/tls13.js) whose every message and record
//     a case can change: a wrong Finished, KeyUpdates, alerts in records of
//     its own, a certificate chain of any size;
//   - `tls: true` cases served by node's TLS 1.3 (or 1.2) with the HTTP/1.1
//     or HTTP/2 engine of test/servers/hostile_server.js, and raw bytes injected
//     under its record layer (x.inject).
// Every failed handshake costs one request as a connect error (`tls
// handshake`, docs/errors.md), so `-n 8 -c 2` against
// a server that breaks every handshake ends with 8 of them; a failure after
// the handshake is `tls` (never retried), a close_notify a clean close.
// The alert shb sent or received is checked too (`tlsAlerts`).
'use strict';

const crypto = require('crypto');
const tls13 = require('./tls13.js');
const wire = require('./wire.js');

const { CT, HT, HRR_RANDOM, EMPTY, u16, ext, plainRecord, serverHello, handshakeMsg } = tls13;
const OK = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';
const CUT = 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n12345';

// hello(build[, then]): a raw case that answers the ClientHello with the
// bytes build(ch, x) returns (nothing when null), then ends ('end'), resets
// ('reset') or waits (default).
const hello = (build, then) => tls13.onClientHello((x, ch) => {
    const b = build(ch, x);
    if (b) x.write(b);
    if (then === 'end') x.end();
    if (then === 'reset') x.reset();
});
// A ServerHello record (§4.1.3) from serverHello()'s fields, echoing the
// client's session id unless told otherwise; the key share is 32 random
// bytes (no keys are ever derived: each of these is refused first).
const sh = (ch, o = {}) => plainRecord(CT.HANDSHAKE, serverHello({ sessionId: ch.sessionId, pub: crypto.randomBytes(32), ...o }));
// A HelloRetryRequest (§4.1.4) selecting `group`.
const hrr = (ch, group) => plainRecord(CT.HANDSHAKE, serverHello({ sessionId: ch.sessionId, random: HRR_RANDOM,
    exts: Buffer.concat([ext(43, u16(0x0304)), ext(51, u16(group))]) }));
// A TLS 1.2 ServerHello (no supported_versions) whose random ends in a
// downgrade sentinel (§4.1.3: "DOWNGRD" then 01 for 1.2, 00 for 1.1 and below).
const downgrade = (ch, last, legacyVersion) => plainRecord(CT.HANDSHAKE, serverHello({ sessionId: ch.sessionId,
    legacyVersion, version: null, suite: 0xc02b,
    random: Buffer.concat([crypto.randomBytes(24), Buffer.from('DOWNGRD', 'latin1'), Buffer.from([last])]) }));

// A CertificateRequest body (RFC 8446 §4.3.2): signature_algorithms
// (ecdsa_secp256r1_sha256, rsa_pss_rsae_sha256) and certificate_authorities
// of caLen bytes of 98-byte DistinguishedNames, the CAs first or last.
const certRequest = (caLen, casFirst) => {
    const dns = Buffer.concat(Array.from({ length: Math.floor(caLen / 100) }, (_, i) =>
        Buffer.concat([u16(98), Buffer.alloc(98, 0x30 + (i % 64))])));
    const sig = ext(13, tls13.vec16(Buffer.from('04030804', 'hex'))), cas = ext(47, tls13.vec16(dns));
    return Buffer.concat([Buffer.from([0]), tls13.vec16(Buffer.concat(casFirst ? [cas, sig] : [sig, cas]))]);
};
const hs8 = (alerts) => ({ errors: { 'tls handshake': 8 }, jq: `.tlsAlerts == ${JSON.stringify(alerts)}` });
const tls8 = (alerts) => ({ errors: { tls: 8 }, jq: `.tlsAlerts == ${JSON.stringify(alerts)}` });
// -c 1, the first response fine and the second replaced: 4 ok, 4 `tls`.
const half = (alerts) => ({ ok: 4, errors: { tls: 4 }, jq: `.tlsAlerts == ${JSON.stringify(alerts)}` });

// A record header announcing `len` bytes, and that many junk bytes.
const junkRecord = (type, len, sent = len) => Buffer.concat([Buffer.from([type, 3, 3, len >> 8, len & 0xff]),
    crypto.randomBytes(sent)]);
// node TLS cases: answer every request but the nth (or all with n = 0),
// which gets `bytes` injected under the record layer instead.
const injectAt = (which, bytes) => (x, n, stream) => {
    if (which === 0 || n === which) x.inject(typeof bytes === 'function' ? bytes() : bytes);
    else x.ok(stream);
};
// 1 MiB of certificate chain: 16 blobs of 64 KiB (never parsed by shb:
// docs/protocols.md "Certificates are never verified"; it hashes them as they stream).
let bigChain = null;
const chain = () => (bigChain = bigChain || Array.from({ length: 16 }, () => crypto.randomBytes(65536)));

module.exports = [
    // --- no TLS at all, or the handshake cut short -----------------------------
    {
        name: 'tls-garbage-hello', raw: true, args: '-n 8 -c 2',
        does: 'answers the ClientHello with 64 bytes of binary junk',
        rfc: 'RFC 8446 §5: an unknown record type is unexpected_message; a handshake failure',
        expect: hs8({ 'sent unexpected_message': 8 }),
        ...hello(() => Buffer.concat([Buffer.from([0x00, 0x03, 0x03, 0x00, 0x3b]), crypto.randomBytes(59)])),
    },
    {
        name: 'tls-garbage-hello-h2', raw: true, proto: 'h2', args: '-n 8 -c 2',
        does: 'the same junk to an HTTP/2 client',
        rfc: 'RFC 8446 §5',
        expect: hs8({ 'sent unexpected_message': 8 }),
        ...hello(() => Buffer.concat([Buffer.from([0x00, 0x03, 0x03, 0x00, 0x3b]), crypto.randomBytes(59)])),
    },
    {
        name: 'tls-plaintext-http', raw: true, args: '-n 8 -c 2',
        does: 'answers the ClientHello with a plain HTTP/1.1 400 response (a cleartext server)',
        rfc: 'RFC 8446 §5.1: its first five bytes read as a record header announce 0x502f ("P/") bytes, over the limit: record_overflow',
        expect: hs8({ 'sent record_overflow': 8 }),
        ...hello(() => 'HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n', 'end'),
    },
    {
        name: 'tls-close-after-hello', raw: true, args: '-n 8 -c 2',
        does: 'reads the ClientHello, then closes (FIN)',
        rfc: 'protocols.md, TLS: the server closing mid-handshake is a handshake failure',
        expect: { errors: { 'tls handshake': 8 }, jq: '.tlsAlerts == null' },
        ...hello(() => null, 'end'),
    },
    {
        name: 'tls-close-after-hello-h2', raw: true, proto: 'h2', args: '-n 8 -c 2',
        does: 'the same to an HTTP/2 client',
        rfc: 'protocols.md, TLS',
        expect: { errors: { 'tls handshake': 8 }, jq: '.tlsAlerts == null' },
        ...hello(() => null, 'end'),
    },
    {
        name: 'tls-reset-after-hello', raw: true, args: '-n 8 -c 2',
        does: 'reads the ClientHello, then resets',
        rfc: 'protocols.md, TLS',
        expect: { errors: { 'tls handshake': 8 }, jq: '.tlsAlerts == null' },
        ...hello(() => null, 'reset'),
    },
    {
        name: 'tls-close-half-hello', raw: true, args: '-n 8 -c 2',
        does: 'sends the first half of a ServerHello record, then closes',
        rfc: 'protocols.md, TLS: the server closing mid-handshake',
        expect: { errors: { 'tls handshake': 8 }, jq: '.tlsAlerts == null' },
        ...hello((ch) => sh(ch).subarray(0, 40), 'end'),
    },
    {
        name: 'tls-reset-half-hello', raw: true, args: '-n 8 -c 2',
        does: 'sends the first half of a ServerHello record, then resets',
        rfc: 'protocols.md, TLS',
        expect: { errors: { 'tls handshake': 8 }, jq: '.tlsAlerts == null' },
        ...hello((ch) => sh(ch).subarray(0, 40), 'reset'),
    },
    {
        name: 'tls-stalled-handshake', raw: true, args: '--connect-timeout 500ms -n 4 -c 2', deadline: 8,
        does: 'reads the ClientHello and never answers',
        rfc: 'protocols.md, TLS: --connect-timeout covers the TCP connect and the TLS handshake',
        expect: { errors: { 'connect timeout': 4 } },
        ...hello(() => null),
    },
    {
        name: 'tls-stall-after-server-hello', raw: true, args: '--connect-timeout 500ms -n 4 -c 2', deadline: 8,
        does: 'a ServerHello, then nothing (no EncryptedExtensions ever)',
        rfc: 'protocols.md, TLS: --connect-timeout covers the whole handshake',
        expect: { errors: { 'connect timeout': 4 } },
        ...hello((ch) => sh(ch)),
    },
    {
        name: 'tls-drip-handshake', raw: true, args: '--connect-timeout 500ms -n 4 -c 2', deadline: 8,
        does: 'the hand-made server\'s whole flight, one byte every 20 ms (never silent for long, never done in time)',
        rfc: 'protocols.md, TLS: --connect-timeout bounds the handshake, not the silence within it',
        expect: { errors: { 'connect timeout': 4 } },
        ...tls13.serve({ drip: 20 }),
    },

    // --- ServerHellos shb must refuse (RFC 8446 §4.1.3, §4.1.4) -------------------
    {
        name: 'tls-hello-unknown-suite', raw: true, args: '-n 8 -c 2',
        does: 'a ServerHello choosing TLS_AES_128_CCM_SHA256 (0x1304), which shb did not offer',
        rfc: 'RFC 8446 §4.1.3: a cipher suite that was not offered is illegal_parameter',
        expect: hs8({ 'sent illegal_parameter': 8 }),
        ...hello((ch) => sh(ch, { suite: 0x1304 })),
    },
    {
        name: 'tls-hello-unknown-group', raw: true, args: '-n 8 -c 2',
        does: 'a ServerHello whose key_share is in secp521r1 (0x0019), a group shb never named',
        rfc: 'RFC 8446 §4.2.8: the share must be in the group of the client\'s share: illegal_parameter',
        expect: hs8({ 'sent illegal_parameter': 8 }),
        ...hello((ch) => sh(ch, { group: 0x0019, pub: crypto.randomBytes(133) })),
    },
    {
        name: 'tls-hello-bad-session-echo', raw: true, args: '-n 8 -c 2',
        does: 'a ServerHello whose legacy_session_id_echo is not the client\'s session id',
        rfc: 'RFC 8446 §4.1.3: a legacy_session_id_echo that does not match is illegal_parameter',
        expect: hs8({ 'sent illegal_parameter': 8 }),
        ...hello((ch) => sh(ch, { sessionId: crypto.randomBytes(32) })),
    },
    {
        name: 'tls-hello-downgrade-tls12', raw: true, args: '-n 8 -c 2',
        does: 'a TLS 1.2 ServerHello whose random ends in the sentinel `DOWNGRD\\x01`',
        rfc: 'RFC 8446 §4.1.3: a TLS 1.3 client seeing the sentinel in a 1.2 ServerHello aborts with illegal_parameter (no fallback)',
        expect: hs8({ 'sent illegal_parameter': 8 }),
        ...hello((ch) => downgrade(ch, 1)),
    },
    {
        name: 'tls-hello-downgrade-tls11', raw: true, args: '-n 8 -c 2',
        does: 'a TLS 1.1 ServerHello (legacy_version 0x0302) whose random ends in `DOWNGRD\\x00`',
        rfc: 'RFC 8446 §4.1.3',
        expect: hs8({ 'sent illegal_parameter': 8 }),
        ...hello((ch) => downgrade(ch, 0, 0x0302)),
    },
    {
        name: 'tls-hrr-twice', raw: true, args: '-n 8 -c 2',
        does: 'a HelloRetryRequest for secp256r1, then a second one for secp384r1 after the second ClientHello',
        rfc: 'RFC 8446 §4.1.4: a second HelloRetryRequest is unexpected_message',
        expect: hs8({ 'sent unexpected_message': 8 }),
        ...tls13.onClientHello((x, ch) => {
            x.state.ch = ch;
            x.write(hrr(ch, 0x0017));
        }, (x) => {
            if (x.state.again) return;
            x.state.again = true;
            x.write(hrr(x.state.ch, 0x0018));
        }),
    },
    {
        name: 'tls-hrr-twice-h2', raw: true, proto: 'h2', args: '-n 8 -c 2',
        does: 'the same to an HTTP/2 client',
        rfc: 'RFC 8446 §4.1.4',
        expect: hs8({ 'sent unexpected_message': 8 }),
        ...tls13.onClientHello((x, ch) => {
            x.state.ch = ch;
            x.write(hrr(ch, 0x0017));
        }, (x) => {
            if (x.state.again) return;
            x.state.again = true;
            x.write(hrr(x.state.ch, 0x0018));
        }),
    },
    {
        name: 'tls-hrr-same-group', raw: true, args: '-n 8 -c 2',
        does: 'a HelloRetryRequest selecting x25519, the group shb already sent a share for',
        rfc: 'RFC 8446 §4.2.8: a selected_group that already has a share is illegal_parameter',
        expect: hs8({ 'sent illegal_parameter': 8 }),
        ...hello((ch) => hrr(ch, 0x001d)),
    },
    {
        name: 'tls-oversize-hello', raw: true, args: '-n 8 -c 2',
        does: 'a handshake record header announcing 18433 bytes (over 2^14+256) instead of a ServerHello',
        rfc: 'RFC 8446 §5.1: a record over the limit is record_overflow',
        expect: hs8({ 'sent record_overflow': 8 }),
        ...hello(() => junkRecord(CT.HANDSHAKE, 0x4801, 64)),
    },
    {
        name: 'tls-plaintext-record-over-2p14', raw: true, args: '-n 8 -c 2',
        does: 'a whole handshake record of 2^14+1 bytes in the clear instead of a ServerHello',
        rfc: 'RFC 8446 §5.1: TLSPlaintext.length "MUST NOT exceed 2^14 bytes": record_overflow',
        expect: hs8({ 'sent record_overflow': 8 }),
        ...hello(() => junkRecord(CT.HANDSHAKE, 16385)),
    },
    {
        name: 'tls-empty-handshake-record', raw: true, args: '-n 8 -c 2',
        does: 'a handshake record of length 0 instead of a ServerHello',
        rfc: 'RFC 8446 §5.1: zero-length handshake fragments MUST NOT be sent (unexpected_message)',
        expect: hs8({ 'sent unexpected_message': 8 }),
        ...hello(() => plainRecord(CT.HANDSHAKE, EMPTY)),
    },
    {
        name: 'tls-plaintext-alert-hello', raw: true, args: '-n 8 -c 2',
        does: 'a plaintext fatal internal_error alert instead of a ServerHello',
        rfc: 'RFC 8446 §6: a fatal alert ends the handshake (named in tlsAlerts)',
        expect: hs8({ 'received internal_error': 8 }),
        ...hello(() => plainRecord(CT.ALERT, [2, 80]), 'end'),
    },
    {
        name: 'tls-alert-handshake-failure', raw: true, args: '-n 8 -c 2',
        does: 'a plaintext handshake_failure alert to every ClientHello (1.3 and, after the fallback, 1.2)',
        rfc: 'protocols.md, TLS: before any 1.3 handshake has worked, handshake_failure sends shb to TLS 1.2 (that attempt costs nothing); the 1.2 refusals are errors',
        expect: hs8({ 'received handshake_failure': 8 }),
        ...hello(() => plainRecord(CT.ALERT, [2, 40]), 'end'),
    },
    {
        name: 'tls-alert-protocol-version', raw: true, args: '-n 8 -c 2',
        does: 'a plaintext protocol_version alert to every ClientHello',
        rfc: 'protocols.md, TLS: protocol_version sends shb to TLS 1.2; the 1.2 refusals are errors',
        expect: hs8({ 'received protocol_version': 8 }),
        ...hello(() => plainRecord(CT.ALERT, [2, 70]), 'end'),
    },

    // --- a TLS 1.3 server by hand (test/hostile/tls13.js) ------------------------------
    {
        name: 'tls-byhand-ok', raw: true, args: '-n 8 -c 2',
        does: 'the hand-made TLS 1.3 server, well-behaved (the baseline of the cases below)',
        rfc: 'RFC 8446 §2',
        expect: { ok: 8 },
        ...tls13.serve(),
    },
    {
        name: 'tls-certreq-cas-first', raw: true, args: '-n 8 -c 2 --cert @CERTS@/ec.crt --key @CERTS@/ec.key',
        does: 'a CertificateRequest whose certificate_authorities (20 KB, as a server trusting dozens of CAs sends) comes before signature_algorithms; shb shows --cert',
        rfc: 'RFC 8446 §4.3.2: extensions in any order; shb reads the request as it streams, at any length its framing allows',
        expect: { ok: 8 },
        ...tls13.serve({ certRequest: () => certRequest(20000, true) }),
    },
    {
        name: 'tls-certreq-too-long', raw: true, args: '-n 8 -c 2 --cert @CERTS@/ec.crt --key @CERTS@/ec.key',
        does: 'a CertificateRequest of 70,000 bytes, longer than its own framing allows (an empty context and extensions<2..2^16-1>)',
        rfc: 'RFC 8446 §4.3.2: a message that cannot be framed is decode_error, refused at its header',
        expect: hs8({ 'sent decode_error': 8 }),
        ...tls13.serve({ certRequest: () => Buffer.concat([certRequest(64000, false), Buffer.alloc(70000 - 64000 - 13)]) }),
    },
    {
        name: 'tls-wrong-finished', raw: true, args: '-n 8 -c 2',
        does: 'a server Finished whose verify_data has one bit flipped',
        rfc: 'RFC 8446 §4.4.4: a Finished that does not verify is decrypt_error',
        expect: hs8({ 'sent decrypt_error': 8 }),
        ...tls13.serve({ finished: (m) => { const b = Buffer.from(m); b[b.length - 1] ^= 1; return b; } }),
    },
    {
        name: 'tls-ticket-in-finished-record', raw: true, args: '-n 8 -c 2',
        does: 'a NewSessionTicket in the same record as the server Finished (under the handshake keys)',
        rfc: 'RFC 8446 §5.1: Finished must end its record (handshake messages must not span a key change): unexpected_message',
        expect: hs8({ 'sent unexpected_message': 8 }),
        ...tls13.serve({ finished: (m) => Buffer.concat([m, handshakeMsg(HT.NEW_SESSION_TICKET,
            Buffer.from('000000010000000000000004aabbccdd0000', 'hex'))]) }),
    },
    {
        name: 'tls-alpn-unoffered', raw: true, args: '-n 8 -c 2',
        does: 'EncryptedExtensions selecting ALPN `h2` when shb offered only `http/1.1`',
        rfc: 'RFC 7301 §3.2: the server selects one of the protocols the client advertised; shb refuses any other (illegal_parameter), never a silent switch',
        expect: hs8({ 'sent illegal_parameter': 8 }),
        ...tls13.serve({ alpn: () => 'h2' }),
    },
    {
        name: 'tls-alpn-unoffered-h2', raw: true, proto: 'h2', args: '-n 8 -c 2',
        does: 'EncryptedExtensions selecting ALPN `http/1.1` when shb offered only `h2`',
        rfc: 'RFC 7301 §3.2',
        expect: hs8({ 'sent illegal_parameter': 8 }),
        ...tls13.serve({ alpn: () => 'http/1.1' }),
    },
    {
        name: 'tls-ccs-before-hello', raw: true, args: '-n 8 -c 2',
        does: 'a change_cipher_spec record before the ServerHello',
        rfc: 'RFC 8446 §5: a CCS of 0x01 after the first ClientHello and before the peer\'s Finished is dropped',
        expect: { ok: 8 },
        ...tls13.serve({ beforeHello: (s) => s.raw(plainRecord(CT.CHANGE_CIPHER_SPEC, [1])) }),
    },
    {
        name: 'tls-fragmented-handshake', raw: true, args: '-n 8 -c 2',
        does: 'the ServerHello and the encrypted flight in records of one byte each (about 900 records)',
        rfc: 'RFC 8446 §5.1: handshake messages may be fragmented across records',
        expect: { ok: 8 },
        ...tls13.serve({ fragment: 1 }),
    },
    {
        name: 'tls-user-canceled', raw: true, args: '-n 8 -c 2',
        does: 'a warning-level user_canceled alert before every response, and no close_notify',
        rfc: 'RFC 8446 §6.1: user_canceled is a closure alert that "SHOULD be followed by a close_notify": shb waits for that',
        expect: { ok: 8 },
        ...tls13.serve({ onRequest: (s) => { s.alert(1, 90); s.ok(); } }),
    },
    {
        name: 'tls-warning-alert', raw: true, args: '-n 8 -c 2',
        does: 'a warning-level unrecognized_name alert instead of the first response',
        rfc: 'RFC 8446 §6.2: error alerts are fatal "regardless of the AlertLevel in the message"',
        expect: tls8({ 'received unrecognized_name': 8 }),
        ...tls13.serve({ onRequest: (s) => s.alert(1, 112) }),
    },
    {
        name: 'tls-big-chain', raw: true, args: '-n 8 -c 2',
        does: 'a Certificate of 1 MiB (16 certificates of 64 KiB, in 65 records)',
        rfc: 'RFC 8446 §4.4.2: certificate_list<0..2^24-1>; protocols.md, TLS: the chain is hashed as it streams, never stored',
        expect: { ok: 8 },
        ...tls13.serve({ certs: chain }),
    },
    {
        name: 'tls-empty-records', raw: true, args: '-n 8 -c 2',
        does: '200 application_data records of zero-length content before each response',
        rfc: 'RFC 8446 §5.1: zero-length fragments of application data MAY be sent',
        expect: { ok: 8 },
        ...tls13.serve({ onRequest: (s) => { for (let i = 0; i < 200; i++) s.record(CT.APPLICATION_DATA, EMPTY); s.ok(); } }),
    },
    {
        name: 'tls-padded-records', raw: true, args: '-n 8 -c 2',
        does: 'each response in a record padded with zeros to a TLSInnerPlaintext of 2^14+1 bytes (the limit)',
        rfc: 'RFC 8446 §5.4: padding is stripped; the full TLSInnerPlaintext may be 2^14+1 bytes',
        expect: { ok: 8 },
        ...tls13.serve({ onRequest: (s) => { s.x.c.answered += 1; s.record(CT.APPLICATION_DATA, OK, 16384 + 1 - 1 - OK.length); } }),
    },
    {
        name: 'tls-padded-over-limit', raw: true, args: '-n 8 -c 2',
        does: 'each response padded to a TLSInnerPlaintext of 2^14+2 bytes (a record of 16402, under 2^14+256)',
        rfc: 'RFC 8446 §5.4: "the full encoded TLSInnerPlaintext MUST NOT exceed 2^14 + 1 octets" (record_overflow, §5.2)',
        expect: tls8({ 'sent record_overflow': 8 }),
        ...tls13.serve({ onRequest: (s) => s.record(CT.APPLICATION_DATA, OK, 16384 + 2 - 1 - OK.length) }),
    },
    {
        name: 'tls-alert-mid-body', raw: true, args: '-n 8 -c 2',
        does: 'half a body, then a fatal internal_error alert in a record of its own',
        rfc: 'RFC 8446 §6.2: a fatal alert ends the connection; the request is a `tls` error',
        expect: tls8({ 'received internal_error': 8 }),
        ...tls13.serve({ onRequest: (s) => { s.send(CUT); s.alert(2, 80); } }),
    },
    {
        name: 'tls-alert-mid-body-h2', raw: true, proto: 'h2', args: '-n 8 -c 2',
        does: 'HEADERS and one byte of a two-byte DATA, then a fatal internal_error alert',
        rfc: 'RFC 8446 §6.2',
        expect: tls8({ 'received internal_error': 8 }),
        ...tls13.serve({ onRequest: (s, n, stream) => {
            s.send(Buffer.concat([wire.frame(wire.FT.HEADERS, wire.FL.END_HEADERS, stream, wire.OK_BLOCK),
                wire.frame(wire.FT.DATA, 0, stream, 'o')]));
            s.alert(2, 80);
        } }),
    },
    {
        name: 'tls-byhand-ok-h2', raw: true, proto: 'h2', args: '-n 8 -c 2 -p 4',
        does: 'the hand-made TLS 1.3 server over HTTP/2, well-behaved',
        rfc: 'RFC 8446 §2',
        expect: { ok: 8 },
        ...tls13.serve(),
    },
    {
        name: 'tls-close-notify-mid-body-byhand', raw: true, args: '-n 8 -c 2',
        does: 'half a body, then close_notify (and no FIN)',
        rfc: 'RFC 8446 §6.1: close_notify is a clean close, so the cut response is `closed`',
        expect: { errors: { closed: 8 }, jq: '.tlsAlerts == null' },
        ...tls13.serve({ onRequest: (s) => { s.send(CUT); s.closeNotify(); } }),
    },
    {
        name: 'tls-keyupdate-storm', raw: true, args: '-n 8 -c 2', deadline: 30,
        does: '5000 KeyUpdates (update_requested), each in a record of its own, before every response',
        rfc: 'RFC 8446 §4.6.3: shb follows every one (no limit: each costs one HKDF, like a record); it answers a burst with a single KeyUpdate, as the RFC lets a silent receiver do',
        expect: { ok: 8 },
        ...tls13.serve({ onRequest: (s) => { s.keyUpdate(true, 5000); s.ok(); } }),
    },
    {
        name: 'tls-keyupdate-storm-h2', raw: true, proto: 'h2', args: '-n 8 -c 2 -p 4', deadline: 30,
        does: 'the same storm before every HTTP/2 response (4 streams a connection)',
        rfc: 'RFC 8446 §4.6.3',
        expect: { ok: 8 },
        ...tls13.serve({ onRequest: (s, n, stream) => { s.keyUpdate(true, 5000); s.ok(stream); } }),
    },
    {
        name: 'tls-keyupdate-storm-unrequested', raw: true, args: '-n 8 -c 2', deadline: 30,
        does: '5000 KeyUpdates (update_not_requested) before every response',
        rfc: 'RFC 8446 §4.6.3',
        expect: { ok: 8 },
        ...tls13.serve({ onRequest: (s) => { s.keyUpdate(false, 5000); s.ok(); } }),
    },
    {
        name: 'tls-keyupdate-two-in-record', raw: true, args: '-n 8 -c 2',
        does: 'two KeyUpdates in one record before the first response',
        rfc: 'RFC 8446 §5.1: a KeyUpdate must end its record (messages must not span a key change): unexpected_message',
        expect: tls8({ 'sent unexpected_message': 8 }),
        ...tls13.serve({ onRequest: (s) => { s.keyUpdate(false, 2, true); s.ok(); } }),
    },
    {
        name: 'tls-keyupdate-in-handshake', raw: true, args: '-n 8 -c 2',
        does: 'a KeyUpdate where the server Finished belongs',
        rfc: 'RFC 8446 §4.6.3: KeyUpdate only after Finished: unexpected_message',
        expect: hs8({ 'sent unexpected_message': 8 }),
        ...tls13.serve({ finished: () => handshakeMsg(HT.KEY_UPDATE, Buffer.from([0])) }),
    },
    {
        name: 'tls-ticket-storm', raw: true, args: '-n 8 -c 2',
        does: '2000 NewSessionTickets of 1 KiB before every response',
        rfc: 'RFC 8446 §4.6.1: tickets may come at any time; shb resumes nothing and skips them',
        expect: { ok: 8 },
        ...tls13.serve({ onRequest: (s) => {
            const nst = handshakeMsg(HT.NEW_SESSION_TICKET, Buffer.concat([Buffer.from('0000003c0000000100', 'hex'),
                Buffer.from([0x04, 0x00]), crypto.randomBytes(1024), Buffer.from([0, 0])]));
            for (let i = 0; i < 2000; i++) s.record(CT.HANDSHAKE, nst);
            s.ok();
        } }),
    },
    {
        name: 'tls-alert-three-bytes', raw: true, args: '-n 8 -c 2',
        does: 'an alert record of three bytes instead of the first response',
        rfc: 'RFC 8446 §6: an Alert is two bytes; anything else is decode_error',
        expect: tls8({ 'sent decode_error': 8 }),
        ...tls13.serve({ onRequest: (s) => s.record(CT.ALERT, [2, 80, 0]) }),
    },
    {
        name: 'tls-empty-alert-record', raw: true, args: '-n 8 -c 2',
        does: 'a protected alert record of zero-length content',
        rfc: 'RFC 8446 §5.4: zero-length alert content is unexpected_message',
        expect: tls8({ 'sent unexpected_message': 8 }),
        ...tls13.serve({ onRequest: (s) => s.record(CT.ALERT, EMPTY) }),
    },
    {
        name: 'tls-unknown-inner-type', raw: true, args: '-n 8 -c 2',
        does: 'a protected record whose inner content type is 24 (heartbeat, not TLS 1.3)',
        rfc: 'RFC 8446 §5: an unexpected record type is unexpected_message',
        expect: tls8({ 'sent unexpected_message': 8 }),
        ...tls13.serve({ onRequest: (s) => s.record(24, 'ok') }),
    },
    {
        name: 'tls-no-inner-type', raw: true, args: '-n 8 -c 2',
        does: 'a protected record whose plaintext is all zeros (no content type)',
        rfc: 'RFC 8446 §5.4: no non-zero octet in the plaintext is unexpected_message',
        expect: tls8({ 'sent unexpected_message': 8 }),
        ...tls13.serve({ onRequest: (s) => s.record(0, EMPTY, 20) }),
    },
    {
        name: 'tls-keyupdate-bad-value', raw: true, args: '-n 8 -c 2',
        does: 'a KeyUpdate whose request_update is 2',
        rfc: 'RFC 8446 §4.6.3: request_update other than 0 or 1 is illegal_parameter',
        expect: tls8({ 'sent illegal_parameter': 8 }),
        ...tls13.serve({ onRequest: (s) => { s.record(CT.HANDSHAKE, handshakeMsg(HT.KEY_UPDATE, Buffer.from([2]))); s.ok(); } }),
    },

    // --- node's TLS with bytes injected under its record layer -------------------------
    {
        name: 'tls-oversize-first', proto: 'h1', tls: true, args: '-n 8 -c 2',
        does: 'an application_data record header announcing 18433 bytes instead of the first response',
        rfc: 'RFC 8446 §5.2: a record over 2^14+256 is record_overflow',
        expect: tls8({ 'sent record_overflow': 8 }),
        onRequest: injectAt(0, () => junkRecord(CT.APPLICATION_DATA, 0x4801, 64)),
    },
    {
        name: 'tls-oversize-first-h2', proto: 'h2', tls: true, args: '-n 8 -c 2',
        does: 'the same to an HTTP/2 client, instead of the first HEADERS',
        rfc: 'RFC 8446 §5.2',
        expect: tls8({ 'sent record_overflow': 8 }),
        onRequest: injectAt(0, () => junkRecord(CT.APPLICATION_DATA, 0x4801, 64)),
    },
    {
        name: 'tls-oversize-second', proto: 'h1', tls: true, args: '-n 8 -c 1',
        does: 'a good first response, then an 18433-byte record header instead of the second',
        rfc: 'RFC 8446 §5.2; protocols.md, TLS: a TLS error on a reused connection is not retried',
        expect: half({ 'sent record_overflow': 4 }),
        onRequest: injectAt(2, () => junkRecord(CT.APPLICATION_DATA, 0x4801, 64)),
    },
    {
        name: 'tls-record-at-limit', proto: 'h1', tls: true, args: '-n 8 -c 1',
        does: 'after the first response, a junk record of exactly 2^14+256 bytes (the limit: it is read, and fails its tag)',
        rfc: 'RFC 8446 §5.2: up to 2^14+256 is a legal length; a record that does not decrypt is bad_record_mac',
        expect: half({ 'sent bad_record_mac': 4 }),
        onRequest: injectAt(2, () => junkRecord(CT.APPLICATION_DATA, 16640)),
    },
    {
        name: 'tls-record-over-limit', proto: 'h1', tls: true, args: '-n 8 -c 1',
        does: 'after the first response, a junk record of 2^14+257 bytes (one over)',
        rfc: 'RFC 8446 §5.2: record_overflow',
        expect: half({ 'sent record_overflow': 4 }),
        onRequest: injectAt(2, () => junkRecord(CT.APPLICATION_DATA, 16641)),
    },
    {
        name: 'tls-garbage-record-first', proto: 'h1', tls: true, args: '-n 8 -c 2',
        does: 'a well-framed application_data record of 40 random bytes instead of the first response',
        rfc: 'RFC 8446 §5.2: a record that does not decrypt is bad_record_mac',
        expect: tls8({ 'sent bad_record_mac': 8 }),
        onRequest: injectAt(0, () => junkRecord(CT.APPLICATION_DATA, 40)),
    },
    {
        name: 'tls-garbage-record-first-h2', proto: 'h2', tls: true, args: '-n 8 -c 2',
        does: 'the same to an HTTP/2 client',
        rfc: 'RFC 8446 §5.2',
        expect: tls8({ 'sent bad_record_mac': 8 }),
        onRequest: injectAt(0, () => junkRecord(CT.APPLICATION_DATA, 40)),
    },
    {
        name: 'tls-garbage-record-first-h2-p4', proto: 'h2', tls: true, args: '-n 8 -c 2 -p 4',
        does: 'the same with 4 streams open on each connection',
        rfc: 'RFC 8446 §5.2: one alert ends a connection and every stream on it (`tls` 8, the alert counted once a connection)',
        expect: { errors: { tls: 8 }, jq: '.tlsAlerts == {"sent bad_record_mac": 2}' },
        onRequest: injectAt(0, () => junkRecord(CT.APPLICATION_DATA, 40)),
    },
    {
        name: 'tls-garbage-record-second', proto: 'h1', tls: true, args: '-n 8 -c 1',
        does: 'a good first response, then 40 random bytes in an application_data record',
        rfc: 'RFC 8446 §5.2',
        expect: half({ 'sent bad_record_mac': 4 }),
        onRequest: injectAt(2, () => junkRecord(CT.APPLICATION_DATA, 40)),
    },
    {
        name: 'tls-zero-length-record', proto: 'h1', tls: true, args: '-n 8 -c 1',
        does: 'a good first response, then an application_data record of length 0 on the wire (no room for a tag)',
        rfc: 'RFC 8446 §5.2: a protected record holds at least its tag; it cannot decrypt (bad_record_mac)',
        expect: half({ 'sent bad_record_mac': 4 }),
        onRequest: injectAt(2, Buffer.from([CT.APPLICATION_DATA, 3, 3, 0, 0])),
    },
    {
        name: 'tls-plaintext-alert-after', proto: 'h1', tls: true, args: '-n 8 -c 1',
        does: 'a good first response, then an unprotected fatal alert record',
        rfc: 'RFC 8446 §5.2: once keyed, every record but a CCS is protected (outer type 23): unexpected_message',
        expect: half({ 'sent unexpected_message': 4 }),
        onRequest: injectAt(2, plainRecord(CT.ALERT, [2, 80])),
    },
    {
        name: 'tls-ccs-after-handshake', proto: 'h1', tls: true, args: '-n 8 -c 1',
        does: 'a good first response, then a change_cipher_spec record',
        rfc: 'RFC 8446 §5: a CCS after the peer\'s Finished is unexpected_message',
        expect: half({ 'sent unexpected_message': 4 }),
        onRequest: injectAt(2, plainRecord(CT.CHANGE_CIPHER_SPEC, [1])),
    },
    {
        name: 'tls-close-notify-mid-body', proto: 'h1', tls: true, args: '-n 8 -c 2',
        does: 'half a body, then ends the TLS socket (close_notify, FIN)',
        rfc: 'RFC 8446 §6.1 and RFC 9112 §8: a clean close cutting a response is `closed`',
        expect: { errors: { closed: 8 }, jq: '.tlsAlerts == null' },
        onRequest: (x) => { x.write(CUT); x.end(); },
    },
    {
        name: 'tls-close-notify-mid-body-h2', proto: 'h2', tls: true, args: '-n 8 -c 2',
        does: 'HEADERS and one byte of a two-byte DATA, then close_notify',
        rfc: 'RFC 8446 §6.1',
        expect: { errors: { closed: 8 }, jq: '.tlsAlerts == null' },
        onRequest: (x, n, stream) => {
            x.headers(stream, wire.OK_BLOCK, false);
            x.frame(wire.FT.DATA, 0, stream, 'o');
            x.end();
        },
    },
    {
        name: 'tls-close-notify-between', proto: 'h1', tls: true, args: '-n 8 -c 1',
        does: 'a good response, then close_notify (no Connection: close), every time',
        rfc: 'RFC 9112 §9.3.1 (errors.md: the keep-alive race): a clean close before the next response retries it',
        expect: { ok: 8, jq: '.connectionsOpened == 8' },
        onRequest: (x) => { x.ok(); x.end(); },
    },
    {
        name: 'tls-tls12-only', proto: 'h1', tls: true, args: '-n 8 -c 2',
        does: 'a TLS 1.2-only server (node, maxVersion TLSv1.2)',
        rfc: 'protocols.md, TLS: TLS 1.2 fallback (RFC 8446 §4.1.3 lets a 1.3 client accept a 1.2 server)',
        expect: { ok: 8 },
        tlsOptions: () => ({ minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' }),
        onRequest: (x) => x.ok(),
    },
    {
        name: 'tls-tls12-garbage-record-second', proto: 'h1', tls: true, args: '-n 8 -c 1',
        does: 'TLS 1.2 only: a good first response, then 40 random bytes in an application_data record',
        rfc: 'RFC 5246 §6.2.3.3: `tls`; BearSSL\'s 1.2 engine closes without the bad_record_mac alert, so none is named',
        expect: { ok: 4, errors: { tls: 4 }, jq: '.tlsAlerts == null' },
        tlsOptions: () => ({ minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' }),
        onRequest: injectAt(2, () => junkRecord(CT.APPLICATION_DATA, 40)),
    },
    {
        name: 'tls-tls12-oversize-second', proto: 'h1', tls: true, args: '-n 8 -c 1',
        does: 'TLS 1.2 only: a good first response, then a record header announcing 18433 bytes',
        rfc: 'RFC 5246 §6.2.3: over 2^14+2048 is record_overflow; `tls`, no alert named (BearSSL sends none)',
        expect: { ok: 4, errors: { tls: 4 }, jq: '.tlsAlerts == null' },
        tlsOptions: () => ({ minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' }),
        onRequest: injectAt(2, () => junkRecord(CT.APPLICATION_DATA, 0x4801, 64)),
    },
    {
        name: 'tls-tls12-close-notify-mid-body', proto: 'h1', tls: true, args: '-n 8 -c 2',
        does: 'TLS 1.2 only: half a body, then close_notify and FIN',
        rfc: 'RFC 5246 §7.2.1: close_notify is a clean close; the cut response is `closed`',
        expect: { errors: { closed: 8 }, jq: '.tlsAlerts == null' },
        tlsOptions: () => ({ minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' }),
        onRequest: (x) => { x.write(CUT); x.end(); },
    },
    {
        name: 'tls-tls12-close-notify-between', proto: 'h1', tls: true, args: '-n 8 -c 1',
        does: 'TLS 1.2 only: a good response, then close_notify, every time',
        rfc: 'RFC 9112 §9.3.1 (errors.md: the keep-alive race); 9 connections: the first, refused TLS 1.3 attempt costs no request',
        expect: { ok: 8, jq: '.connectionsOpened == 9' },
        tlsOptions: () => ({ minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' }),
        onRequest: (x) => { x.ok(); x.end(); },
    },
    {
        name: 'tls-tls12-ccs-after-handshake', proto: 'h1', tls: true, args: '-n 8 -c 1',
        does: 'TLS 1.2 only: a good first response, then a second ChangeCipherSpec',
        rfc: 'RFC 5246 §7.1: a ChangeCipherSpec outside the handshake: `tls`, no alert named (BearSSL sends none)',
        expect: { ok: 4, errors: { tls: 4 }, jq: '.tlsAlerts == null' },
        tlsOptions: () => ({ minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' }),
        onRequest: injectAt(2, plainRecord(CT.CHANGE_CIPHER_SPEC, [1])),
    },
    {
        name: 'tls-tls12-only-h2', proto: 'h2', tls: true, args: '-n 8 -c 2',
        does: 'the same to an HTTP/2 client',
        rfc: 'protocols.md, TLS: TLS 1.2 fallback',
        expect: { ok: 8 },
        tlsOptions: () => ({ minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' }),
        onRequest: (x, n, stream) => x.ok(stream),
    },
];
