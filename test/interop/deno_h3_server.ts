// test/interop/deno_h3_server.ts — an HTTP/3 server on Deno's own QUIC stack
// (Deno.QuicEndpoint, --unstable-net: quinn, a Rust QUIC implementation, over
// rustls), the third independent QUIC stack of shb's interop matrix beside
// Caddy (quic-go) and Bun (lsquic).
//
//   deno run --unstable-net --allow-net --allow-read \
//       test/interop/deno_h3_server.ts PORT CERT KEY CASE
//
// Deno gives raw QUIC streams only (Deno.serve has no HTTP/3), so the thin
// HTTP/3 layer is here: RFC 9114 framing, and QPACK (RFC 9204) without a
// dynamic table: we advertise QPACK_MAX_TABLE_CAPACITY 0, decode request
// field sections made of static references and literals (Huffman-coded or
// not), and encode responses with static references and plain literals.
// Transport, TLS, loss recovery and flow control are all quinn's.
//
// Listens on UDP 127.0.0.1:PORT (ALPN h3) with the PEM certificate chain CERT
// and key KEY. Prints "listening PORT" on stdout once ready. CASE:
//   normal      every request: 200, content-type text/plain, body "ok"
//   bigheaders  the same with 48 more response header fields of 1 KB each
//               (x-big-00 .. x-big-47: a 48 KB field section)
//   close5      as normal, but after answering the 5th request on a
//               connection the server sends GOAWAY (RFC 9114 §5.2) with the
//               id after the highest request stream it has seen; later
//               request streams are left unanswered (see serveStream); once
//               every request below the GOAWAY is answered, the client
//               has CLOSE_GRACE_MS to close the connection itself, and if
//               it has not, the server closes it with H3_NO_ERROR
//   stopsending as normal, but each request stream is read no further: the
//               server stops it (STOP_SENDING, code 0x0: all Deno can say)
//               before it answers 200 "ok" in full (RFC 9114 §4.1.1, §8)
//   interop     the interop matrix's three cases by :path (test/interop/interop.sh):
//               / as normal; /h48 with 48 fields x-h01 .. x-h48 of 1000
//               bytes ("a"); /c5 as close5 (the GOAWAY after the 5th answer
//               on a connection)
// On stderr: one line per connection when it ends ("conn N: R requests
// answered, closed by ..."); with DENO_H3_DEBUG=1 in the environment (and
// --allow-env=DENO_H3_DEBUG), also each request's decoded field lines. A
// request stream whose field section does not decode, or lacks :method,
// :scheme, :path or :authority/host, gets 400.

const CLOSE_GRACE_MS = 300;
const DEBUG = Deno.permissions.querySync({ name: "env", variable: "DENO_H3_DEBUG" }).state === "granted" &&
  Deno.env.get("DENO_H3_DEBUG") === "1";
const H3_NO_ERROR = 0x100;

const [portArg, certFile, keyFile, mode = "normal"] = Deno.args;
const port = Number(portArg);
if (portArg !== "selftest" && (!Number.isInteger(port) || port <= 0 || port > 65535 || !certFile || !keyFile ||
    !["normal", "bigheaders", "close5", "stopsending", "interop"].includes(mode))) {
  console.error("usage: deno_h3_server.ts PORT CERT KEY normal|bigheaders|close5|stopsending|interop\n" +
    "       deno_h3_server.ts selftest");
  Deno.exit(2);
}

// ---------------------------------------------------------------- QPACK

// RFC 9204 Appendix A (generated from the RFC text; wrapped values joined).
const STATIC: [string, string][] = [
    [":authority", ""], // 0
    [":path", "/"], // 1
    ["age", "0"], // 2
    ["content-disposition", ""], // 3
    ["content-length", "0"], // 4
    ["cookie", ""], // 5
    ["date", ""], // 6
    ["etag", ""], // 7
    ["if-modified-since", ""], // 8
    ["if-none-match", ""], // 9
    ["last-modified", ""], // 10
    ["link", ""], // 11
    ["location", ""], // 12
    ["referer", ""], // 13
    ["set-cookie", ""], // 14
    [":method", "CONNECT"], // 15
    [":method", "DELETE"], // 16
    [":method", "GET"], // 17
    [":method", "HEAD"], // 18
    [":method", "OPTIONS"], // 19
    [":method", "POST"], // 20
    [":method", "PUT"], // 21
    [":scheme", "http"], // 22
    [":scheme", "https"], // 23
    [":status", "103"], // 24
    [":status", "200"], // 25
    [":status", "304"], // 26
    [":status", "404"], // 27
    [":status", "503"], // 28
    ["accept", "*/*"], // 29
    ["accept", "application/dns-message"], // 30
    ["accept-encoding", "gzip, deflate, br"], // 31
    ["accept-ranges", "bytes"], // 32
    ["access-control-allow-headers", "cache-control"], // 33
    ["access-control-allow-headers", "content-type"], // 34
    ["access-control-allow-origin", "*"], // 35
    ["cache-control", "max-age=0"], // 36
    ["cache-control", "max-age=2592000"], // 37
    ["cache-control", "max-age=604800"], // 38
    ["cache-control", "no-cache"], // 39
    ["cache-control", "no-store"], // 40
    ["cache-control", "public, max-age=31536000"], // 41
    ["content-encoding", "br"], // 42
    ["content-encoding", "gzip"], // 43
    ["content-type", "application/dns-message"], // 44
    ["content-type", "application/javascript"], // 45
    ["content-type", "application/json"], // 46
    ["content-type", "application/x-www-form-urlencoded"], // 47
    ["content-type", "image/gif"], // 48
    ["content-type", "image/jpeg"], // 49
    ["content-type", "image/png"], // 50
    ["content-type", "text/css"], // 51
    ["content-type", "text/html; charset=utf-8"], // 52
    ["content-type", "text/plain"], // 53
    ["content-type", "text/plain;charset=utf-8"], // 54
    ["range", "bytes=0-"], // 55
    ["strict-transport-security", "max-age=31536000"], // 56
    ["strict-transport-security", "max-age=31536000; includesubdomains"], // 57
    ["strict-transport-security", "max-age=31536000; includesubdomains; preload"], // 58
    ["vary", "accept-encoding"], // 59
    ["vary", "origin"], // 60
    ["x-content-type-options", "nosniff"], // 61
    ["x-xss-protection", "1; mode=block"], // 62
    [":status", "100"], // 63
    [":status", "204"], // 64
    [":status", "206"], // 65
    [":status", "302"], // 66
    [":status", "400"], // 67
    [":status", "403"], // 68
    [":status", "421"], // 69
    [":status", "425"], // 70
    [":status", "500"], // 71
    ["accept-language", ""], // 72
    ["access-control-allow-credentials", "FALSE"], // 73
    ["access-control-allow-credentials", "TRUE"], // 74
    ["access-control-allow-headers", "*"], // 75
    ["access-control-allow-methods", "get"], // 76
    ["access-control-allow-methods", "get, post, options"], // 77
    ["access-control-allow-methods", "options"], // 78
    ["access-control-expose-headers", "content-length"], // 79
    ["access-control-request-headers", "content-type"], // 80
    ["access-control-request-method", "get"], // 81
    ["access-control-request-method", "post"], // 82
    ["alt-svc", "clear"], // 83
    ["authorization", ""], // 84
    ["content-security-policy", "script-src 'none'; object-src 'none'; base-uri 'none'"], // 85
    ["early-data", "1"], // 86
    ["expect-ct", ""], // 87
    ["forwarded", ""], // 88
    ["if-range", ""], // 89
    ["origin", ""], // 90
    ["purpose", "prefetch"], // 91
    ["server", ""], // 92
    ["timing-allow-origin", "*"], // 93
    ["upgrade-insecure-requests", "1"], // 94
    ["user-agent", ""], // 95
    ["x-forwarded-for", ""], // 96
    ["x-frame-options", "deny"], // 97
    ["x-frame-options", "sameorigin"], // 98
];

// RFC 7541 Appendix B: [code, bit length] for symbols 0..256 (256 is EOS).
const HUFF: [number, number][] = [
    [0x1ff8,13], [0x7fffd8,23], [0xfffffe2,28], [0xfffffe3,28], [0xfffffe4,28], [0xfffffe5,28], [0xfffffe6,28], [0xfffffe7,28],
    [0xfffffe8,28], [0xffffea,24], [0x3ffffffc,30], [0xfffffe9,28], [0xfffffea,28], [0x3ffffffd,30], [0xfffffeb,28], [0xfffffec,28],
    [0xfffffed,28], [0xfffffee,28], [0xfffffef,28], [0xffffff0,28], [0xffffff1,28], [0xffffff2,28], [0x3ffffffe,30], [0xffffff3,28],
    [0xffffff4,28], [0xffffff5,28], [0xffffff6,28], [0xffffff7,28], [0xffffff8,28], [0xffffff9,28], [0xffffffa,28], [0xffffffb,28],
    [0x14,6], [0x3f8,10], [0x3f9,10], [0xffa,12], [0x1ff9,13], [0x15,6], [0xf8,8], [0x7fa,11],
    [0x3fa,10], [0x3fb,10], [0xf9,8], [0x7fb,11], [0xfa,8], [0x16,6], [0x17,6], [0x18,6],
    [0x0,5], [0x1,5], [0x2,5], [0x19,6], [0x1a,6], [0x1b,6], [0x1c,6], [0x1d,6],
    [0x1e,6], [0x1f,6], [0x5c,7], [0xfb,8], [0x7ffc,15], [0x20,6], [0xffb,12], [0x3fc,10],
    [0x1ffa,13], [0x21,6], [0x5d,7], [0x5e,7], [0x5f,7], [0x60,7], [0x61,7], [0x62,7],
    [0x63,7], [0x64,7], [0x65,7], [0x66,7], [0x67,7], [0x68,7], [0x69,7], [0x6a,7],
    [0x6b,7], [0x6c,7], [0x6d,7], [0x6e,7], [0x6f,7], [0x70,7], [0x71,7], [0x72,7],
    [0xfc,8], [0x73,7], [0xfd,8], [0x1ffb,13], [0x7fff0,19], [0x1ffc,13], [0x3ffc,14], [0x22,6],
    [0x7ffd,15], [0x3,5], [0x23,6], [0x4,5], [0x24,6], [0x5,5], [0x25,6], [0x26,6],
    [0x27,6], [0x6,5], [0x74,7], [0x75,7], [0x28,6], [0x29,6], [0x2a,6], [0x7,5],
    [0x2b,6], [0x76,7], [0x2c,6], [0x8,5], [0x9,5], [0x2d,6], [0x77,7], [0x78,7],
    [0x79,7], [0x7a,7], [0x7b,7], [0x7ffe,15], [0x7fc,11], [0x3ffd,14], [0x1ffd,13], [0xffffffc,28],
    [0xfffe6,20], [0x3fffd2,22], [0xfffe7,20], [0xfffe8,20], [0x3fffd3,22], [0x3fffd4,22], [0x3fffd5,22], [0x7fffd9,23],
    [0x3fffd6,22], [0x7fffda,23], [0x7fffdb,23], [0x7fffdc,23], [0x7fffdd,23], [0x7fffde,23], [0xffffeb,24], [0x7fffdf,23],
    [0xffffec,24], [0xffffed,24], [0x3fffd7,22], [0x7fffe0,23], [0xffffee,24], [0x7fffe1,23], [0x7fffe2,23], [0x7fffe3,23],
    [0x7fffe4,23], [0x1fffdc,21], [0x3fffd8,22], [0x7fffe5,23], [0x3fffd9,22], [0x7fffe6,23], [0x7fffe7,23], [0xffffef,24],
    [0x3fffda,22], [0x1fffdd,21], [0xfffe9,20], [0x3fffdb,22], [0x3fffdc,22], [0x7fffe8,23], [0x7fffe9,23], [0x1fffde,21],
    [0x7fffea,23], [0x3fffdd,22], [0x3fffde,22], [0xfffff0,24], [0x1fffdf,21], [0x3fffdf,22], [0x7fffeb,23], [0x7fffec,23],
    [0x1fffe0,21], [0x1fffe1,21], [0x3fffe0,22], [0x1fffe2,21], [0x7fffed,23], [0x3fffe1,22], [0x7fffee,23], [0x7fffef,23],
    [0xfffea,20], [0x3fffe2,22], [0x3fffe3,22], [0x3fffe4,22], [0x7ffff0,23], [0x3fffe5,22], [0x3fffe6,22], [0x7ffff1,23],
    [0x3ffffe0,26], [0x3ffffe1,26], [0xfffeb,20], [0x7fff1,19], [0x3fffe7,22], [0x7ffff2,23], [0x3fffe8,22], [0x1ffffec,25],
    [0x3ffffe2,26], [0x3ffffe3,26], [0x3ffffe4,26], [0x7ffffde,27], [0x7ffffdf,27], [0x3ffffe5,26], [0xfffff1,24], [0x1ffffed,25],
    [0x7fff2,19], [0x1fffe3,21], [0x3ffffe6,26], [0x7ffffe0,27], [0x7ffffe1,27], [0x3ffffe7,26], [0x7ffffe2,27], [0xfffff2,24],
    [0x1fffe4,21], [0x1fffe5,21], [0x3ffffe8,26], [0x3ffffe9,26], [0xffffffd,28], [0x7ffffe3,27], [0x7ffffe4,27], [0x7ffffe5,27],
    [0xfffec,20], [0xfffff3,24], [0xfffed,20], [0x1fffe6,21], [0x3fffe9,22], [0x1fffe7,21], [0x1fffe8,21], [0x7ffff3,23],
    [0x3fffea,22], [0x3fffeb,22], [0x1ffffee,25], [0x1ffffef,25], [0xfffff4,24], [0xfffff5,24], [0x3ffffea,26], [0x7ffff4,23],
    [0x3ffffeb,26], [0x7ffffe6,27], [0x3ffffec,26], [0x3ffffed,26], [0x7ffffe7,27], [0x7ffffe8,27], [0x7ffffe9,27], [0x7ffffea,27],
    [0x7ffffeb,27], [0xffffffe,28], [0x7ffffec,27], [0x7ffffed,27], [0x7ffffee,27], [0x7ffffef,27], [0x7fffff0,27], [0x3ffffee,26],
    [0x3fffffff,30],
];
const huffByLen = new Map<number, Map<number, number>>();
HUFF.forEach(([code, len], sym) => {
  if (!huffByLen.has(len)) huffByLen.set(len, new Map());
  huffByLen.get(len)!.set(code, sym);
});

class QpackError extends Error {}

function huffDecode(b: Uint8Array): string {
  const out: number[] = [];
  let code = 0, len = 0;
  for (const byte of b) {
    for (let i = 7; i >= 0; i--) {
      code = (code << 1) | ((byte >> i) & 1);
      len++;
      const sym = huffByLen.get(len)?.get(code);
      if (sym !== undefined) {
        if (sym === 256) throw new QpackError("EOS in Huffman string");
        out.push(sym);
        code = 0;
        len = 0;
      } else if (len > 30) {
        throw new QpackError("bad Huffman code");
      }
    }
  }
  // Padding: at most 7 bits, all ones (RFC 7541 §5.2).
  if (len > 7 || code !== (1 << len) - 1) throw new QpackError("bad Huffman padding");
  return new TextDecoder().decode(new Uint8Array(out));
}

class Reader {
  pos = 0;
  constructor(public b: Uint8Array) {}
  byte(): number {
    if (this.pos >= this.b.length) throw new QpackError("truncated");
    return this.b[this.pos++];
  }
  // Prefix integer (RFC 9204 §4.1.1, RFC 7541 §5.1); first byte already read.
  int(first: number, bits: number): number {
    const mask = (1 << bits) - 1;
    let v = first & mask;
    if (v < mask) return v;
    let m = 0, b;
    do {
      b = this.byte();
      v += (b & 0x7f) * 2 ** m;
      m += 7;
      if (m > 49) throw new QpackError("integer too long");
    } while (b & 0x80);
    return v;
  }
  // String literal whose length has a `bits`-bit prefix and whose H flag is
  // the bit just above it, in the byte `first`.
  str(first: number, bits: number): string {
    const huff = (first >> bits) & 1;
    const n = this.int(first, bits);
    if (this.pos + n > this.b.length) throw new QpackError("truncated string");
    const s = this.b.subarray(this.pos, this.pos + n);
    this.pos += n;
    return huff ? huffDecode(s) : new TextDecoder().decode(s);
  }
}

function staticEntry(i: number): [string, string] {
  if (i >= STATIC.length) throw new QpackError(`static index ${i}`);
  return STATIC[i];
}

// A request's encoded field section -> [name, value] pairs.
function qpackDecode(section: Uint8Array): [string, string][] {
  const r = new Reader(section);
  const ric = r.int(r.byte(), 8);
  r.int(r.byte(), 7); // Sign + Delta Base: meaningless without a dynamic table
  if (ric !== 0) throw new QpackError("dynamic table reference (capacity 0)");
  const fields: [string, string][] = [];
  while (r.pos < section.length) {
    const b = r.byte();
    if (b & 0x80) { // §4.5.2 indexed field line
      if (!(b & 0x40)) throw new QpackError("dynamic indexed line");
      fields.push(staticEntry(r.int(b, 6)));
    } else if (b & 0x40) { // §4.5.4 literal with name reference
      if (!(b & 0x10)) throw new QpackError("dynamic name reference");
      const [name] = staticEntry(r.int(b, 4));
      fields.push([name, r.str(r.byte(), 7)]);
    } else if (b & 0x20) { // §4.5.6 literal with literal name
      const name = r.str(b, 3);
      fields.push([name, r.str(r.byte(), 7)]);
    } else { // §4.5.3, §4.5.5 post-base forms
      throw new QpackError("post-base reference");
    }
  }
  return fields;
}

function putInt(out: number[], prefixBits: number, flags: number, v: number) {
  const mask = (1 << prefixBits) - 1;
  if (v < mask) {
    out.push(flags | v);
    return;
  }
  out.push(flags | mask);
  v -= mask;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
}

function putStr(out: number[], prefixBits: number, flags: number, s: string) {
  const b = new TextEncoder().encode(s);
  putInt(out, prefixBits, flags, b.length); // H = 0: no Huffman
  for (const x of b) out.push(x);
}

// Response field section: static exact match -> indexed line, static name ->
// literal with name reference, else literal with literal name.
function qpackEncode(fields: [string, string][]): Uint8Array {
  const out: number[] = [0, 0]; // Required Insert Count 0, Base 0
  for (const [name, value] of fields) {
    let exact = -1, named = -1;
    STATIC.forEach(([n, v], i) => {
      if (n !== name) return;
      if (named < 0) named = i;
      if (v === value && exact < 0) exact = i;
    });
    if (exact >= 0) {
      putInt(out, 6, 0xc0, exact);
    } else if (named >= 0) {
      putInt(out, 4, 0x50, named);
      putStr(out, 7, 0x00, value);
    } else {
      putStr(out, 3, 0x20, name);
      putStr(out, 7, 0x00, value);
    }
  }
  return new Uint8Array(out);
}

// ---------------------------------------------------------------- HTTP/3

function varint(v: number | bigint): number[] {
  const n = BigInt(v);
  if (n < 64n) return [Number(n)];
  if (n < 16384n) return [0x40 | Number(n >> 8n), Number(n & 0xffn)];
  if (n < 1073741824n) {
    const x = Number(n);
    return [0x80 | (x >>> 24), (x >>> 16) & 0xff, (x >>> 8) & 0xff, x & 0xff];
  }
  const out = [];
  for (let i = 7; i >= 0; i--) out.push(Number((n >> BigInt(8 * i)) & 0xffn));
  out[0] |= 0xc0;
  return out;
}

function frame(type: number, payload: Uint8Array): Uint8Array {
  const h = [...varint(type), ...varint(payload.length)];
  const f = new Uint8Array(h.length + payload.length);
  f.set(h);
  f.set(payload, h.length);
  return f;
}

// Reads a varint at b[pos]; null when b ends first.
function readVarint(b: Uint8Array, pos: number): [bigint, number] | null {
  if (pos >= b.length) return null;
  const len = 1 << (b[pos] >> 6);
  if (pos + len > b.length) return null;
  let v = BigInt(b[pos] & 0x3f);
  for (let i = 1; i < len; i++) v = (v << 8n) | BigInt(b[pos + i]);
  return [v, pos + len];
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const c = new Uint8Array(a.length + b.length);
  c.set(a);
  c.set(b, a.length);
  return c;
}

const BIG_FIELDS: [string, string][] = [];
for (let i = 0; i < 48; i++) {
  BIG_FIELDS.push([`x-big-${String(i).padStart(2, "0")}`, "b".repeat(1024 - 8)]);
}

function response(status: number, body: string, extra: [string, string][] = []): Uint8Array {
  const b = new TextEncoder().encode(body);
  const fields: [string, string][] = [
    [":status", String(status)],
    ["content-type", "text/plain"],
    ["content-length", String(b.length)],
    ...extra,
  ];
  return concat(frame(0x01, qpackEncode(fields)), b.length ? frame(0x00, b) : new Uint8Array());
}

const RESP_OK = response(200, "ok", mode === "bigheaders" ? BIG_FIELDS : []);
const H48_FIELDS: [string, string][] = [];
for (let i = 1; i <= 48; i++) H48_FIELDS.push([`x-h${String(i).padStart(2, "0")}`, "a".repeat(1000)]);
const RESP_H48 = response(200, "ok", H48_FIELDS);
const RESP_400 = response(400, "bad request\n");

// Reads a request stream to its end: [HEADERS field section, body bytes].
async function readRequest(rs: ReadableStream<Uint8Array>): Promise<[Uint8Array | null, number]> {
  let buf: Uint8Array = new Uint8Array();
  for await (const chunk of rs) buf = concat(buf, chunk);
  let pos = 0, headers: Uint8Array | null = null, body = 0;
  while (pos < buf.length) {
    const t = readVarint(buf, pos);
    const l = t && readVarint(buf, t[1]);
    if (!t || !l || l[1] + Number(l[0]) > buf.length) throw new Error("frame cut by FIN");
    const payload = buf.subarray(l[1], l[1] + Number(l[0]));
    if (t[0] === 0x01n && headers === null) headers = payload;
    else if (t[0] === 0x00n && headers !== null) body += payload.length;
    else if (t[0] === 0x01n) { /* trailers: ignored */ }
    else if (t[0] <= 0x0dn) throw new Error(`frame type ${t[0]} on a request stream`);
    pos = l[1] + Number(l[0]);
  }
  return [headers, body];
}

function wellFormed(fields: [string, string][]): boolean {
  const get = (n: string) => fields.find(([k]) => k === n)?.[1];
  const m = get(":method"), p = get(":path"), s = get(":scheme");
  return !!m && !!p && !!s && (get(":authority") !== undefined || fields.some(([k]) => k === "host"));
}

let connSeq = 0;

async function drainUni(rs: ReadableStream<Uint8Array>) {
  try {
    for await (const _ of rs) { /* control / QPACK streams: nothing to act on */ }
  } catch { /* reset or connection gone */ }
}

async function serveConn(conn: Deno.QuicConn) {
  const n = ++connSeq;
  let answered = 0, outstanding = 0, maxSeen = -1n;
  let goawayId: bigint | null = null;
  let closedBy = "";
  let closeTimer: ReturnType<typeof setTimeout> | undefined;

  let cw: WritableStreamDefaultWriter<Uint8Array>;
  try {
    cw = (await conn.createUnidirectionalStream()).getWriter();
    // Stream type 0x00, SETTINGS: QPACK_MAX_TABLE_CAPACITY 0, QPACK_BLOCKED_STREAMS 0.
    await cw.write(new Uint8Array([0x00, ...frame(0x04, new Uint8Array([0x01, 0x00, 0x07, 0x00]))]));
  } catch (e) {
    console.error(`conn ${n}: gone before its control stream: ${(e as Error).message}`);
    return;
  }

  const maybeClose = () => {
    if (goawayId === null || outstanding > 0 || closeTimer !== undefined || closedBy) return;
    // Every request below the GOAWAY is answered: give the client a moment to
    // take the last bytes and close by itself, then close (H3_NO_ERROR).
    closeTimer = setTimeout(() => {
      if (closedBy) return;
      closedBy = "server";
      try {
        conn.close({ closeCode: H3_NO_ERROR, reason: "" });
      } catch { /* already closed */ }
    }, CLOSE_GRACE_MS);
  };

  const serveStream = async (bs: Deno.QuicBidirectionalStream) => {
    const id = bs.readable.id;
    if (id > maxSeen) maxSeen = id;
    if (goawayId !== null && id >= goawayId) {
      // §5.2: not processed, and the client knows it from the GOAWAY. Left
      // alone: Deno's streams cannot be reset with a code (cancel() is
      // STOP_SENDING 0, abort() a plain FIN), so H3_REQUEST_REJECTED cannot
      // be said; the connection's close ends the stream.
      return;
    }
    const w = bs.writable.getWriter();
    outstanding++;
    try {
      if (mode === "stopsending") {
        // RFC 9114 §4.1.1: a server that needs no more of the request may
        // stop reading it and still answer in full. Deno's cancel() is
        // quinn's stop(0): STOP_SENDING with code 0x0, which HTTP/3 does
        // not define, so the client must take it as H3_NO_ERROR (§8).
        await bs.readable.cancel();
        await w.write(RESP_OK);
        await w.close();
        answered++;
        return;
      }
      const [section] = await readRequest(bs.readable);
      let ok = false, path = "";
      if (section) {
        try {
          const fields = qpackDecode(section);
          if (DEBUG) console.error(`conn ${n} stream ${id}: ${JSON.stringify(fields)}`);
          ok = wellFormed(fields);
          path = fields.find(([k]) => k === ":path")?.[1] ?? "";
        } catch (e) {
          console.error(`conn ${n} stream ${id}: QPACK: ${(e as Error).message}`);
        }
      }
      await w.write(!ok ? RESP_400 : mode === "interop" && path === "/h48" ? RESP_H48 : RESP_OK);
      await w.close();
      answered++;
      const close5 = mode === "close5" || (mode === "interop" && path === "/c5");
      if (close5 && answered === 5 && goawayId === null) {
        goawayId = maxSeen + 4n;
        await cw.write(frame(0x07, new Uint8Array(varint(goawayId))));
      }
    } catch (e) {
      if (!closedBy) console.error(`conn ${n} stream ${id}: ${(e as Error).message}`);
    } finally {
      outstanding--;
      maybeClose();
    }
  };

  (async () => {
    try {
      for await (const rs of conn.incomingUnidirectionalStreams) drainUni(rs);
    } catch { /* connection gone */ }
  })();

  conn.closed.then((info) => {
    if (!closedBy) closedBy = `client (code 0x${info.closeCode.toString(16)})`;
  }, (e) => {
    if (!closedBy) closedBy = `error: ${(e as Error).message}`;
  }).finally(() => {
    if (closeTimer !== undefined) clearTimeout(closeTimer);
    console.error(`conn ${n}: ${answered} requests answered, closed by ${closedBy}`);
  });

  try {
    for await (const bs of conn.incomingBidirectionalStreams) serveStream(bs);
  } catch { /* connection gone */ }
}

// `selftest`: the QPACK layer against the RFCs' examples, then exit.
function selftest(): never {
  const hex = (s: string) => new Uint8Array(s.replace(/ /g, "").match(/../g)!.map((x) => parseInt(x, 16)));
  let failed = 0;
  const check = (what: string, got: unknown, want: unknown) => {
    const ok = JSON.stringify(got) === JSON.stringify(want);
    if (!ok) failed++;
    console.log(`${ok ? "ok" : "FAIL"} ${what}${ok ? "" : `: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`}`);
  };
  // RFC 7541 C.4 and C.6: Huffman-coded strings.
  check("huffman www.example.com", huffDecode(hex("f1e3 c2e5 f23a 6ba0 ab90 f4ff")), "www.example.com");
  check("huffman no-cache", huffDecode(hex("a8eb 1064 9cbf")), "no-cache");
  check("huffman date", huffDecode(hex("d07a be94 1054 d444 a820 0595 040b 8166 e082 a62d 1bff")),
    "Mon, 21 Oct 2013 20:13:21 GMT");
  check("huffman url", huffDecode(hex("9d29 ad17 1863 c78f 0b97 c8e9 ae82 ae43 d3")), "https://www.example.com");
  let threw = false;
  try {
    huffDecode(hex("f1e3 c2e5 f23a 6ba0 ab90 f4fe")); // padding not all ones
  } catch { threw = true; }
  check("huffman bad padding refused", threw, true);
  // RFC 9204 B.1: literal with name reference to static :path.
  check("B.1 section", qpackDecode(hex("0000 510b 2f69 6e64 6578 2e68 746d 6c")), [[":path", "/index.html"]]);
  // Huffman-coded literal name and value (H bits set), static indexed lines.
  check("literal name, huffman", qpackDecode(new Uint8Array([0, 0, 0xd1, 0x2e, ...hex("a8eb 1064 9cbf"),
    0x8c, ...hex("f1e3 c2e5 f23a 6ba0 ab90 f4ff")])), [[":method", "GET"], ["no-cache", "www.example.com"]]);
  // Round trip, prefix integers past their prefixes included.
  const fields: [string, string][] = [[":status", "200"], ["content-length", "2"], ...BIG_FIELDS,
    ["x-long-name-past-the-3-bit-prefix", "v"], ["content-type", "text/plain"]];
  check("round trip", qpackDecode(qpackEncode(fields)), fields);
  check("bigheaders section size", qpackEncode(BIG_FIELDS).length > 48 * 1024, true);
  check("varint 2^30", varint(2 ** 30), [0xc0, 0, 0, 0, 0x40, 0, 0, 0]);
  check("varint 16383", varint(16383), [0x7f, 0xff]);
  console.log(failed ? `selftest: ${failed} failed` : "selftest: all passed");
  Deno.exit(failed ? 1 : 0);
}
if (portArg === "selftest") selftest();

const endpoint = new Deno.QuicEndpoint({ hostname: "127.0.0.1", port });
const listener = endpoint.listen({
  cert: Deno.readTextFileSync(certFile),
  key: Deno.readTextFileSync(keyFile),
  alpnProtocols: ["h3"],
  maxIdleTimeout: 60_000,
  maxConcurrentBidirectionalStreams: 256,
});
console.log(`listening ${port}`);

Deno.addSignalListener("SIGTERM", () => Deno.exit(0));
Deno.addSignalListener("SIGINT", () => Deno.exit(0));

for (;;) {
  let conn: Deno.QuicConn;
  try {
    conn = await listener.accept();
  } catch (e) {
    console.error(`accept: ${(e as Error).message}`);
    continue;
  }
  serveConn(conn).catch((e) => console.error(`conn: ${(e as Error).message}`));
}
