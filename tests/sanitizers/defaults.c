/*
 * The sanitizers' settings for everything a NHOOD_SANITIZE build links (CMakeLists.txt), so
 * that ctest, mpiexec and a developer's own runs need no environment: the runtimes call these
 * hooks at start-up, and ASAN_OPTIONS, UBSAN_OPTIONS and LSAN_OPTIONS still add to them.
 *
 * - Stop at the first report (with -fno-sanitize-recover=all for UBSan's checks).
 * - verify_asan_link_order=0: under nhood-run the interposition library is preloaded ahead of
 *   the program, and so ahead of the ASan runtime the program links; the runtime is still
 *   loaded before any instrumented code runs.
 * - fast_unwind_on_malloc=0: Open MPI's components are built without frame pointers, so the
 *   fast unwinder stops inside them and a leak's stack would not reach the MPI function that
 *   made it, which the suppressions (lsan.supp, each entry with its reason) name. Tests that
 *   run no MPI set it back to 1 (nhood_tests_without_mpi in CMakeLists.txt).
 */
const char *__asan_default_options(void);
const char *__ubsan_default_options(void);
const char *__lsan_default_options(void);

const char *__asan_default_options(void) {
  return "halt_on_error=1:abort_on_error=0:detect_leaks=1:verify_asan_link_order=0:strict_string_checks=1:"
         "fast_unwind_on_malloc=0";
}

const char *__ubsan_default_options(void) { return "halt_on_error=1:print_stacktrace=1"; }

/* NHOOD_LSAN_SUPPRESSIONS: the absolute path of tests/sanitizers/lsan.supp (CMakeLists.txt). */
const char *__lsan_default_options(void) { return "suppressions=" NHOOD_LSAN_SUPPRESSIONS ":print_suppressions=0"; }
