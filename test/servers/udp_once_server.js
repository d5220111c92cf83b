// test/servers/udp_once_server.js — answers one datagram on 127.0.0.1, then closes
// its port, for checking that shb's HTTP/3 client ignores the ICMP port
// unreachable that follows once a server has sent something
// (test/e2e/e2e_h3.sh).
//
//   node test/servers/udp_once_server.js PORT LOGFILE
//
// The first datagram gets 64 bytes of zeros back (no QUIC packet: the
// client drops it); then the socket closes, so every later datagram to
// PORT draws an ICMP port unreachable. LOGFILE gets one JSON line for that
// datagram: {"from": the sender's port, "len": its length}. Prints
// "listening PORT" once bound (test/e2e/lib.sh start_node_server). No
// dependencies; node 18+ or Bun.
'use strict';
const dgram = require('dgram');
const fs = require('fs');

const [portArg, logfile] = process.argv.slice(2);
const port = Number(portArg);
if (!Number.isInteger(port) || port < 1 || port > 65535 || !logfile) {
    process.stderr.write('usage: node udp_once_server.js PORT LOGFILE\n');
    process.exit(2);
}
const s = dgram.createSocket('udp4');
s.once('message', (m, r) => {
    fs.appendFileSync(logfile, JSON.stringify({ from: r.port, len: m.length }) + '\n');
    s.send(Buffer.alloc(64), r.port, r.address, () => s.close());
});
s.on('error', (e) => {
    process.stderr.write(`udp_once_server: ${e.code || e.message}\n`);
    process.exit(1);
});
s.bind(port, '127.0.0.1', () => process.stdout.write(`listening ${port}\n`));
// The process stays (stopped by lib_cleanup), so nothing else takes the port.
setInterval(() => {}, 60000);
