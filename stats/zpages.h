/* zpages.h — zeroed memory straight from the kernel, for the histograms
 * and the timeline: calloc may clear a recycled chunk byte by byte (a
 * 190 KB histogram is 270,000 instructions and every page of it resident),
 * where fresh anonymous pages are zero already and cost nothing until a
 * count lands in them. Used once per histogram, at set-up. */
#ifndef SHB_ZPAGES_H
#define SHB_ZPAGES_H

#include <stddef.h>
#include <sys/mman.h>

static inline void *zpages_alloc(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static inline void zpages_free(void *p, size_t n)
{
    if (p)
        munmap(p, n);
}

#endif
