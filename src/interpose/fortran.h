/*
 * What the Fortran layers of the interposition library share (fortran*.c):
 * Fortran calls one procedure by several names, and passes every argument by address.
 */
#ifndef NHOOD_INTERPOSE_FORTRAN_H
#define NHOOD_INTERPOSE_FORTRAN_H

#include "interpose/interpose.h"

/* One procedure under every name gfortran and the MPIs' bindings use: the body follows the
 * macro, and <lower>_<name>, <lower>_<name>_, <lower>_<name>__ and UPPER (mpif.h and `use mpi`)
 * are its aliases. The body is Open MPI's ompi_<name>_f (what its mpi_f08 procedures call; body
 * ompix for the MPIX_ names), elsewhere an internal name. */
#define IP_FORTRAN(body, lower, name, UPPER, params) IP_FORTRAN_(body, lower, name, UPPER, params)
#define IP_FORTRAN_(body, lower, name, UPPER, params)                          \
  void body##_##name##_f params;                                               \
  void lower##_##name params __attribute__((alias(#body "_" #name "_f")));     \
  void lower##_##name##_ params __attribute__((alias(#body "_" #name "_f")));  \
  void lower##_##name##__ params __attribute__((alias(#body "_" #name "_f"))); \
  void UPPER params __attribute__((alias(#body "_" #name "_f")));              \
  void body##_##name##_f params
/* The same, where the MPI's mpi_f08 specific procedure (mpi_<name>_f08_) takes the same
 * arguments as the body, its ierror optional (absent: NULL, which the body must allow): Open
 * MPI 4's, which only call the body (its disassembly says so). Defining it skips that call.
 * Later Open MPIs may pass the buffers of their mpi_f08 procedures as Fortran descriptors (TS
 * 29113), so there the body is only reached through Open MPI's procedure, as before. */
#define IP_FORTRAN_08(body, lower, name, UPPER, params) IP_FORTRAN_08_(body, lower, name, UPPER, params)
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION == 4
#define IP_FORTRAN_08_(body, lower, name, UPPER, params)                          \
  void body##_##name##_f params;                                                  \
  void lower##_##name##_f08_ params __attribute__((alias(#body "_" #name "_f"))); \
  IP_FORTRAN_(body, lower, name, UPPER, params)
#else
#define IP_FORTRAN_08_(body, lower, name, UPPER, params) IP_FORTRAN_(body, lower, name, UPPER, params)
#endif
#if defined(OPEN_MPI) && OPEN_MPI
#define IP_F_BODY ompi
#else
#define IP_F_BODY ip_fortran
#endif

/* MPI_STATUS_SIZE: a Fortran status is a C status as integers, in both MPIs. */
#define IP_F_STATUS_INTS ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
/* A LOGICAL's .true. (gfortran's, and both MPIs' default). */
#define IP_F_TRUE 1

/* A request made in C, handed to Fortran (by address: the call that makes it is an argument
 * evaluated in no set order with the others). */
static inline void ip_f_request_out(int rc, const MPI_Request *c, MPI_Fint *request, MPI_Fint *ierr) {
  if (rc == MPI_SUCCESS) *request = PMPI_Request_c2f(*c);
  if (ierr) *ierr = rc; /* absent from an mpi_f08 call (IP_FORTRAN_08) */
}

#endif
