/* html_data.h — one JSON report as the HTML page draws it (html.c): its
 * timeline coarsened to points, its latencies over time, its percentile
 * spectrum, in ms and per second. Read once per report; the charts read
 * the report's other figures straight from its tree (html_num, html_str). */
#ifndef SHB_HTML_DATA_H
#define SHB_HTML_DATA_H

#include <stdbool.h>
#include <stddef.h>

#include "report/json.h"

/* A timeline chart has at most this many points: a 10-minute run gets one
 * every 2 s, which keeps the page far under 200 KB. */
#define HTML_TL_POINTS 300
/* The percentile spectrum: x from 0 to 5 nines (99.999 %) in 0.05 steps. */
#define HTML_SPEC_NINES 5.0
#define HTML_SPEC_POINTS 101
/* The latency-over-time lines: p50, p90, p99, max (html_lat_names). */
#define HTML_LAT_LINES 4
extern const char *const html_lat_names[HTML_LAT_LINES];

/* One report as the page draws it. Latencies in ms, rates per second. */
struct html_report {
    const struct json *r;
    char name[200];
    double warmup_s, duration_s;
    size_t n;                         /* timeline points (coarsened) */
    double t[HTML_TL_POINTS];              /* each point's middle, seconds */
    double rps[HTML_TL_POINTS], eps[HTML_TL_POINTS], asked[HTML_TL_POINTS];
    bool paced;                       /* -q: asked is the requested rate */
    double lat[HTML_LAT_LINES][HTML_TL_POINTS]; /* NaN where a point had no response */
    bool lat_have[HTML_LAT_LINES];         /* p90 and max need the timeline's histograms */
    double spec_x[2][HTML_SPEC_POINTS], spec_y[2][HTML_SPEC_POINTS]; /* latency, service time */
    size_t nspec[2];
    bool exact_spec[2];               /* from the whole histogram */
};

/* obj's member key as a number (NaN when it is not one), as a string
 * (NULL when it is not one). */
double html_num(const struct json *obj, const char *key);
const char *html_str(const struct json *obj, const char *key);

/* r (a report html_not_a_report accepts) into u. 0, or -1 when out of
 * memory. */
int html_report_read(struct html_report *u, const struct json *r);

#endif
