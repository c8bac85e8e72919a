/*
 * The topology corpus of the MPI correctness tests.
 *
 * Each entry pairs an nhood topology object with a reference communicator that carries the
 * same neighborhood as an MPI topology, so that the expected result of every case comes
 * from the MPI library itself, never from a model written by the test: from
 * MPI_Neighbor_alltoallw with explicitly placed blocks on a distributed graph with the same
 * neighbors, cross-checked with MPI_Neighbor_* on the reference communicator wherever the
 * installed MPI library gets that right.
 *
 * The corpus covers: random multigraphs (self loops, duplicate edges, empty neighborhoods,
 * indegree != outdegree, shuffled lists, MPI_PROC_NULL, weights), Cartesian communicators
 * (1-3 dimensions, periodic or not, dimensions of size 1 and 2), a graph communicator, a
 * non-adjacent distributed graph communicator, isomorphic Moore and von Neumann
 * neighborhoods (radius 1 also with asserted isomorphic block sizes), reverse topologies and
 * the SpMV halo patterns of real matrices.
 */
#ifndef NHOOD_TESTS_MPI_CORPUS_H
#define NHOOD_TESTS_MPI_CORPUS_H

#include <mpi.h>

#include "nhood.h"

typedef struct corpus_entry {
  char name[64];
  /* The topology under test, created once per algorithm: topo[a] with the info of
   * algorithm a (key NHOOD_INFO_ALGORITHM), so plain calls run that algorithm. */
  NHOOD_Topo *topo;    /* one per algorithm */
  MPI_Comm nhood_comm; /* the communicator passed to nhood calls */
  MPI_Comm ref_comm;   /* carries the same neighborhood as an MPI topology */
  /* The same neighborhood as lists for a distributed graph without MPI_PROC_NULL, for the
   * reference MPI_Neighbor_alltoallw that places every block explicitly: its receive
   * position i' is block alltoallw_recv_block[i'] of the full layout (from
   * sources[that block]), its send position j' is block alltoallw_send_block[j'] (to
   * destinations[that block]); -1 marks a padding MPI_PROC_NULL entry that carries nothing,
   * only where the MPI library needs equal degrees. For Cartesian communicators send
   * position j is block j^1, so that MPI's pairing of the k-th duplicate receive with the
   * k-th duplicate send reproduces the Cartesian pairing of receive block i with send block
   * i^1 (MPI-4.1). The detour exists because the installed MPI libraries get some cases of
   * the direct call wrong (see mpi_direct_is_reliable in test_collectives.c); where they do
   * not, both results must agree. */
  int alltoallw_indegree, alltoallw_outdegree;
  int *alltoallw_recv_block, *alltoallw_send_block;
  int kind;           /* MPI_Topo_test of ref_comm: MPI_DIST_GRAPH, MPI_GRAPH or MPI_CART */
  int has_proc_null;  /* some process has an MPI_PROC_NULL neighbor */
  int has_duplicates; /* some process lists a rank twice among its sources or destinations */
  /* The topology objects carry NHOOD_INFO_ASSERT_ISOMORPHIC_SIZES: block sizes and datatypes
   * must depend on the offset index only (the "-isosizes" isomorphic entries). */
  int isomorphic_sizes;
  int owns_nhood_comm; /* nhood_comm is freed with the entry (it is not ref_comm) */
  /* The neighborhood as MPI reports it for ref_comm: buffer layout order, MPI_PROC_NULL
   * included. */
  int indegree, outdegree;
  int *sources, *destinations;
  /* Elements per block for the alltoallv/alltoallw cases: what this process sends to
   * destinations[j] and receives from sources[i]. They agree across processes (the count
   * p sends to q is the count q expects from p) and some are 0. */
  int *send_elems, *recv_elems;
} corpus_entry;

typedef struct corpus {
  int nentries, capacity;
  corpus_entry *entries;
  int nalgorithms;
  MPI_Comm plain_comm; /* a duplicate of MPI_COMM_WORLD without topology */
  /* Checks that failed while building (a helper gave wrong offsets, a matrix could not be
   * read): the caller counts them as failed cases. */
  int nfailures;
} corpus;

/*
 * Builds the corpus for the processes of MPI_COMM_WORLD (collective). algorithm_info[a] is
 * the info that selects algorithm a. Only entries whose name contains name_filter are built
 * (NULL: all). Matrices are read from NHOOD_MATRIX_DIR (the repository's data/matrices).
 */
void corpus_build(const MPI_Info algorithm_info[], int nalgorithms, const char *name_filter, corpus *c);
void corpus_free(corpus *c);

#endif
