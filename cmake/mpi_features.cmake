# What the MPI offers, by what its header declares and its library exports, not by its
# MPI_VERSION (Open MPI 5 has MPI-4's persistent neighborhood collectives and says 3). Each
# feature found is a compile definition for everything nhood builds:
#   NHOOD_HAVE_MPI_NEIGHBOR_INIT   MPI_Neighbor_*_init (MPI-4)
#   NHOOD_HAVE_MPI_NEIGHBOR_C      the large-count MPI_Neighbor_*_c and MPI_Ineighbor_*_c (MPI-4)
#   NHOOD_HAVE_MPI_NEIGHBOR_INIT_C the large-count MPI_Neighbor_*_init_c (MPI-4)
#   NHOOD_MPI_STANDARD_ABI         mpi.h is the MPI-5 standard ABI's (mpi_abi.h: MPICH's mpicc_abi):
#                                  one libnhood-mpi for every MPI that offers it (libmpi_abi.so.1),
#                                  without Fortran entry points (the Fortran ABI is another library)
# Open MPI 4.1's MPIX_Neighbor_*_init come with its mpi-ext.h (OMPI_HAVE_MPI_EXT_PCOLLREQ).
include(CheckCSourceCompiles)
include(CMakePushCheckState)

function(nhood_mpi_feature name what call)
  cmake_push_check_state(RESET)
  set(CMAKE_REQUIRED_LIBRARIES MPI::MPI_C)
  set(CMAKE_REQUIRED_QUIET ON)
  check_c_source_compiles("#include <mpi.h>
int main(void) { MPI_Request r; MPI_Count c = 0; MPI_Aint d = 0; int n = 0, i = 0; (void)c; (void)d; (void)n; (void)i;
  return ${call}; }" ${name})
  cmake_pop_check_state()
  if(${name})
    add_compile_definitions(${name}=1)
    message(STATUS "nhood: the MPI has ${what}")
  else()
    message(STATUS "nhood: the MPI lacks ${what}")
  endif()
endfunction()

nhood_mpi_feature(NHOOD_HAVE_MPI_NEIGHBOR_INIT "MPI_Neighbor_*_init"
  "MPI_Neighbor_alltoallw_init(0, &n, &d, 0, 0, &n, &d, 0, MPI_COMM_NULL, MPI_INFO_NULL, &r)")
nhood_mpi_feature(NHOOD_HAVE_MPI_NEIGHBOR_C "MPI_Neighbor_*_c"
  "MPI_Neighbor_alltoallv_c(0, &c, &d, MPI_INT, 0, &c, &d, MPI_INT, MPI_COMM_NULL)")
nhood_mpi_feature(NHOOD_HAVE_MPI_NEIGHBOR_INIT_C "MPI_Neighbor_*_init_c"
  "MPI_Neighbor_alltoallw_init_c(0, &c, &d, 0, 0, &c, &d, 0, MPI_COMM_NULL, MPI_INFO_NULL, &r)")
nhood_mpi_feature(NHOOD_MPI_STANDARD_ABI "the MPI-5 standard ABI"
  "MPI_ABI_VERSION")
