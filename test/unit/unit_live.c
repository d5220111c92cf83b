/* test/unit/unit_live.c — the live view's frame (live_format): both lines, in
 * order, each cut to the terminal's width between fields, never inside
 * one; "-" for what is not measured yet; the cursor back at the start. */
#include <stdint.h>
#include <string.h>

#include "report/live.h"
#include "t.h"

/* The visible text of line k (0 or 1) of a frame, escapes removed. */
static void line_of(const char *frame, int k, char *out, size_t cap)
{
    size_t n = 0;
    int line = 0;
    for (const char *p = frame; *p && n + 1 < cap; p++) {
        if (*p == '\033') {
            p++;
            while (*p && !((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')))
                p++;
            if (!*p)
                break;
            continue;
        }
        if (*p == '\r')
            continue;
        if (*p == '\n') {
            line++;
            continue;
        }
        if (line == k)
            out[n++] = *p;
    }
    out[n] = '\0';
}

int main(void)
{
    char buf[1200], l0[600], l1[600];
    struct live_frame z = { .elapsed_s = 12.34, .duration_s = 30, .rate = 52341.4, .ok = 612345, .errors = 2,
                            .have_latency = true, .p50_ns = 123000, .p99_ns = 1234000, .conns = 50 };
    size_t n = live_format(buf, sizeof buf, &z, 200);
    line_of(buf, 0, l0, sizeof l0);
    line_of(buf, 1, l1, sizeof l1);
    T_CHECK("-z: the bar and the time", n > 0 && strcmp(l0, "[########............] 12.3 s of 30.0 s") == 0, "'%s'", l0);
    T_CHECK("-z: the last second's figures",
            strcmp(l1, "52341 req/s  ok 612345  errors 2  p50 0.123 ms  p99 1.234 ms  50 connections") == 0, "'%s'", l1);
    T_CHECK("the frame starts with a line erase and ends back on its first line",
            strncmp(buf, "\r\033[K", 4) == 0 && n >= 4 && strcmp(buf + n - 4, "\033[A\r") == 0, "%zu", n);

    struct live_frame nrun = { .elapsed_s = 1.5, .done = 250, .goal = 1000, .warming = true, .rate = 10, .conns = 3 };
    live_format(buf, sizeof buf, &nrun, 200);
    line_of(buf, 0, l0, sizeof l0);
    line_of(buf, 1, l1, sizeof l1);
    T_CHECK("-n: how many of n, the warm-up said", strcmp(l0, "[#####...............] 250 of 1000 requests, 1.5 s (warm-up)") == 0,
            "'%s'", l0);
    T_CHECK("warm-up, before a second with a response: '-' for ok, errors, p50 and p99, not 0",
            strcmp(l1, "10 req/s  ok -  errors -  p50 -  p99 -  3 connections") == 0, "'%s'", l1);

    struct live_frame none = z;
    none.have_latency = false; /* no response yet (a silent server) */
    live_format(buf, sizeof buf, &none, 200);
    line_of(buf, 1, l1, sizeof l1);
    T_CHECK("no response yet: p50 and p99 '-'",
            strcmp(l1, "52341 req/s  ok 612345  errors 2  p50 -  p99 -  50 connections") == 0, "'%s'", l1);

    live_format(buf, sizeof buf, &z, 30);
    line_of(buf, 0, l0, sizeof l0);
    line_of(buf, 1, l1, sizeof l1);
    T_CHECK("a 30-column terminal: both lines within 29, whole fields only",
            strcmp(l0, "[########............]") == 0 && strcmp(l1, "52341 req/s  ok 612345") == 0, "'%s' '%s'", l0,
            l1);

    /* A -z run in its warm-up, 40 columns: "(warm-up)" does not fit after
     * the time, and is left out whole (it was cut to "("). */
    struct live_frame warm = { .elapsed_s = 1.2, .duration_s = 10, .warming = true, .rate = 800, .conns = 10 };
    live_format(buf, sizeof buf, &warm, 40);
    line_of(buf, 0, l0, sizeof l0);
    line_of(buf, 1, l1, sizeof l1);
    T_CHECK("40 columns in the warm-up: '(warm-up)' left out whole, no word cut",
            strcmp(l0, "[##..................] 1.2 s of 10.0 s") == 0 &&
                strcmp(l1, "800 req/s  ok -  errors -  p50 -  p99 -") == 0,
            "'%s' '%s'", l0, l1);
    live_format(buf, sizeof buf, &warm, 50);
    line_of(buf, 0, l0, sizeof l0);
    T_CHECK("50 columns in the warm-up: '(warm-up)' whole", strcmp(l0, "[##..................] 1.2 s of 10.0 s (warm-up)") == 0,
            "'%s'", l0);

    struct live_frame over = { .elapsed_s = 31, .duration_s = 30 };
    live_format(buf, sizeof buf, &over, 200);
    line_of(buf, 0, l0, sizeof l0);
    T_CHECK("past the end the bar is full, not beyond", strncmp(l0, "[####################] ", 23) == 0, "'%s'", l0);
    T_CHECK("too small a buffer: nothing", live_format(buf, 10, &z, 80) == 0, "-");

    /* -n at 40 columns: how many of n still shows, without the words after. */
    struct live_frame many = { .elapsed_s = 1.5, .done = 123456, .goal = 400000, .rate = 80000, .conns = 10 };
    live_format(buf, sizeof buf, &many, 40);
    line_of(buf, 0, l0, sizeof l0);
    T_CHECK("-n at 40 columns: the bar and how many of n", strcmp(l0, "[######..............] 123456 of 400000") == 0,
            "'%s'", l0);
    T_DONE();
}
