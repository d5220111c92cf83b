/* compat.c — what Debian's libbearssl.a needs from a C library and musl lacks.
 *
 * The archive was compiled against glibc with _FORTIFY_SOURCE, so its objects
 * call the checked variants __memcpy_chk, __memmove_chk and __memset_chk.
 * musl has no fortify runtime; these are the glibc contract: do the operation,
 * and abort when the compiler-known destination size is smaller than n. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

void *__memcpy_chk(void *dst, const void *src, size_t n, size_t dstlen);
void *__memmove_chk(void *dst, const void *src, size_t n, size_t dstlen);
void *__memset_chk(void *dst, int c, size_t n, size_t dstlen);

void *__memcpy_chk(void *dst, const void *src, size_t n, size_t dstlen)
{
    if (n > dstlen)
        abort();
    return memcpy(dst, src, n);
}

void *__memmove_chk(void *dst, const void *src, size_t n, size_t dstlen)
{
    if (n > dstlen)
        abort();
    return memmove(dst, src, n);
}

void *__memset_chk(void *dst, int c, size_t n, size_t dstlen)
{
    if (n > dstlen)
        abort();
    return memset(dst, c, n);
}
