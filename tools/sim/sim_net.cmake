# The in-process transport on which virtual ranks run the engine (sim_net.c over the FIFO
# matching of sim_mailbox.c). nhood-sim's core and the engine's unit test (tests/unit) share
# it, so tools/sim/CMakeLists.txt includes this file, and tests/unit/CMakeLists.txt too for a
# build without the tools (NHOOD_BUILD_TOOLS=OFF).
if(NOT TARGET nhood_sim_net)
  add_library(nhood_sim_net STATIC ${CMAKE_CURRENT_LIST_DIR}/sim_mailbox.c ${CMAKE_CURRENT_LIST_DIR}/sim_net.c)
  target_include_directories(nhood_sim_net PUBLIC ${CMAKE_CURRENT_LIST_DIR} ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(nhood_sim_net PUBLIC nhood_static PRIVATE nhood_topospec nhood_warnings)
endif()
