// test/servers/udp_impair.js — a UDP impairment proxy for the HTTP/3 tests: it sits
// between shb and a QUIC server on loopback and loses, reorders, duplicates
// and delays datagrams, each decision drawn from a seeded PRNG, so that a
// seed gives the same sequence of decisions run after run.
//
//   node test/servers/udp_impair.js --listen PORT --upstream PORT [OPTION...]
//
// Listens on 127.0.0.1:LISTEN. Each client address (ip:port) gets its own
// upstream socket (bound to an ephemeral 127.0.0.1 port) that sends its
// datagrams to 127.0.0.1:UPSTREAM, so several QUIC connections through the
// proxy stay apart as the server sees them; what the server sends back on
// that socket goes to that client. "up" is client -> server, "down" is
// server -> client.
//
// Options (percentages may be fractional; each applies to both directions
// unless given per direction with the -up / -down form, which wins):
//   --seed N           PRNG seed (default 1); each direction has a PRNG of its own
//   --loss P           drop P % of datagrams (100: drop everything)
//   --reorder P        hold P % of datagrams back and send each after the next
//                      datagram of its flow and direction, or after
//                      --reorder-ms MS (default 10) if none comes by then
//   --dup P            send P % of datagrams twice
//   --delay MS         delay every forwarded datagram by MS milliseconds ...
//   --jitter MS        ... plus a uniform 0..MS more (jitter reorders too)
//   --loss-up P, --loss-down P, --reorder-up P, ..., --jitter-down MS
//   --upstream-host H  the server's address (default 127.0.0.1)
//   --idle S           forget a client after S seconds without traffic (default 120)
//
// Every datagram draws the same five numbers from its direction's PRNG
// (loss, reorder, duplicate, jitter, spare), whatever is decided, so the
// decision for the k-th datagram of a direction depends only on the seed
// and k.
//
// Prints "listening PORT" on stdout once bound. On SIGTERM or SIGINT it
// prints one JSON line of counters and exits 0:
//   {"up": {...}, "down": {...}, "clients": N, "config": {seed, up, down, reorderMs}}
// each direction: in (datagrams received), forwarded (sent on, duplicates
// not counted), dropped, reordered, duplicated, delayed, bytesIn, bytesOut
// (duplicates counted). A datagram held for reordering when the proxy stops
// counts as reordered and is never sent. SIGUSR2 prints the same line
// without exiting. No dependencies; runs on node 18+ and on Bun.
'use strict';
const dgram = require('dgram');

function usage(msg) {
    if (msg) process.stderr.write(`udp_impair: ${msg}\n`);
    process.stderr.write('usage: node udp_impair.js --listen PORT --upstream PORT [--seed N] ' +
        '[--loss P] [--reorder P] [--dup P] [--delay MS] [--jitter MS] [--reorder-ms MS] ' +
        '[--loss-up P --loss-down P ...] [--upstream-host H] [--idle S]\n');
    process.exit(2);
}

const KNOBS = ['loss', 'reorder', 'dup', 'delay', 'jitter'];
const opt = { listen: 0, upstream: 0, seed: 1, upstreamHost: '127.0.0.1', reorderMs: 10, idle: 120 };
const plain = {};                  // --loss P: both directions
const dirOpt = { up: {}, down: {} }; // --loss-up P: one direction; wins over plain
{
    const a = process.argv.slice(2);
    for (let i = 0; i < a.length; i++) {
        const m = /^--([a-z-]+)$/.exec(a[i]);
        if (!m) usage(`unexpected argument ${a[i]}`);
        const key = m[1];
        if (i + 1 >= a.length) usage(`--${key} needs a value`);
        const raw = a[++i];
        if (key === 'upstream-host') { opt.upstreamHost = raw; continue; }
        const v = Number(raw);
        if (raw === '' || !Number.isFinite(v) || v < 0) usage(`--${key}: not a non-negative number: ${raw}`);
        const km = /^(loss|reorder|dup|delay|jitter)(?:-(up|down))?$/.exec(key);
        if (km) {
            if (['loss', 'reorder', 'dup'].includes(km[1]) && v > 100) usage(`--${key}: over 100 %`);
            if (km[2]) dirOpt[km[2]][km[1]] = v;
            else plain[km[1]] = v;
        } else if (key === 'listen' || key === 'upstream') {
            if (!Number.isInteger(v) || v < 1 || v > 65535) usage(`--${key}: not a port: ${raw}`);
            opt[key] = v;
        } else if (key === 'seed') {
            if (!Number.isInteger(v)) usage(`--seed: not an integer: ${raw}`);
            opt.seed = v;
        } else if (key === 'reorder-ms') opt.reorderMs = v;
        else if (key === 'idle') opt.idle = v;
        else usage(`unknown option --${key}`);
    }
    if (!opt.listen || !opt.upstream) usage('--listen and --upstream are required');
    for (const d of ['up', 'down']) {
        for (const k of KNOBS) {
            if (dirOpt[d][k] === undefined) dirOpt[d][k] = plain[k] !== undefined ? plain[k] : 0;
        }
    }
}

// mulberry32: a 32-bit state PRNG, uniform in [0, 1).
function mulberry32(seed) {
    let s = seed >>> 0;
    return function () {
        s = (s + 0x6d2b79f5) >>> 0;
        let t = s;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

function newCounters() {
    return { in: 0, forwarded: 0, dropped: 0, reordered: 0, duplicated: 0, delayed: 0, bytesIn: 0, bytesOut: 0 };
}
const dirs = {
    up: { knobs: dirOpt.up, rand: mulberry32(opt.seed), c: newCounters() },
    down: { knobs: dirOpt.down, rand: mulberry32(opt.seed ^ 0x5bd1e995), c: newCounters() },
};

const front = dgram.createSocket('udp4');
const clients = new Map(); // "ip:port" -> { sock, addr, port, held: {up, down}, last }
let clientsSeen = 0;

// sendNow DIR CLIENT MSG: one datagram on its way in direction DIR.
function sendNow(dir, cl, msg) {
    dirs[dir].c.bytesOut += msg.length;
    const cb = () => {};
    if (dir === 'up') cl.sock.send(msg, opt.upstream, opt.upstreamHost, cb);
    else front.send(msg, cl.port, cl.addr, cb);
}
// emit DIR CLIENT MSG DELAY COPIES: COPIES datagrams now (DELAY 0) or after DELAY ms.
function emit(dir, cl, msg, delayMs, copies) {
    const go = () => { for (let i = 0; i < copies; i++) sendNow(dir, cl, msg); };
    if (delayMs > 0) setTimeout(go, delayMs);
    else go();
}
// flushHeld DIR CLIENT: sends the datagram held back for reordering, if any.
function flushHeld(dir, cl) {
    const h = cl.held[dir];
    if (!h) return;
    cl.held[dir] = null;
    clearTimeout(h.timer);
    emit(dir, cl, h.msg, h.delayMs, h.copies);
}

function impair(dir, cl, msg) {
    const d = dirs[dir];
    const k = d.knobs;
    d.c.in++;
    d.c.bytesIn += msg.length;
    cl.last = Date.now();
    // Always five draws, whatever is decided (see the header).
    const rLoss = d.rand(), rReorder = d.rand(), rDup = d.rand(), rJitter = d.rand();
    d.rand();
    if (rLoss * 100 < k.loss) {
        d.c.dropped++;
        return;
    }
    d.c.forwarded++;
    const copies = rDup * 100 < k.dup ? 2 : 1;
    if (copies === 2) d.c.duplicated++;
    const delayMs = k.delay + rJitter * k.jitter;
    if (delayMs > 0) d.c.delayed++;
    if (rReorder * 100 < k.reorder && !cl.held[dir]) {
        d.c.reordered++;
        const h = { msg, delayMs, copies, timer: null };
        h.timer = setTimeout(() => {
            if (cl.held[dir] === h) flushHeld(dir, cl);
        }, opt.reorderMs);
        cl.held[dir] = h;
        return;
    }
    emit(dir, cl, msg, delayMs, copies);
    flushHeld(dir, cl); // the held one goes after this one
}

front.on('message', (msg, rinfo) => {
    const key = `${rinfo.address}:${rinfo.port}`;
    let cl = clients.get(key);
    if (!cl) {
        const sock = dgram.createSocket('udp4');
        cl = { sock, addr: rinfo.address, port: rinfo.port, held: { up: null, down: null }, last: Date.now(), ready: false, queue: [] };
        clients.set(key, cl);
        clientsSeen++;
        const c = cl;
        sock.on('message', (m) => impair('down', c, m));
        sock.on('error', () => {}); // e.g. ECONNREFUSED from an ICMP: the datagram is lost, as on a network
        sock.bind(0, '127.0.0.1', () => {
            c.ready = true;
            for (const m of c.queue) impair('up', c, m);
            c.queue = [];
        });
    }
    if (!cl.ready) cl.queue.push(msg);
    else impair('up', cl, msg);
});
front.on('error', (e) => {
    process.stderr.write(`udp_impair: ${e.code || e.message} on 127.0.0.1:${opt.listen}\n`);
    process.exit(1);
});

// Forget idle clients (their upstream socket is closed).
const sweeper = setInterval(() => {
    const now = Date.now();
    for (const [key, cl] of clients) {
        if (now - cl.last > opt.idle * 1000) {
            clients.delete(key);
            try { cl.sock.close(); } catch (e) { /* already closed */ }
        }
    }
}, 1000);
if (sweeper.unref) sweeper.unref();

function countersLine() {
    return JSON.stringify({
        up: dirs.up.c, down: dirs.down.c, clients: clientsSeen,
        config: { seed: opt.seed, up: dirOpt.up, down: dirOpt.down, reorderMs: opt.reorderMs },
    }) + '\n';
}

let stopping = false;
function stop() {
    if (stopping) return;
    stopping = true;
    const line = countersLine();
    // Exit once the line is written (stdout may be a pipe).
    if (!process.stdout.write(line)) process.stdout.once('drain', () => process.exit(0));
    else process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.on('SIGUSR2', () => process.stdout.write(countersLine()));

front.bind(opt.listen, '127.0.0.1', () => {
    process.stdout.write(`listening ${opt.listen}\n`);
});
