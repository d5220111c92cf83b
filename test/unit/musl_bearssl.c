/* test/unit/musl_bearssl.c — BearSSL linked statically into a musl binary works.
 *
 * This is the build path every later TLS issue stands on: Debian's
 * libbearssl.a (built for glibc) plus compat.c, linked with musl-gcc -static.
 * Known answers: SHA-256 of "abc" (FIPS 180-2 B.1) and HMAC-SHA-256 from
 * RFC 4231 test case 2, plus an AES-128-GCM seal/open round trip through the
 * fastest implementation BearSSL selects for this CPU. */
#include <bearssl.h>
#include <string.h>

#include "test/unit/t.h"

static void hex(const unsigned char *b, size_t n, char *out)
{
    static const char d[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = d[b[i] >> 4];
        out[2 * i + 1] = d[b[i] & 15];
    }
    out[2 * n] = 0;
}

int main(void)
{
    unsigned char out[64];
    char h[129];

    br_sha256_context sc;
    br_sha256_init(&sc);
    br_sha256_update(&sc, "abc", 3);
    br_sha256_out(&sc, out);
    hex(out, 32, h);
    T_CHECK("musl+bearssl sha256 abc", strcmp(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0,
            "got %s", h);

    br_hmac_key_context kc;
    br_hmac_context hc;
    br_hmac_key_init(&kc, &br_sha256_vtable, "Jefe", 4);
    br_hmac_init(&hc, &kc, 0);
    br_hmac_update(&hc, "what do ya want for nothing?", 28);
    br_hmac_out(&hc, out);
    hex(out, 32, h);
    T_CHECK("musl+bearssl hmac-sha256 rfc4231 tc2",
            strcmp(h, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843") == 0, "got %s", h);

    /* AES-GCM through the best implementation available here. */
    const br_block_ctr_class *ctr = br_aes_x86ni_ctr_get_vtable();
    br_aes_x86ni_ctr_keys xk;
    br_aes_ct_ctr_keys ck;
    const br_block_ctr_class **kp;
    unsigned char key[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
    if (ctr) {
        ctr->init(&xk.vtable, key, sizeof key);
        kp = &xk.vtable;
    } else {
        br_aes_ct_ctr_init(&ck, key, sizeof key);
        kp = &ck.vtable;
    }
    br_ghash gh = br_ghash_pclmul_get();
    if (!gh)
        gh = br_ghash_ctmul64;
    br_gcm_context gc;
    unsigned char iv[12] = { 0 }, msg[37], tag[16];
    memcpy(msg, "the quick brown fox jumps over a dog", sizeof msg);
    br_gcm_init(&gc, kp, gh);
    br_gcm_reset(&gc, iv, sizeof iv);
    br_gcm_flip(&gc);
    br_gcm_run(&gc, 1, msg, sizeof msg);
    br_gcm_get_tag(&gc, tag);
    br_gcm_reset(&gc, iv, sizeof iv);
    br_gcm_flip(&gc);
    br_gcm_run(&gc, 0, msg, sizeof msg);
    T_CHECK("musl+bearssl aes-gcm round trip",
            memcmp(msg, "the quick brown fox jumps over a dog", sizeof msg) == 0 && br_gcm_check_tag(&gc, tag),
            "decrypt or tag check failed");
    T_DONE();
}
