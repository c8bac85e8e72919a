# Fortran, for what nhood builds in it: the Fortran tests (tests/fortran) and nhood-hotloop-f
# (tools/bench). Enabled here, at the top, for every directory that uses it. NHOOD_FORTRAN:
# ON requires a Fortran compiler and the MPI's Fortran bindings (CI and scripts/test.sh), AUTO
# uses them where they are found, OFF never. Sets NHOOD_MPI_FORTRAN_FOUND.
set(NHOOD_FORTRAN AUTO CACHE STRING "Fortran programs (tests, nhood-hotloop-f): ON, AUTO, OFF")
set(NHOOD_MPI_FORTRAN_FOUND FALSE)
if(NOT NHOOD_FORTRAN STREQUAL "OFF")
  # The Fortran wrapper of the MPI the library is built with: mpicc.X pairs with mpif90.X.
  include(CheckLanguage)
  check_language(Fortran)
  if(CMAKE_Fortran_COMPILER AND NOT MPI_Fortran_COMPILER)
    get_filename_component(_nhood_mpicc "${MPI_C_COMPILER}" NAME)
    string(REGEX REPLACE "^mpicc" "" _nhood_mpi_suffix "${_nhood_mpicc}")
    find_program(_nhood_mpif90 NAMES mpif90${_nhood_mpi_suffix} mpifort${_nhood_mpi_suffix} NO_CACHE)
    if(_nhood_mpif90)
      set(MPI_Fortran_COMPILER ${_nhood_mpif90} CACHE FILEPATH "MPI Fortran compiler wrapper")
    endif()
  endif()
  if(CMAKE_Fortran_COMPILER)
    enable_language(Fortran)
    find_package(MPI COMPONENTS Fortran)
  endif()
  if(MPI_Fortran_FOUND)
    set(NHOOD_MPI_FORTRAN_FOUND TRUE)
  elseif(NHOOD_FORTRAN STREQUAL "ON")
    message(FATAL_ERROR "NHOOD_FORTRAN=ON, but no Fortran compiler with MPI's Fortran bindings was found "
                        "(Debian: apt-get install gfortran; -DMPI_Fortran_COMPILER=mpif90.X names the wrapper)")
  else()
    message(STATUS "nhood: no Fortran compiler with MPI's Fortran bindings; no Fortran tests or nhood-hotloop-f")
  endif()
endif()
