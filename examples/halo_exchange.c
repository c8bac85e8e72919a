/*
 * A 2-D halo exchange with nhood: a topology object for the 4 von Neumann neighbors on a
 * non-periodic process grid, and one persistent alltoallv started every iteration.
 *
 *   mpiexec -n 4 ./halo_exchange
 *
 * Each process owns an NX x NY block of a global array u(i, j) = i * 1000 + j, surrounded by
 * a one-cell halo. After each exchange the halo must hold the neighbors' edge values; halo
 * cells on the domain boundary (MPI_PROC_NULL neighbors) stay untouched.
 */
#include <nhood.h>
#include <stdio.h>
#include <stdlib.h>

#define NX 6                                  /* rows per process */
#define NY 5                                  /* columns per process */
#define AT(u, i, j) (u)[(i) * (NY + 2) + (j)] /* (i, j) in 0..NX+1 x 0..NY+1, halo included */

static int check(int rc, const char *what) {
  if (rc != MPI_SUCCESS) {
    char msg[NHOOD_MAX_ERROR_STRING];
    NHOOD_Error_message(msg, NULL);
    fprintf(stderr, "%s failed: %s\n", what, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return rc;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size, rank, dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2];
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Dims_create(size, 2, dims);
  MPI_Comm grid;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
  MPI_Comm_rank(grid, &rank);
  MPI_Cart_coords(grid, rank, 2, coords);

  /* Offsets (-1,0) (0,-1) (0,1) (1,0): send block k goes to X + offset k, receive block k
   * comes from X - offset k. No communication happens here. */
  int noffsets, offsets[8];
  NHOOD_Topo topo;
  check(NHOOD_Cart_von_neumann_offsets(2, 1, 4, &noffsets, offsets), "offsets");
  check(NHOOD_Topo_create_cart_offsets(grid, noffsets, offsets, MPI_INFO_NULL, &topo), "topology");

  /* Edges packed one after the other: up row, left column, right column, down row. */
  int counts[4] = {NY, NX, NX, NY}, displs[4] = {0, NY, NY + NX, NY + 2 * NX};
  double sendbuf[2 * (NX + NY)], recvbuf[2 * (NX + NY)];
  double *u = calloc((NX + 2) * (NY + 2), sizeof *u);
  NHOOD_Request halo;
  check(NHOOD_Neighbor_alltoallv_init(sendbuf, counts, displs, MPI_DOUBLE, recvbuf, counts, displs, MPI_DOUBLE, grid,
                                      topo, MPI_INFO_NULL, &halo),
        "persistent alltoallv");

  int errors = 0;
  for (int iter = 0; iter < 3; iter++) {
    for (int i = 1; i <= NX; i++) /* interior: the global function, shifted by iter */
      for (int j = 1; j <= NY; j++) AT(u, i, j) = (coords[0] * NX + i - 1) * 1000 + (coords[1] * NY + j - 1) + iter;
    for (int j = 0; j < NY; j++) sendbuf[displs[0] + j] = AT(u, 1, j + 1);  /* to the process above */
    for (int i = 0; i < NX; i++) sendbuf[displs[1] + i] = AT(u, i + 1, 1);  /* to the left */
    for (int i = 0; i < NX; i++) sendbuf[displs[2] + i] = AT(u, i + 1, NY); /* to the right */
    for (int j = 0; j < NY; j++) sendbuf[displs[3] + j] = AT(u, NX, j + 1); /* to the process below */
    for (int k = 0; k < 2 * (NX + NY); k++) recvbuf[k] = -1;

    check(NHOOD_Start(&halo), "start");
    check(NHOOD_Wait(&halo), "wait");

    /* Receive block k comes from X - offset k: from below, right, left, above. */
    int from[4][2] = {{1, 0}, {0, 1}, {0, -1}, {-1, 0}};
    for (int k = 0; k < 4; k++) {
      int nb[2] = {coords[0] + from[k][0], coords[1] + from[k][1]};
      int exists = nb[0] >= 0 && nb[0] < dims[0] && nb[1] >= 0 && nb[1] < dims[1];
      for (int e = 0; e < counts[k]; e++) {
        /* global coordinates of the halo cell this value belongs to */
        int gi = k == 0 ? (coords[0] + 1) * NX : k == 3 ? coords[0] * NX - 1 : coords[0] * NX + e;
        int gj = k == 1 ? (coords[1] + 1) * NY : k == 2 ? coords[1] * NY - 1 : coords[1] * NY + e;
        double expect = exists ? gi * 1000.0 + gj + iter : -1;
        if (recvbuf[displs[k] + e] != expect) errors++;
      }
    }
  }
  check(NHOOD_Request_free(&halo), "request free");
  check(NHOOD_Topo_free(&topo), "topology free");

  int total = 0;
  MPI_Reduce(&errors, &total, 1, MPI_INT, MPI_SUM, 0, grid);
  if (rank == 0)
    printf("halo exchange on a %d x %d process grid: %s (%d wrong halo values)\n", dims[0], dims[1],
           total ? "FAILED" : "OK", total);
  free(u);
  MPI_Comm_free(&grid);
  MPI_Finalize();
  return total != 0;
}
