/* version.h — shb's version, from the build (scripts/version.sh). */
#ifndef SHB_VERSION_H
#define SHB_VERSION_H

/* `git describe --tags --always --dirty` of the checkout it was built from,
 * else the VERSION file's first line, else "unknown". */
extern const char shb_version[];

/* The date of that commit (YYYY-MM-DD), for the man page; "" if unknown. */
extern const char shb_version_date[];

#endif
