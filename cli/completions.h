/* completions.h — shell completion scripts (shb completions SHELL),
 * generated from cli.c's option and subcommand tables. */
#ifndef SHB_COMPLETIONS_H
#define SHB_COMPLETIONS_H

#include <stdio.h>

/* Writes the script for shell ("bash", "zsh" or "fish") to f. Returns 0, or
 * -1 for a shell it does not know (nothing written). */
int completions_write(FILE *f, const char *shell);

#endif
