/* version.c — the one object that holds the version, so that a new commit
 * recompiles this file alone (build/version.h changes only when the
 * version does: scripts/version.sh). */
#include "cli/version.h"

#include "build/version.h"

const char shb_version[] = SHB_VERSION;
const char shb_version_date[] = SHB_VERSION_DATE;
