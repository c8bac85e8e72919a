/*
 * ThreadSanitizer's settings for everything a NHOOD_TSAN build links (CMakeLists.txt): stop
 * at the first report, show both stacks of a lock-order inversion, and read the suppressions
 * of tsan.supp (each entry with its reason). TSAN_OPTIONS still adds to them.
 */
const char *__tsan_default_options(void);

/* NHOOD_TSAN_SUPPRESSIONS: the absolute path of tests/sanitizers/tsan.supp (CMakeLists.txt). */
const char *__tsan_default_options(void) {
  return "halt_on_error=1:second_deadlock_stack=1:suppressions=" NHOOD_TSAN_SUPPRESSIONS;
}
