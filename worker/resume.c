/* worker/resume.c — --tls-resume's ticket store (resume.h). */
#include "resume.h"

#include <stdlib.h>
#include <string.h>

int resume_store_init(struct resume_store *s, uint32_t n, const uint64_t *now)
{
    s->n = n;
    s->slots = calloc(n, sizeof *s->slots);
    if (!s->slots)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        s->slots[i].now = now;
    return 0;
}

void resume_store_free(struct resume_store *s)
{
    if (s->slots)
        tls13_wipe(s->slots, s->n * sizeof *s->slots);
    free(s->slots);
    s->slots = NULL;
}

/* The engine's on_ticket: the newest ticket replaces the slot's (the
 * engine dropped those it cannot keep: too long, zero lifetime). */
static void keep_ticket(void *ctx, const struct tls13_ticket *t)
{
    struct resume_slot *slot = ctx;
    slot->t = *t;
    slot->received_ns = *slot->now;
    slot->valid = true;
}

void resume_handshake_done(struct resume_store *s, struct tls_handshakes *count, bool resumed, uint16_t hrr_group)
{
    if (resumed)
        count->resumed++;
    else
        count->full++;
    if (hrr_group) {
        count->hello_retries++;
        s->hrr_group = hrr_group;
    }
}

void resume_keep_tparams(struct resume_store *s, uint32_t i, const struct quic_tparams *server)
{
    if (!s->slots)
        return;
    quic_tparams_remember(&s->slots[i].tp, server);
    s->slots[i].has_tp = true;
}

const struct quic_tparams *resume_tparams(const struct resume_store *s, uint32_t i)
{
    return s->slots && s->slots[i].has_tp ? &s->slots[i].tp : NULL;
}

const br_ssl_session_parameters *resume_session12(const struct resume_store *s, uint32_t i)
{
    return s->slots && s->slots[i].valid12 ? &s->slots[i].s12 : NULL;
}

void resume_keep12(struct resume_store *s, uint32_t i, const struct tls_conn *t)
{
    if (s->slots)
        s->slots[i].valid12 = tls_conn_session12(t, &s->slots[i].s12);
}

const struct tls13_resume *resume_for(struct resume_store *s, uint32_t i, uint64_t now, struct tls13_resume *r)
{
    if (!s->slots)
        return NULL;
    struct resume_slot *slot = &s->slots[i];
    uint64_t age_ms = (now - slot->received_ns) / 1000000;
    *r = (struct tls13_resume){.on_ticket = keep_ticket, .ctx = slot};
    if (slot->valid) {
        /* The engine checks the age against the lifetime (RFC 8446 §4.6.1). */
        r->ticket = &slot->t;
        r->ticket_age_ms = age_ms > UINT32_MAX ? UINT32_MAX : (uint32_t)age_ms;
        slot->valid = false;
    }
    return r;
}
