/* scripts/mkman.c — writes shb(1) to stdout: make runs it for ./shb.1.
 *
 * Built with the host compiler from cli.c, manpage.c and version.c (the
 * Makefile's build/mkman), so the page comes from the very option table
 * that ./shb parses and prints -h from. No arguments. */
#include <stdio.h>

#include "cli/manpage.h"
#include "cli/version.h"

int main(void)
{
    manpage_write(stdout, shb_version, shb_version_date);
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
