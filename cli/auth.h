/* cli/auth.h — HTTP Basic credentials (RFC 7617) and keeping their
 * password out of sight.
 *
 * Where a target's user and password come from, first match wins:
 *   -u/--user USER:PASSWORD;
 *   -u USER, or a URL's USER@: the password from $SHB_PASSWORD, else from
 *   --netrc-file's entry for the host and USER (a URL's USER@ with
 *   neither: an empty password, as curl sends);
 *   the URL's USER:PASSWORD@;
 *   --netrc-file's entry for the host (its login and password).
 * The pair becomes one "Authorization: Basic ..." header, built once.
 *
 * Every text shb shows that could hold a URL (reports, tables, merged
 * reports, error messages) is made from auth_redact's copy, in which a
 * URL's password reads "***".
 *
 * Parsing only: bytes in, results out; reading files and the environment
 * is the caller's (cli.c). */
#ifndef SHB_CLI_AUTH_H
#define SHB_CLI_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#define CRED_MAX 256 /* a user name or a password, decoded, in bytes */

struct cred {
    char user[CRED_MAX];
    char password[CRED_MAX];
    bool has_user, has_password;
};

/* A URL's userinfo (RFC 3986 §3.2.1: "user[:password]@" before the host),
 * percent-decoded into c. authority is the text between "//" and the
 * path; *host_at is where the host starts (authority itself when there is
 * no userinfo). Returns 0, or -1 with err set (without the URL: the caller
 * names it): a bad %-escape, a control character (RFC 7617 §2), a ':' in
 * the user name, either part too long. */
int auth_from_authority(const char *authority, size_t len, struct cred *c, const char **host_at, char *err,
                        size_t errlen);

/* "USER[:PASSWORD]" as -u gives it (no %-decoding, as curl). Same errors. */
int auth_from_option(const char *s, struct cred *c, char *err, size_t errlen);

/* A copy of s (a URL, or "label=URL") with the password of the URL's
 * userinfo replaced by "***"; malloc'd, NULL when out of memory. A text
 * without one comes back as an exact copy. */
char *auth_redact(const char *s);

/* Where s's password is, for the caller to blank it in place (argv, so
 * that ps shows it no longer): its start, or NULL; *len its length. */
char *auth_password_in(char *s, size_t *len);

/* The value of an Authorization header for c: "Basic " and base64 of
 * "user:password" (RFC 7617 §2; the octets as given: UTF-8 on any
 * terminal today). malloc'd, NULL when out of memory. */
char *auth_basic(const struct cred *c);

/* The netrc file text[0, len) (the format of curl and ftp(1): whitespace-
 * separated tokens "machine NAME", "default", "login NAME", "password
 * PASS", "account X", "macdef NAME" up to an empty line; a token may be
 * "double-quoted" with \" and \\ inside). Fills c from the first entry for
 * host whose login is login (any login when login is NULL); "default"
 * matches any host, and only after every machine. Returns 1 found, 0 not,
 * -1 with err set (a token left without its value, an unclosed quote, a
 * token too long), line numbered. */
int auth_netrc_find(const char *text, size_t len, const char *host, const char *login, struct cred *c, char *err,
                    size_t errlen);

/* Wipes c (the compiler may not drop it). */
void auth_wipe(struct cred *c);

#endif
