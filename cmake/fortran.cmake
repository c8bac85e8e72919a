# Fortran, for what nhood builds in it: the Fortran tests (tests/fortran) and nhood-hotloop-f
# (tools/bench). Enabled here, at the top, for every directory that uses it. NHOOD_FORTRAN:
# ON requires a Fortran compiler and the MPI's Fortran bindings (CI and scripts/test.sh), AUTO
# uses them where they are found, OFF never. Sets NHOOD_MPI_FORTRAN_FOUND.
set(NHOOD_FORTRAN AUTO CACHE STRING "Fortran programs (tests, nhood-hotloop-f): ON, AUTO, OFF")

# The include directories MPI's Fortran wrapper names, less those that do not exist (Intel MPI's
# wheel names one for each gfortran release it was built for): given to FindMPI, which would
# otherwise make a target that CMake refuses, and fail configure in its own test.
function(nhood_fortran_wrapper_dirs)
  if(NOT MPI_Fortran_COMPILER OR DEFINED CACHE{MPI_Fortran_COMPILER_INCLUDE_DIRS})
    return()
  endif()
  foreach(_flag -show --showme:compile)
    execute_process(COMMAND ${MPI_Fortran_COMPILER} ${_flag} OUTPUT_VARIABLE _line ERROR_QUIET RESULT_VARIABLE _rc)
    if(_rc EQUAL 0)
      break()
    endif()
  endforeach()
  if(NOT _rc EQUAL 0)
    return()
  endif()
  string(REGEX MATCHALL "-I\"?[^\" \n]+" _flags "${_line}")
  set(_kept "")
  set(_missing FALSE)
  foreach(_flag IN LISTS _flags)
    string(REGEX REPLACE "^-I\"?" "" _dir "${_flag}")
    if(EXISTS "${_dir}")
      list(APPEND _kept "${_dir}")
    else()
      set(_missing TRUE)
      message(STATUS "nhood: MPI's Fortran wrapper names ${_dir}, which does not exist; left out")
    endif()
  endforeach()
  if(_missing)
    set(MPI_Fortran_COMPILER_INCLUDE_DIRS "${_kept}" CACHE STRING "MPI Fortran compiler wrapper include directories")
  endif()
endfunction()

# Which of the MPI's Fortran bindings a one-line program compiles and links with, by this
# compiler (Intel MPI's mpi_f08.mod, say, is for Intel's compilers only; FindMPI's own test of it
# can pass): NHOOD_F_MPIFH, NHOOD_F_USE_MPI, NHOOD_F_USE_MPI_F08, each TRUE or FALSE, and
# NHOOD_MPI_FORTRAN_FOUND where one of them works. Include directories the wrapper names but
# that do not exist are dropped from MPI::MPI_Fortran first (CMake refuses such a target).
function(nhood_fortran_bindings)
  include(CheckFortranSourceCompiles)
  include(CMakePushCheckState)
  get_target_property(_dirs MPI::MPI_Fortran INTERFACE_INCLUDE_DIRECTORIES)
  if(_dirs)
    set(_kept "")
    foreach(_dir IN LISTS _dirs)
      if(EXISTS "${_dir}")
        list(APPEND _kept "${_dir}")
      else()
        message(STATUS "nhood: MPI's Fortran wrapper names ${_dir}, which does not exist; left out")
      endif()
    endforeach()
    set_property(TARGET MPI::MPI_Fortran PROPERTY INTERFACE_INCLUDE_DIRECTORIES "${_kept}")
  endif()
  set(_mpifh [=[
  include 'mpif.h'
  integer :: ierr
  call MPI_Init(ierr)
  call MPI_Finalize(ierr)]=])
  set(_use_mpi [=[
  use mpi
  integer :: ierr
  call MPI_Init(ierr)
  call MPI_Finalize(ierr)]=])
  set(_use_mpi_f08 [=[
  use mpi_f08
  call MPI_Init()
  call MPI_Finalize()]=])
  set(_found FALSE)
  set(_left "")
  foreach(_binding IN ITEMS mpifh use_mpi use_mpi_f08)
    string(TOUPPER "NHOOD_F_${_binding}" _var)
    cmake_push_check_state(RESET)
    set(CMAKE_REQUIRED_LIBRARIES MPI::MPI_Fortran)
    set(CMAKE_REQUIRED_QUIET ON)
    check_fortran_source_compiles("program p\n${_${_binding}}\nend program p\n" ${_var} SRC_EXT F90)
    cmake_pop_check_state()
    if(${_var})
      set(_found TRUE)
      set(${_var} TRUE PARENT_SCOPE)
    else()
      list(APPEND _left ${_binding})
      set(${_var} FALSE PARENT_SCOPE)
    endif()
  endforeach()
  set(NHOOD_MPI_FORTRAN_FOUND ${_found} PARENT_SCOPE)
  if(_left)
    string(REPLACE ";" ", " _left "${_left}")
    message(STATUS "nhood: Fortran bindings left out (a one-line program does not compile and link with "
                   "${CMAKE_Fortran_COMPILER} and MPI's flags): ${_left}")
  endif()
endfunction()
set(NHOOD_MPI_FORTRAN_FOUND FALSE)
if(NOT NHOOD_FORTRAN STREQUAL "OFF")
  # The Fortran wrapper of the MPI the library is built with: mpicc.X pairs with mpif90.X.
  include(CheckLanguage)
  check_language(Fortran)
  if(CMAKE_Fortran_COMPILER AND NOT MPI_Fortran_COMPILER)
    get_filename_component(_nhood_mpicc "${MPI_C_COMPILER}" NAME)
    string(REGEX REPLACE "^mpicc" "" _nhood_mpi_suffix "${_nhood_mpicc}")
    # Beside the C wrapper where it was given with its directory (another MPI's mpif90 may come
    # first on PATH; an MPI without one there has no Fortran), else on PATH.
    get_filename_component(_nhood_mpi_bin "${MPI_C_COMPILER}" DIRECTORY)
    if(_nhood_mpi_bin)
      find_program(_nhood_mpif90 NAMES mpif90${_nhood_mpi_suffix} mpifort${_nhood_mpi_suffix}
                   PATHS "${_nhood_mpi_bin}" NO_DEFAULT_PATH NO_CACHE)
    else()
      find_program(_nhood_mpif90 NAMES mpif90${_nhood_mpi_suffix} mpifort${_nhood_mpi_suffix} NO_CACHE)
    endif()
    if(_nhood_mpif90)
      set(MPI_Fortran_COMPILER ${_nhood_mpif90} CACHE FILEPATH "MPI Fortran compiler wrapper")
    elseif(_nhood_mpi_bin)
      # FindMPI would take another MPI's Fortran from PATH.
      message(STATUS "nhood: no Fortran wrapper beside ${MPI_C_COMPILER}: this MPI has no Fortran here")
      set(_nhood_no_fortran_wrapper TRUE)
    endif()
  endif()
  if(CMAKE_Fortran_COMPILER AND NOT _nhood_no_fortran_wrapper)
    enable_language(Fortran)
    nhood_fortran_wrapper_dirs()
    find_package(MPI COMPONENTS Fortran)
  endif()
  if(MPI_Fortran_FOUND)
    nhood_fortran_bindings()
  endif()
  if(NHOOD_MPI_FORTRAN_FOUND)
    # found
  elseif(NHOOD_FORTRAN STREQUAL "ON")
    message(FATAL_ERROR "NHOOD_FORTRAN=ON, but no Fortran compiler with MPI's Fortran bindings was found "
                        "(Debian: apt-get install gfortran; -DMPI_Fortran_COMPILER=mpif90.X names the wrapper)")
  else()
    message(STATUS "nhood: no Fortran compiler with MPI's Fortran bindings; no Fortran tests or nhood-hotloop-f")
  endif()
endif()
