# Runs nhood-calibrate under mpiexec, then checks the file it wrote:
#   cmake -DMPIEXEC=... -DNUMPROC_FLAG=-n -DNP=4 -DFLAGS="a|b" -DPREFLAGS="..." -DPOSTFLAGS="..."
#         -DTOOL=<nhood-calibrate> -DCHECK=<calibrate_check> -DOUT=<file> [-DCHECK_ARGS=--defaults]
#         [-DSIM=<nhood-sim>] -P run_and_check.cmake
# With SIM, nhood-calibrate also fits nhood-sim's model (--sim-model), which nhood-sim must
# then read and predict with, noise drawn.
# List arguments use '|' for ';' (add_test would split them).
foreach(v FLAGS PREFLAGS POSTFLAGS)
  string(REPLACE "|" ";" ${v} "${${v}}")
endforeach()
file(REMOVE ${OUT} ${OUT}.json ${OUT}.model)
set(sim_model_args "")
if(SIM)
  set(sim_model_args --sim-model ${OUT}.model)
endif()
execute_process(
  COMMAND ${MPIEXEC} ${NUMPROC_FLAG} ${NP} ${FLAGS} ${PREFLAGS} ${TOOL} ${POSTFLAGS}
          --quick --out ${OUT} --json ${OUT}.json ${sim_model_args}
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
if(SIM)
  string(JSON points ERROR_VARIABLE json_error GET "${json}" sim_model points)
  if(json_error OR NOT points GREATER 0)
    message(FATAL_ERROR "${OUT}.json: no sim_model fitted to round points (${points}) ${json_error}")
  endif()
  # On one node: the noise from chains of rounds (a common clock), the skew apart, the
  # sender's copies (O = G) and the cost of a local copy.
  string(JSON noise_rounds ERROR_VARIABLE json_error GET "${json}" noise_rounds)
  string(JSON from_skew ERROR_VARIABLE json_error2 GET "${json}" noise_from_skew)
  if(json_error OR json_error2 OR NOT noise_rounds GREATER 0 OR from_skew)
    message(FATAL_ERROR "${OUT}.json: noise_rounds '${noise_rounds}', noise_from_skew '${from_skew}' ${json_error}")
  endif()
  # The engine's points (calibrate_calls.c) were timed: 4 rounds with the neighbour, and rounds
  # of messages to oneself only.
  string(JSON ncalls ERROR_VARIABLE json_error LENGTH "${json}" calls)
  set(chain4 0)
  set(to_self 0)
  math(EXPR last "${ncalls} - 1")
  foreach(i RANGE ${last})
    string(JSON k GET "${json}" calls ${i} k)
    string(JSON rounds GET "${json}" calls ${i} rounds)
    string(JSON selfmsg GET "${json}" calls ${i} selfmsg)
    string(JSON us GET "${json}" calls ${i} us)
    if(rounds EQUAL 4 AND k EQUAL 1 AND us GREATER 0)
      set(chain4 1)
    endif()
    if(k EQUAL 0 AND selfmsg GREATER 0 AND us GREATER 0)
      set(to_self 1)
    endif()
  endforeach()
  if(NOT chain4 OR NOT to_self)
    message(FATAL_ERROR "${OUT}.json: no timed engine points (4 rounds: ${chain4}; to oneself: ${to_self})")
  endif()
  file(READ ${OUT}.model model)
  if(NOT model MATCHES ",G=([0-9.e+-]+),O=([0-9.e+-]+)," OR NOT CMAKE_MATCH_1 STREQUAL CMAKE_MATCH_2
     OR NOT model MATCHES ",ocopy=[0-9.e+-]+,"
     OR NOT model MATCHES ",oself=[0-9.e+-]+,Gself=[0-9.e+-]+,"
     OR NOT model MATCHES ",noise=[0-9.e+-]+(/[0-9.e+-]+)+,skew=[0-9.e+-]+(/[0-9.e+-]+)+")
    message(FATAL_ERROR "${OUT}.model: no O = G, ocopy, oself, Gself, noise and skew:\n${model}")
  endif()
  execute_process(COMMAND ${SIM} --ranks ${NP} --topo moore:d=1,r=1 --coll allgather --sizes 8 --model @${OUT}.model
                          --seeds 5 RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "round [0-9.e+-]+ us, delay per round .* \\(in the first round"
     OR NOT out MATCHES "band [0-9.]+-[0-9.]+ us")
    message(FATAL_ERROR "nhood-sim --model @${OUT}.model: exit ${rc}\n${out}${err}")
  endif()
endif()
