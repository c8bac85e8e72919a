"""A finite-element program as a new user writes it, for scripts/realworld.sh: DOLFINx
(Debian's python3-dolfinx) solves a Poisson problem on the unit square with PETSc's CG, then
updates the solution's ghosts 20 times forward and 20 times in reverse. DOLFINx creates a
distributed-graph communicator per index map and per scatterer and calls most of them a few
times: the pattern nhood's cold path is for. Nothing here is nhood's; the program runs
unmodified with and without the interposition library.

  mpiexec -n P python3 fem_poisson.py [N] [REPS]

Each repetition builds everything anew (mesh, spaces, forms, solver). The first one is not
timed (JIT compilation of the forms, first contact between processes). Rank 0 prints the
median time of the others (the slowest process's) and a checksum of the result."""
import sys
import time

import numpy as np
from mpi4py import MPI
from petsc4py import PETSc

import ufl
from dolfinx import fem, la, mesh
from dolfinx.fem.petsc import LinearProblem


def solve(comm, n):
    domain = mesh.create_unit_square(comm, n, n, mesh.CellType.triangle)
    V = fem.FunctionSpace(domain, ("Lagrange", 1))
    facets = mesh.locate_entities_boundary(domain, 1, lambda x: np.full(x.shape[1], True))
    bc = fem.dirichletbc(PETSc.ScalarType(0), fem.locate_dofs_topological(V, 1, facets), V)
    u, v = ufl.TrialFunction(V), ufl.TestFunction(V)
    x = ufl.SpatialCoordinate(domain)
    f = 10 * ufl.exp(-((x[0] - 0.5) ** 2 + (x[1] - 0.5) ** 2) / 0.02)
    a = ufl.dot(ufl.grad(u), ufl.grad(v)) * ufl.dx
    L = f * v * ufl.dx
    opts = {"ksp_type": "cg", "pc_type": "jacobi", "ksp_rtol": 1e-10}
    uh = LinearProblem(a, L, bcs=[bc], petsc_options=opts).solve()
    norm = comm.allreduce(float(np.sum(uh.x.array[: V.dofmap.index_map.size_local] ** 2)), op=MPI.SUM)
    for _ in range(20):
        uh.x.scatter_forward()
        uh.x.scatter_reverse(la.ScatterMode.insert)
    after = comm.allreduce(float(np.sum(uh.x.array[: V.dofmap.index_map.size_local] ** 2)), op=MPI.SUM)
    return norm, after


def main():
    comm = MPI.COMM_WORLD
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 64
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    times = []
    for rep in range(reps + 1):
        comm.Barrier()
        t0 = time.perf_counter()
        norm, after = solve(comm, n)
        elapsed = comm.allreduce(time.perf_counter() - t0, op=MPI.MAX)
        if rep > 0:
            times.append(elapsed)
    if comm.rank == 0:
        print(f"fem_poisson: {comm.size} processes, n={n}: median {np.median(times):.4f} s over {reps}, "
              f"|u|^2 = {norm:.12e}, after the updates {after:.12e}")


main()
