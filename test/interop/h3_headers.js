// test/interop/h3_headers.js — Bun's fetch over HTTP/3 ({ protocol: "h3" })
// fetches URL once and prints {"status", "headers" (how many), "big" (how
// many x-hNN headers of 1000 bytes), "headerBytes"}: the interop matrix's
// check that a server really sends its 48 KB of headers over HTTP/3.
const url = process.argv[2];
try {
    const r = await fetch(url, { protocol: 'h3', tls: { rejectUnauthorized: false }, signal: AbortSignal.timeout(10000) });
    await r.arrayBuffer();
    let n = 0, big = 0, bytes = 0;
    for (const [k, v] of r.headers) {
        n++;
        bytes += k.length + v.length;
        if (/^x-h[0-9]{2}$/.test(k) && v.length === 1000) big++;
    }
    console.log(JSON.stringify({ status: r.status, headers: n, big, headerBytes: bytes }));
} catch (e) {
    console.log(JSON.stringify({ error: String(e) }));
    process.exit(1);
}
