/* compare.c — several targets side by side (shb [OPTIONS] <URL>...).
 *
 * The figures are the reports' own (report_summary), printed as the text
 * report prints them (req/s to 0.1, ms to 0.001), so that a row can be
 * checked against its report; the ratios come from the unrounded values. */
#include "report/compare.h"

#include <inttypes.h>
#include <string.h>

#define NS_PER_MS 1e6

/* a / b as "%.3f", or "-" when there is none: b is 0 (the first target
 * had no responses), or known is false (a or b has no figure at all). */
static void ratio(FILE *f, int width, double a, double b, bool known)
{
    if (known && b > 0)
        fprintf(f, " %*.3f", width, a / b);
    else
        fprintf(f, " %*s", width, "-");
}

/* A latency in ms, or "-" for a target that had no response (0.000 would
 * read as a very fast one). */
static void latency_ms(FILE *f, const struct report_summary *s, uint64_t ns)
{
    if (s->no_responses)
        fprintf(f, " %10s", "-");
    else
        fprintf(f, " %10.3f", (double)ns / NS_PER_MS);
}

void compare_text(FILE *f, const struct compare_row *rows, size_t n)
{
    if (n == 0)
        return;
    int name_w = (int)strlen("Target");
    bool any_interrupted = false;
    for (size_t i = 0; i < n; i++) {
        int w = (int)strlen(rows[i].name) + (rows[i].interrupted ? 2 : 0);
        name_w = w > name_w ? w : name_w;
        any_interrupted |= rows[i].interrupted;
    }
    const struct report_summary *first = &rows[0].sum;
    fprintf(f, "Comparison (ratios to %s, the first target):\n", rows[0].name);
    fprintf(f, "  %-*s %12s %10s %10s %10s %13s %11s %11s\n", name_w, "Target", "Req/s", "p50 (ms)", "p99 (ms)",
            "Errors", "Req/s ratio", "p50 ratio", "p99 ratio");
    for (size_t i = 0; i < n; i++) {
        const struct report_summary *s = &rows[i].sum;
        int pad = name_w - (int)strlen(rows[i].name);
        fprintf(f, "  %s%-*s %12.1f", rows[i].name, pad, rows[i].interrupted ? " *" : "", s->requests_per_sec);
        latency_ms(f, s, s->p50_ns);
        latency_ms(f, s, s->p99_ns);
        fprintf(f, " %10" PRIu64, s->errors);
        bool latencies = !s->no_responses && !first->no_responses;
        ratio(f, 13, s->requests_per_sec, first->requests_per_sec, true);
        ratio(f, 11, (double)s->p50_ns, (double)first->p50_ns, latencies);
        ratio(f, 11, (double)s->p99_ns, (double)first->p99_ns, latencies);
        fputc('\n', f);
    }
    if (any_interrupted)
        fputs("  * interrupted by a signal (Ctrl-C, SIGTERM): its figures cover the run until then\n", f);
}
