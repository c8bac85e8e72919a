# Usage errors exit 2 with a message naming the problem: cmake -DSIM=<nhood-sim> -P this file.
# Every check runs; each one that fails is reported (SEND_ERROR), and the script then fails.

# The message must match pattern and, when forbidden is not empty, must not match it.
function(expect_usage_error_without pattern forbidden)
  execute_process(COMMAND ${SIM} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 2)
    message(SEND_ERROR "nhood-sim ${ARGN}: exit ${rc}, expected 2\n${out}${err}")
  elseif(NOT err MATCHES "${pattern}")
    message(SEND_ERROR "nhood-sim ${ARGN}: message '${err}' does not match '${pattern}'")
  elseif(NOT forbidden STREQUAL "" AND err MATCHES "${forbidden}")
    message(SEND_ERROR "nhood-sim ${ARGN}: message '${err}' matches '${forbidden}'")
  endif()
endfunction()

function(expect_usage_error pattern)
  expect_usage_error_without("${pattern}" "" ${ARGN})
endfunction()

# Unknown algorithms, auto and mpi: the message lists only what nhood-sim runs, and says why
# not auto and mpi. (That the list holds every algorithm of the registry but mpi is
# algorithm.registry's check, tests/algorithms.)
set(accepted "nhood-sim runs: direct, [^;]*; ")
set(why "auto needs MPI to agree on a choice: see nhood-info for auto's decision table; mpi is the MPI library's own")
set(listed_auto_or_mpi "runs: ([^;]*, )?(auto|mpi)[,;]")
expect_usage_error_without("unknown algorithm 'no-such' \\(${accepted}${why}" "${listed_auto_or_mpi}"
  --ranks 4 --topo er:density=0.5 --algo direct,no-such)
expect_usage_error_without("cannot simulate 'auto' \\(${accepted}${why}" "${listed_auto_or_mpi}"
  --ranks 4 --topo er:density=0.5 --algo auto)
expect_usage_error_without("cannot simulate 'mpi' \\(${accepted}${why}" "${listed_auto_or_mpi}"
  --ranks 4 --topo er:density=0.5 --algo direct,mpi)

expect_usage_error("unknown collective 'reduce' \\(expected allgather, allgatherv, alltoall, alltoallv, alltoallw\\)"
  --ranks 4 --topo er:density=0.5 --coll reduce)

expect_usage_error("unknown preset 'myrinet'" --ranks 4 --topo er:density=0.5 --model loggp:preset=myrinet)
expect_usage_error("has no G=" --ranks 4 --topo er:density=0.5 --model loggp:L=1,o=1,g=1)
expect_usage_error("no --ranks" --topo er:density=0.5)
expect_usage_error("er needs density" --ranks 4 --topo er:seed=1)
expect_usage_error("--sizes: 'x' is not an integer >= 0" --ranks 4 --topo er:density=0.5 --sizes 4,x)

# The model's round cost, noise and skew, and where they come from.
expect_usage_error("noise= quantiles must not decrease" --ranks 4 --topo er:density=0.5
  --model loggp:preset=shm,noise=0/0/0/0/0/2/1/1/1/1/1/1/1/1/1)
expect_usage_error("skew= takes 15 quantiles" --ranks 4 --topo er:density=0.5 --model loggp:preset=shm,skew=0/1)
expect_usage_error("--model: cannot read /nonexistent/model.txt" --ranks 4 --topo er:density=0.5
  --model @/nonexistent/model.txt)
expect_usage_error("--noise-from: cannot read /nonexistent/model.txt" --ranks 4 --topo er:density=0.5
  --noise-from /nonexistent/model.txt)
expect_usage_error("--seeds: '0' is not an integer >= 1" --ranks 4 --topo er:density=0.5 --seeds 0)
