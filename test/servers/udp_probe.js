// test/servers/udp_probe.js — small UDP tools for the HTTP/3 tests (no HTTP/3
// client is needed for any of them). No dependencies; node 18+ or Bun.
//
//   node test/servers/udp_probe.js vn PORT [TIMEOUT_MS]
//       Sends one 1200-byte QUIC long-header packet with an unknown version
//       (0x1a2a3a4a, a reserved one) to 127.0.0.1:PORT; a QUIC server must
//       answer with a Version Negotiation packet (RFC 9000 §6, §17.2.1).
//       Prints {"versions": ["00000001", ...], "echoedCids": true|false}
//       (whether the reply swapped our connection IDs as it must) and exits
//       0, or prints {"versions": null} and exits 1 if nothing came back.
//
//   node test/servers/udp_probe.js echo PORT CLIENTS COUNT [WAIT_MS]
//       (against test/servers/udp_echo_server.js, directly or through udp_impair.js)
//       CLIENTS sockets each send COUNT distinct datagrams ("c<i>-<k>",
//       padded to 100 + k bytes) to 127.0.0.1:PORT, 2 ms apart, then wait
//       WAIT_MS (default 1000) for echoes. Prints
//       {"sent": n, "received": n, "crossed": n, "unique": n, "inOrder": bool,
//        "perClient": [n, ...]}
//       crossed: echoes that came back to a socket other than their sender
//       (a proxy that mixes clients up); unique: distinct payloads received;
//       inOrder: every socket saw its echoes in the order sent.
'use strict';
const dgram = require('dgram');

const [mode, portArg, ...rest] = process.argv.slice(2);
const port = Number(portArg);
if (!mode || !Number.isInteger(port) || port < 1 || port > 65535) {
    process.stderr.write('usage: node udp_probe.js vn|echo PORT ...\n');
    process.exit(2);
}

if (mode === 'vn') {
    const limit = Number(rest[0] || 2000);
    const s = dgram.createSocket('udp4');
    const dcid = Buffer.from([0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88]);
    const scid = Buffer.from([0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7]);
    const pkt = Buffer.alloc(1200);
    pkt[0] = 0xc0; // long header, fixed bit, Initial
    pkt.writeUInt32BE(0x1a2a3a4a, 1);
    pkt[5] = dcid.length;
    dcid.copy(pkt, 6);
    pkt[14] = scid.length;
    scid.copy(pkt, 15);
    s.on('message', (m) => {
        if (m.length < 7 || !(m[0] & 0x80) || m.readUInt32BE(1) !== 0) return;
        let o = 5;
        const dl = m[o];
        const d = m.subarray(o + 1, o + 1 + dl);
        o += 1 + dl;
        const sl = m[o];
        const sc = m.subarray(o + 1, o + 1 + sl);
        o += 1 + sl;
        const versions = [];
        for (; o + 4 <= m.length; o += 4) versions.push(m.readUInt32BE(o).toString(16).padStart(8, '0'));
        process.stdout.write(JSON.stringify({ versions, echoedCids: d.equals(scid) && sc.equals(dcid) }) + '\n');
        process.exit(0);
    });
    s.bind(0, '127.0.0.1', () => s.send(pkt, port, '127.0.0.1'));
    setTimeout(() => {
        process.stdout.write('{"versions": null}\n');
        process.exit(1);
    }, limit);
} else if (mode === 'echo') {
    const nClients = Number(rest[0] || 1), count = Number(rest[1] || 10), wait = Number(rest[2] || 1000);
    const socks = [];
    const got = [];
    let crossed = 0, received = 0, sent = 0;
    const seen = new Set();
    let ready = 0;
    for (let i = 0; i < nClients; i++) {
        const s = dgram.createSocket('udp4');
        got.push([]);
        s.on('message', (m) => {
            received++;
            const t = /^c([0-9]+)-([0-9]+)/.exec(m.toString('latin1'));
            if (!t || Number(t[1]) !== i) crossed++;
            else got[i].push(Number(t[2]));
            seen.add(m.toString('latin1'));
        });
        socks.push(s);
        s.bind(0, '127.0.0.1', () => {
            if (++ready === nClients) start();
        });
    }
    function start() {
        let k = 0;
        const tick = setInterval(() => {
            if (k >= count) {
                clearInterval(tick);
                setTimeout(done, wait);
                return;
            }
            for (let i = 0; i < nClients; i++) {
                const head = Buffer.from(`c${i}-${k}-`, 'latin1');
                const m = Buffer.alloc(100 + k, 0x2e);
                head.copy(m);
                socks[i].send(m, port, '127.0.0.1');
                sent++;
            }
            k++;
        }, 2);
    }
    function done() {
        const inOrder = got.every((a) => a.every((v, j) => j === 0 || a[j - 1] < v));
        process.stdout.write(JSON.stringify({
            sent, received, crossed, unique: seen.size, inOrder, perClient: got.map((a) => a.length),
        }) + '\n');
        process.exit(0);
    }
} else {
    process.stderr.write(`udp_probe: unknown mode ${mode}\n`);
    process.exit(2);
}
