/*
 * What topospec.c (the parser, ER graphs, grids) shares with topospec_mtx.c (the Matrix Market
 * reader and the SpMV halo of a sparse matrix) and topospec_rmat.c (the R-MAT generator).
 * Private to the three.
 */
#ifndef NHOOD_TOOLS_TOPOSPEC_INTERNAL_H
#define NHOOD_TOOLS_TOPOSPEC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "topospec.h"

/* Formats a message into err (if any) and returns 1, so callers can `return topospec_fail(...)`. */
int topospec_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
uint64_t topospec_splitmix64(uint64_t x);
int topospec_compare_int(const void *a, const void *b);
/* malloc of n ints, never NULL for n == 0, so callers can hand the lists to MPI as they are. */
int *topospec_alloc_ints(size_t n);

/* topospec_mtx.c: the matrix of an mtx: SPEC read into out's CSR arrays; (row, col) pairs
 * (0-based, possibly repeated) into compressed rows with sorted, distinct columns; the two
 * sides of a rank's halo of a general matrix, and of a symmetric one (rmat:). */
int topospec_read_mtx(const char *path, topospec *out, char *err, size_t errlen);
int topospec_build_csr(int nrows, long long npairs, const int *rows, const int *cols, topospec *out, char *err,
                       size_t errlen);
int topospec_mtx_receive_side(const topospec *spec, int rank, int nranks, topospec_rank *out, char *err, size_t errlen);
int topospec_mtx_send_side(const topospec *spec, int rank, int nranks, topospec_rank *out, char *err, size_t errlen);
int topospec_symmetric_halo(const topospec *spec, int rank, int nranks, topospec_rank *out, char *err, size_t errlen);

/* topospec_rmat.c: the Graph500 R-MAT graph of an rmat: SPEC, as a symmetric CSR matrix. */
int topospec_rmat_generate(topospec *spec, char *err, size_t errlen);

#endif
