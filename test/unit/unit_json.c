/* test/unit/unit_json.c — the RFC 8259 reader (json.c): RFC 8259's own examples,
 * escapes, exact numbers, and what it must refuse, with where. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/json.h"
#include "t.h"

/* json_parse changes its input: each test parses its own copy. */
static struct json *parse(const char *text, char *err, size_t errlen)
{
    static char buf[8192];
    size_t n = strlen(text);
    memcpy(buf, text, n + 1);
    err[0] = '\0';
    return json_parse(buf, n, err, errlen);
}

static void test_rfc_examples(void)
{
    /* RFC 8259 §13, the first example. */
    static const char image[] = "{\n"
                                "  \"Image\": {\n"
                                "      \"Width\":  800,\n"
                                "      \"Height\": 600,\n"
                                "      \"Title\":  \"View from 15th Floor\",\n"
                                "      \"Thumbnail\": {\n"
                                "          \"Url\":    \"http://www.example.com/image/481989943\",\n"
                                "          \"Height\": 125,\n"
                                "          \"Width\":  100\n"
                                "      },\n"
                                "      \"Animated\" : false,\n"
                                "      \"IDs\": [116, 943, 234, 38793]\n"
                                "    }\n"
                                "}";
    char err[128];
    struct json *r = parse(image, err, sizeof err);
    uint64_t w = 0, h = 0, id = 0;
    const struct json *ids = json_path(r, "Image", "IDs", NULL);
    const struct json *title = json_path(r, "Image", "Title", NULL);
    T_CHECK("json: RFC 8259 §13's image object",
            r && json_to_u64(json_path(r, "Image", "Width", NULL), &w) == 0 && w == 800 &&
                json_to_u64(json_path(r, "Image", "Thumbnail", "Height", NULL), &h) == 0 && h == 125 &&
                title && strcmp(title->text, "View from 15th Floor") == 0 &&
                json_path(r, "Image", "Animated", NULL)->type == JSON_FALSE && ids && ids->type == JSON_ARRAY &&
                json_to_u64(ids->child->next->next->next, &id) == 0 && id == 38793 && !ids->child->next->next->next->next,
            "%s", err);
    json_free(r);

    /* §13, the second: an array of objects with decimals and negatives. */
    static const char places[] = "[{\"precision\": \"zip\", \"Latitude\": 37.7668, \"Longitude\": -122.3959,"
                                 " \"Address\": \"\", \"City\": \"SAN FRANCISCO\", \"State\": \"CA\", \"Zip\": \"94107\","
                                 " \"Country\": \"US\"}, {\"precision\": \"zip\", \"Latitude\": 37.371991,"
                                 " \"Longitude\": -122.026020, \"Address\": \"\", \"City\": \"SUNNYVALE\","
                                 " \"State\": \"CA\", \"Zip\": \"94085\", \"Country\": \"US\"}]";
    r = parse(places, err, sizeof err);
    double lat = 0, lon = 0;
    T_CHECK("json: RFC 8259 §13's array of places",
            r && r->type == JSON_ARRAY && json_to_double(json_get(r->child, "Latitude"), &lat) == 0 && lat == 37.7668 &&
                json_to_double(json_get(r->child->next, "Longitude"), &lon) == 0 && lon == -122.026020 &&
                strcmp(json_get(r->child->next, "City")->text, "SUNNYVALE") == 0 &&
                json_get(r->child, "Address")->len == 0,
            "%s", err);
    json_free(r);

    /* §2: any value at the top, whitespace around it. */
    r = parse(" \t\r\n\"Hello world!\" \n", err, sizeof err);
    T_CHECK("json: a string alone is a text", r && r->type == JSON_STRING && strcmp(r->text, "Hello world!") == 0,
            "%s", err);
    json_free(r);
    r = parse("null", err, sizeof err);
    T_CHECK("json: null alone is a text", r && r->type == JSON_NULL, "%s", err);
    json_free(r);
}

static void test_strings(void)
{
    char err[128];
    /* §7: every short escape, \u in the BMP, a surrogate pair (U+1D11E, the
     * RFC's G clef) to UTF-8, a lone surrogate to U+FFFD. */
    struct json *r = parse("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\u20AC\\uD834\\uDD1E\\uDC00\"", err, sizeof err);
    static const char want[] = "a\"b\\c/d\b\f\n\r\t\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e\xef\xbf\xbd";
    T_CHECK("json: escapes unescape to UTF-8", r && r->len == sizeof want - 1 && memcmp(r->text, want, r->len) == 0,
            "%s", err);
    json_free(r);
    r = parse("\"\\u0000x\"", err, sizeof err);
    T_CHECK("json: \\u0000 is kept, with the length", r && r->len == 2 && r->text[0] == 0 && r->text[1] == 'x', "%s",
            err);
    json_free(r);
    r = parse("{\"k\\u0065y\": 1}", err, sizeof err);
    T_CHECK("json: member names unescape too", r && json_get(r, "key") != NULL, "%s", err);
    json_free(r);
}

static void test_numbers(void)
{
    char err[128];
    struct json *r = parse("[0, 18446744073709551615, 18446744073709551616, 1.5, 1e3, -1, 12.000030961,"
                           " 0.000000001, 1.0000000006, 1779000000.123456789, 2.3595e-05, 1.2000030961E+1,"
                           " 0.0000000015, 18446744073.709551615, 18446744073.709551616, -0.5, 0.00000000049]",
                           err, sizeof err);
    const struct json *e = r ? r->child : NULL;
    uint64_t v[17] = { 0 };
    int rc[17];
    for (int i = 0; i < 17; i++, e = e ? e->next : NULL)
        rc[i] = i < 6 ? json_to_u64(e, &v[i]) : json_to_ns(e, &v[i]);
    T_CHECK("json: whole numbers to 2^64-1 exactly, nothing else",
            r && rc[0] == 0 && v[0] == 0 && rc[1] == 0 && v[1] == UINT64_MAX && rc[2] < 0 && rc[3] < 0 && rc[4] < 0 &&
                rc[5] < 0,
            "%s rc %d %d %d %d %d %d", err, rc[0], rc[1], rc[2], rc[3], rc[4], rc[5]);
    T_CHECK("json: seconds to the ns exactly, as the report writes them",
            rc[6] == 0 && v[6] == 12000030961ull && rc[7] == 0 && v[7] == 1 && rc[9] == 0 &&
                v[9] == 1779000000123456789ull,
            "rc %d %d %d, %llu %llu %llu", rc[6], rc[7], rc[9], (unsigned long long)v[6], (unsigned long long)v[7],
            (unsigned long long)v[9]);
    T_CHECK("json: seconds as other tools rewrite them (exponents, more decimals) to the nearest ns",
            rc[8] == 0 && v[8] == 1000000001 && rc[10] == 0 && v[10] == 23595 && rc[11] == 0 && v[11] == 12000030961ull &&
                rc[12] == 0 && v[12] == 2 && rc[16] == 0 && v[16] == 0,
            "rc %d %d %d %d %d, %llu %llu %llu %llu %llu", rc[8], rc[10], rc[11], rc[12], rc[16],
            (unsigned long long)v[8], (unsigned long long)v[10], (unsigned long long)v[11], (unsigned long long)v[12],
            (unsigned long long)v[16]);
    T_CHECK("json: seconds up to 2^64-1 ns, not past it, not negative",
            rc[13] == 0 && v[13] == UINT64_MAX && rc[14] < 0 && rc[15] < 0, "rc %d %d %d", rc[13], rc[14], rc[15]);
    json_free(r);
}

/* Each refused, with the line and column of the problem. */
static void test_refusals(void)
{
    static const struct {
        const char *text, *where;
    } cases[] = {
        { "", "line 1, column 1: unexpected end of input" },
        { "{\"a\": 1,}", "line 1, column 9: expected a member name" },
        { "[1, 2", "line 1, column 6: expected ',' or ']'" },
        { "{\n  \"a\": 01\n}", "line 2, column 9: expected ',' or '}'" },
        { "{\"a\" 1}", "line 1, column 6: expected ':'" },
        { "[tru]", "line 1, column 2: expected a value" },
        { "\"tab\there\"", "line 1, column 5: control character" },
        { "\"\\x\"", "line 1, column 4: bad escape" },
        { "\"\\u12\"", "line 1, column 4: bad \\u escape" },
        { "\"open", "line 1, column 6: unterminated string" },
        { "1.", "line 1, column 3: a digit must follow the decimal point" },
        { "1e+", "line 1, column 4: a digit must follow the exponent" },
        { "{} {}", "line 1, column 4: more after the JSON value" },
        { "[NaN]", "line 1, column 2: expected a value" },
        { "{'a': 1}", "line 1, column 2: expected a member name" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[128], name[96];
        struct json *r = parse(cases[i].text, err, sizeof err);
        snprintf(name, sizeof name, "json: refuses case %zu, saying where", i);
        T_CHECK(name, !r && strncmp(err, cases[i].where, strlen(cases[i].where)) == 0, "'%s': got '%s', want '%s'",
                cases[i].text, err, cases[i].where);
        json_free(r);
    }
    /* Nesting is bounded: 64 levels parse, 65 do not (and 100000 cannot
     * take the stack). */
    static char deep[200001];
    for (int levels = 64; levels <= 100000; levels = levels == 64 ? 65 : 100000) {
        memset(deep, '[', (size_t)levels);
        memset(deep + levels, ']', (size_t)levels);
        deep[2 * levels] = '\0';
        char err[128] = "";
        struct json *r = json_parse(deep, (size_t)(2 * levels), err, sizeof err);
        char name[64];
        snprintf(name, sizeof name, "json: %d levels of nesting %s", levels, levels == 64 ? "parse" : "are refused");
        T_CHECK(name, levels == 64 ? r != NULL : (!r && strstr(err, "nested too deep") != NULL), "'%s'", err);
        json_free(r);
        if (levels == 100000)
            break;
    }
}

/* json_parse_values: values one after another, with or without space
 * between them (as `cat` joins files), each linked to the next; json_parse
 * still takes one value only; a bad second value is refused where it is. */
static void test_values(void)
{
    static char buf[256];
    char err[128] = "";
    const char *two = "{\"a\": 1}\n{\"a\": 2}{\"a\": 3} [4]\n";
    memcpy(buf, two, strlen(two) + 1);
    struct json *r = json_parse_values(buf, strlen(two), err, sizeof err);
    uint64_t a1 = 0, a2 = 0, a3 = 0, four = 0;
    T_CHECK("json: values one after another, each linked to the next",
            r && json_to_u64(json_get(r, "a"), &a1) == 0 && a1 == 1 && r->next &&
                json_to_u64(json_get(r->next, "a"), &a2) == 0 && a2 == 2 && r->next->next &&
                json_to_u64(json_get(r->next->next, "a"), &a3) == 0 && a3 == 3 && r->next->next->next &&
                r->next->next->next->type == JSON_ARRAY && json_to_u64(r->next->next->next->child, &four) == 0 &&
                four == 4 && !r->next->next->next->next,
            "%s", err);
    json_free(r);
    struct json *one = parse(two, err, sizeof err);
    T_CHECK("json: json_parse still refuses a second value", !one && strstr(err, "line 2, column 1: more after"),
            "%s", err);
    json_free(one);
    const char *broken = "{\"a\": 1}\n{\"a\": }";
    memcpy(buf, broken, strlen(broken) + 1);
    r = json_parse_values(buf, strlen(broken), err, sizeof err);
    T_CHECK("json: a broken second value is refused where it breaks", !r && strstr(err, "line 2, column 7"), "%s", err);
    json_free(r);
}

int main(void)
{
    test_rfc_examples();
    test_strings();
    test_numbers();
    test_refusals();
    test_values();
    T_DONE();
}
