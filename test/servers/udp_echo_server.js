// test/servers/udp_echo_server.js — a UDP echo server on 127.0.0.1, for checking
// test/servers/udp_impair.js without a QUIC client (test/e2e/e2e_h3.sh; driven by
// `node test/servers/udp_probe.js echo`).
//
//   node test/servers/udp_echo_server.js PORT LOGFILE
//
// Sends every datagram back to where it came from. LOGFILE gets one JSON
// line per datagram: {"from": the sender's port, "len": its length}. Prints
// "listening PORT" once bound (test/e2e/lib.sh start_node_server). No
// dependencies; node 18+ or Bun.
'use strict';
const dgram = require('dgram');
const fs = require('fs');

const [portArg, logfile] = process.argv.slice(2);
const port = Number(portArg);
if (!Number.isInteger(port) || port < 1 || port > 65535 || !logfile) {
    process.stderr.write('usage: node udp_echo_server.js PORT LOGFILE\n');
    process.exit(2);
}
const s = dgram.createSocket('udp4');
s.on('message', (m, r) => {
    fs.appendFileSync(logfile, JSON.stringify({ from: r.port, len: m.length }) + '\n');
    s.send(m, r.port, r.address);
});
s.on('error', (e) => {
    process.stderr.write(`udp_echo_server: ${e.code || e.message}\n`);
    process.exit(1);
});
s.bind(port, '127.0.0.1', () => process.stdout.write(`listening ${port}\n`));
const stop = () => process.exit(0);
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
