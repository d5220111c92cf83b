/* manpage.h — shb(1), written from cli.c's option and subcommand tables
 * (the build runs scripts/mkman.c to make ./shb.1). */
#ifndef SHB_MANPAGE_H
#define SHB_MANPAGE_H

#include <stdio.h>

/* The page in man(7) markup. date ("YYYY-MM-DD" or "") and version go in
 * its header line. */
void manpage_write(FILE *f, const char *version, const char *date);

#endif
