// test/servers/h3_fetch.js — a reference HTTP/3 client for the HTTP/3 tests: Bun's
// fetch() with { protocol: "h3" } (Bun 1.4's experimental HTTP/3 client,
// lsquic). The suites use it to confirm that a server, or the path through
// test/servers/udp_impair.js, really serves HTTP/3 before they judge shb against
// it; it is not what is under test. Runs under Bun only.
//
//   bun test/servers/h3_fetch.js URL [N [CONCURRENCY [METHOD [BODY]]]]
//
// Makes N requests (default 1), CONCURRENCY at a time (default N), each
// with a 10 s timeout; certificates are not checked. Prints one JSON line:
//   {"ok": n, "failed": n, "statusCodes": {"200": n, ...}, "bodyBytes": n,
//    "altSvc": n (responses with an alt-svc header: Bun and Caddy send one
//    over TCP only), "firstError": "...", "ms": n}
// and exits 0 when every request got a response, 1 otherwise.
const [url, nArg, cArg, method = 'GET', body] = process.argv.slice(2);
if (!url || typeof Bun === 'undefined') {
    process.stderr.write('usage: bun h3_fetch.js URL [N [CONCURRENCY [METHOD [BODY]]]]\n');
    process.exit(2);
}
const n = Number(nArg || 1);
const conc = Math.max(1, Number(cArg || n));
const t0 = Date.now();
const out = { ok: 0, failed: 0, statusCodes: {}, bodyBytes: 0, altSvc: 0, firstError: null, ms: 0 };

async function one() {
    try {
        const r = await fetch(url, {
            method,
            body: body === undefined ? undefined : body,
            protocol: 'h3',
            tls: { rejectUnauthorized: false },
            signal: AbortSignal.timeout(10000),
        });
        const b = await r.arrayBuffer();
        out.ok++;
        out.statusCodes[r.status] = (out.statusCodes[r.status] || 0) + 1;
        out.bodyBytes += b.byteLength;
        if (r.headers.has('alt-svc')) out.altSvc++;
    } catch (e) {
        out.failed++;
        if (out.firstError === null) out.firstError = String(e && (e.code || e.message || e));
    }
}

let next = 0;
async function lane() {
    while (next < n) {
        next++;
        await one();
    }
}
await Promise.all(Array.from({ length: Math.min(conc, n) }, lane));
out.ms = Date.now() - t0;
process.stdout.write(JSON.stringify(out) + '\n');
process.exit(out.failed === 0 ? 0 : 1);
