// test/servers/hostile_quic_server.js — the misbehaving HTTP/3 server of the
// hostile case table (test/hostile/cases_h3.js, judged by
// test/e2e/e2e_hostile_cases.sh): a real QUIC v1 + TLS 1.3 server in plain Node
// (node:crypto only; the TLS messages of test/hostile/tls13.js) that breaks
// a rule of RFC 9000 / 9001 / 9114 / 9204 the way the current case says:
// before the handshake (a `raw` case sees every datagram and answers as it
// likes: silence, garbage, Version Negotiation, Retry, ...), during it
// (transport parameters, coalesced packets, floods) or after it (frames on
// the request, control and other streams; QUIC frames).
//
//   node test/servers/hostile_quic_server.js PORT LOG table CONTROL CERT KEY
//
// CONTROL is a file naming the current case; it is read when a new
// connection starts (a datagram from a client address and port not seen
// before: shb opens one socket per connection; or an Initial from a known
// one for a new original DCID, the port reused), and the connection plays
// that case to its end. CERT and KEY are PEM files: an ECDSA P-256
// certificate and its key (gen_certs in test/e2e/lib.sh). Binds 127.0.0.1:PORT,
// prints "listening PORT" on stdout once ready, and appends one JSON line per
// event to LOG (appendFileSync: on disk before the reply goes out). Every
// line of a connection has "event", "case" (its case's name), "from" (the
// client's port) and "t" (ms since start):
//   {"event":"case", "known"}                 a connection starts (once each)
//   {"event":"datagram", "len", "long", "type", "version" (hex), "dcid",
//    "scid"}                                  raw cases: every datagram
//   {"event":"reply", "kind", "len", "dcid", "scid"}   raw cases: x.reply()
//   {"event":"packet", "space" (initial, handshake, app), "pn", "frames"
//    (their types: ack, crypto, stream, close, ...)}   one per client packet
//   {"event":"handshake", "odcid", "scid" (hex), "maxStreamDataBidiLocal"
//    (the client's transport parameter)}      a ClientHello was answered
//   {"event":"established"}                   the client's Finished arrived
//   {"event":"request", "stream"}             a request stream ended (FIN)
//   {"event":"response", "stream"}            answered with 200 "hello"
//   {"event":"misbehave", "what", "stream"}   the case did its thing (x.did)
//   {"event":"close", "code" (hex), "frameType", "app" (an application
//    close, 0x1d), "reason"}                  the client's CONNECTION_CLOSE
//   {"event":"reset", "stream", "code"}       the client's RESET_STREAM
//   {"event":"stop", "stream", "code"}        the client's STOP_SENDING
//   {"event":"error", "message"}              odd input; never fatal
//
// What a case may say (besides the table's own fields, test/hostile/cases.js):
//   raw(x, msg, h)      no QUIC at all: each datagram of the connection, h
//                       its long header ({version, type, dcid, scid}, or
//                       null); x.reply(buf, kind) answers it
//   tp                  transport parameters: {id: number (a varint) |
//                       Buffer (bytes) | null (left out)} over ours, or a
//                       function (conn) returning that
//   handshake           'coalesced-bad' or 'amplify' (below)
//   controlStream       the first bytes of our control stream (stream 3);
//                       default: type 0x00 and SETTINGS
//                       (MAX_FIELD_SECTION_SIZE 16384); null: none
//   onEstablished(x)    the client's Finished arrived (HANDSHAKE_DONE and
//                       the control stream are queued already)
//   onRequest(x, n, id) the n-th request (from 1) of the connection ended
//                       on stream id; default x.ok(id)
// CaseIO (x): ok(id), headers(id, section[, fin]) (a QPACK field section,
// prefix included), data(id, bytes[, fin]), frame(id, type, payload[,
// fin]) (any HTTP/3 frame), write(id, bytes[, fin]) (raw stream bytes),
// control(bytes[, fin]) (our control stream), uni(bytes[, fin]) (a new
// unidirectional stream of ours: its id), quicFrame(bytes) (any QUIC frame
// in the next 1-RTT packet), packetEnd() (what follows goes in a packet of
// its own), resetStream(id, code[, size]), stopSending(id, code),
// close(code[, {app, frameType, reason}]), later(ms, fn), did(what[, id]),
// log(obj), conn (the connection: largest client packet number, the
// client's transport parameters, what we sent on each stream).
//
// Building blocks, as cases use them: every request stream's FIN gets
// MAX_STREAMS (the initial_max_streams_bidi of the case plus those
// answered) and MAX_DATA, so a run of any length never waits for credit;
// every ack-eliciting packet is acknowledged, so what a case sees is the
// client's own reaction, not a silent server. handshake 'coalesced-bad':
// the ServerHello's Initial, a corrupted copy (the AEAD tag's last byte
// flipped) of the first Handshake packet, and that packet itself, in one
// datagram (RFC 9000 §12.2, RFC 9001 §5.3: only the bad packet is dropped);
// 'amplify': after the ServerHello's Initial, 30 datagrams of 1200 bytes,
// each a copy of that Initial under a packet number of its own, and 10 of
// random bytes, then the Handshake packets (§8.1 binds the server).
//
// What is left out on purpose: no retransmission (loopback does not lose),
// no real Retry, no HelloRetryRequest (the client's one key share must be
// X25519), TLS_AES_128_GCM_SHA256 only, the client's Finished not verified,
// no key update, no 0-RTT.
//
// HOSTILE_SEEDS=DIR: the 1-RTT payloads (frames, before protection) each
// case sent on its first connection become a seed for fuzz_quic_conn
// (test/fuzz/fuzz_quic_conn.c: [flags: initial_max_streams_bidi 7 (or 0)]
// [limits 0], then one record per packet, [hdr 2: 1-RTT, no time passes]
// [pn op 0: the next] [length, 2 bytes] [payload]), written at exit as
// DIR/fuzz_quic_conn/hostile-CASE (test/fuzz/hostile_seeds.sh).
//
// Stops on SIGTERM/SIGINT. No dependencies; node 18+.
'use strict';

const dgram = require('node:dgram');
const fs = require('node:fs');
const crypto = require('node:crypto');
const tls13 = require('../hostile/tls13.js');
const { varint } = require('../hostile/wire.js');

const [portArg, logfile, scenario, control, certFile, keyFile] = process.argv.slice(2);
const port = Number(portArg);
if (!Number.isInteger(port) || port < 1 || port > 65535 || !logfile || scenario !== 'table' || !control ||
    !certFile || !keyFile) {
    process.stderr.write('usage: node hostile_quic_server.js PORT LOG table CONTROL CERT KEY\n');
    process.exit(2);
}
const CASES = require('../hostile/cases.js').byName();
const certDer = new crypto.X509Certificate(fs.readFileSync(certFile)).raw;
const signKey = crypto.createPrivateKey(fs.readFileSync(keyFile));

const t0 = Date.now();
function log(conn, o) {
    fs.appendFileSync(logfile, JSON.stringify({ ...o, case: conn ? conn.name : undefined,
        from: conn ? conn.port : undefined, t: Date.now() - t0 }) + '\n');
}
function readControl() {
    try { return fs.readFileSync(control, 'utf8').trim(); } catch (e) { return ''; }
}

// --- varints (RFC 9000 §16: written by wire.js's varint) ------------------------

// A reader over a Buffer: varints as Numbers (exact up to 2^53, which is
// more than any value this server meets), and byte strings.
class Reader {
    constructor(buf, off = 0, end = buf.length) { this.b = buf; this.o = off; this.end = end; }
    left() { return this.end - this.o; }
    need(n) { if (this.o + n > this.end) throw new Error('truncated'); }
    u8() { this.need(1); return this.b[this.o++]; }
    u16() { this.need(2); const v = this.b.readUInt16BE(this.o); this.o += 2; return v; }
    u24() { this.need(3); const v = this.b.readUIntBE(this.o, 3); this.o += 3; return v; }
    bytes(n) { this.need(n); const v = this.b.subarray(this.o, this.o + n); this.o += n; return v; }
    varint() {
        this.need(1);
        const len = 1 << (this.b[this.o] >> 6);
        this.need(len);
        let v = this.b[this.o] & 0x3f;
        for (let i = 1; i < len; i++) v = v * 256 + this.b[this.o + i];
        this.o += len;
        return v;
    }
}

// --- keys: HKDF (RFC 5869) and the TLS 1.3 key schedule (RFC 8446 §7.1) in
// test/hostile/tls13.js; QUIC packet keys (RFC 9001 §5) ------------------------------

const { sha256, hkdfExtract, expandLabel } = tls13;

// RFC 9001 §5.1: AES-128-GCM key, IV and header protection key of a secret.
function packetKeys(secret) {
    return {
        key: expandLabel(secret, 'quic key', Buffer.alloc(0), 16),
        iv: expandLabel(secret, 'quic iv', Buffer.alloc(0), 12),
        hp: expandLabel(secret, 'quic hp', Buffer.alloc(0), 16),
    };
}

// RFC 9001 §5.2: Initial secrets from the client's first DCID and the v1 salt.
const INITIAL_SALT = Buffer.from('38762cf7f55934b34d179ae6a4c80cadccbb7f0a', 'hex');
function initialKeys(dcid) {
    const secret = hkdfExtract(INITIAL_SALT, dcid);
    return {
        recv: packetKeys(expandLabel(secret, 'client in', Buffer.alloc(0), 32)),
        send: packetKeys(expandLabel(secret, 'server in', Buffer.alloc(0), 32)),
    };
}

// --- packet protection (RFC 9001 §5.3, §5.4) ----------------------------------------

function hpMask(hp, sample) {
    const c = crypto.createCipheriv('aes-128-ecb', hp, null);
    return c.update(sample); // 16 bytes; the first 5 are used
}

function nonce(iv, pn) {
    const n = Buffer.from(iv);
    for (let i = 0; i < 6; i++) n[11 - i] ^= Math.floor(pn / 2 ** (8 * i)) & 0xff;
    return n;
}

// RFC 9000 §A.3: the full packet number from its truncated encoding.
function decodePn(largest, truncated, bits) {
    const expected = largest + 1;
    const win = 2 ** bits, half = win / 2;
    const candidate = (expected - (expected % win)) + truncated;
    if (candidate <= expected - half && candidate < 2 ** 62 - win) return candidate + win;
    if (candidate > expected + half && candidate >= win) return candidate - win;
    return candidate;
}

// Removes header protection and decrypts the packet at buf[pnOff..end):
// returns {pn, payload} or null when it does not authenticate.
function unprotect(buf, start, pnOff, end, keys, largest, isLong) {
    const pkt = Buffer.from(buf.subarray(start, end)); // a copy: header protection is undone in place
    const p = pnOff - start;
    if (p + 4 + 16 > pkt.length) return null;
    const mask = hpMask(keys.hp, pkt.subarray(p + 4, p + 20));
    pkt[0] ^= mask[0] & (isLong ? 0x0f : 0x1f);
    const pnLen = (pkt[0] & 3) + 1;
    let trunc = 0;
    for (let i = 0; i < pnLen; i++) {
        pkt[p + i] ^= mask[1 + i];
        trunc = trunc * 256 + pkt[p + i];
    }
    const pn = decodePn(largest, trunc, pnLen * 8);
    const aad = pkt.subarray(0, p + pnLen);
    const ct = pkt.subarray(p + pnLen, pkt.length - 16);
    const tag = pkt.subarray(pkt.length - 16);
    try {
        const d = crypto.createDecipheriv('aes-128-gcm', keys.key, nonce(keys.iv, pn));
        d.setAAD(aad);
        d.setAuthTag(tag);
        return { pn, payload: Buffer.concat([d.update(ct), d.final()]) };
    } catch (e) {
        return null;
    }
}

// Encrypts payload behind header (which ends with a 4-byte packet number)
// and applies header protection.
function protect(header, payload, keys, pn, isLong) {
    const c = crypto.createCipheriv('aes-128-gcm', keys.key, nonce(keys.iv, pn));
    c.setAAD(header);
    const pkt = Buffer.concat([header, c.update(payload), c.final(), c.getAuthTag()]);
    const p = header.length - 4;
    const mask = hpMask(keys.hp, pkt.subarray(p + 4, p + 20));
    pkt[0] ^= mask[0] & (isLong ? 0x0f : 0x1f);
    for (let i = 0; i < 4; i++) pkt[p + i] ^= mask[1 + i];
    return pkt;
}

// A long-header (Initial, Handshake) or short-header (1-RTT) packet of ours,
// packet numbers always 4 bytes (RFC 9000 §17.1 allows any length).
function buildPacket(conn, space, payload) {
    const sp = conn.spaces[space];
    const pn = sp.nextPn++;
    const pnBuf = Buffer.alloc(4);
    pnBuf.writeUInt32BE(pn);
    if (space === 'app') {
        seedRecord(conn, payload);
        const header = Buffer.concat([Buffer.from([0x40 | 3]), conn.dcid, pnBuf]);
        return protect(header, payload, sp.send, pn, false);
    }
    const type = space === 'initial' ? 0 : 2;
    const len = varint(4 + payload.length + 16);
    const lenBuf = len.length === 1 ? Buffer.from([0x40, len[0]]) : len; // 2 bytes at least: readable either way
    const header = Buffer.concat([Buffer.from([0xc0 | (type << 4) | 3, 0, 0, 0, 1, conn.dcid.length]), conn.dcid,
        Buffer.from([conn.scid.length]), conn.scid, type === 0 ? Buffer.from([0]) : Buffer.alloc(0), lenBuf, pnBuf]);
    return protect(header, payload, sp.send, pn, true);
}

// --- frames (RFC 9000 §19) -----------------------------------------------------------

const fr = {
    padding: (n) => Buffer.alloc(n),
    // ranges: [[lo, hi], ...] with hi descending (§19.3.1: gaps are counted
    // minus two, range lengths minus one)
    ack(ranges) {
        const parts = [varint(0x02), varint(ranges[0][1]), varint(0), varint(ranges.length - 1),
            varint(ranges[0][1] - ranges[0][0])];
        for (let i = 1; i < ranges.length; i++) {
            parts.push(varint(ranges[i - 1][0] - ranges[i][1] - 2), varint(ranges[i][1] - ranges[i][0]));
        }
        return Buffer.concat(parts);
    },
    crypto: (off, data) => Buffer.concat([varint(0x06), varint(off), varint(data.length), data]),
    // STREAM with the OFF and LEN bits always set (type 0x0e, 0x0f with FIN)
    stream: (id, off, data, fin) => Buffer.concat([varint(0x0e | (fin ? 1 : 0)), varint(id), varint(off),
        varint(data.length), data]),
    resetStream: (id, code, finalSize) => Buffer.concat([varint(0x04), varint(id), varint(code), varint(finalSize)]),
    maxData: (n) => Buffer.concat([varint(0x10), varint(n)]),
    maxStreamsBidi: (n) => Buffer.concat([varint(0x12), varint(n)]),
    handshakeDone: () => Buffer.from([0x1e]),
};

// Parses a decrypted payload into a list of frames (only the fields this
// server uses). Throws on a frame it cannot parse: the rest of the packet is
// then unreadable anyway.
function parseFrames(payload) {
    const r = new Reader(payload);
    const out = [];
    while (r.left() > 0) {
        const type = r.varint();
        if (type === 0x00) continue; // PADDING
        if (type === 0x01) { out.push({ type: 'ping' }); continue; }
        if (type === 0x02 || type === 0x03) {
            const largest = r.varint();
            r.varint(); // ack delay
            const count = r.varint();
            r.varint(); // first range
            for (let i = 0; i < count; i++) { r.varint(); r.varint(); }
            if (type === 0x03) { r.varint(); r.varint(); r.varint(); }
            out.push({ type: 'ack', largest });
            continue;
        }
        if (type === 0x04) { out.push({ type: 'reset', id: r.varint(), code: r.varint(), size: r.varint() }); continue; }
        if (type === 0x05) { out.push({ type: 'stop', id: r.varint(), code: r.varint() }); continue; }
        if (type === 0x06) { const off = r.varint(); const len = r.varint(); out.push({ type: 'crypto', off, data: r.bytes(len) }); continue; }
        if (type === 0x07) { r.bytes(r.varint()); out.push({ type: 'new_token' }); continue; }
        if (type >= 0x08 && type <= 0x0f) {
            const id = r.varint();
            const off = type & 0x04 ? r.varint() : 0;
            const len = type & 0x02 ? r.varint() : r.left();
            out.push({ type: 'stream', id, off, data: r.bytes(len), fin: !!(type & 0x01) });
            continue;
        }
        if (type === 0x10 || type === 0x12 || type === 0x13 || type === 0x14 || type === 0x16 || type === 0x17 ||
            type === 0x19) { r.varint(); out.push({ type: 'flow' }); continue; }
        if (type === 0x11 || type === 0x15) { r.varint(); r.varint(); out.push({ type: 'flow' }); continue; }
        if (type === 0x18) { r.varint(); r.varint(); r.bytes(r.u8()); r.bytes(16); out.push({ type: 'new_cid' }); continue; }
        if (type === 0x1a || type === 0x1b) { out.push({ type: type === 0x1a ? 'path_challenge' : 'path_response', data: r.bytes(8) }); continue; }
        if (type === 0x1c || type === 0x1d) {
            const code = r.varint();
            const frameType = type === 0x1c ? r.varint() : null;
            const reason = r.bytes(r.varint()).toString('latin1');
            out.push({ type: 'close', code, frameType, app: type === 0x1d, reason });
            continue;
        }
        if (type === 0x1e) { out.push({ type: 'handshake_done' }); continue; }
        throw new Error(`unknown frame type 0x${type.toString(16)}`);
    }
    return out;
}

const ackEliciting = (frames) => frames.some((f) => f.type !== 'ack' && f.type !== 'close');

// Received packet numbers as ranges [lo, hi], hi descending.
function addPn(ranges, pn) {
    for (let i = 0; i < ranges.length; i++) {
        const r = ranges[i];
        if (pn >= r[0] && pn <= r[1]) return;
        if (pn === r[1] + 1) {
            r[1] = pn;
            if (i > 0 && ranges[i - 1][0] === pn + 1) { r[1] = ranges[i - 1][1]; ranges.splice(i - 1, 1); }
            return;
        }
        if (pn === r[0] - 1) {
            r[0] = pn;
            if (i + 1 < ranges.length && ranges[i + 1][1] === pn - 1) { r[0] = ranges[i + 1][0]; ranges.splice(i + 1, 1); }
            return;
        }
        if (pn > r[1]) { ranges.splice(i, 0, [pn, pn]); return; }
    }
    ranges.push([pn, pn]);
    if (ranges.length > 64) ranges.length = 64; // the oldest are not worth acknowledging again
}

// --- TLS 1.3 messages (RFC 8446 §4) --------------------------------------------------

const { vec16, handshakeMsg, ext, parseClientHello } = tls13;

// The client's transport parameters (RFC 9000 §18): id -> raw value.
function parseTransportParams(buf) {
    const r = new Reader(buf);
    const tp = {};
    while (r.left() > 0) {
        const id = r.varint();
        tp[id] = r.bytes(r.varint());
    }
    return tp;
}
const tpInt = (v) => (v ? new Reader(v).varint() : 0);

// Our transport parameters (RFC 9000 §18.2), with the case's over them.
// §7.3: the client checks both connection IDs against what it saw in the
// long headers.
function transportParams(conn) {
    const tp = new Map([
        [0x00, conn.odcid],                      // original_destination_connection_id
        [0x01, 30000],                           // max_idle_timeout (ms)
        [0x03, 1472],                            // max_udp_payload_size
        [0x04, 1 << 24],                         // initial_max_data
        [0x05, 1 << 18],                         // initial_max_stream_data_bidi_local
        [0x06, 1 << 18],                         // initial_max_stream_data_bidi_remote
        [0x07, 1 << 18],                         // initial_max_stream_data_uni
        [0x08, 100],                             // initial_max_streams_bidi
        [0x09, 100],                             // initial_max_streams_uni
        [0x0f, conn.scid],                       // initial_source_connection_id
    ]);
    const more = typeof conn.kase.tp === 'function' ? conn.kase.tp(conn) : conn.kase.tp || {};
    for (const [id, v] of Object.entries(more)) {
        if (v === null) tp.delete(Number(id));
        else tp.set(Number(id), v);
    }
    conn.maxStreamsBase = typeof tp.get(0x08) === 'number' ? tp.get(0x08) : 0;
    const parts = [];
    for (const [id, v] of tp) {
        const b = Buffer.isBuffer(v) ? v : varint(v);
        parts.push(varint(id), varint(b.length), b);
    }
    return Buffer.concat(parts);
}

function encryptedExtensions(conn) {
    const alpn = vec16(Buffer.from([2, 0x68, 0x33])); // ProtocolNameList: "h3"
    return handshakeMsg(8, vec16(Buffer.concat([ext(16, alpn), ext(57, transportParams(conn))])));
}

// Answers a complete ClientHello: ServerHello in an Initial, the rest in
// Handshake packets, and the key schedule up to the application secrets.
function answerClientHello(conn, msg) {
    const ch = parseClientHello(msg);
    if (!ch.aes128 || !ch.x25519 || !ch.tp) throw new Error('ClientHello without TLS_AES_128_GCM_SHA256, an X25519 share or transport parameters');
    conn.clientTp = parseTransportParams(ch.tp);
    const { pub, shared } = tls13.x25519(ch.x25519);

    const sh = tls13.serverHello({ sessionId: ch.sessionId, pub });
    const transcript = [msg, sh];
    const th = () => sha256(Buffer.concat(transcript));
    const { hs, cHs, sHs } = tls13.handshakeSecrets(shared, th());
    conn.spaces.handshake.recv = packetKeys(cHs);
    conn.spaces.handshake.send = packetKeys(sHs);

    for (const m of [encryptedExtensions(conn), tls13.certificateMsg(certDer)]) transcript.push(m);
    transcript.push(tls13.certificateVerify(th(), signKey));
    transcript.push(tls13.finishedMsg(sHs, th()));

    const { cAp, sAp } = tls13.appSecrets(hs, th());
    conn.spaces.app.recv = packetKeys(cAp);
    conn.spaces.app.send = packetKeys(sAp);

    queueCrypto(conn, 'initial', sh);
    queueCrypto(conn, 'handshake', Buffer.concat(transcript.slice(2)));
    conn.maxStreamDataBidiLocal = tpInt(conn.clientTp[0x05]);
    log(conn, { event: 'handshake', odcid: conn.odcid.toString('hex'), scid: conn.scid.toString('hex'),
        maxStreamDataBidiLocal: conn.maxStreamDataBidiLocal });
}

// CRYPTO data goes out in frames of at most 1000 bytes: each fits a packet.
// handshake 'coalesced-bad' makes the first Handshake one 200 bytes, so that
// the Initial and two copies of that packet fit one datagram of the client's
// max_udp_payload_size (1500 for shb).
function queueCrypto(conn, space, data) {
    const sp = conn.spaces[space];
    for (let o = 0, n; o < data.length; o += n) {
        const small = conn.kase.handshake === 'coalesced-bad' && space === 'handshake' && o === 0;
        n = small ? 200 : 1000;
        const chunk = data.subarray(o, o + n);
        sp.out.push(fr.crypto(sp.cryptoOut, chunk));
        if (small) sp.out.push(PACKET_END); // the 200 bytes alone in their packet
        sp.cryptoOut += chunk.length;
    }
}

// In-order CRYPTO reassembly: what arrives early waits in sp.cryptoPending.
function takeCrypto(sp, f) {
    if (f.off + f.data.length <= sp.cryptoIn) return;
    sp.cryptoPending.set(f.off, f.data);
    for (let again = true; again;) {
        again = false;
        for (const [off, data] of sp.cryptoPending) {
            if (off <= sp.cryptoIn) {
                sp.cryptoPending.delete(off);
                if (off + data.length > sp.cryptoIn) {
                    sp.cryptoBuf = Buffer.concat([sp.cryptoBuf, data.subarray(sp.cryptoIn - off)]);
                    sp.cryptoIn = off + data.length;
                }
                again = true;
            }
        }
    }
}

// The next complete handshake message of a space, or null.
function nextMessage(sp) {
    if (sp.cryptoBuf.length < 4) return null;
    const len = sp.cryptoBuf.readUIntBE(1, 3);
    if (sp.cryptoBuf.length < 4 + len) return null;
    const msg = sp.cryptoBuf.subarray(0, 4 + len);
    sp.cryptoBuf = sp.cryptoBuf.subarray(4 + len);
    return msg;
}


// --- HTTP/3 (RFC 9114) and the cases ------------------------------------------------------

const h3frame = (type, payload) => Buffer.concat([varint(type), varint(payload.length), payload]);
const HEADERS_200 = h3frame(0x01, Buffer.from([0x00, 0x00, 0xd9])); // RFC 9204 §4.5.2: static 25 = :status 200
const DATA_HELLO = h3frame(0x00, Buffer.from('hello'));
const SETTINGS = h3frame(0x04, Buffer.concat([varint(0x06), varint(16384)])); // SETTINGS_MAX_FIELD_SECTION_SIZE

function sendStream(conn, id, data, fin) {
    const off = conn.sent.get(id) || 0;
    conn.spaces.app.out.push(fr.stream(id, off, data, !!fin));
    conn.sent.set(id, off + data.length);
}

// What a case acts through (see the top of this file).
class CaseIO {
    constructor(conn) { this.conn = conn; }
    ok(id) { respondOk(this.conn, id); }
    write(id, bytes, fin) { sendStream(this.conn, id, Buffer.from(bytes), fin); }
    frame(id, type, payload, fin) { this.write(id, h3frame(type, Buffer.from(payload)), fin); }
    headers(id, section, fin) { this.frame(id, 0x01, section, fin); }
    data(id, bytes, fin) { this.frame(id, 0x00, bytes, fin); }
    control(bytes, fin) { this.write(3, bytes, fin); }
    uni(bytes, fin) {
        const id = this.conn.nextUni;
        this.conn.nextUni += 4;
        this.write(id, bytes, fin);
        return id;
    }
    quicFrame(bytes) { this.conn.spaces.app.out.push(Buffer.from(bytes)); }
    packetEnd() { this.conn.spaces.app.out.push(PACKET_END); }
    resetStream(id, code, size) {
        this.quicFrame(fr.resetStream(id, code, size === undefined ? this.conn.sent.get(id) || 0 : size));
    }
    stopSending(id, code) { this.quicFrame(Buffer.concat([varint(0x05), varint(id), varint(code)])); }
    close(code, o = {}) {
        const reason = Buffer.from(o.reason || '');
        this.quicFrame(Buffer.concat([varint(o.app ? 0x1d : 0x1c), varint(code),
            o.app ? Buffer.alloc(0) : varint(o.frameType || 0), varint(reason.length), reason]));
    }
    later(ms, fn) {
        setTimeout(() => {
            try {
                fn();
                flush(this.conn);
            } catch (e) {
                log(this.conn, { event: 'error', message: String(e && e.stack || e) });
            }
        }, ms);
    }
    did(what, id) { log(this.conn, { event: 'misbehave', what, stream: id }); }
    log(o) { log(this.conn, o); }
}

// The client's Finished arrived: HANDSHAKE_DONE (RFC 9001 §4.1.2) and our
// control stream (RFC 9114 §6.2.1): stream 3, type 0x00, SETTINGS first.
function established(conn) {
    conn.established = true;
    log(conn, { event: 'established' });
    conn.spaces.app.out.push(fr.handshakeDone());
    const cs = conn.kase.controlStream === undefined ? Buffer.concat([Buffer.from([0x00]), SETTINGS])
        : conn.kase.controlStream;
    if (cs !== null) sendStream(conn, 3, Buffer.from(cs), false);
    if (conn.kase.onEstablished) conn.kase.onEstablished(conn.x);
}

function respondOk(conn, id) {
    sendStream(conn, id, Buffer.concat([HEADERS_200, DATA_HELLO]), true);
    log(conn, { event: 'response', stream: id });
}

// A request stream ended: the case answers it.
function onRequest(conn, id) {
    log(conn, { event: 'request', stream: id });
    conn.answered++;
    // Room for the next requests and their bytes (§4.1, §4.6): a run of any
    // length never waits for credit from this server.
    conn.spaces.app.out.push(fr.maxStreamsBidi(conn.maxStreamsBase + conn.answered));
    conn.spaces.app.out.push(fr.maxData((1 << 24) + conn.received));
    if (conn.kase.onRequest) conn.kase.onRequest(conn.x, conn.answered, id);
    else respondOk(conn, id);
}

// STREAM data from the client: request streams (client bidirectional, id %
// 4 == 0) are reassembled until their FIN; the client's unidirectional
// streams (control, QPACK) are only counted.
function onStream(conn, f) {
    conn.received += f.data.length;
    if (f.id % 4 !== 0) return;
    let s = conn.streams.get(f.id);
    if (!s) conn.streams.set(f.id, (s = { chunks: new Map(), have: 0, fin: -1, done: false }));
    if (s.done) return;
    s.chunks.set(f.off, f.data.length);
    if (f.fin) s.fin = f.off + f.data.length;
    for (let again = true; again;) {
        again = false;
        for (const [off, len] of s.chunks) {
            if (off <= s.have) { s.have = Math.max(s.have, off + len); s.chunks.delete(off); again = true; }
        }
    }
    if (s.fin >= 0 && s.have >= s.fin) {
        s.done = true;
        onRequest(conn, f.id);
    }
}

// --- connections and datagrams ------------------------------------------------------------

const conns = new Map();

function newSpace() {
    return { recv: null, send: null, nextPn: 0, ranges: [], ackDue: false, out: [], cryptoIn: 0,
        cryptoPending: new Map(), cryptoBuf: Buffer.alloc(0), cryptoOut: 0 };
}

// A connection of a case: QUIC state is set up at its first Initial.
function newConn(rinfo, name) {
    const conn = {
        address: rinfo.address, port: rinfo.port, name, kase: CASES.get(name) || null,
        spaces: { initial: newSpace(), handshake: newSpace(), app: newSpace() },
        clientTp: null, maxStreamDataBidiLocal: 0, established: false, streams: new Map(), sent: new Map(),
        received: 0, answered: 0, closed: false, coalesced: false, amplified: false, nextUni: 7,
        quic: false, maxStreamsBase: 100,
    };
    if (conn.kase && !/^h3-/.test(name)) conn.kase = null;
    conn.clientTpInt = (id) => (conn.clientTp ? tpInt(conn.clientTp[id]) : 0);
    conn.x = new CaseIO(conn);
    return conn;
}

function startQuic(conn, dcid, scid) {
    const keys = initialKeys(dcid);
    conn.quic = true;
    conn.odcid = Buffer.from(dcid);
    conn.dcid = Buffer.from(scid);
    conn.scid = crypto.randomBytes(8);
    conn.spaces.initial.recv = keys.recv;
    conn.spaces.initial.send = keys.send;
}

function onFrames(conn, space, frames) {
    const sp = conn.spaces[space];
    for (const f of frames) {
        if (f.type === 'crypto') {
            takeCrypto(sp, f);
            for (let msg; (msg = nextMessage(sp));) {
                if (space === 'initial' && msg[0] === 1 && !conn.spaces.handshake.send) answerClientHello(conn, msg);
                else if (space === 'handshake' && msg[0] === 20 && !conn.established) established(conn);
            }
        } else if (f.type === 'stream' && space === 'app') {
            onStream(conn, f);
        } else if (f.type === 'close') {
            conn.closed = true;
            log(conn, { event: 'close', code: '0x' + f.code.toString(16), frameType: f.frameType, app: f.app,
                reason: f.reason, space });
        } else if (f.type === 'reset') {
            log(conn, { event: 'reset', stream: f.id, code: '0x' + f.code.toString(16) });
        } else if (f.type === 'stop') {
            log(conn, { event: 'stop', stream: f.id, code: '0x' + f.code.toString(16) });
        } else if (f.type === 'path_challenge') {
            sp.out.push(Buffer.concat([Buffer.from([0x1b]), f.data])); // §8.2.2: echo it
        }
    }
}

// The invariant part of a long header (RFC 9000 §17.2): null when m is
// not one (short header, too short, a connection ID over 20 bytes).
function parseLong(m) {
    if (m.length < 7 || !(m[0] & 0x80)) return null;
    const version = m.readUInt32BE(1);
    let o = 5;
    const dl = m[o++];
    if (dl > 20 || o + dl >= m.length) return null;
    const dcid = m.subarray(o, o + dl);
    o += dl;
    const sl = m[o++];
    if (sl > 20 || o + sl > m.length) return null;
    const scid = m.subarray(o, o + sl);
    return { version, type: (m[0] >> 4) & 3, dcid, scid };
}

// A raw case: the datagram goes to the case, and x.reply() answers it.
function onRaw(conn, msg, rinfo, h) {
    const hex = (b) => b.toString('hex');
    log(conn, { event: 'datagram', len: msg.length, long: !!(msg[0] & 0x80), type: h ? h.type : null,
        version: h ? h.version.toString(16).padStart(8, '0') : null, dcid: h ? hex(h.dcid) : null,
        scid: h ? hex(h.scid) : null });
    conn.x.reply = (out, kind) => {
        const ph = parseLong(out);
        log(conn, { event: 'reply', kind: kind || conn.name, len: out.length, dcid: ph ? hex(ph.dcid) : null,
            scid: ph ? hex(ph.scid) : null });
        sock.send(out, rinfo.port, rinfo.address);
    };
    conn.kase.raw(conn.x, msg, h);
}

// One datagram: every packet coalesced in it (RFC 9000 §12.2), in order.
function onDatagram(msg, rinfo) {
    const key = `${rinfo.address}:${rinfo.port}`;
    let conn = conns.get(key);
    // A new connection: a client address and port not seen before, or an
    // Initial for a connection ID that is neither the first one this
    // address used nor ours (the kernel gives a port to a new socket once
    // the old one is closed: one process plays many cases in a row).
    const h = parseLong(msg);
    const initial = h && h.version === 1 && h.type === 0;
    if (conn && initial && conn.firstDcid && !h.dcid.equals(conn.firstDcid) &&
        !(conn.scid && h.dcid.equals(conn.scid))) conn = null;
    if (!conn) {
        conn = newConn(rinfo, readControl());
        conns.set(key, conn);
        log(conn, { event: 'case', known: conn.kase !== null });
    }
    if (initial && !conn.firstDcid) conn.firstDcid = Buffer.from(h.dcid);
    if (!conn.kase) return;
    if (conn.kase.raw) return onRaw(conn, msg, rinfo, h);
    let o = 0;
    while (o < msg.length) {
        const first = msg[o];
        let space, pnOff, end;
        if (first & 0x80) {
            const r = new Reader(msg, o + 1);
            const version = r.bytes(4).readUInt32BE(0);
            const dcid = r.bytes(r.u8());
            const scid = r.bytes(r.u8());
            const type = (first >> 4) & 3;
            if (version !== 1 || (type !== 0 && type !== 2)) {
                log(conn, { event: 'error', message: `ignored a long header, version ${version.toString(16)} type ${type}` });
                return;
            }
            if (type === 0) r.bytes(r.varint()); // token
            const len = r.varint();
            pnOff = r.o;
            end = pnOff + len;
            if (end > msg.length) throw new Error('long header Length past the datagram');
            space = type === 0 ? 'initial' : 'handshake';
            if (!conn.quic) {
                if (type !== 0 || msg.length < 1200) return; // §14.1: a client's first datagram is padded
                startQuic(conn, dcid, scid);
            }
        } else {
            if (!conn.quic) return;
            space = 'app';
            pnOff = o + 1 + conn.scid.length;
            end = msg.length;
        }
        const sp = conn.spaces[space];
        if (!sp.recv) return;
        const largest = sp.ranges.length ? sp.ranges[0][1] : -1;
        const pkt = unprotect(msg, o, pnOff, end, sp.recv, largest, space !== 'app');
        o = end;
        if (!pkt) {
            log(conn, { event: 'error', message: `a ${space} packet did not decrypt` });
            continue;
        }
        addPn(sp.ranges, pkt.pn);
        const frames = parseFrames(pkt.payload);
        log(conn, { event: 'packet', space, pn: pkt.pn, frames: frames.map((f) => f.type) });
        if (ackEliciting(frames)) sp.ackDue = true;
        onFrames(conn, space, frames);
    }
    flush(conn);
}

// In a space's out queue: the packet ends here, what follows goes in the next.
const PACKET_END = Buffer.alloc(0);

// Sends what each space has queued, led by an ACK when one is due, one
// packet a datagram. An ack-eliciting Initial is padded to fill a 1200-byte
// datagram (§14.1). handshake 'coalesced-bad' and 'amplify' change the
// first datagrams that carry the ServerHello.
function flush(conn) {
    if (!conn.quic) return;
    const hs = conn.kase.handshake;
    const out = []; // {space, pkt, payload (of an ack-eliciting Initial)}
    for (const space of ['initial', 'handshake', 'app']) {
        const sp = conn.spaces[space];
        if (!sp.send || (!sp.ackDue && sp.out.length === 0)) continue;
        const frames = sp.out.splice(0);
        if (sp.ackDue && sp.ranges.length) frames.unshift(fr.ack(sp.ranges.slice(0, 16)));
        sp.ackDue = false;
        while (frames.length > 0) {
            if (frames[0] === PACKET_END) { frames.shift(); continue; }
            const batch = [frames.shift()];
            let size = batch[0].length;
            while (frames.length > 0 && frames[0] !== PACKET_END && size + frames[0].length <= 1100) {
                size += frames[0].length;
                batch.push(frames.shift());
            }
            let payload = Buffer.concat(batch);
            const eliciting = space === 'initial' && batch.some((b) => b[0] !== 0x02);
            // coalesced-bad: the ServerHello's Initial is padded to 700
            // bytes only; with the two Handshake packets that follow it in
            // its datagram it still passes 1200.
            const pad = hs === 'coalesced-bad' && !conn.coalesced ? 700 : 1200 - 50;
            if (eliciting) payload = Buffer.concat([payload, fr.padding(Math.max(0, pad - payload.length))]);
            out.push({ space, pkt: buildPacket(conn, space, payload), payload: eliciting ? payload : null });
        }
    }
    const send = (b) => sock.send(b, conn.port, conn.address);
    const iInit = out.findIndex((o) => o.payload);
    const iHs = out.findIndex((o) => o.space === 'handshake');
    if (hs === 'coalesced-bad' && !conn.coalesced && iInit >= 0 && iHs > iInit) {
        // RFC 9000 §12.2, RFC 9001 §5.3: an undecryptable packet is
        // discarded, the rest of its datagram still read. The bad copy
        // keeps the good one's packet number: dropping it must not mark
        // that number as received.
        conn.coalesced = true;
        const good = out[iHs].pkt;
        const bad = Buffer.from(good);
        bad[bad.length - 1] ^= 0x01; // the AEAD tag: header protection's sample is untouched
        const dgram = Buffer.concat([out[iInit].pkt, bad, good]);
        out.splice(iHs, 1);
        out[iInit].pkt = dgram;
        log(conn, { event: 'misbehave', what: `Initial, a corrupted Handshake packet and the good one in one datagram of ${dgram.length} bytes` });
    }
    for (let i = 0; i < out.length; i++) {
        send(out[i].pkt);
        if (hs === 'amplify' && !conn.amplified && out[i].payload) {
            // §8.1 limits what a server sends before it has validated the
            // client's address; a client owes nothing to one that breaks it.
            conn.amplified = true;
            const hdr = 1 + 4 + 1 + conn.dcid.length + 1 + conn.scid.length + 1 + 2 + 4;
            const payload = Buffer.concat([out[i].payload, fr.padding(Math.max(0, 1200 - hdr - 16 - out[i].payload.length))]);
            for (let k = 0; k < 30; k++) send(buildPacket(conn, 'initial', payload));
            for (let k = 0; k < 10; k++) send(crypto.randomBytes(1200));
            log(conn, { event: 'misbehave', what: '30 copies of the ServerHello\'s Initial (new packet numbers) and 10 random datagrams, 1200 bytes each' });
        }
    }
}

const sock = dgram.createSocket('udp4');
sock.on('message', (msg, rinfo) => {
    try {
        onDatagram(msg, rinfo);
    } catch (e) {
        try { log(conns.get(`${rinfo.address}:${rinfo.port}`), { event: 'error', message: String(e && e.stack || e) }); } catch (_) { /* the log is gone */ }
    }
});
// A bind failure (the port taken) ends the process, so that the suite's
// start_node_server tries another port; any later socket error is logged.
let bound = false;
sock.on('error', (e) => {
    if (!bound) { process.stderr.write(`${e}\n`); process.exit(1); }
    log(null, { event: 'error', message: String(e) });
});
sock.bind(port, '127.0.0.1', () => { bound = true; process.stdout.write(`listening ${port}\n`); });

// HOSTILE_SEEDS (see the top): per case, its first connection's 1-RTT payloads.
const SEEDS = process.env.HOSTILE_SEEDS || null;
const SEED_MAX = 16384;
const seeds = new Map(); // case name -> {conn, parts, bytes}
function seedRecord(conn, payload) {
    if (!SEEDS) return;
    let s = seeds.get(conn.name);
    if (!s) seeds.set(conn.name, (s = { conn, parts: [], bytes: 0 }));
    if (s.conn !== conn || s.bytes >= SEED_MAX) return;
    const rec = Buffer.concat([Buffer.from([2, 0, payload.length >> 8, payload.length & 0xff]), payload]);
    s.parts.push(rec);
    s.bytes += rec.length;
}
function writeSeeds() {
    if (!SEEDS) return;
    const dir = `${SEEDS}/fuzz_quic_conn`;
    try {
        fs.mkdirSync(dir, { recursive: true });
        for (const [name, s] of seeds) {
            if (s.parts.length === 0) continue;
            fs.writeFileSync(`${dir}/hostile-${name}`,
                Buffer.concat([Buffer.from([s.conn.maxStreamsBase === 0 ? 0 : 7, 0]), ...s.parts]));
        }
    } catch (e) {
        process.stderr.write(`seed: ${e.message}\n`);
    }
}
process.on('SIGTERM', () => { writeSeeds(); process.exit(0); });
process.on('SIGINT', () => { writeSeeds(); process.exit(0); });
