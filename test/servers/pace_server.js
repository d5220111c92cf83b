// test/servers/pace_server.js — an HTTP/1.1 server for the open-model tests
// (test/e2e/e2e_rate.sh) that records when each request arrived, and can stall.
//
//   node test/servers/pace_server.js PORT LOGFILE [stall=MS/EVERY] [delay=MS]
//
// Listens on 127.0.0.1:PORT and answers every request 200 "ok\n". The clock
// starts at the first request: each request appends {"t": microseconds since
// then, "conn": connection number} to LOGFILE before it is answered.
//   stall=MS/EVERY  the last MS of every EVERY milliseconds (from the first
//                   request: with stall=500/2000, 1.5 s to 2 s, 3.5 s to 4 s,
//                   ...) the server answers nothing; what arrives meanwhile
//                   is answered when the stall ends.
//   delay=MS        every response waits MS milliseconds.
// Prints "listening" on stdout once ready. No npm dependencies.
'use strict';

const http = require('http');
const fs = require('fs');

const port = Number(process.argv[2]);
const logfile = process.argv[3];
if (!Number.isInteger(port) || port <= 0 || port > 65535 || !logfile) {
    process.stderr.write('usage: node pace_server.js PORT LOGFILE [stall=MS/EVERY] [delay=MS]\n');
    process.exit(2);
}
let stallMs = 0, everyMs = 0, delayMs = 0;
for (const arg of process.argv.slice(4)) {
    let m;
    if ((m = /^stall=([0-9]+)\/([0-9]+)$/.exec(arg)) && Number(m[1]) < Number(m[2])) {
        stallMs = Number(m[1]);
        everyMs = Number(m[2]);
    } else if ((m = /^delay=([0-9]+)$/.exec(arg))) {
        delayMs = Number(m[1]);
    } else {
        process.stderr.write(`pace_server.js: bad argument ${arg}\n`);
        process.exit(2);
    }
}

const log = fs.openSync(logfile, 'a');
let t0 = null;
let nextConn = 0;

function nowUs() {
    return Number(process.hrtime.bigint() / 1000n);
}

// Milliseconds until the stall that holds time t (us since t0) ends; 0
// outside a stall.
function stallLeftMs(t) {
    if (!everyMs)
        return 0;
    const inPeriod = (t / 1000) % everyMs;
    return inPeriod >= everyMs - stallMs ? everyMs - inPeriod : 0;
}

const server = http.createServer((req, res) => {
    const now = nowUs();
    if (t0 === null)
        t0 = now;
    const t = now - t0;
    fs.writeSync(log, JSON.stringify({ t, conn: req.socket.connId }) + '\n');
    const answer = () => res.end('ok\n');
    req.resume();
    req.on('end', () => {
        const wait = Math.max(stallLeftMs(t), delayMs);
        if (wait > 0)
            setTimeout(answer, wait);
        else
            answer();
    });
});
server.keepAliveTimeout = 300000;
server.requestTimeout = 0;
server.on('connection', (sock) => {
    sock.connId = ++nextConn;
});
server.listen(port, '127.0.0.1', () => process.stdout.write('listening\n'));
