/*
 * goal-check FILE [MESSAGES]: reads a GOAL schedule that nhood-sim --goal wrote and checks it
 * (goal.h, goal_check): every rank once, every dependency on a defined label, every message
 * sent and received exactly once with one size. With MESSAGES, the sends must be that many
 * (nhood-sim's msgs_total for the case). Prints what it found; exit status 1 on a failure.
 */
#include <stdio.h>
#include <stdlib.h>

#include "goal.h"

int main(int argc, char **argv) {
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: goal-check FILE [MESSAGES]\n");
    return 2;
  }
  FILE *in = fopen(argv[1], "r");
  if (in == NULL) {
    fprintf(stderr, "goal-check: cannot read %s\n", argv[1]);
    return 1;
  }
  char err[256];
  long long messages = 0;
  int rc = goal_check(in, &messages, err, sizeof err);
  fclose(in);
  if (rc != 0) {
    fprintf(stderr, "goal-check: %s: %s\n", argv[1], err);
    return 1;
  }
  if (argc == 3 && messages != atoll(argv[2])) {
    fprintf(stderr, "goal-check: %s: %lld messages, expected %s\n", argv[1], messages, argv[2]);
    return 1;
  }
  printf("%s: %lld messages, each sent and received once\n", argv[1], messages);
  return 0;
}
