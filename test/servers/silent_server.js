// test/servers/silent_server.js — a TCP server that accepts every connection and
// never sends a byte (nor closes): a peer that stalls a TLS handshake.
//
//   node test/servers/silent_server.js PORT LOGFILE
//
// Listens on 127.0.0.1:PORT; appends {"connId","bytes"} to LOGFILE for each
// connection when it ends (bytes: what the client sent, e.g. its
// ClientHello). Prints "listening" on stdout once ready. No npm dependencies.
'use strict';

const net = require('net');
const fs = require('fs');

const port = Number(process.argv[2]);
const logfile = process.argv[3];
if (!Number.isInteger(port) || port <= 0 || port > 65535 || !logfile) {
    process.stderr.write('usage: node silent_server.js PORT LOGFILE\n');
    process.exit(2);
}

let nextConnId = 0;
const socks = new Set();
const server = net.createServer((sock) => {
    nextConnId += 1;
    const id = nextConnId;
    let bytes = 0;
    socks.add(sock);
    sock.on('data', (d) => { bytes += d.length; });
    sock.on('error', () => {});
    sock.on('close', () => {
        socks.delete(sock);
        fs.appendFileSync(logfile, JSON.stringify({ connId: id, bytes }) + '\n');
    });
});

server.listen(port, '127.0.0.1', () => {
    process.stdout.write('listening\n');
});

const stop = () => {
    for (const s of socks) s.destroy();
    server.close();
    process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
