/* json.c — the RFC 8259 reader json.h describes. */
#include "report/json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
    char *p, *start, *end;
    int depth;
    char *err;
    size_t errlen;
    bool failed;
};

static void fail(struct parser *ps, const char *what)
{
    if (ps->failed)
        return;
    ps->failed = true;
    unsigned line = 1, col = 1;
    for (const char *c = ps->start; c < ps->p && c < ps->end; c++) {
        if (*c == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    snprintf(ps->err, ps->errlen, "line %u, column %u: %s", line, col, what);
}

/* RFC 8259 §2: insignificant whitespace is space, tab, LF and CR only. */
static void skip_ws(struct parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static bool literal(struct parser *ps, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
        return false;
    ps->p += n;
    return true;
}

static int hex4(const char *p)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        v = v << 4 | d;
    }
    return v;
}

static char *put_utf8(char *o, uint32_t cp)
{
    if (cp < 0x80) {
        *o++ = (char)cp;
    } else if (cp < 0x800) {
        *o++ = (char)(0xc0 | cp >> 6);
        *o++ = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        *o++ = (char)(0xe0 | cp >> 12);
        *o++ = (char)(0x80 | (cp >> 6 & 0x3f));
        *o++ = (char)(0x80 | (cp & 0x3f));
    } else {
        *o++ = (char)(0xf0 | cp >> 18);
        *o++ = (char)(0x80 | (cp >> 12 & 0x3f));
        *o++ = (char)(0x80 | (cp >> 6 & 0x3f));
        *o++ = (char)(0x80 | (cp & 0x3f));
    }
    return o;
}

/* A string at ps->p (its opening quote), unescaped in place (§7); the
 * value starts at *out and is NUL-terminated where its closing quote was
 * or earlier. */
static bool string(struct parser *ps, const char **out, size_t *len)
{
    char *o = ++ps->p, *begin = o;
    for (;;) {
        if (ps->p >= ps->end) {
            fail(ps, "unterminated string");
            return false;
        }
        unsigned char c = (unsigned char)*ps->p;
        if (c == '"')
            break;
        if (c < 0x20) {
            fail(ps, "control character in a string");
            return false;
        }
        if (c != '\\') {
            *o++ = *ps->p++;
            continue;
        }
        if (ps->end - ps->p < 2) {
            fail(ps, "unterminated string");
            return false;
        }
        char e = ps->p[1];
        ps->p += 2;
        switch (e) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '/': *o++ = '/'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            int cp = ps->end - ps->p >= 4 ? hex4(ps->p) : -1;
            if (cp < 0) {
                fail(ps, "bad \\u escape");
                return false;
            }
            ps->p += 4;
            uint32_t u = (uint32_t)cp;
            /* §7: a character beyond the BMP is a surrogate pair; a lone
             * surrogate becomes U+FFFD. */
            if (u >= 0xd800 && u < 0xdc00 && ps->end - ps->p >= 6 && ps->p[0] == '\\' && ps->p[1] == 'u') {
                int lo = hex4(ps->p + 2);
                if (lo >= 0xdc00 && lo < 0xe000) {
                    u = 0x10000 + ((u - 0xd800) << 10) + ((uint32_t)lo - 0xdc00);
                    ps->p += 6;
                }
            }
            if (u >= 0xd800 && u < 0xe000)
                u = 0xfffd;
            o = put_utf8(o, u); /* at most as long as the escape it replaces */
            break;
        }
        default:
            fail(ps, "bad escape in a string");
            return false;
        }
    }
    ps->p++; /* the closing quote */
    *len = (size_t)(o - begin);
    *o = '\0';
    *out = begin;
    return true;
}

/* Past a run of digits from p (none: p itself). */
static char *skip_digits(const struct parser *ps, char *p)
{
    while (p < ps->end && *p >= '0' && *p <= '9')
        p++;
    return p;
}

/* One or more digits at *pp, or the failure what names. */
static bool some_digits(struct parser *ps, char **pp, const char *what)
{
    char *d = *pp;
    *pp = skip_digits(ps, d);
    if (*pp > d)
        return true;
    ps->p = d;
    fail(ps, what);
    return false;
}

/* §6: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
static bool number(struct parser *ps, struct json *v)
{
    char *s = ps->p, *p = s;
    if (p < ps->end && *p == '-')
        p++;
    if (p < ps->end && *p == '0') {
        p++;
    } else if (p < ps->end && *p >= '1' && *p <= '9') {
        p = skip_digits(ps, p);
    } else {
        fail(ps, "expected a value");
        return false;
    }
    if (p < ps->end && *p == '.') {
        p++;
        if (!some_digits(ps, &p, "a digit must follow the decimal point"))
            return false;
    }
    if (p < ps->end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < ps->end && (*p == '+' || *p == '-'))
            p++;
        if (!some_digits(ps, &p, "a digit must follow the exponent"))
            return false;
    }
    v->type = JSON_NUMBER;
    v->text = s;
    v->len = (size_t)(p - s);
    ps->p = p;
    return true;
}

static struct json *value(struct parser *ps);

/* The elements of an array or the members of an object, after its opening
 * bracket; closer is ']' or '}'. */
static bool elements(struct parser *ps, struct json *v, char closer)
{
    struct json **tail = &v->child;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == closer) {
        ps->p++;
        return true;
    }
    for (;;) {
        const char *key = NULL;
        size_t key_len = 0;
        if (closer == '}') {
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != '"') {
                fail(ps, "expected a member name in quotes");
                return false;
            }
            if (!string(ps, &key, &key_len))
                return false;
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != ':') {
                fail(ps, "expected ':' after a member name");
                return false;
            }
            ps->p++;
        }
        struct json *e = value(ps);
        if (!e)
            return false;
        e->key = key;
        e->key_len = key_len;
        *tail = e;
        tail = &e->next;
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == closer) {
            ps->p++;
            return true;
        }
        fail(ps, closer == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
        return false;
    }
}

static struct json *value(struct parser *ps)
{
    skip_ws(ps);
    if (ps->p >= ps->end) {
        fail(ps, "unexpected end of input");
        return NULL;
    }
    struct json *v = calloc(1, sizeof *v);
    if (!v) {
        fail(ps, "out of memory");
        return NULL;
    }
    bool ok;
    switch (*ps->p) {
    case '{':
    case '[': {
        char closer = *ps->p == '{' ? '}' : ']';
        v->type = closer == '}' ? JSON_OBJECT : JSON_ARRAY;
        if (++ps->depth > JSON_MAX_DEPTH) {
            fail(ps, "nested too deep");
            ok = false;
            break;
        }
        ps->p++;
        ok = elements(ps, v, closer);
        ps->depth--;
        break;
    }
    case '"':
        v->type = JSON_STRING;
        ok = string(ps, &v->text, &v->len);
        break;
    case 't':
        v->type = JSON_TRUE;
        ok = literal(ps, "true");
        break;
    case 'f':
        v->type = JSON_FALSE;
        ok = literal(ps, "false");
        break;
    case 'n':
        v->type = JSON_NULL;
        ok = literal(ps, "null");
        break;
    default:
        ok = number(ps, v);
        break;
    }
    if (!ok) {
        fail(ps, "expected a value");
        json_free(v);
        return NULL;
    }
    return v;
}

/* One value (several: each value after another until the text ends,
 * linked through next), or NULL with err set. */
static struct json *parse(char *text, size_t n, bool several, char *err, size_t errlen)
{
    struct parser ps = { .p = text, .start = text, .end = text + n, .err = err, .errlen = errlen };
    /* §8.1: a byte order mark may be ignored. */
    if (n >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        ps.p += 3;
    struct json *first = value(&ps), *last = first;
    if (!first)
        return NULL;
    skip_ws(&ps);
    while (several && ps.p != ps.end) {
        struct json *v = value(&ps);
        if (!v) {
            json_free(first);
            return NULL;
        }
        last->next = v;
        last = v;
        skip_ws(&ps);
    }
    if (ps.p != ps.end) {
        fail(&ps, "more after the JSON value");
        json_free(first);
        return NULL;
    }
    return first;
}

struct json *json_parse(char *text, size_t n, char *err, size_t errlen)
{
    return parse(text, n, false, err, errlen);
}

struct json *json_parse_values(char *text, size_t n, char *err, size_t errlen)
{
    return parse(text, n, true, err, errlen);
}

void json_free(struct json *v)
{
    while (v) {
        struct json *next = v->next;
        json_free(v->child); /* depth is bounded by JSON_MAX_DEPTH */
        free(v);
        v = next;
    }
}

const struct json *json_get(const struct json *obj, const char *key)
{
    if (!obj || obj->type != JSON_OBJECT)
        return NULL;
    size_t n = strlen(key);
    for (const struct json *m = obj->child; m; m = m->next)
        if (m->key_len == n && memcmp(m->key, key, n) == 0)
            return m;
    return NULL;
}

const struct json *json_path(const struct json *obj, ...)
{
    va_list ap;
    va_start(ap, obj);
    for (const char *k; obj && (k = va_arg(ap, const char *));)
        obj = json_get(obj, k);
    va_end(ap);
    return obj;
}

/* Digits of a number literal: the integer part [i0, i1), the fraction
 * [f0, f1); -1 when negative or with an exponent (the report writes
 * neither where exact values are read). */
static int plain_decimal(const struct json *v, const char **i1, const char **f0, const char **f1)
{
    if (!v || v->type != JSON_NUMBER || v->text[0] == '-')
        return -1;
    const char *p = v->text, *end = v->text + v->len;
    while (p < end && *p >= '0' && *p <= '9')
        p++;
    *i1 = p;
    *f0 = *f1 = p;
    if (p < end && *p == '.') {
        *f0 = ++p;
        while (p < end && *p >= '0' && *p <= '9')
            p++;
        *f1 = p;
    }
    return p == end ? 0 : -1;
}

static int digits_u64(const char *p, const char *end, uint64_t *out)
{
    uint64_t v = 0;
    for (; p < end; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

int json_to_u64(const struct json *v, uint64_t *out)
{
    const char *i1, *f0, *f1;
    if (plain_decimal(v, &i1, &f0, &f1) < 0 || f1 != f0 || i1 != f0)
        return -1; /* a fraction or a lone '.' */
    return digits_u64(v->text, i1, out);
}

/* Seconds as written by the report (12.000030961) or rewritten by another
 * tool (1.2000030961e1, 2.3595e-05): the literal's digits S and decimal
 * exponent E (value S x 10^E) give S x 10^(E+9) ns, rounded to the
 * nearest ns past the ninth decimal. */
int json_to_ns(const struct json *v, uint64_t *out)
{
    if (!v || v->type != JSON_NUMBER || v->text[0] == '-')
        return -1;
    const char *p = v->text, *end = v->text + v->len;
    char digits[40];
    size_t nd = 0;
    long exp10 = 0;
    bool fraction = false;
    for (; p < end && ((*p >= '0' && *p <= '9') || *p == '.'); p++) {
        if (*p == '.') {
            fraction = true;
            continue;
        }
        if (nd == sizeof digits) {
            if (!fraction)
                return -1; /* a whole part far beyond 2^64 ns */
            continue;      /* decimals past 40 digits: below any ns */
        }
        if (nd > 0 || *p != '0') /* leading zeros are no digits of S */
            digits[nd++] = *p;
        if (fraction)
            exp10--;
    }
    if (p < end) { /* json.c's grammar: [eE][+-]?digits */
        bool neg = *++p == '-';
        if (*p == '-' || *p == '+')
            p++;
        long e = 0;
        for (; p < end; p++)
            if ((e = e * 10 + (*p - '0')) > 100000)
                return -1;
        exp10 += neg ? -e : e;
    }
    /* The digits that fall in the whole ns, then one for rounding. */
    long keep = (long)nd + exp10 + 9;
    if (keep > 20)
        return -1;
    uint64_t ns = 0;
    for (long i = 0; i < keep; i++) {
        unsigned d = i < (long)nd ? (unsigned)(digits[i] - '0') : 0;
        if (ns > (UINT64_MAX - d) / 10)
            return -1;
        ns = ns * 10 + d;
    }
    if (keep >= 0 && keep < (long)nd && digits[keep] >= '5') {
        if (ns == UINT64_MAX)
            return -1;
        ns++;
    }
    *out = ns;
    return 0;
}

int json_to_double(const struct json *v, double *out)
{
    if (!v || v->type != JSON_NUMBER)
        return -1;
    char buf[64];
    if (v->len >= sizeof buf)
        return -1;
    memcpy(buf, v->text, v->len);
    buf[v->len] = '\0';
    *out = strtod(buf, NULL);
    return 0;
}
