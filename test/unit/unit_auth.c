/* test/unit/unit_auth.c — credentials (cli/auth.c and their
 * use in cli.c and request.c): RFC 7617's own example, a URL's userinfo,
 * netrc files, where each target's credentials come from, the password
 * masked in what is shown and blanked in argv, and where the header goes
 * in each protocol's field list. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/auth.h"
#include "request.h"
#include "t.h"

static void test_basic(void)
{
    struct cred c = {.user = "Aladdin", .password = "open sesame", .has_user = true, .has_password = true};
    char *v = auth_basic(&c);
    T_CHECK("basic: RFC 7617 §2's example", v && strcmp(v, "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==") == 0, "%s", v);
    free(v);
    struct cred e = {.user = "a", .has_user = true, .has_password = true};
    v = auth_basic(&e);
    T_CHECK("basic: an empty password is base64 of \"a:\"", v && strcmp(v, "Basic YTo=") == 0, "%s", v);
    free(v);
}

static void test_authority(void)
{
    struct cred c;
    const char *host;
    char err[128];
    const char *a = "ada:Zq7%3As3cr3t%40x@127.0.0.1:8080";
    int rc = auth_from_authority(a, strlen(a), &c, &host, err, sizeof err);
    T_CHECK("userinfo: %-decoded user and password; the host after the '@'",
            rc == 0 && c.has_user && c.has_password && strcmp(c.user, "ada") == 0 &&
                strcmp(c.password, "Zq7:s3cr3t@x") == 0 && strcmp(host, "127.0.0.1:8080") == 0,
            "rc %d user '%s' password '%s' host '%s'", rc, c.user, c.password, host);
    a = "ada@h";
    rc = auth_from_authority(a, strlen(a), &c, &host, err, sizeof err);
    T_CHECK("userinfo: user@ alone has no password", rc == 0 && c.has_user && !c.has_password, "rc %d", rc);
    a = "ada:@h";
    rc = auth_from_authority(a, strlen(a), &c, &host, err, sizeof err);
    T_CHECK("userinfo: user:@ has an empty one", rc == 0 && c.has_password && c.password[0] == '\0', "rc %d", rc);
    a = "h:80";
    rc = auth_from_authority(a, strlen(a), &c, &host, err, sizeof err);
    T_CHECK("userinfo: none", rc == 0 && !c.has_user && host == a, "rc %d", rc);
    a = "a:b@c@h";
    rc = auth_from_authority(a, strlen(a), &c, &host, err, sizeof err);
    T_CHECK("userinfo: the last '@' ends it (an unescaped '@' in a password)",
            rc == 0 && strcmp(c.password, "b@c") == 0 && strcmp(host, "h") == 0, "rc %d '%s'", rc, c.password);
    static const struct {
        const char *a, *why;
    } bad[] = {
        {"a:b%4@h", "%-escape"}, {"a:b%zz@h", "%-escape"}, {"a:b%0a@h", "control character"},
        {"a\x7f:b@h", "control character"}, {"a%3Ab:c@h", "':' in the user name"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rc = auth_from_authority(bad[i].a, strlen(bad[i].a), &c, &host, err, sizeof err);
        T_CHECK("userinfo: refused with the reason", rc == -1 && strstr(err, bad[i].why), "'%s': rc %d '%s'",
                bad[i].a, rc, err);
    }
    char longpw[400] = "a:";
    memset(longpw + 2, 'x', 300);
    strcpy(longpw + 302, "@h");
    rc = auth_from_authority(longpw, strlen(longpw), &c, &host, err, sizeof err);
    T_CHECK("userinfo: a password over 255 bytes is refused", rc == -1 && strstr(err, "longer than 255"), "%s", err);
    rc = auth_from_option("ada:p:w@d", &c, err, sizeof err);
    T_CHECK("-u: the first ':' splits; no %-decoding",
            rc == 0 && strcmp(c.user, "ada") == 0 && strcmp(c.password, "p:w@d") == 0, "'%s'", c.password);
    rc = auth_from_option("", &c, err, sizeof err);
    T_CHECK("-u: an empty user is refused", rc == -1, "rc %d", rc);
}

static void test_redact(void)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"http://ada:pw@h:8/x", "http://ada:***@h:8/x"},
        {"lbl=https://ada:p%40w@h/", "lbl=https://ada:***@h/"},
        {"http://ada@h/", "http://ada@h/"},
        {"http://ada:@h/", "http://ada:@h/"},
        {"http://h/?next=http://u:p@c/", "http://h/?next=http://u:p@c/"},
        {"http://a:b@c@h/", "http://a:***@h/"},
        {"not a url", "not a url"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *r = auth_redact(cases[i].in);
        T_CHECK("redact: the URL's password reads ***", r && strcmp(r, cases[i].out) == 0, "'%s' -> '%s'",
                cases[i].in, r);
        free(r);
    }
}

/* auth_netrc_find on text for host 127.0.0.1 and login (NULL: any). */
static int netrc(const char *text, const char *login, struct cred *c, char *err)
{
    return auth_netrc_find(text, strlen(text), "127.0.0.1", login, c, err, 160);
}

static void test_netrc(void)
{
    struct cred c;
    char err[160];
    int rc = netrc("default login d password e\n"
                   "# a comment: machine 127.0.0.1 login x password y\n"
                   "machine other login o password p\n"
                   "macdef init\ncd /\nmachine 127.0.0.1 login m password n\n\n"
                   "machine 127.0.0.1\n  login ada\n  password \"Zq7 \\\"s3\\\\x\"\n  account z\n",
                   NULL, &c, err);
    T_CHECK("netrc: the host's machine (not a comment, not a macro's text, not default first); quoted token",
            rc == 1 && strcmp(c.user, "ada") == 0 && strcmp(c.password, "Zq7 \"s3\\x") == 0, "rc %d %s/%s %s", rc,
            c.user, c.password, err);
    rc = netrc("machine 127.0.0.1 login bob password b\nmachine 127.0.0.1 login ada password a\n", "ada", &c, err);
    T_CHECK("netrc: the entry with the URL's login", rc == 1 && strcmp(c.password, "a") == 0, "rc %d", rc);
    rc = netrc("machine 127.0.0.1 login bob password b\ndefault login ada password dflt\n", "ada", &c, err);
    T_CHECK("netrc: default when no machine has that login", rc == 1 && strcmp(c.password, "dflt") == 0, "rc %d",
            rc);
    rc = netrc("machine example login a password b\n", NULL, &c, err);
    T_CHECK("netrc: no entry", rc == 0, "rc %d", rc);
    rc = netrc("MACHINE 127.0.0.1 login a password b\nmachine 127.0.0.1 login q password r", NULL, &c, err);
    T_CHECK("netrc: keywords are lowercase; the last entry without a newline", rc == 1 && strcmp(c.user, "q") == 0,
            "rc %d", rc);
    const char *upper = "machine LOCALHOST login a password b";
    rc = auth_netrc_find(upper, strlen(upper), "localhost", NULL, &c, err, sizeof err);
    T_CHECK("netrc: host names match in any case", rc == 1, "rc %d", rc);
    rc = netrc("machine 127.0.0.1 login ada\n\n password", NULL, &c, err);
    T_CHECK("netrc: a keyword without its value is refused on its line",
            rc == -1 && strcmp(err, "line 3: 'password' has no value") == 0, "rc %d '%s'", rc, err);
    rc = netrc("machine 127.0.0.1 login \"ada", NULL, &c, err);
    T_CHECK("netrc: an unclosed quote is refused", rc == -1 && strstr(err, "closing"), "rc %d '%s'", rc, err);
}

/* cli_parse over a writable copy of args; its first target's
 * Authorization (or NULL) into auth, the error into err. */
static enum cli_result parse(const char *const *args, int n, struct shb_opts *o, char *err)
{
    char *argv[16];
    for (int i = 0; i < n; i++)
        argv[i] = strdup(args[i]);
    FILE *null = fopen("/dev/null", "w");
    enum cli_result r = cli_parse(n, argv, o, 1, null, err, 256);
    fclose(null);
    for (int i = 0; i < n; i++)
        free(argv[i]);
    return r;
}

static void test_cli(void)
{
    struct shb_opts o;
    char err[256];
    unsetenv("SHB_PASSWORD");
    const char *a1[] = {"shb", "a=http://ada:pw@h/", "http://h2/"};
    enum cli_result r = parse(a1, 3, &o, err);
    T_CHECK("cli: a URL's credentials, that target only; its shown text masked",
            r == CLI_OK && strcmp(o.targets[0].authorization, "Basic YWRhOnB3") == 0 &&
                strcmp(o.targets[0].url_text, "http://ada:***@h/") == 0 && !o.targets[1].authorization &&
                !o.targets[0].url.cred.has_user && o.targets[0].url.cred.password[0] == '\0',
            "r %d %s", r, err);
    struct shb_request req = r == CLI_OK ? cli_request(&o, &o.targets[0]) : (struct shb_request){0};
    T_CHECK("cli: the request carries it", req.authorization && strcmp(req.authorization, "Basic YWRhOnB3") == 0,
            "%s", req.authorization);
    if (r == CLI_OK)
        cli_free(&o);

    const char *a2[] = {"shb", "-u", "bob:x", "http://ada:pw@h/", "http://h2/"};
    r = parse(a2, 5, &o, err);
    T_CHECK("cli: -u goes to every target and wins over the URL's",
            r == CLI_OK && strcmp(o.targets[0].authorization, "Basic Ym9iOng=") == 0 &&
                strcmp(o.targets[1].authorization, "Basic Ym9iOng=") == 0,
            "r %d %s", r, err);
    if (r == CLI_OK)
        cli_free(&o);

    const char *a3[] = {"shb", "-u", "bob", "http://h/"};
    r = parse(a3, 4, &o, err);
    T_CHECK("cli: -u USER without a password anywhere is refused, saying where one may come from",
            r == CLI_ERROR && strstr(err, "-u bob has no password") && strstr(err, "SHB_PASSWORD") &&
                strstr(err, "--netrc-file"),
            "r %d %s", r, err);
    setenv("SHB_PASSWORD", "x", 1);
    r = parse(a3, 4, &o, err);
    T_CHECK("cli: -u USER takes $SHB_PASSWORD", r == CLI_OK && strcmp(o.targets[0].authorization, "Basic Ym9iOng=") == 0,
            "r %d %s", r, err);
    if (r == CLI_OK)
        cli_free(&o);
    unsetenv("SHB_PASSWORD");

    const char *a4[] = {"shb", "http://ada@h/"};
    r = parse(a4, 2, &o, err);
    T_CHECK("cli: a URL's user@ alone sends an empty password (as curl)",
            r == CLI_OK && strcmp(o.targets[0].authorization, "Basic YWRhOg==") == 0, "r %d %s", r, err);
    if (r == CLI_OK)
        cli_free(&o);

    char path[] = "/tmp/shb-unit-netrc-XXXXXX";
    int fd = mkstemp(path);
    const char *text = "machine h login ada password fromfile\n";
    T_CHECK("netrc file written", fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text), "fd %d", fd);
    if (fd >= 0)
        close(fd);
    const char *a5[] = {"shb", "--netrc-file", path, "http://h/", "http://ada@h/", "http://other/"};
    r = parse(a5, 6, &o, err);
    T_CHECK("cli: --netrc-file: the host's entry; a URL's user@ takes its password; another host none",
            r == CLI_OK && strcmp(o.targets[0].authorization, "Basic YWRhOmZyb21maWxl") == 0 &&
                strcmp(o.targets[1].authorization, "Basic YWRhOmZyb21maWxl") == 0 && !o.targets[2].authorization,
            "r %d %s", r, err);
    if (r == CLI_OK)
        cli_free(&o);
    unlink(path);

    const char *a6[] = {"shb", "-u", "a:s3cr3t\n", "http://h/"};
    r = parse(a6, 4, &o, err);
    T_CHECK("cli: a refused -u does not quote its value", r == CLI_ERROR && !strstr(err, "s3cr3t"), "%s", err);
    const char *a7[] = {"shb", "http://a:s3cr3t@h:0/"};
    r = parse(a7, 2, &o, err);
    T_CHECK("cli: a refused URL is quoted with its password masked",
            r == CLI_ERROR && strstr(err, "a:***@h:0") && !strstr(err, "s3cr3t"), "%s", err);
}

static void test_hide(void)
{
    char a0[] = "shb", a1[] = "-u", a2[] = "ada:pw", a3[] = "--user=bo:xy", a4[] = "-jua:bc", a5[] = "-H",
         a6[] = "x: -u", a7[] = "lbl=http://u:pass@h/", a8[] = "--", a9[] = "http://v:zz@h/";
    char *argv[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9};
    cli_hide_secrets(10, argv);
    T_CHECK("hide: -u's password, --user='s, a cluster's -u, each URL's; other values untouched",
            strcmp(a2, "ada:**") == 0 && strcmp(a3, "--user=bo:**") == 0 && strcmp(a4, "-jua:**") == 0 &&
                strcmp(a6, "x: -u") == 0 && strcmp(a7, "lbl=http://u:****@h/") == 0 &&
                strcmp(a9, "http://v:**@h/") == 0,
            "%s %s %s %s %s %s", a2, a3, a4, a6, a7, a9);
}

static void test_request(void)
{
    struct shb_request r = {.authority = "h", .authorization = "Basic YTpi"};
    size_t n;
    struct shb_field *f = shb_request_fields(&r, SHB_FIELDS_H1, &n);
    T_CHECK("request: HTTP/1.1 sends Authorization right after Host",
            f && n >= 2 && strcmp(f[0].name, "Host") == 0 && strcmp(f[1].name, "Authorization") == 0 &&
                strcmp(f[1].value, "Basic YTpi") == 0,
            "%s", f && n > 1 ? f[1].name : "?");
    free(f);
    f = shb_request_fields(&r, SHB_FIELDS_H2, &n);
    T_CHECK("request: HTTP/2 and HTTP/3 send authorization after the pseudo-headers",
            f && n >= 5 && strcmp(f[4].name, "authorization") == 0, "%s", f && n > 4 ? f[4].name : "?");
    free(f);
    struct shb_header h = {.name = "authorization", .value = "Bearer t"};
    r.headers = &h;
    r.nheaders = 1;
    f = shb_request_fields(&r, SHB_FIELDS_H1, &n);
    size_t count = 0;
    for (size_t i = 0; f && i < n; i++)
        if (strcasecmp(f[i].name, "authorization") == 0)
            count += strcmp(f[i].value, "Bearer t") == 0 ? 1 : 100;
    T_CHECK("request: the user's own Authorization wins, sent once", count == 1, "count %zu", count);
    free(f);
}

int main(void)
{
    test_basic();
    test_authority();
    test_redact();
    test_netrc();
    test_cli();
    test_hide();
    test_request();
    T_DONE();
}
