# Installs the library, the header, a CMake package (find_package(nhood) -> nhood::nhood)
# and a pkg-config file (pkg-config --cflags --libs nhood).
include(CMakePackageConfigHelpers)

install(TARGETS nhood nhood_static EXPORT nhoodTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES include/nhood.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The interposition library: nhood::mpi in the CMake package (link it ahead of MPI), the
# variable `interpose` in the pkg-config file, and nhood-run (tools/run) to preload it.
if(TARGET nhood_mpi)
  set_target_properties(nhood_mpi PROPERTIES EXPORT_NAME mpi)
  install(TARGETS nhood_mpi EXPORT nhoodTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
install(EXPORT nhoodTargets NAMESPACE nhood:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/nhood)

# The MPI the library is built with, recorded in both files: a program must link that MPI and
# no other (libnhood.so needs its libmpi, and two MPIs in one process crash). The compiler
# wrapper's own path is kept (Open MPI's mpicc.openmpi is a link to opal_wrapper, which acts by
# the name it is called with); the libraries are kept as real paths, to compare with.
set(NHOOD_MPI_C_COMPILER "")
if(MPI_C_COMPILER)
  if(IS_ABSOLUTE "${MPI_C_COMPILER}")
    set(NHOOD_MPI_C_COMPILER "${MPI_C_COMPILER}")
  else()
    find_program(_nhood_mpicc_path NAMES "${MPI_C_COMPILER}" NO_CACHE)
    if(_nhood_mpicc_path)
      set(NHOOD_MPI_C_COMPILER "${_nhood_mpicc_path}")
    endif()
  endif()
endif()
set(NHOOD_MPI_C_LIBRARIES "")
foreach(_nhood_lib IN LISTS MPI_C_LIBRARIES)
  if(IS_ABSOLUTE "${_nhood_lib}")
    get_filename_component(_nhood_lib "${_nhood_lib}" REALPATH)
    list(APPEND NHOOD_MPI_C_LIBRARIES "${_nhood_lib}")
  endif()
endforeach()
set(NHOOD_MPIEXEC_EXECUTABLE "")
if(MPIEXEC_EXECUTABLE AND IS_ABSOLUTE "${MPIEXEC_EXECUTABLE}")
  set(NHOOD_MPIEXEC_EXECUTABLE "${MPIEXEC_EXECUTABLE}")
endif()

configure_package_config_file(cmake/nhoodConfig.cmake.in
  ${PROJECT_BINARY_DIR}/nhoodConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/nhood)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/nhoodConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/nhoodConfig.cmake ${PROJECT_BINARY_DIR}/nhoodConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/nhood)

# pkg-config: MPI flags are left to the MPI compiler wrapper (mpicc), which users of an MPI
# library already compile with; the file names the one to use (pkg-config --variable=mpicc
# nhood). The file is written at install time, with the absolute prefix the install goes to
# (`cmake --install --prefix DIR` included), so that its paths, and the rpath in Libs that lets
# the program (and every MPI rank) find libnhood.so, are absolute however PKG_CONFIG_PATH is
# given. No rpath when the library goes to a directory the linker searches anyway.
set(_nhood_pc_code "")
foreach(_nhood_var PROJECT_DESCRIPTION PROJECT_VERSION CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR
                   NHOOD_MPI_C_COMPILER)
  string(APPEND _nhood_pc_code "  set(${_nhood_var} [==[${${_nhood_var}}]==])\n")
endforeach()
string(APPEND _nhood_pc_code "  set(system_dirs [==[${CMAKE_C_IMPLICIT_LINK_DIRECTORIES};"
       "${CMAKE_PLATFORM_IMPLICIT_LINK_DIRECTORIES}]==])\n"
       "  set(template [==[${PROJECT_SOURCE_DIR}/cmake/nhood.pc.in]==])\n"
       "  set(output [==[${PROJECT_BINARY_DIR}/nhood.pc]==])\n")
string(APPEND _nhood_pc_code [[
  get_filename_component(NHOOD_PC_PREFIX "${CMAKE_INSTALL_PREFIX}" ABSOLUTE)
  foreach(dir LIBDIR INCLUDEDIR)
    if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
      set(NHOOD_PC_${dir} "${CMAKE_INSTALL_${dir}}")
    else()
      set(NHOOD_PC_${dir} "\${prefix}/${CMAKE_INSTALL_${dir}}")
    endif()
  endforeach()
  string(REPLACE "\${prefix}" "${NHOOD_PC_PREFIX}" libdir "${NHOOD_PC_LIBDIR}")
  get_filename_component(libdir "${libdir}" ABSOLUTE)
  set(NHOOD_PC_RPATH "-Wl,-rpath,\${libdir} ")
  foreach(dir IN LISTS system_dirs)
    get_filename_component(dir "${dir}" ABSOLUTE)
    if(dir STREQUAL libdir)
      set(NHOOD_PC_RPATH "")
    endif()
  endforeach()
  configure_file("${template}" "${output}" @ONLY)
]])
install(CODE "function(_nhood_write_pc)\n${_nhood_pc_code}endfunction()\n_nhood_write_pc()\n")
install(FILES ${PROJECT_BINARY_DIR}/nhood.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
