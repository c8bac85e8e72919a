! A Fortran program's neighborhood collectives, the same with and without the interposition
! library (tests/fortran/CMakeLists.txt). One source for the three bindings: NHOOD_F08 (use
! mpi_f08), NHOOD_USE_MPI (use mpi), neither (mpif.h); NHOOD_PERSISTENT where the MPI's
! Fortran bindings have MPI_Neighbor_*_init (MPI 4). On a ring (sources and destinations: the
! left, then the right neighbor) every rank checks what it received and rank 0 prints
! "fortran neighbors: OK" or "WRONG". Non-blocking and persistent requests are waited for from
! Fortran, mixed with a point-to-point request, by MPI_Wait, MPI_Waitall and an MPI_Test loop.
! With the argument proc-null, the same ring cut into a chain whose ends are MPI_PROC_NULL
! (Open MPI's own blocking collectives crash on those, so the run without nhood leaves it out).
program neighbors
#if defined(NHOOD_F08)
  use mpi_f08
#define COMM_T type(MPI_Comm)
#define REQUEST_T type(MPI_Request)
#elif defined(NHOOD_USE_MPI)
  use mpi
#define COMM_T integer
#define REQUEST_T integer
#endif
  implicit none
#if !defined(NHOOD_F08) && !defined(NHOOD_USE_MPI)
  include 'mpif.h'
#define COMM_T integer
#define REQUEST_T integer
#endif
  COMM_T :: ring
  REQUEST_T :: req(2)
  integer :: rank, np, left, right, ierr, wrong, total, step, dummy
  integer :: nbrs(2), counts(2), displs(2), sendbuf(2), recvbuf(2), expect(2), gathered(2)
  logical :: done
  character(len=16) :: arg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  left = modulo(rank - 1, np)
  right = modulo(rank + 1, np)
  nbrs = [left, right]
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, nbrs, MPI_UNWEIGHTED, 2, nbrs, MPI_UNWEIGHTED, &
                                      MPI_INFO_NULL, .false., ring, ierr)
  counts = 1
  displs = [0, 1]
  wrong = 0

  ! Blocking: the left neighbor's block for its right, the right neighbor's for its left.
  call fill(0)
  call MPI_Neighbor_alltoallv(sendbuf, counts, displs, MPI_INTEGER, recvbuf, counts, displs, MPI_INTEGER, &
                              ring, ierr)
  call check('blocking alltoallv')
  call MPI_Neighbor_allgather(rank, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, ring, ierr)
  if (any(gathered /= nbrs)) call report('blocking allgather')

  ! Non-blocking, waited for with a point-to-point request (MPI_Waitall), alone (MPI_Wait) and
  ! by testing.
  call fill(1)
  call MPI_Ineighbor_alltoallv(sendbuf, counts, displs, MPI_INTEGER, recvbuf, counts, displs, MPI_INTEGER, &
                               ring, req(1), ierr)
  call MPI_Irecv(dummy, 0, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, req(2), ierr)
  call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
  call check('non-blocking alltoallv, MPI_Waitall')
  gathered = -1
  call MPI_Ineighbor_allgather(rank, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, ring, req(1), ierr)
  call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
  if (any(gathered /= nbrs)) call report('non-blocking allgather, MPI_Wait')
  call fill(2)
  call MPI_Ineighbor_alltoallv(sendbuf, counts, displs, MPI_INTEGER, recvbuf, counts, displs, MPI_INTEGER, &
                               ring, req(1), ierr)
  done = .false.
  do while (.not. done)
    call MPI_Test(req(1), done, MPI_STATUS_IGNORE, ierr)
  end do
  call check('non-blocking alltoallv, MPI_Test')

#if defined(NHOOD_PERSISTENT)
  ! Persistent: started three times, then once more by MPI_Startall, then freed.
  call MPI_Neighbor_alltoallv_init(sendbuf, counts, displs, MPI_INTEGER, recvbuf, counts, displs, MPI_INTEGER, &
                                   ring, MPI_INFO_NULL, req(1), ierr)
  do step = 3, 5
    call fill(step)
    call MPI_Start(req(1), ierr)
    call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
    call check('persistent alltoallv, MPI_Start')
  end do
  call fill(6)
  call MPI_Irecv(dummy, 0, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, req(2), ierr)
  call MPI_Startall(1, req(1:1), ierr)
  call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
  call check('persistent alltoallv, MPI_Startall')
  call MPI_Request_free(req(1), ierr)
#endif

  call get_command_argument(1, arg)
  if (arg == 'proc-null') call chain()

  call MPI_Allreduce(wrong, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (total == 0) then
      print '(A)', 'fortran neighbors: OK'
    else
      print '(A,I0,A)', 'fortran neighbors: WRONG (', total, ' checks failed)'
    end if
  end if
  call MPI_Comm_free(ring, ierr)
  call MPI_Finalize(ierr)

contains

  ! Round `step`'s blocks: block k of rank r is 1000*step + 10*r + k.
  subroutine fill(step)
    integer, intent(in) :: step
    sendbuf = [1000 * step + 10 * rank + 1, 1000 * step + 10 * rank + 2]
    expect = [1000 * step + 10 * left + 2, 1000 * step + 10 * right + 1]
    recvbuf = -1
  end subroutine

  subroutine check(what)
    character(*), intent(in) :: what
    if (any(recvbuf /= expect)) call report(what)
  end subroutine

  ! The ring without its edge from the last rank to rank 0: MPI_PROC_NULL first in rank 0's
  ! lists and last in the last rank's. Its lists come back as given, its blocks stay untouched.
  subroutine chain()
    COMM_T :: line
    integer :: ends(2), indeg, outdeg, got_src(2), got_dst(2)
    logical :: weighted
    ends = nbrs
    if (rank == 0) ends(1) = MPI_PROC_NULL
    if (rank == np - 1) ends(2) = MPI_PROC_NULL
    call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, ends, MPI_UNWEIGHTED, 2, ends, MPI_UNWEIGHTED, &
                                        MPI_INFO_NULL, .false., line, ierr)
    call MPI_Dist_graph_neighbors_count(line, indeg, outdeg, weighted, ierr)
    call MPI_Dist_graph_neighbors(line, 2, got_src, MPI_UNWEIGHTED, 2, got_dst, MPI_UNWEIGHTED, ierr)
    if (indeg /= 2 .or. outdeg /= 2 .or. any(got_src /= ends) .or. any(got_dst /= ends)) call report('chain lists')
    call fill(7)
    where (ends == MPI_PROC_NULL) expect = -1
    call MPI_Neighbor_alltoall(sendbuf, 1, MPI_INTEGER, recvbuf, 1, MPI_INTEGER, line, ierr)
    call check('chain alltoall')
    gathered = -1
    call MPI_Neighbor_allgather(rank, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, line, ierr)
    if (any(gathered /= merge(-1, ends, ends == MPI_PROC_NULL))) call report('chain allgather')
    call MPI_Comm_free(line, ierr)
  end subroutine

  subroutine report(what)
    character(*), intent(in) :: what
    print '(A,I0,2A)', 'rank ', rank, ': wrong result, ', what
    wrong = wrong + 1
  end subroutine
end program
