/*
 * Finding the grid under a graph topology: is it an isomorphic neighborhood (every process
 * has the same offsets C_0..C_{s-1} on a process grid) written as adjacency lists?
 *
 * Codes describe 9- and 27-point stencils with MPI_Dist_graph_create_adjacent, because a
 * Cartesian communicator cannot express diagonals. On such a topology the cart algorithms
 * apply once the grid and the offsets are known: they run on a *view*, a Cartesian-offsets
 * topology of the grid, while the data stay where the graph's lists put them (block i of
 * the view is block send_slot[i] / recv_slot[i] of the graph, schedule/collargs.h).
 *
 * The answer is exact: a grid is reported only when every process's lists are, as multisets,
 * exactly {X - C} (sources) and {X + C} (destinations) over the offsets C whose neighbor
 * exists, so a boundary process of an open grid has fewer neighbors and one missing or extra
 * edge anywhere means no grid. Duplicate edges pair as MPI-4.1 says: the k-th receive from q
 * is the k-th offset (in offset order) that leads from q to X, and q numbers its sends to X
 * the same way, so the k-th duplicate of each side meets the same offset.
 *
 * The search is collective, written as three local steps, each followed by a reduction over
 * processes, so that the API layer runs it with MPI_Allreduce and nhood-sim over virtual
 * ranks in a loop:
 *
 *   1. screen (MAX):    per candidate grid and dimension, the largest coordinate difference
 *                       between a process and a neighbor, straight and around the torus;
 *   2. histogram (MAX): for the few candidates whose differences span the smallest boxes,
 *                       and each periodicity that fits the screen (a guess), how often each
 *                       offset occurs among a process's sources; the maximum over processes
 *                       is the guess's offset multiset;
 *   3. verify (BAND):   per guess, whether this process's lists are exactly the offsets'.
 *                       The first guess that holds everywhere is the grid.
 *
 * Candidate grids: the communicator's Cartesian grid where it has one, else every ordered
 * factorization of P into 2 to 4 factors of at least 2, ranks in row-major order (as
 * MPI_Cart_create without reordering, on the dimensions MPI_Dims_create gives or others).
 * Steps 2 and 3 run only where the grid can pay: more neighbors than the 2 per moving
 * dimension that the cart algorithms need rounds for.
 */
#ifndef NHOOD_TOPOLOGY_GRID_H
#define NHOOD_TOPOLOGY_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "topology/topology.h"

#define NHOOD_GRID_MAX_DIMS 4
#define NHOOD_GRID_MAX_GUESSES 64 /* grids times periodicities checked in steps 2 and 3 */

/* One guess: a grid, periodic or not per dimension, with offsets in a box. */
typedef struct nhood_grid_guess {
  int ndims, dims[NHOOD_GRID_MAX_DIMS], periods[NHOOD_GRID_MAX_DIMS];
  int ext[NHOOD_GRID_MAX_DIMS]; /* offsets lie in [-ext, ext] per dimension */
  int box;                      /* cells of that box */
  size_t at;                    /* where its histogram starts in step 2's vector */
} nhood_grid_guess;

typedef struct nhood_grid_search {
  int nranks;
  int ncandidates;
  int *candidates; /* per candidate: ndims, then NHOOD_GRID_MAX_DIMS dims */
  /* The plan (nhood_grid_plan): the guesses steps 2 and 3 check, most likely first. */
  int nguesses;
  nhood_grid_guess guesses[NHOOD_GRID_MAX_GUESSES];
} nhood_grid_search;

/* A graph topology seen as offsets on the grid found. */
typedef struct nhood_grid_view {
  NHOOD_Topo topo;            /* NHOOD_TOPO_CART_OFFSETS on the grid, this process's coordinates */
  int *send_slot, *recv_slot; /* per offset: the graph's block index, or -1 where no neighbor */
} nhood_grid_view;

/* The candidates for P processes; cart_ndims > 0: only the communicator's grid. */
int nhood_grid_search_init(int nranks, int cart_ndims, const int cart_dims[], nhood_grid_search *s);
void nhood_grid_search_free(nhood_grid_search *s);

/* Step 1: ints to reduce with MAX, and this process's values. */
size_t nhood_grid_screen_len(const nhood_grid_search *s);
void nhood_grid_screen(const struct nhood_topo *t, int rank, const nhood_grid_search *s, int *v);

/* After step 1's reduction: chooses the grid and returns step 2's length (0: no grid worth
 * trying; stop here). The same on every process. */
size_t nhood_grid_plan(nhood_grid_search *s, const int *screened);

/* Step 2: this process's histograms (h: nhood_grid_plan's length, zeroed), reduced with MAX. */
void nhood_grid_histogram(const struct nhood_topo *t, int rank, const nhood_grid_search *s, int *h);

/* Step 3: bit k set where guess k holds here (clear when out of memory), reduced with BAND
 * over processes. */
uint64_t nhood_grid_verify(const struct nhood_topo *t, int rank, const nhood_grid_search *s, const int *h);

/* After step 3's reduction, ok != 0: this process's view (the first guess in ok). */
int nhood_grid_view_create(const struct nhood_topo *t, int rank, const nhood_grid_search *s, const int *h, uint64_t ok,
                           nhood_grid_view **out);
void nhood_grid_view_free(nhood_grid_view *v);

#endif
