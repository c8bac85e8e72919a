/*
 * Topology SPECs shared by nhood-bench, the tests and (later) nhood-sim.
 *
 *   er:density=D,seed=S               directed Erdos-Renyi graph, no self loops
 *   moore:d=D,r=R[,periodic=0|1]      Moore neighborhood (Chebyshev radius R) on a D-dim grid
 *   vonneumann:d=D,r=R[,periodic=0|1] von Neumann neighborhood (Manhattan radius R)
 *                                     graph=1 (either grid): the same neighborhood as
 *                                     adjacency lists, without the missing neighbors of an
 *                                     open grid, as codes write stencils for
 *                                     MPI_Dist_graph_create_adjacent
 *   mtx:PATH                          halo exchange of y = A x with a Matrix Market matrix,
 *                                     rows (and x) split in contiguous blocks over the ranks
 *   rmat:scale=S[,ef=E][,seed=N][,scramble=0|1]
 *                                     the same halo exchange with the pattern of an undirected
 *                                     R-MAT graph, Graph500's parameters (a, b, c, d = 0.57,
 *                                     0.19, 0.19, 0.05): 2^S vertices, E * 2^S edges (ef
 *                                     default 16), self loops dropped; seed default 1.
 *                                     scramble=0 (default) keeps R-MAT's labels, where low
 *                                     vertices have the most edges, so low ranks get the
 *                                     heavy halos (a skewed process graph); scramble=1
 *                                     relabels the vertices by a pseudo-random bijection, as
 *                                     Graph500 does, which spreads the hubs over the ranks
 *
 * Pure C: no MPI calls (mpi.h is included only for MPI_PROC_NULL), so the same code builds
 * the neighborhoods of real ranks and of thousands of virtual ranks in one process.
 * Parse once (topospec_parse reads an mtx file once, generates an rmat graph once), then ask
 * for any rank's neighborhood.
 */
#ifndef NHOOD_TOOLS_TOPOSPEC_H
#define NHOOD_TOOLS_TOPOSPEC_H

#include <stddef.h>

#define TOPOSPEC_MAX_DIMS 8
/* At most this many offsets in a moore: or vonneumann: neighborhood ((2r+1)^d - 1 for Moore). */
#define TOPOSPEC_MAX_OFFSETS 65536
/* At most this many rows and columns in an mtx: matrix (its row pointers take 2 GiB). */
#define TOPOSPEC_MAX_MTX_ROWS (1 << 27)
/* Bounds of rmat: scale=26 at ef=16 already stores 2^31 column indices (8 GiB, twice that
 * while generating). */
#define TOPOSPEC_MAX_RMAT_SCALE 26
#define TOPOSPEC_MAX_RMAT_EF 64

typedef enum { TOPOSPEC_ER, TOPOSPEC_MOORE, TOPOSPEC_VONNEUMANN, TOPOSPEC_MTX, TOPOSPEC_RMAT } topospec_kind;

/* A parsed SPEC; independent of the number of ranks. */
typedef struct topospec {
  topospec_kind kind;
  char text[256];              /* the SPEC as given */
  double density;              /* er */
  unsigned long long seed;     /* er, rmat */
  int ndims, radius, periodic; /* moore / vonneumann (periodic defaults to 1) */
  int as_graph;                /* moore / vonneumann with graph=1: adjacency lists, not offsets */
  /* rmat: the parameters, the edges generated (ef * 2^scale) and how many of them were self
   * loops, dropped; the pattern itself goes to the mtx fields below. */
  int rmat_scale, rmat_ef, rmat_scramble;
  long long rmat_edges, rmat_loops;
  /* mtx and rmat: the matrix pattern in compressed row form, symmetric matrices expanded,
   * each row's column indices ascending and distinct. */
  int mtx_rows, mtx_cols;
  long long mtx_nnz;
  long long *mtx_rowptr; /* mtx_rows + 1 */
  int *mtx_colind;       /* mtx_nnz */
} topospec;

/* The neighborhood of one rank among nranks. */
typedef struct topospec_rank {
  int indegree, outdegree;
  int *sources;      /* receive block i comes from sources[i]; may hold MPI_PROC_NULL */
  int *destinations; /* send block j goes to destinations[j]; may hold MPI_PROC_NULL */
  /* mtx and rmat only (else NULL): number of x entries received from sources[i] / sent to
   * destinations[j] in the SpMV halo exchange; other kinds leave these NULL. */
  int *recv_elems, *send_elems;
  /* moore / vonneumann only (else is_cart == 0, and with graph=1 the lists alone): the grid
   * and the relative offsets; then
   * destinations[i] = X + offset_i and sources[i] = X - offset_i, MPI_PROC_NULL outside a
   * non-periodic grid. dims come from a balanced factorization of nranks (as
   * MPI_Dims_create would produce), row-major rank numbering (as MPI_Cart_create). */
  int is_cart, ndims, dims[TOPOSPEC_MAX_DIMS], periods[TOPOSPEC_MAX_DIMS];
  int noffsets;
  int *offsets; /* noffsets * ndims */
} topospec_rank;

/* Returns 0 on success; otherwise non-zero with a message in err. */
int topospec_parse(const char *spec, topospec *out, char *err, size_t errlen);
int topospec_for_rank(const topospec *spec, int rank, int nranks, topospec_rank *out, char *err, size_t errlen);
void topospec_rank_free(topospec_rank *r);
/* moore / vonneumann: the grid coordinates of rank (row-major, as MPI_Cart_create). */
void topospec_rank_coords(const topospec_rank *r, int rank, int coords[]);
void topospec_free(topospec *spec);

#endif
