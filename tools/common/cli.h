/* Command-line helpers shared by the tools (nhood-bench, nhood-sim). */
#ifndef NHOOD_TOOLS_CLI_H
#define NHOOD_TOOLS_CLI_H

#include <stddef.h>

/* Parses value as a decimal int >= min for the named option. 0, or 1 with a message. */
int cli_parse_int(const char *option, const char *value, int min, int *out, char *err, size_t errlen);

#endif
