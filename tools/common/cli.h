/* Command-line and message helpers shared by the tools (nhood-bench, nhood-sim, nhood-info, nhood-calibrate). */
#ifndef NHOOD_TOOLS_CLI_H
#define NHOOD_TOOLS_CLI_H

#include <stddef.h>
#include <stdio.h>

/* Parses value as a decimal int >= min for the named option. 0, or 1 with a message. */
int cli_parse_int(const char *option, const char *value, int min, int *out, char *err, size_t errlen);

/* Parses a --mode value of nhood-sim and nhood-info: "blocking" (*persistent = 0) or
 * "persistent" (1). 0, or 1 with a message. */
int cli_parse_mode(const char *option, const char *value, int *persistent, char *err, size_t errlen);

/* Reads argv[*i] as one of the options in names[n] that take a value, given as "--name value"
 * or "--name=value" (advancing *i past a separate value). 0 with *name (an entry of names)
 * and *value; 1 with a message for an unknown option or a missing value. */
int cli_option_with_value(int argc, char **argv, int *i, const char *const names[], size_t n, const char **name,
                          const char **value, char *err, size_t errlen);

/* Median of n > 0 samples; sorts them. */
double cli_median(double *samples, int n);
/* qsort's comparison of doubles, ascending. */
int cli_compare_double(const void *a, const void *b);
/* The p-quantile (0 <= p <= 1) of n > 0 sorted values, interpolated linearly between ranks. */
double cli_sorted_quantile(const double *sorted, int n, double p);

/* The plural ending of a count in messages: "%d rank%s", n, cli_plural(n) reads "1 rank", "2 ranks". */
static inline const char *cli_plural(long long n) { return n == 1 ? "" : "s"; }

/* Writes s to out as a JSON string literal (quotes, backslashes and control characters escaped). */
void cli_json_string(FILE *out, const char *s);

#endif
