# Bad options make nhood-calibrate exit non-zero on every rank, promptly and with a message:
#   cmake -DMPIEXEC=... -DNUMPROC_FLAG=-n -DFLAGS="a|b" -DPREFLAGS=... -DPOSTFLAGS=...
#         -DTOOL=<nhood-calibrate> -DDIR=<scratch dir> -P expect_usage_errors.cmake
foreach(v FLAGS PREFLAGS POSTFLAGS)
  string(REPLACE "|" ";" ${v} "${${v}}")
endforeach()
function(expect_usage_error pattern)
  execute_process(
    COMMAND ${MPIEXEC} ${NUMPROC_FLAG} 2 ${FLAGS} ${PREFLAGS} ${TOOL} ${POSTFLAGS} ${ARGN}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
  if(rc EQUAL 0 OR NOT rc MATCHES "^[0-9]+$")
    message(FATAL_ERROR "nhood-calibrate ${ARGN}: exit '${rc}', expected a non-zero exit\n${out}${err}")
  endif()
  if(NOT err MATCHES "${pattern}")
    message(FATAL_ERROR "nhood-calibrate ${ARGN}: message '${err}' does not match '${pattern}'")
  endif()
endfunction()

expect_usage_error("nhood-calibrate: unknown argument '--no-such' \\(try --help\\)" --no-such)
expect_usage_error("nhood-calibrate: --iters: 'many' is not an integer >= 1" --iters many)
expect_usage_error("nhood-calibrate: --iters: '0' is not an integer >= 1" --quick --iters 0)
expect_usage_error("nhood-calibrate: --out needs a value" --out)
expect_usage_error("nhood-calibrate: cannot write --out ${DIR}/no-such-dir/p.txt: No such file"
  --quick --out ${DIR}/no-such-dir/p.txt)
expect_usage_error("nhood-calibrate: cannot write --out ${DIR}: it is a directory" --quick --out ${DIR})
expect_usage_error("nhood-calibrate: cannot write --json ${DIR}/no-such-dir/p.json"
  --quick --out ${DIR}/usage-ok.txt --json ${DIR}/no-such-dir/p.json)
expect_usage_error("--json and --out name the same file" --out ${DIR}/same.txt --json ${DIR}/same.txt)
if(EXISTS ${DIR}/usage-ok.txt)
  message(FATAL_ERROR "a failed run left ${DIR}/usage-ok.txt behind")
endif()
