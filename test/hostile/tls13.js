// test/hostile/tls13.js — the server side of TLS 1.3 (RFC 8446) written with
// node:crypto, byte by byte, so that a hostile case can break any part of it:
// the handshake messages (§4), the key schedule (§7.1, §7.2: KeyUpdate), and
// the TCP record layer (§5.2, TLS_AES_128_GCM_SHA256 only). Shared by
// test/servers/hostile_quic_server.js (its handshake travels in CRYPTO frames) and
// the TLS cases of the hostile table (test/hostile/cases_tls.js), where
// serve() plays a whole TLS 1.3 server over a raw case's TCP bytes.
// No npm dependencies; node 18.
'use strict';

const crypto = require('crypto');
const wire = require('./wire.js');

const EMPTY = Buffer.alloc(0);
const u8 = (v) => Buffer.from([v & 0xff]);
const u16 = (v) => Buffer.from([(v >> 8) & 0xff, v & 0xff]);
const u24 = (v) => Buffer.from([(v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff]);
const vec8 = (b) => Buffer.concat([u8(b.length), b]);
const vec16 = (b) => Buffer.concat([u16(b.length), b]);
const vec24 = (b) => Buffer.concat([u24(b.length), b]);
const handshakeMsg = (type, body) => Buffer.concat([Buffer.from([type]), u24(body.length), body]);
const ext = (type, body) => Buffer.concat([u16(type), vec16(body)]);

// HandshakeType (§4) and ContentType (§5.1).
const HT = { CLIENT_HELLO: 1, SERVER_HELLO: 2, NEW_SESSION_TICKET: 4, ENCRYPTED_EXTENSIONS: 8, CERTIFICATE: 11,
    CERTIFICATE_REQUEST: 13, CERTIFICATE_VERIFY: 15, FINISHED: 20, KEY_UPDATE: 24 };
const CT = { CHANGE_CIPHER_SPEC: 20, ALERT: 21, HANDSHAKE: 22, APPLICATION_DATA: 23 };
// §4.1.3: the random of a HelloRetryRequest, SHA-256("HelloRetryRequest").
const HRR_RANDOM = Buffer.from('cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c', 'hex');

// --- HKDF (RFC 5869) and the key schedule (§7.1), SHA-256 --------------------

const sha256 = (b) => crypto.createHash('sha256').update(b).digest();
const hmac = (key, data) => crypto.createHmac('sha256', key).update(data).digest();
const hkdfExtract = (salt, ikm) => hmac(salt, ikm);

function hkdfExpand(prk, info, len) {
    const out = [];
    let t = EMPTY;
    for (let i = 1; out.length * 32 < len; i++) {
        t = hmac(prk, Buffer.concat([t, info, Buffer.from([i])]));
        out.push(t);
    }
    return Buffer.concat(out).subarray(0, len);
}

// HKDF-Expand-Label (§7.1): HkdfLabel = length, "tls13 " + label, context.
function expandLabel(secret, label, context, len) {
    const l = Buffer.from('tls13 ' + label);
    const info = Buffer.concat([Buffer.from([len >> 8, len & 0xff, l.length]), l,
        Buffer.from([context.length]), context]);
    return hkdfExpand(secret, info, len);
}

// §7.1 without PSK: the handshake secrets from the (EC)DHE secret and
// Transcript-Hash(ClientHello..ServerHello); the application secrets from
// the handshake secret and Transcript-Hash(ClientHello..server Finished).
function handshakeSecrets(shared, thServerHello) {
    const zero = Buffer.alloc(32);
    const early = hkdfExtract(zero, zero);
    const hs = hkdfExtract(expandLabel(early, 'derived', sha256(EMPTY), 32), shared);
    return { hs, cHs: expandLabel(hs, 'c hs traffic', thServerHello, 32), sHs: expandLabel(hs, 's hs traffic', thServerHello, 32) };
}
function appSecrets(hs, thServerFinished) {
    const master = hkdfExtract(expandLabel(hs, 'derived', sha256(EMPTY), 32), Buffer.alloc(32));
    return { cAp: expandLabel(master, 'c ap traffic', thServerFinished, 32), sAp: expandLabel(master, 's ap traffic', thServerFinished, 32) };
}
// §7.2: application_traffic_secret_N+1.
const nextSecret = (secret) => expandLabel(secret, 'traffic upd', EMPTY, 32);
// §4.4.4: verify_data = HMAC(finished_key, Transcript-Hash(...)).
const finishedMsg = (baseKey, th) => handshakeMsg(HT.FINISHED, hmac(expandLabel(baseKey, 'finished', EMPTY, 32), th));

// --- messages (§4) ------------------------------------------------------------

// The ClientHello's fields a server needs (msg: the whole message, header
// included): random, session id (echoed), suites, groups, the X25519 share,
// ALPN names, the QUIC transport parameters.
function parseClientHello(msg) {
    let o = 4;
    const need = (n) => { if (o + n > msg.length) throw new Error('truncated ClientHello'); };
    const take = (n) => { need(n); const b = msg.subarray(o, o + n); o += n; return b; };
    const r16 = () => take(2).readUInt16BE(0);
    take(2); // legacy_version
    const random = take(32);
    const sessionId = take(take(1)[0]);
    const suitesRaw = take(r16());
    take(take(1)[0]); // compression methods
    const out = { random, sessionId, suites: [], groups: [], shares: {}, x25519: null, alpn: [], tp: null, aes128: false };
    for (let i = 0; i + 1 < suitesRaw.length; i += 2) out.suites.push(suitesRaw.readUInt16BE(i));
    out.aes128 = out.suites.includes(0x1301);
    const exts = take(r16());
    for (let e = 0; e + 4 <= exts.length;) {
        const type = exts.readUInt16BE(e), len = exts.readUInt16BE(e + 2);
        const body = exts.subarray(e + 4, e + 4 + len);
        e += 4 + len;
        if (type === 10) { // supported_groups
            for (let i = 2; i + 1 < body.length; i += 2) out.groups.push(body.readUInt16BE(i));
        } else if (type === 16) { // ALPN: protocol_name_list
            for (let i = 2; i < body.length; i += 1 + body[i]) out.alpn.push(body.subarray(i + 1, i + 1 + body[i]).toString('latin1'));
        } else if (type === 51) { // key_share: client_shares of {group, key_exchange}
            for (let i = 2; i + 4 <= body.length;) {
                const group = body.readUInt16BE(i), kl = body.readUInt16BE(i + 2);
                out.shares[group] = body.subarray(i + 4, i + 4 + kl);
                i += 4 + kl;
            }
        } else if (type === 57) {
            out.tp = body;
        }
    }
    out.x25519 = out.shares[0x001d] || null;
    return out;
}

// An X25519 key pair and the shared secret with the peer's public key.
function x25519(peerPub) {
    const kp = crypto.generateKeyPairSync('x25519');
    const pub = kp.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
    const peer = crypto.createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b656e032100', 'hex'), peerPub]),
        format: 'der', type: 'spki' });
    return { pub, shared: crypto.diffieHellman({ privateKey: kp.privateKey, publicKey: peer }) };
}

// ServerHello (§4.1.3); every field can be replaced: random (HRR_RANDOM makes
// it a HelloRetryRequest), suite, group, legacyVersion, version (null: no
// supported_versions, a TLS 1.2 ServerHello), exts (the whole extension
// block's contents instead of supported_versions + key_share).
function serverHello(o) {
    const exts = o.exts !== undefined ? o.exts : Buffer.concat([
        o.version === null ? EMPTY : ext(43, u16(o.version || 0x0304)),               // supported_versions
        o.pub ? ext(51, Buffer.concat([u16(o.group || 0x001d), vec16(o.pub)])) : EMPTY, // key_share
    ]);
    return handshakeMsg(HT.SERVER_HELLO, Buffer.concat([u16(o.legacyVersion || 0x0303), o.random || crypto.randomBytes(32),
        vec8(o.sessionId || EMPTY), u16(o.suite || 0x1301), Buffer.from([0]), exts.length || o.exts ? vec16(exts) : EMPTY]));
}

// EncryptedExtensions (§4.3.1) with ALPN (RFC 7301) naming `alpn` when given.
function encryptedExtensions(alpn, more) {
    const a = alpn ? ext(16, vec16(vec8(Buffer.from(alpn, 'latin1')))) : EMPTY;
    return handshakeMsg(HT.ENCRYPTED_EXTENSIONS, vec16(Buffer.concat([a, more || EMPTY])));
}

// Certificate (§4.4.2): one CertificateEntry per DER blob, no extensions.
function certificateMsg(ders) {
    const list = (Array.isArray(ders) ? ders : [ders]).map((d) => Buffer.concat([vec24(d), u16(0)]));
    return handshakeMsg(HT.CERTIFICATE, Buffer.concat([Buffer.from([0]), vec24(Buffer.concat(list))]));
}

// §4.4.3: the signature covers 64 spaces, the context string, a zero byte
// and the transcript hash so far (ecdsa_secp256r1_sha256).
function certificateVerify(transcriptHash, signKey) {
    const content = Buffer.concat([Buffer.alloc(64, 0x20), Buffer.from('TLS 1.3, server CertificateVerify'),
        Buffer.from([0]), transcriptHash]);
    const sig = crypto.sign('sha256', content, signKey); // DER ECDSA-Sig-Value, as §4.2.3 wants
    return handshakeMsg(HT.CERTIFICATE_VERIFY, Buffer.concat([u16(0x0403), vec16(sig)]));
}

// --- the TCP record layer (§5), TLS_AES_128_GCM_SHA256 -----------------------

const plainRecord = (type, body) => Buffer.concat([Buffer.from([type, 3, 3]), vec16(wbytes(body))]);
const wbytes = (b) => (Buffer.isBuffer(b) ? b : Buffer.from(b || []));
function recordKeys(secret) {
    return { secret, key: expandLabel(secret, 'key', EMPTY, 16), iv: expandLabel(secret, 'iv', EMPTY, 12), seq: 0 };
}
function recordNonce(k) {
    const n = Buffer.from(k.iv);
    for (let i = 0; i < 6; i++) n[11 - i] ^= Math.floor(k.seq / 2 ** (8 * i)) & 0xff;
    return n;
}
// §5.2: TLSInnerPlaintext = content || type || zeros, sealed under the
// header (outer type application_data, 0x0303) as additional data.
function seal(k, type, content, pad = 0) {
    const inner = Buffer.concat([wbytes(content), Buffer.from([type]), Buffer.alloc(pad)]);
    const hdr = Buffer.from([CT.APPLICATION_DATA, 3, 3, (inner.length + 16) >> 8, (inner.length + 16) & 0xff]);
    const c = crypto.createCipheriv('aes-128-gcm', k.key, recordNonce(k));
    c.setAAD(hdr);
    const body = Buffer.concat([c.update(inner), c.final(), c.getAuthTag()]);
    k.seq += 1;
    return Buffer.concat([hdr, body]);
}
// Opens one protected record (header included): {type, content}; throws
// when it does not decrypt.
function open(k, rec) {
    const body = rec.subarray(5);
    if (body.length < 17) throw new Error('record too short');
    const d = crypto.createDecipheriv('aes-128-gcm', k.key, recordNonce(k));
    d.setAAD(rec.subarray(0, 5));
    d.setAuthTag(body.subarray(body.length - 16));
    const inner = Buffer.concat([d.update(body.subarray(0, body.length - 16)), d.final()]);
    k.seq += 1;
    let n = inner.length;
    while (n > 0 && inner[n - 1] === 0) n--;
    if (n === 0) throw new Error('no content type');
    return { type: inner[n - 1], content: inner.subarray(0, n - 1) };
}

// Cuts bytes into handshake records of at most 2^14 bytes (§5.1).
function handshakeRecords(bytes, seal1, size = 16384) {
    const out = [];
    for (let o = 0; o < bytes.length; o += size) out.push(seal1(bytes.subarray(o, o + size)));
    return Buffer.concat(out);
}

// The certificate and key of the server (PEM) as DER and a KeyObject,
// parsed once per pair.
const identities = new WeakMap();
function identity(files) {
    let id = identities.get(files);
    if (!id) {
        id = { der: new crypto.X509Certificate(files.cert).raw, key: crypto.createPrivateKey(files.key) };
        identities.set(files, id);
    }
    return id;
}

// --- serve(): a TLS 1.3 server over a raw case's TCP bytes ---------------------
//
// serve(opts) returns { onOpen, onData } for a `raw: true` case: it reads
// the ClientHello, answers with ServerHello (plaintext), a ChangeCipherSpec
// (§D.4) and EncryptedExtensions, Certificate, CertificateVerify, Finished
// under the handshake keys, reads the client's Finished (not verified: this
// is a test server) and then serves HTTP/1.1 in application data: every
// request (a head ending in CRLFCRLF; no request bodies) goes to
// opts.onRequest(s, n) (default: s.ok()); over HTTP/2 (ALPN h2) after a
// SETTINGS of its own, every HEADERS frame with END_STREAM goes to
// opts.onRequest(s, n, stream) (default: s.ok(stream)). KeyUpdates from the client are
// followed (and answered when requested, §4.6.3). A client alert or a
// record that does not open ends the connection (FIN). opts:
//   alpn(ch)     the ALPN name to select (default: the client's first offer)
//   certs(id)    the DER blobs of the Certificate (default: [the server's])
//   certRequest()  a CertificateRequest body, sent after EncryptedExtensions
//                (the client's Certificate and CertificateVerify are
//                read past, like its Finished, not verified)
//   finished(m)  the Finished message as sent (default: as computed)
//   beforeHello(s)  called before the ServerHello goes out (s.raw() works)
//   drip         the server's handshake flight goes out one byte every
//                `drip` ms
//   fragment     the handshake's records carry at most this many bytes
//                (default 2^14): messages split across records (§5.1)
// s (per connection): raw(bytes) (TCP), record(type, content) (sealed
// under the current write keys), send(data) (application data in records
// of 2^14), ok([stream]), keyUpdate(requested, sameRecordAs), alert(level, desc),
// closeNotify(), end(), reset(), later(ms, fn), x (the CaseIO), ch.
const OK_H1 = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');

class Server {
    constructor(x, opts) {
        this.x = x;
        this.opts = opts;
        this.buf = EMPTY;
        this.hsBuf = EMPTY;
        this.rd = null;     // the client's keys: handshake, then application
        this.wr = null;     // ours
        this.phase = 'hello'; // hello, finished, app
        this.app = '';
        this.requests = 0;
        this.ch = null;
    }
    input(d) {
        this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
        while (this.buf.length >= 5 && !this.x.dead) {
            const len = this.buf.readUInt16BE(3);
            if (this.buf.length < 5 + len) return;
            const rec = this.buf.subarray(0, 5 + len);
            this.buf = this.buf.subarray(5 + len);
            this.onRecord(rec);
        }
    }
    onRecord(rec) {
        const type = rec[0];
        if (type === CT.CHANGE_CIPHER_SPEC) return; // §D.4: the client's compatibility CCS
        if (this.phase === 'hello') {
            if (type !== CT.HANDSHAKE) return this.x.end();
            this.hsBuf = Buffer.concat([this.hsBuf, rec.subarray(5)]);
            if (this.hsBuf.length >= 4 && this.hsBuf.length >= 4 + this.hsBuf.readUIntBE(1, 3)) {
                const msg = this.hsBuf.subarray(0, 4 + this.hsBuf.readUIntBE(1, 3));
                this.hsBuf = EMPTY;
                this.hello(msg);
            }
            return;
        }
        let m;
        try {
            m = open(this.rd, rec);
        } catch (e) {
            return this.x.end();
        }
        if (m.type === CT.ALERT) return this.x.end();
        if (m.type === CT.HANDSHAKE) {
            for (let o = 0; o + 4 <= m.content.length;) {
                const ht = m.content[o], len = m.content.readUIntBE(o + 1, 3);
                const body = m.content.subarray(o + 4, o + 4 + len);
                o += 4 + len;
                if (this.phase === 'finished' && ht === HT.FINISHED) {
                    this.phase = 'app';
                    this.rd = recordKeys(this.cAp);
                    if (this.alpn === 'h2') this.send(wire.frame(wire.FT.SETTINGS, 0, 0, wire.settings([[wire.SET.MAX_CONCURRENT_STREAMS, 100]])));
                } else if (this.phase === 'app' && ht === HT.KEY_UPDATE) {
                    this.keyUpdatesIn = (this.keyUpdatesIn || 0) + 1;
                    this.rd = recordKeys(nextSecret(this.rd.secret));
                    if (body[0] === 1) this.keyUpdate(false);
                }
            }
            return;
        }
        if (m.type === CT.APPLICATION_DATA && this.phase === 'app' && this.alpn === 'h2') return this.h2Input(m.content);
        if (m.type === CT.APPLICATION_DATA && this.phase === 'app') {
            this.app += m.content.toString('latin1');
            for (let end; !this.x.dead && (end = this.app.indexOf('\r\n\r\n')) >= 0;) {
                this.app = this.app.slice(end + 4);
                this.requests += 1;
                (this.opts.onRequest || ((s) => s.ok()))(this, this.requests);
            }
        }
    }
    hello(msg) {
        const o = this.opts;
        const ch = this.ch = parseClientHello(msg);
        if (!ch.x25519 || !ch.aes128) return this.x.end();
        const id = identity(this.x.tlsFiles);
        const { pub, shared } = x25519(ch.x25519);
        const sh = serverHello({ sessionId: ch.sessionId, pub });
        const transcript = [msg, sh];
        const th = () => sha256(Buffer.concat(transcript));
        const { hs, cHs, sHs } = handshakeSecrets(shared, th());
        const alpn = this.alpn = o.alpn ? o.alpn(ch) : ch.alpn[0];
        transcript.push(encryptedExtensions(alpn));
        if (o.certRequest) transcript.push(handshakeMsg(HT.CERTIFICATE_REQUEST, o.certRequest()));
        transcript.push(certificateMsg(o.certs ? o.certs(id) : [id.der]));
        transcript.push(certificateVerify(th(), id.key));
        let fin = finishedMsg(sHs, th());
        transcript.push(fin);
        const { cAp, sAp } = appSecrets(hs, th());
        if (o.finished) transcript[transcript.length - 1] = fin = o.finished(fin);
        if (o.beforeHello) o.beforeHello(this);
        const size = o.fragment || 16384;
        const out = [handshakeRecords(sh, (b) => plainRecord(CT.HANDSHAKE, b), size), plainRecord(CT.CHANGE_CIPHER_SPEC, [1])];
        this.wr = recordKeys(sHs);
        out.push(handshakeRecords(Buffer.concat(transcript.slice(2)), (b) => seal(this.wr, CT.HANDSHAKE, b), size));
        if (o.drip) this.x.drip(Buffer.concat(out), o.drip);
        else this.raw(Buffer.concat(out));
        this.wr = recordKeys(sAp);
        this.rd = recordKeys(cHs);
        this.cAp = cAp;
        this.phase = 'finished';
    }
    // HTTP/2 (ALPN h2): the client's preface and SETTINGS (ACKed), and each
    // HEADERS frame with END_STREAM a request (shb's GETs are one frame).
    h2Input(d) {
        this.h2buf = this.h2buf ? Buffer.concat([this.h2buf, d]) : d;
        if (!this.h2preface) {
            if (this.h2buf.length < 24) return;
            this.h2buf = this.h2buf.subarray(24);
            this.h2preface = true;
        }
        while (this.h2buf.length >= 9 && !this.x.dead) {
            const len = this.h2buf.readUIntBE(0, 3);
            if (this.h2buf.length < 9 + len) return;
            const type = this.h2buf[3], flags = this.h2buf[4], sid = this.h2buf.readUInt32BE(5) & 0x7fffffff;
            this.h2buf = this.h2buf.subarray(9 + len);
            if (type === wire.FT.SETTINGS && !(flags & wire.FL.ACK)) this.send(wire.frame(wire.FT.SETTINGS, wire.FL.ACK, 0));
            if (type === wire.FT.HEADERS && (flags & wire.FL.END_STREAM)) {
                this.requests += 1;
                (this.opts.onRequest || ((s, n, stream) => s.ok(stream)))(this, this.requests, sid);
            }
        }
    }
    raw(b) { return this.x.write(b); }
    record(type, content, pad) { return this.raw(seal(this.wr, type, content, pad)); }
    send(data) {
        const b = wbytes(typeof data === 'string' ? Buffer.from(data, 'latin1') : data);
        for (let o = 0; o < b.length || (o === 0 && b.length === 0); o += 16384) {
            this.record(CT.APPLICATION_DATA, b.subarray(o, o + 16384));
            if (b.length === 0) break;
        }
    }
    // ok([stream]): the well-formed answer ("ok", 200) on the protocol ALPN chose.
    ok(stream) {
        this.x.c.answered += 1;
        if (this.alpn !== 'h2') return this.send(OK_H1);
        return this.send(Buffer.concat([wire.frame(wire.FT.HEADERS, wire.FL.END_HEADERS, stream, wire.OK_BLOCK),
            wire.frame(wire.FT.DATA, wire.FL.END_STREAM, stream, 'ok')]));
    }
    // keyUpdate(requested, n): n KeyUpdates (default 1), each in a record of
    // its own (§5.1: a KeyUpdate ends its record); with `together` all in one.
    keyUpdate(requested, n = 1, together = false) {
        const ku = handshakeMsg(HT.KEY_UPDATE, Buffer.from([requested ? 1 : 0]));
        if (together) {
            this.record(CT.HANDSHAKE, Buffer.concat(Array(n).fill(ku)));
            for (let i = 0; i < n; i++) this.wr = recordKeys(nextSecret(this.wr.secret));
            return;
        }
        const out = [];
        for (let i = 0; i < n; i++) {
            out.push(seal(this.wr, CT.HANDSHAKE, ku));
            this.wr = recordKeys(nextSecret(this.wr.secret));
        }
        this.raw(Buffer.concat(out));
    }
    alert(level, desc) { this.record(CT.ALERT, [level, desc]); }
    closeNotify() { this.alert(1, 0); }
    end() { this.x.end(); }
    reset() { this.x.reset(); }
    later(ms, fn) { this.x.later(ms, fn); }
}

function serve(opts = {}) {
    return {
        onOpen(x) { x.state.tls13 = new Server(x, opts); },
        onData(x, d) { x.state.tls13.input(d); },
    };
}

// A raw case that waits for the first ClientHello (in plaintext records)
// and calls fn(x, ch, msg) once with it; later bytes go to then(x, bytes)
// when given (e.g. a ClientHello2 after a HelloRetryRequest: then's bytes
// are the raw TCP bytes).
function onClientHello(fn, then) {
    return {
        onOpen(x) { x.state.hello = { buf: EMPTY, done: false }; },
        onData(x, d) {
            const st = x.state.hello;
            if (st.done) return then && then(x, d);
            st.buf = Buffer.concat([st.buf, d]);
            // Records: gather the handshake bytes until one message is whole.
            let o = 0, hsb = EMPTY;
            while (o + 5 <= st.buf.length) {
                const len = st.buf.readUInt16BE(o + 3);
                if (o + 5 + len > st.buf.length) break;
                if (st.buf[o] === CT.HANDSHAKE) hsb = Buffer.concat([hsb, st.buf.subarray(o + 5, o + 5 + len)]);
                o += 5 + len;
            }
            if (hsb.length < 4 || hsb.length < 4 + hsb.readUIntBE(1, 3)) return;
            st.done = true;
            const msg = hsb.subarray(0, 4 + hsb.readUIntBE(1, 3));
            fn(x, parseClientHello(msg), msg);
            if (then && o < st.buf.length) then(x, st.buf.subarray(o));
        },
    };
}

module.exports = { EMPTY, u8, u16, u24, vec8, vec16, vec24, handshakeMsg, ext, HT, CT, HRR_RANDOM, sha256, hmac,
    hkdfExtract, hkdfExpand, expandLabel, handshakeSecrets, appSecrets, nextSecret, finishedMsg, parseClientHello,
    x25519, serverHello, encryptedExtensions, certificateMsg, certificateVerify, plainRecord, recordKeys, seal, open,
    serve, onClientHello, OK_H1 };
