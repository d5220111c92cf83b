// test/hostile_udp_server.js — a misbehaving QUIC "server" on UDP, for
// test/e2e_hostile_udp.sh: it never completes (or even starts) a handshake,
// it only answers the client's datagrams in ways a QUIC v1 client must
// survive without a real server behind them.
//
//   node test/hostile_udp_server.js PORT LOG MODE
//
// Binds 127.0.0.1:PORT, prints "listening PORT" on stdout once ready, and
// appends one JSON line per event to LOG (appendFileSync: on disk before the
// reply goes out):
//   {"event":"datagram", "from" (the client's port), "len", "long" (a long
//    header), "type" (long header: 0 Initial .. 3 Retry), "version" (hex),
//    "dcid", "scid" (hex; long header only), "t" (ms since start)}
//   {"event":"reply", "from", "kind" (the mode), "len", "dcid", "scid",
//    "versions" (vn modes)}
//   {"event":"error", "message"}
// Each datagram gets at most one reply, to where it came from.
//
// Modes:
//   silent      never answers
//   garbage     answers every datagram with 1..1200 random bytes
//   vn          a Version Negotiation packet (RFC 9000 §17.2.1) listing
//               0xff00001d (draft 29) and 0x709a50c4 (QUIC v2), its DCID
//               the client's SCID and its SCID the client's DCID: the client
//               must give up (§6.2)
//   vn-with-v1  the same, listing 0xff00001d and 0x00000001 (version 1): the
//               client must ignore it (§6.2: a VN naming the version in use)
//   vn-wrong-cid  the VN of mode vn with the connection IDs not swapped (its
//               DCID the client's DCID): not for the client's connection,
//               which must ignore it
//   badretry    a Retry (§17.2.5) to the client's SCID, a fresh SCID, a
//               16-byte token and a random Retry Integrity Tag: it does not
//               verify (RFC 9001 §5.8), so the client must drop it
//   reset       a short-header datagram of 43 random bytes (fixed bit set):
//               the shape of a stateless reset (§10.3), before any token
//               could be known: the client must drop it
//   other-cid   a 1200-byte Initial-looking packet (version 1) whose DCID is
//               not the client's SCID, random payload: dropped (§5.2)
// Only datagrams that parse as a client's long header (fixed bit, version,
// connection IDs of at most 20 bytes) are answered in the modes that echo
// connection IDs; others are logged and ignored.
//
// Stops on SIGTERM/SIGINT. No dependencies; node 18+.
'use strict';

const dgram = require('dgram');
const fs = require('fs');
const crypto = require('crypto');

const MODES = ['silent', 'garbage', 'vn', 'vn-with-v1', 'vn-wrong-cid', 'badretry', 'reset', 'other-cid'];
const [portArg, logfile, mode] = process.argv.slice(2);
const port = Number(portArg);
if (!Number.isInteger(port) || port < 1 || port > 65535 || !logfile || !MODES.includes(mode)) {
    process.stderr.write(`usage: node hostile_udp_server.js PORT LOG ${MODES.join('|')}\n`);
    process.exit(2);
}

const t0 = Date.now();
function log(o) {
    fs.appendFileSync(logfile, JSON.stringify(o) + '\n');
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

// A Version Negotiation packet: DCID the client's SCID and SCID its DCID,
// as §17.2.1 wants (swap false: the other way round).
function vn(h, versions, swap) {
    const head = Buffer.from([0x80 | crypto.randomInt(0, 128), 0, 0, 0, 0]);
    const list = Buffer.alloc(4 * versions.length);
    versions.forEach((v, i) => list.writeUInt32BE(v, 4 * i));
    const d = swap ? h.scid : h.dcid, sc = swap ? h.dcid : h.scid;
    return Buffer.concat([head, Buffer.from([d.length]), d, Buffer.from([sc.length]), sc, list]);
}

function retry(h) {
    const head = Buffer.from([0xf0 | crypto.randomInt(0, 16), 0, 0, 0, 1]);
    const scid = crypto.randomBytes(8);
    return Buffer.concat([head, Buffer.from([h.scid.length]), h.scid, Buffer.from([scid.length]), scid,
        crypto.randomBytes(16) /* token */, crypto.randomBytes(16) /* integrity tag */]);
}

function otherCid() {
    const dcid = crypto.randomBytes(8), scid = crypto.randomBytes(8);
    const head = Buffer.concat([Buffer.from([0xc0 | crypto.randomInt(0, 4), 0, 0, 0, 1, 8]), dcid,
        Buffer.from([8]), scid, Buffer.from([0])]); // token length 0
    const rest = 1200 - head.length - 2;
    const len = Buffer.from([0x40 | (rest >> 8), rest & 0xff]); // Length, a 2-byte varint
    return Buffer.concat([head, len, crypto.randomBytes(rest)]);
}

const s = dgram.createSocket('udp4');
s.on('message', (m, r) => {
    const h = parseLong(m);
    const hex = (b) => b.toString('hex');
    log({
        event: 'datagram', from: r.port, len: m.length, long: !!(m[0] & 0x80),
        type: h ? h.type : null, version: h ? h.version.toString(16).padStart(8, '0') : null,
        dcid: h ? hex(h.dcid) : null, scid: h ? hex(h.scid) : null, t: Date.now() - t0,
    });
    let out = null, versions;
    switch (mode) {
    case 'silent':
        break;
    case 'garbage':
        out = crypto.randomBytes(crypto.randomInt(1, 1201));
        break;
    case 'vn':
    case 'vn-with-v1':
    case 'vn-wrong-cid':
        if (!h || h.version === 0) break;
        versions = mode === 'vn-with-v1' ? [0xff00001d, 0x00000001] : [0xff00001d, 0x709a50c4];
        out = vn(h, versions, mode !== 'vn-wrong-cid');
        break;
    case 'badretry':
        if (h && h.type === 0) out = retry(h);
        break;
    case 'reset': {
        out = crypto.randomBytes(43);
        out[0] = 0x40 | (out[0] & 0x3f);
        break;
    }
    case 'other-cid':
        out = otherCid();
        break;
    }
    if (!out) return;
    const ph = parseLong(out);
    log({
        event: 'reply', from: r.port, kind: mode, len: out.length,
        dcid: ph ? hex(ph.dcid) : null, scid: ph ? hex(ph.scid) : null,
        versions: versions ? versions.map((v) => v.toString(16).padStart(8, '0')) : undefined,
    });
    s.send(out, r.port, r.address);
});
s.on('error', (e) => {
    log({ event: 'error', message: e.code || e.message });
    process.stderr.write(`hostile_udp_server: ${e.code || e.message}\n`);
    process.exit(1);
});
s.bind(port, '127.0.0.1', () => process.stdout.write(`listening ${port}\n`));
const stop = () => process.exit(0);
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
