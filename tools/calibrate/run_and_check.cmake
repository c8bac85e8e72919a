# Runs nhood-calibrate under mpiexec, then checks the file it wrote:
#   cmake -DMPIEXEC=... -DNUMPROC_FLAG=-n -DNP=4 -DFLAGS="a|b" -DPREFLAGS="..." -DPOSTFLAGS="..."
#         -DTOOL=<nhood-calibrate> -DCHECK=<calibrate_check> -DOUT=<file> [-DCHECK_ARGS=--defaults]
#         -P run_and_check.cmake
# List arguments use '|' for ';' (add_test would split them).
foreach(v FLAGS PREFLAGS POSTFLAGS)
  string(REPLACE "|" ";" ${v} "${${v}}")
endforeach()
file(REMOVE ${OUT} ${OUT}.json)
execute_process(
  COMMAND ${MPIEXEC} ${NUMPROC_FLAG} ${NP} ${FLAGS} ${PREFLAGS} ${TOOL} ${POSTFLAGS}
          --quick --out ${OUT} --json ${OUT}.json
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nhood-calibrate on ${NP} ranks: exit ${rc}")
endif()
if(NOT EXISTS ${OUT}.json)
  message(FATAL_ERROR "nhood-calibrate did not write --json ${OUT}.json")
endif()
file(READ ${OUT}.json json)
string(JSON json_ranks ERROR_VARIABLE json_error GET "${json}" ranks)
if(json_error OR NOT json_ranks EQUAL NP)
  message(FATAL_ERROR "${OUT}.json: ranks '${json_ranks}', expected ${NP} ${json_error}")
endif()
execute_process(COMMAND ${CHECK} ${OUT} ${CHECK_ARGS} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the file nhood-calibrate wrote fails the check")
endif()
