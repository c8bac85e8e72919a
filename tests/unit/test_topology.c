/* Topology objects and Cartesian generators, without MPI_Init (all of this is local). */
#include <stdlib.h>
#include <string.h>

#include "nhood.h"
#include "topology/topology.h"
#include "unit.h"

static int ipow(int b, int e) {
  int r = 1;
  while (e-- > 0) r *= b;
  return r;
}

static void test_moore_and_von_neumann(void) {
  for (int d = 1; d <= 4; d++)
    for (int r = 0; r <= 3; r++) {
      int n = -1, expect = ipow(2 * r + 1, d) - 1;
      CHECK(NHOOD_Cart_moore_offsets(d, r, 0, &n, NULL) == MPI_SUCCESS && n == expect,
            "moore d=%d r=%d count %d, expected %d", d, r, n, expect);
      int *off = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1) * d), m = -1;
      CHECK(NHOOD_Cart_moore_offsets(d, r, n, &m, off) == MPI_SUCCESS && m == n, "moore fill d=%d r=%d", d, r);
      /* every offset within radius, non-zero, distinct, lexicographically increasing */
      int ok = 1;
      for (int i = 0; i < m; i++) {
        int zero = 1;
        for (int k = 0; k < d; k++) {
          ok &= abs(off[i * d + k]) <= r;
          zero &= off[i * d + k] == 0;
        }
        ok &= !zero;
        if (i > 0) ok &= memcmp(&off[(i - 1) * d], &off[i * d], sizeof(int) * d) != 0 && off[(i - 1) * d] <= off[i * d];
      }
      CHECK(ok, "moore offsets d=%d r=%d malformed", d, r);
      free(off);

      /* von Neumann: count by brute force */
      int vn = -1, brute = 0;
      CHECK(NHOOD_Cart_von_neumann_offsets(d, r, 0, &vn, NULL) == MPI_SUCCESS, "von neumann count");
      for (int code = 0; code < ipow(2 * r + 1, d); code++) {
        int c = code, norm = 0;
        for (int k = 0; k < d; k++, c /= 2 * r + 1) norm += abs(c % (2 * r + 1) - r);
        brute += norm > 0 && norm <= r;
      }
      CHECK(vn == brute, "von neumann d=%d r=%d count %d, expected %d", d, r, vn, brute);
    }
  int n = 0, off[16];
  CHECK(NHOOD_Cart_von_neumann_offsets(2, 1, 4, &n, off) == MPI_SUCCESS && n == 4, "vn 2d r1");
  int expect[8] = {-1, 0, 0, -1, 0, 1, 1, 0};
  CHECK(memcmp(off, expect, sizeof expect) == 0, "vn 2d r1 order");
  CHECK(NHOOD_Cart_moore_offsets(2, 1, 3, &n, off) == MPI_ERR_ARG, "capacity too small is an error");
  CHECK(NHOOD_Cart_moore_offsets(0, 1, 0, &n, NULL) == MPI_ERR_ARG, "ndims 0 is an error");
  CHECK(NHOOD_Cart_moore_offsets(2, -1, 0, &n, NULL) == MPI_ERR_ARG, "negative radius is an error");
  CHECK(NHOOD_Cart_moore_offsets(40, 5, 0, &n, NULL) == MPI_ERR_ARG, "overflowing count is an error");
}

static void test_cart_rank_of(void) {
  int dims[3] = {4, 3, 2}, periodic[3] = {1, 1, 1}, mesh[3] = {0, 0, 0};
  int c[3] = {1, 2, 1};
  CHECK(nhood_cart_rank_of(3, dims, periodic, c) == 1 * 6 + 2 * 2 + 1, "row-major");
  int w[3] = {-1, 3, 2}; /* wraps to {3, 0, 0} */
  CHECK(nhood_cart_rank_of(3, dims, periodic, w) == 3 * 6, "periodic wrap");
  CHECK(nhood_cart_rank_of(3, dims, mesh, w) == MPI_PROC_NULL, "mesh boundary gives MPI_PROC_NULL");
  int far[3] = {9, -7, 5}; /* several times around */
  CHECK(nhood_cart_rank_of(3, dims, periodic, far) == 1 * 6 + 2 * 2 + 1, "multiple wraps");
}

static void test_adjacent_and_reverse(void) {
  int src[5] = {3, MPI_PROC_NULL, 0, 3, 7}, sw[5] = {1, 2, 3, 4, 5};
  int dst[2] = {2, 2}, dw[2] = {9, 8};
  NHOOD_Topo t = NHOOD_TOPO_NULL, r = NHOOD_TOPO_NULL;
  CHECK(NHOOD_Topo_create_adjacent(5, src, sw, 2, dst, dw, MPI_INFO_NULL, &t) == MPI_SUCCESS, "create");
  int in = -1, out = -1, weighted = -1;
  CHECK(NHOOD_Topo_degrees(t, 1, &in, &out, &weighted) == MPI_SUCCESS && in == 5 && out == 2 && weighted == 1,
        "degrees with MPI_PROC_NULL");
  CHECK(NHOOD_Topo_degrees(t, 0, &in, &out, NULL) == MPI_SUCCESS && in == 4 && out == 2, "degrees without");
  int s[5], w[5], d[2], dwo[2];
  CHECK(NHOOD_Topo_neighbors(t, 0, 5, s, w, 2, d, dwo) == MPI_SUCCESS, "neighbors");
  CHECK(s[0] == 3 && s[1] == 0 && s[2] == 3 && s[3] == 7 && w[1] == 3 && w[3] == 5 && d[1] == 2 && dwo[1] == 8,
        "compacted lists keep order and weights");
  CHECK(NHOOD_Topo_neighbors(t, 1, 4, s, w, 2, d, dwo) == MPI_ERR_ARG, "too small capacity");
  CHECK(t->max_rank == 7, "max rank %d", t->max_rank);

  CHECK(NHOOD_Topo_reverse(t, &r) == MPI_SUCCESS, "reverse");
  CHECK(NHOOD_Topo_degrees(r, 1, &in, &out, NULL) == MPI_SUCCESS && in == 2 && out == 5, "reverse degrees");
  CHECK(NHOOD_Topo_neighbors(r, 1, 2, d, dwo, 5, s, w) == MPI_SUCCESS && s[1] == MPI_PROC_NULL && w[4] == 5 &&
            dwo[0] == 9,
        "reverse swaps lists and weights");
  CHECK(NHOOD_Topo_free(&r) == MPI_SUCCESS && r == NHOOD_TOPO_NULL, "free sets NULL");

  NHOOD_Topo copy = t;
  CHECK(NHOOD_Topo_free(&t) == MPI_SUCCESS, "free");
  CHECK(NHOOD_Topo_degrees(copy, 1, &in, &out, NULL) == MPI_ERR_TOPOLOGY, "freed handle detected");
  CHECK(NHOOD_Topo_free(&copy) == MPI_ERR_TOPOLOGY, "double free detected");
  CHECK(NHOOD_Topo_degrees(NHOOD_TOPO_NULL, 1, &in, &out, NULL) == MPI_ERR_TOPOLOGY, "null handle");
}

static void test_adjacent_errors(void) {
  NHOOD_Topo t;
  int ok[1] = {0}, bad[1] = {-5}, negw[1] = {-1};
  char msg[NHOOD_MAX_ERROR_STRING];
  CHECK(NHOOD_Topo_create_adjacent(-1, NULL, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL, &t) == MPI_ERR_ARG,
        "negative indegree");
  NHOOD_Error_message(msg, NULL);
  CHECK(strstr(msg, "indegree") != NULL, "message names indegree: %s", msg);
  CHECK(NHOOD_Topo_create_adjacent(1, NULL, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL, &t) == MPI_ERR_ARG,
        "NULL sources");
  CHECK(NHOOD_Topo_create_adjacent(0, NULL, MPI_UNWEIGHTED, 1, bad, MPI_UNWEIGHTED, MPI_INFO_NULL, &t) == MPI_ERR_RANK,
        "negative rank");
  NHOOD_Error_message(msg, NULL);
  CHECK(strstr(msg, "destinations[0]") != NULL, "message names destinations[0]: %s", msg);
  CHECK(NHOOD_Topo_create_adjacent(1, ok, negw, 1, ok, negw, MPI_INFO_NULL, &t) == MPI_ERR_ARG, "negative weight");
  CHECK(NHOOD_Topo_create_adjacent(1, ok, MPI_UNWEIGHTED, 1, ok, ok, MPI_INFO_NULL, &t) == MPI_ERR_ARG,
        "mixed weighted and unweighted");
  CHECK(NHOOD_Topo_create_adjacent(1, ok, MPI_UNWEIGHTED, 1, ok, MPI_UNWEIGHTED, MPI_INFO_NULL, NULL) == MPI_ERR_ARG,
        "NULL output handle");
  /* Weights as MPI_Dist_graph_create_adjacent takes them: NULL is no MPI_UNWEIGHTED, and
   * MPI_WEIGHTS_EMPTY is for a degree of 0 only. */
  CHECK(NHOOD_Topo_create_adjacent(1, ok, NULL, 1, ok, NULL, MPI_INFO_NULL, &t) == MPI_ERR_ARG, "NULL weights");
  NHOOD_Error_message(msg, NULL);
  CHECK(strstr(msg, "sourceweights") != NULL && strstr(msg, "MPI_UNWEIGHTED") != NULL,
        "message names sourceweights and MPI_UNWEIGHTED: %s", msg);
  CHECK(NHOOD_Topo_create_adjacent(1, ok, MPI_UNWEIGHTED, 1, ok, NULL, MPI_INFO_NULL, &t) == MPI_ERR_ARG,
        "NULL destweights");
  CHECK(NHOOD_Topo_create_adjacent(1, ok, MPI_WEIGHTS_EMPTY, 1, ok, ok, MPI_INFO_NULL, &t) == MPI_ERR_ARG,
        "MPI_WEIGHTS_EMPTY with indegree 1");
  NHOOD_Error_message(msg, NULL);
  CHECK(strstr(msg, "MPI_WEIGHTS_EMPTY") != NULL, "message names MPI_WEIGHTS_EMPTY: %s", msg);
  /* zero degrees are fine, with any weights argument */
  CHECK(NHOOD_Topo_create_adjacent(0, NULL, NULL, 0, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL, &t) == MPI_SUCCESS,
        "empty neighborhood");
  CHECK(NHOOD_Topo_free(&t) == MPI_SUCCESS, "free empty");
  CHECK(NHOOD_Topo_create_adjacent(0, NULL, MPI_WEIGHTS_EMPTY, 1, ok, ok, MPI_INFO_NULL, &t) == MPI_SUCCESS,
        "MPI_WEIGHTS_EMPTY with indegree 0, weights out");
  int weighted = 0;
  CHECK(NHOOD_Topo_degrees(t, 1, NULL, NULL, &weighted) == MPI_SUCCESS && weighted, "weighted");
  CHECK(NHOOD_Topo_free(&t) == MPI_SUCCESS, "free");
}

int main(void) {
  test_moore_and_von_neumann();
  test_cart_rank_of();
  test_adjacent_and_reverse();
  test_adjacent_errors();
  return unit_summary("test_topology");
}
