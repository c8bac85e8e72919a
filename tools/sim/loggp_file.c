/* Model files: nhood-calibrate --sim-model writes them, nhood-sim --model @FILE reads them
 * (loggp.h). */
#include "loggp.h"

#include <stdio.h>
#include <string.h>

int loggp_read_model_file(const char *option, const char *path, char *text, size_t len, char *err, size_t errlen) {
  FILE *in = fopen(path, "r");
  if (in == NULL) {
    snprintf(err, errlen, "%s: cannot read %s", option, path);
    return 1;
  }
  int found = 0;
  while (!found && fgets(text, (int)len, in) != NULL) {
    text[strcspn(text, "\r\n")] = '\0';
    found = text[0] != '\0' && text[0] != '#';
  }
  fclose(in);
  if (!found) snprintf(err, errlen, "%s: %s holds no model line", option, path);
  return !found;
}
