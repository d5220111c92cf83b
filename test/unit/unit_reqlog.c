/* test/unit/unit_reqlog.c — --log's lines (report/reqlog_line.c): the
 * header and a line in each format, error kinds with spaces escaped as
 * CSV and JSON want them, microseconds rounded to the nearest (start times
 * truncated), the widest values within REQLOG_LINE_MAX, and the hand-made
 * numbers against printf's. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report/reqlog_line.h"
#include "stats/stats.h"
#include "t.h"

static bool use_cache;
static struct reqlog_cache cache;

static const char *line(const struct reqlog_line *ln, enum reqlog_format f)
{
    static char buf[REQLOG_LINE_MAX + 1];
    size_t n = reqlog_format_line(buf, ln, f, use_cache ? &cache : NULL);
    buf[n] = 0;
    return buf;
}

static void check_str(const char *name, const char *got, const char *want)
{
    T_CHECK(name, strcmp(got, want) == 0, "got [%s] want [%s]", got, want);
}

int main(void)
{
    char head[REQLOG_LINE_MAX + 1];
    size_t n = reqlog_header(head, REQLOG_TSV);
    head[n] = 0;
    check_str("header: tsv", head,
              "start_us\tlatency_us\tttfb_us\tstatus\terror\tbytes\tconn\tstream\ttarget\tthread\twarmup\n");
    n = reqlog_header(head, REQLOG_CSV);
    head[n] = 0;
    check_str("header: csv", head, "start_us,latency_us,ttfb_us,status,error,bytes,conn,stream,target,thread,warmup\n");
    T_CHECK("header: jsonl has none", reqlog_header(head, REQLOG_JSONL) == 0, "a header");

    struct reqlog_line ok = { .start_ns = 1700000000123456789ull, .latency_ns = 1499, .ttfb_ns = 1500,
                              .bytes = 162, .stream = 3, .conn = 7, .target = 0, .thread = 1, .status = 200 };
    check_str("line: tsv response", line(&ok, REQLOG_TSV), "1700000000123456\t1\t2\t200\t\t162\t7\t3\t0\t1\t0\n");
    check_str("line: csv response", line(&ok, REQLOG_CSV), "1700000000123456,1,2,200,,162,7,3,0,1,0\n");
    check_str("line: jsonl response", line(&ok, REQLOG_JSONL),
              "{\"start_us\":1700000000123456,\"latency_us\":1,\"ttfb_us\":2,\"status\":200,\"error\":null,"
              "\"bytes\":162,\"conn\":7,\"stream\":3,\"target\":0,\"thread\":1,\"warmup\":false}\n");

    struct reqlog_line err = { .start_ns = 999, .latency_ns = 0, .error = err_kind_name(ERR_CONNECT_TIMEOUT),
                               .conn = 4294967295u, .warmup = true };
    check_str("line: tsv error with a space", line(&err, REQLOG_TSV), "0\t0\t0\t0\tconnect timeout\t0\t4294967295\t0\t0\t0\t1\n");
    check_str("line: csv error with a space, quoted", line(&err, REQLOG_CSV),
              "0,0,0,0,\"connect timeout\",0,4294967295,0,0,0,1\n");
    check_str("line: jsonl error, warm-up", line(&err, REQLOG_JSONL),
              "{\"start_us\":0,\"latency_us\":0,\"ttfb_us\":0,\"status\":0,\"error\":\"connect timeout\",\"bytes\":0,"
              "\"conn\":4294967295,\"stream\":0,\"target\":0,\"thread\":0,\"warmup\":true}\n");
    err.error = "a\"b,c\td\\e\n";
    check_str("escaping: csv doubles quotes", line(&err, REQLOG_CSV), "0,0,0,0,\"a\"\"b,c\td\\e\n\",0,4294967295,0,0,0,1\n");
    check_str("escaping: jsonl", line(&err, REQLOG_JSONL),
              "{\"start_us\":0,\"latency_us\":0,\"ttfb_us\":0,\"status\":0,\"error\":\"a\\\"b,c\\u0009d\\\\e\\u000a\","
              "\"bytes\":0,\"conn\":4294967295,\"stream\":0,\"target\":0,\"thread\":0,\"warmup\":true}\n");
    check_str("escaping: tsv keeps the line whole", line(&err, REQLOG_TSV), "0\t0\t0\t0\ta\"b,c d\\e \t0\t4294967295\t0\t0\t0\t1\n");

    /* Every error kind's name in every format: one line, within bounds. */
    bool ok_all = true;
    for (int k = 0; k < ERR_KINDS; k++) {
        struct reqlog_line e = { .error = err_kind_name((enum err_kind)k) };
        for (int f = REQLOG_TSV; f <= REQLOG_JSONL; f++) {
            const char *s = line(&e, (enum reqlog_format)f);
            ok_all &= T_QUIET("error kinds", strchr(s, '\n') == s + strlen(s) - 1 && strstr(s, e.error), "%s", s);
        }
    }
    T_CHECK("every error kind: one line, its name in it, each format", ok_all, "see above");

    /* The widest line fits REQLOG_LINE_MAX. */
    char longname[200];
    memset(longname, '"', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    struct reqlog_line wide = { UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT32_MAX,
                                UINT32_MAX, UINT32_MAX, UINT16_MAX, longname, true };
    size_t most = 0;
    static char big[REQLOG_LINE_MAX * 2];
    for (int f = REQLOG_TSV; f <= REQLOG_JSONL; f++) {
        size_t w = reqlog_format_line(big, &wide, (enum reqlog_format)f, &cache);
        most = w > most ? w : most;
    }
    T_CHECK("the widest line fits REQLOG_LINE_MAX", most <= REQLOG_LINE_MAX, "%zu", most);

    /* Rounding and digits against printf, over many magnitudes, without
     * and with the seconds cache (each value twice: filled, then hit). */
    bool same = true;
    uint64_t v = 1;
    for (int i = 0; i < 4000 && same; i++, v = i % 2 ? v : v * 3 + (uint64_t)i) {
        use_cache = i >= 2000;
        struct reqlog_line r = { .start_ns = v, .latency_ns = v, .ttfb_ns = v / 7, .bytes = v ^ 0x5555,
                                 .stream = v >> 3 };
        char want[REQLOG_LINE_MAX];
        uint64_t lat = v / 1000 + (v % 1000 >= 500), ttfb = v / 7 / 1000 + (v / 7 % 1000 >= 500);
        snprintf(want, sizeof want, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",0,,%" PRIu64 ",0,%" PRIu64 ",0,0,0\n", v / 1000,
                 lat, ttfb, v ^ 0x5555, v >> 3);
        same = T_QUIET("numbers as printf's", strcmp(line(&r, REQLOG_CSV), want) == 0, "got %s want %s",
                       line(&r, REQLOG_CSV), want);
    }
    T_CHECK("numbers: digits as printf's, µs rounded half up, start truncated", same, "see above");
    T_DONE();
}
