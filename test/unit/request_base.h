/* test/unit/request_base.h — the request the request tests start from:
 * GET http://example.com:8080/, no headers, no body. */
#ifndef SHB_TEST_REQUEST_BASE_H
#define SHB_TEST_REQUEST_BASE_H

#include <string.h>

#include "request.h"

static inline struct shb_request t_request_base(void)
{
    struct shb_request r;
    memset(&r, 0, sizeof r);
    r.method = "GET";
    r.authority = "example.com:8080";
    r.target = "/";
    return r;
}

#endif
