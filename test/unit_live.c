/* test/unit_live.c — the live view's frame (live_format): both lines, in
 * order, each cut to the terminal's width, the cursor back at the start. */
#include <stdint.h>
#include <string.h>

#include "live.h"
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
    T_CHECK("before a whole second: no percentiles", strcmp(l1, "10 req/s  ok 0  errors 0  3 connections") == 0, "'%s'", l1);

    live_format(buf, sizeof buf, &z, 30);
    line_of(buf, 0, l0, sizeof l0);
    line_of(buf, 1, l1, sizeof l1);
    T_CHECK("a 30-column terminal: both lines cut to 29", strlen(l0) == 29 && strlen(l1) == 29, "'%s' '%s'", l0, l1);

    struct live_frame over = { .elapsed_s = 31, .duration_s = 30 };
    live_format(buf, sizeof buf, &over, 200);
    line_of(buf, 0, l0, sizeof l0);
    T_CHECK("past the end the bar is full, not beyond", strncmp(l0, "[####################] ", 23) == 0, "'%s'", l0);
    T_CHECK("too small a buffer: nothing", live_format(buf, 10, &z, 80) == 0, "-");
    T_DONE();
}
