# --noise-from takes a measured model's round cost, ocopy and noise (with its zero, noise0)
# over --model's network,
# and not its skew (a program's processes enter a call as the program makes them):
#   cmake -DSIM=<nhood-sim> -DDIR=<dir> -P check_noise_from.cmake
set(model ${DIR}/noise-from-model.txt)
file(WRITE ${model} "# a measured model\nloggp:L=9,o=9,g=0,G=0.1,round=0.25,ocopy=0.125,noise0=0.5,noise=0/1/1/1/1/2/2/2/2/3/3/3/3/3/4,skew=0/5/5/5/5/6/6/6/6/7/7/7/7/7/8\n")
execute_process(COMMAND ${SIM} --ranks 4 --topo moore:d=1,r=1 --coll allgather --sizes 8 --model loggp:preset=ib-edr
                        --noise-from ${model} --seeds 3 RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nhood-sim --noise-from: exit ${rc}\n${out}${err}")
endif()
# ib-edr's L and o stay; the round cost and the noise's median (2, less noise0: 1.5) come from
# the file, and the first round draws from the noise too (1.5 and 2.5, not the skew's).
if(NOT out MATCHES "L 1.2 us, o 0.3 us" OR NOT out MATCHES "round 0.25 us, delay per round 1.5 us at the median and 2.5 at the 90th percentile \\(in the first round 1.5 and 2.5\\)")
  message(FATAL_ERROR "nhood-sim --noise-from did not take the round cost and noise alone:\n${out}")
endif()
