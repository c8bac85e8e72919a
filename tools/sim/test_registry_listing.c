/*
 * The tools enumerate nhood's registry, as the public API gives it (NHOOD_Algorithm_count and
 * NHOOD_Algorithm_get), and nothing else:
 *
 *   test_registry_listing info NHOOD_INFO   nhood-info --algorithms names every algorithm (at
 *                                           the start of a line, with its description), plus
 *                                           auto, and no other name;
 *   test_registry_listing sim NHOOD_SIM     nhood-sim --algo all runs and verifies every
 *                                           algorithm but mpi (MPI's own) on a small grid, its
 *                                           JSON rows naming what ran (algo_resolved).
 */
#include <nhood.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "unit.h" /* tests/unit: CHECK and the "N passed, N failed" summary */

/* The whole output of a shell command (NULL if it cannot run); *status: its exit status. */
static char *run(const char *command, int *status) {
  FILE *p = popen(command, "r");
  if (p == NULL) return NULL;
  size_t len = 0, cap = 1 << 16;
  char *out = malloc(cap);
  for (size_t n; out != NULL && (n = fread(out + len, 1, cap - len - 1, p)) > 0;) {
    len += n;
    if (len + 1 == cap) out = realloc(out, cap *= 2);
  }
  int rc = pclose(p);
  *status = rc == -1 ? -1 : WEXITSTATUS(rc);
  if (out != NULL) out[len] = '\0';
  return out;
}

/* s with every run of white space made one space (in place). */
static char *squeeze(char *s) {
  char *w = s;
  for (const char *r = s; *r; r++) {
    int space = isspace((unsigned char)*r);
    if (space && w > s && w[-1] == ' ') continue;
    *w++ = space ? ' ' : *r;
  }
  *w = '\0';
  return s;
}

static void check_info(const char *info) {
  char command[4096];
  int status, count = 0;
  snprintf(command, sizeof command, "'%s' --algorithms", info);
  char *out = run(command, &status);
  CHECK(out != NULL && status == 0, "%s: exit status %d", command, status);
  if (out == NULL) return;
  NHOOD_Algorithm_count(&count);
  CHECK(count > 0, "the registry is empty");
  /* Names: the lines that begin with exactly two spaces. */
  int listed = 0;
  for (const char *line = out; line != NULL && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    if (strncmp(line, "  ", 2) != 0 || line[2] == ' ') continue;
    int n = (int)strcspn(line + 2, " \n"), known = n == 4 && strncmp(line + 2, "auto", 4) == 0;
    for (int k = 0; k < count && !known; k++) {
      const char *name;
      NHOOD_Algorithm_get(k, &name, NULL);
      known = (int)strlen(name) == n && strncmp(line + 2, name, (size_t)n) == 0;
    }
    CHECK(known, "nhood-info --algorithms lists '%.*s', which is not in the registry", n, line + 2);
    listed++;
  }
  CHECK(listed == count + 1, "nhood-info --algorithms lists %d names, the registry has %d (and auto)", listed, count);
  /* Each algorithm's name, then its description (wrapped: compared with white space squeezed). */
  squeeze(out);
  for (int k = 0; k < count; k++) {
    const char *name, *description;
    NHOOD_Algorithm_get(k, &name, &description);
    char want[1024];
    snprintf(want, sizeof want, " %s %s", name, description);
    CHECK(strstr(out, squeeze(want)) != NULL, "nhood-info --algorithms does not describe %s as the registry: %s", name,
          description);
  }
  free(out);
}

static void check_sim(const char *sim) {
  char command[4096], json[] = "/tmp/nhood-registry-listing-XXXXXX";
  int status, count = 0, fd = mkstemp(json);
  CHECK(fd >= 0, "mkstemp");
  if (fd < 0) return;
  snprintf(command, sizeof command,
           "'%s' --ranks 4 --topo moore:d=2,r=1 --topo er:density=0.5 --coll allgather,alltoallv --sizes 1,8 "
           "--algo all --json %s",
           sim, json);
  char *out = run(command, &status);
  CHECK(out != NULL && status == 0, "%s: exit status %d\n%s", command, status, out ? out : "");
  free(out);
  snprintf(command, sizeof command, "cat %s", json);
  char *rows = run(command, &status);
  remove(json);
  CHECK(rows != NULL && rows[0] != '\0', "no JSON rows");
  if (rows == NULL) return;
  NHOOD_Algorithm_count(&count);
  int expected = 0, lines = 0;
  for (int k = 0; k < count; k++) {
    const char *name;
    NHOOD_Algorithm_get(k, &name, NULL);
    char field[128];
    snprintf(field, sizeof field, "\"algo\":\"%s\",", name);
    if (strcmp(name, "mpi") == 0) {
      CHECK(strstr(rows, field) == NULL, "nhood-sim --algo all ran mpi");
      continue;
    }
    expected++;
    CHECK(strstr(rows, field) != NULL, "nhood-sim --algo all did not run %s", name);
  }
  for (const char *line = rows; line != NULL && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    lines++;
    const char *end = strchr(line, '\n');
    int n = end ? (int)(end - line) : (int)strlen(line);
    char *copy = strndup(line, (size_t)n);
    CHECK(strstr(copy, "\"verified\":true") != NULL, "a case did not verify: %s", copy);
    CHECK(strstr(copy, "\"algo_resolved\":\"") != NULL, "a row does not name what ran: %s", copy);
    free(copy);
  }
  /* 2 topologies x 2 collectives x 2 sizes, each with every algorithm. */
  CHECK(lines == 8 * expected, "%d JSON rows, expected %d", lines, 8 * expected);
  free(rows);
}

int main(int argc, char **argv) {
  if (argc != 3 || (strcmp(argv[1], "info") != 0 && strcmp(argv[1], "sim") != 0)) {
    fprintf(stderr, "usage: test_registry_listing info NHOOD_INFO | sim NHOOD_SIM\n");
    return 2;
  }
  if (strcmp(argv[1], "info") == 0)
    check_info(argv[2]);
  else
    check_sim(argv[2]);
  return unit_summary(argv[1]);
}
