// test/hostile/cases.js — the hostile-server case table: every case of
// test/hostile/cases_*.js, checked for shape, by name. test/servers/hostile_server.js
// (scenario "table") plays the HTTP/1.1, HTTP/2 and TLS ones,
// test/servers/hostile_quic_server.js (also "table") the QUIC/HTTP/3 ones;
// test/e2e/e2e_hostile_cases.sh runs shb against each and judges the report by
// the case's expectation.
//
//   node test/hostile/cases.js --list [GLOB]   one TSV line per case: name,
//       tls (0/1), shb's arguments (without the URL), deadline in seconds,
//       the jq expression the JSON report must satisfy, proto (h1, h2,
//       h3), the jq expression over the server's log ("-": none), the exit
//       status expected, the ERE shb's one stderr line must match ("-": none
//       asked; only for a non-zero exit status)
//   node test/hostile/cases.js --readme        docs/hostile.md's table of faults
//   node test/hostile/cases.js --update-readme [FILE]   writes it there (docs/hostile.md),
//       between <!-- hostile-cases:begin --> and <!-- hostile-cases:end -->
//
// A case (see cases_h1.js for examples):
//   name      unique; starts with h1-, h2-, tls- or h3-
//   proto     'h1' or 'h2': the protocol engine that reads the requests
//             (over TLS the client's ALPN must agree: h2 cases add --http2);
//             'h3': QUIC and HTTP/3 (test/servers/hostile_quic_server.js; the runner
//             adds --http3, the URL https://127.0.0.1:UDPPORT/)
//   tls       served over TLS 1.3 (test/servers/hostile_server.js --tls)
//   raw       no protocol engine and no TLS: onOpen(x) and onData(x, bytes)
//             see and write the TCP bytes (a server that is not TLS at all)
//   args      shb's arguments before the URL ("-n 8 -c 2"); -j is added;
//             @CERTS@ is the test certificates' directory (ec.crt, ec.key)
//   does      what the server does, for docs/hostile.md
//   rfc       the rule behind shb's verdict, for docs/hostile.md ("RFC 9112 §6.3")
//   expect    ok: N, errors: {kind: N} (errorKinds exactly), kinds: [...]
//             (errorKinds only these), okMin, status: {code: N}, jq: '...';
//             or exit: N (a non-zero exit status: no report, exactly one
//             line on stderr) with stderr: 'ERE' that line must match
//   server    a jq expression the server's log lines of this case (slurped,
//             an array) must satisfy: what the server saw or shb sent it
//             (e.g. the code of shb's CONNECTION_CLOSE). h3 cases have
//             these definitions (test/e2e/e2e_hostile_cases.sh, HQDEFS):
//             datagrams, replies (raw cases), initials (datagrams that are
//             v1 Initials), conns (their distinct client SCIDs), hs, est,
//             bad (misbehave lines), closes, resets, stops, errs, requests,
//             responses, appFrames (the frame types of shb's 1-RTT packets)
//   deadline  seconds shb may take (default 10)
//   settings  HTTP/2: the server's SETTINGS ([[id, value]]; null: none)
//   noSettingsAck  HTTP/2: never ACK the client's SETTINGS
//   tlsOptions(opts)  extra node tls options (e.g. a certificate of its own)
//   onOpen(x), onRequest(x, n[, stream])  the case's behaviour (CaseIO in
//             test/servers/hostile_server.js: write, frame, headers, ok, end, reset,
//             inject, later, drip, flood, state, wire, tlsFiles)
//   h3 cases: raw(x, msg, h), tp, handshake, controlStream, onEstablished(x),
//             onRequest(x, n, id) (default: 200 "hello"), and their CaseIO:
//             see the top of test/servers/hostile_quic_server.js
'use strict';

const fs = require('fs');
const path = require('path');

function load() {
    const files = fs.readdirSync(__dirname).filter((f) => /^cases_.*\.js$/.test(f)).sort();
    const all = [];
    for (const f of files) all.push(...require(path.join(__dirname, f)));
    const seen = new Set();
    for (const k of all) {
        const bad = (why) => { throw new Error(`hostile case ${k.name || '?'}: ${why}`); };
        if (!/^(h1|h2|tls|h3)-[a-z0-9-]+$/.test(k.name || '')) bad('name must be h1-/h2-/tls-/h3- and [a-z0-9-]');
        if (seen.has(k.name)) bad('duplicate name');
        seen.add(k.name);
        const h3 = /^h3-/.test(k.name);
        if (h3 !== (k.proto === 'h3')) bad('h3- cases, and only they, have proto h3');
        if (!k.raw && !h3 && k.proto !== 'h1' && k.proto !== 'h2') bad('proto must be h1, h2 or h3');
        if (typeof k.args !== 'string') bad('args missing');
        if (!k.does) bad('does missing');
        if (!k.expect || (k.expect.ok === undefined && !k.expect.errors && !k.expect.kinds && !k.expect.exit)) bad('expect needs ok, errors, kinds or exit');
        if (k.expect.stderr && !k.expect.exit) bad('stderr needs exit');
        if (k.server !== undefined && (typeof k.server !== 'string' || /[\t\n]/.test(k.server))) bad('server must be a one-line jq expression');
        if (!k.raw && !h3 && typeof k.onRequest !== 'function' && typeof k.onOpen !== 'function') bad('no behaviour');
    }
    return all;
}

// The -n of a case's arguments, or null (a -z run).
function requests(k) {
    const m = /(?:^|\s)-n\s+(\d+)/.exec(k.args);
    return m ? Number(m[1]) : null;
}

function shbArgs(k) {
    return (k.proto === 'h2' ? '--http2 ' : k.proto === 'h3' ? '--http3 ' : '') + k.args;
}

// The jq expression over shb's JSON report.
function jqExpr(k) {
    const e = k.expect, parts = [];
    if (e.exit) return '-';
    const n = requests(k);
    if (k.proto === 'h3') parts.push('.protocol == "HTTP/3"');
    if (n !== null) parts.push(`.requests.total == ${n}`);
    if (e.ok !== undefined) parts.push(`.requests.ok == ${e.ok}`);
    if (e.okMin !== undefined) parts.push(`.requests.ok >= ${e.okMin}`);
    if (e.errors) parts.push(`.errorKinds == ${JSON.stringify(e.errors)}`);
    if (e.ok !== undefined && !e.errors && !e.kinds) parts.push('.requests.errors == 0');
    if (e.kinds) parts.push(`(.errorKinds | keys - ${JSON.stringify(e.kinds)}) == []`);
    if (e.status) parts.push(`.statusCodes == ${JSON.stringify(e.status)}`);
    else if (e.ok !== undefined && e.ok > 0) parts.push(`.statusCodes == {"200": ${e.ok}}`);
    if (e.jq) parts.push(`(${e.jq})`);
    return parts.join(' and ');
}

function verdict(k) {
    const e = k.expect;
    if (e.exit) return `exit ${e.exit}, one line`;
    if (e.errors) return Object.entries(e.errors).map(([kind]) => `\`${kind}\``).join(', ');
    if (e.kinds) return e.kinds.map((kind) => `\`${kind}\``).join(' or ');
    return 'tolerated (ok)';
}

function readmeTable(all) {
    const rows = all.map((k) => `| \`${k.name}\` | ${k.does} | ${verdict(k)} | ${k.rfc || ''} |`);
    return '| case | the server | shb | why |\n|---|---|---|---|\n' + rows.join('\n') + '\n';
}

function globRe(g) {
    return new RegExp('^(' + g.split(/\s+/).filter(Boolean).map((x) => x.replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*').replace(/\?/g, '.')).join('|') + ')$');
}

function main() {
    const [cmd, glob] = process.argv.slice(2);
    const all = load();
    if (cmd === '--list') {
        const re = glob ? globRe(glob) : null;
        for (const k of all) {
            if (re && !re.test(k.name)) continue;
            process.stdout.write([k.name, k.tls || (k.raw && k.proto !== 'h3') ? 1 : 0, shbArgs(k), k.deadline || 10,
                jqExpr(k), k.proto || 'h1', k.server || '-', k.expect.exit || 0, k.expect.stderr || '-'].join('\t') + '\n');
        }
    } else if (cmd === '--readme') {
        process.stdout.write(readmeTable(all));
    } else if (cmd === '--update-readme') {
        // Replaces what lies between the markers in docs/hostile.md (glob: another path).
        const file = glob || path.join(__dirname, '..', '..', 'docs', 'hostile.md');
        const text = fs.readFileSync(file, 'utf8');
        const begin = '<!-- hostile-cases:begin -->\n', end = '<!-- hostile-cases:end -->';
        const a = text.indexOf(begin), b = text.indexOf(end);
        if (a < 0 || b < a) {
            process.stderr.write(`${file}: no ${begin.trim()} ... ${end} markers\n`);
            process.exit(1);
        }
        fs.writeFileSync(file, text.slice(0, a + begin.length) + readmeTable(all) + text.slice(b));
        process.stdout.write(`${file}: ${all.length} hostile cases\n`);
    } else {
        process.stderr.write('usage: node cases.js --list [GLOB] | --readme | --update-readme [FILE]\n');
        process.exit(2);
    }
}

module.exports = { load, byName: () => new Map(load().map((k) => [k.name, k])) };
if (require.main === module) main();
