# Usage errors exit 2 with a message naming the problem: cmake -DSIM=<nhood-sim> -P this file.
function(expect_usage_error pattern)
  execute_process(COMMAND ${SIM} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "nhood-sim ${ARGN}: exit ${rc}, expected 2\n${out}${err}")
  endif()
  if(NOT err MATCHES "${pattern}")
    message(FATAL_ERROR "nhood-sim ${ARGN}: message '${err}' does not match '${pattern}'")
  endif()
endfunction()

expect_usage_error("unknown algorithm 'no-such' \\(known: direct"
  --ranks 4 --topo er:density=0.5 --algo direct,no-such)
expect_usage_error("unknown collective 'alltoallw'" --ranks 4 --topo er:density=0.5 --coll alltoallw)
expect_usage_error("unknown preset 'myrinet'" --ranks 4 --topo er:density=0.5 --model loggp:preset=myrinet)
expect_usage_error("has no G=" --ranks 4 --topo er:density=0.5 --model loggp:L=1,o=1,g=1)
expect_usage_error("no --ranks" --topo er:density=0.5)
expect_usage_error("er needs density" --ranks 4 --topo er:seed=1)
