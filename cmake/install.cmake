# Installs the library, the header, a CMake package (find_package(nhood) -> nhood::nhood)
# and a pkg-config file (pkg-config --cflags --libs nhood).
include(CMakePackageConfigHelpers)

install(TARGETS nhood nhood_static EXPORT nhoodTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES include/nhood.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT nhoodTargets NAMESPACE nhood:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/nhood)

configure_package_config_file(cmake/nhoodConfig.cmake.in
  ${PROJECT_BINARY_DIR}/nhoodConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/nhood)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/nhoodConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/nhoodConfig.cmake ${PROJECT_BINARY_DIR}/nhoodConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/nhood)

# pkg-config: MPI flags are left to the MPI compiler wrapper (mpicc), which users of an MPI
# library already compile with. The prefix is found relative to the .pc file itself, so
# `cmake --install --prefix DIR` gives a correct file wherever DIR is.
file(RELATIVE_PATH NHOOD_PC_TO_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" NHOOD_PC_TO_PREFIX "${NHOOD_PC_TO_PREFIX}")
configure_file(cmake/nhood.pc.in ${PROJECT_BINARY_DIR}/nhood.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/nhood.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
