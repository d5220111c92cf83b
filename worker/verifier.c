/* worker/verifier.c — see verifier.h. */
#include "worker/verifier.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tls13/conn.h" /* tls_alert_name */

void worker_verifier_start(struct tls13_verifier *v, const struct tls13_verify_config *cfg)
{
    struct timespec ts;
    /* A vDSO call, once per connection (not per request). */
    clock_gettime(CLOCK_REALTIME, &ts);
    tls13_verifier_init(v, cfg);
    tls13_verifier_start(v, (uint64_t)ts.tv_sec);
}

bool worker_verifier_why(const struct tls13_verifier *v, int alert, char *out, size_t n)
{
    if (!v || v->reason == TLS13_VERIFY_OK)
        return false;
    tls13_verifier_why(v, out, n);
    if (alert > 0) {
        size_t len = strnlen(out, n);
        snprintf(out + len, n - len, " (sent alert %s)", tls_alert_name(alert));
    }
    return true;
}
