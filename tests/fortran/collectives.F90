! Every neighborhood collective from Fortran, in every mode the MPI's bindings offer, on six
! communicators (tests/fortran/CMakeLists.txt runs it with and without the interposition
! library, on 4 processes):
!   1 a ring as a distributed graph with a duplicate edge (sources left, right, left);
!   2 a chain as a distributed graph: the ends have indegree 0 or outdegree 0;
!   3 a ring as a graph communicator (MPI_Graph_create);
!   4 a periodic ring as a Cartesian communicator;
!   5 a 2 x 2 Cartesian grid, not periodic (MPI_PROC_NULL neighbors);
!   6 a Moore stencil of radius 1 on the periodic 2 x 2 grid, as a distributed graph (every
!     neighbor several times over).
! Every process knows every process's neighbor lists (the same formulas made the topologies),
! so it computes what each receive block must hold: the block the source sent to it, the n-th
! message between two processes matching the n-th (MPI's order for repeated edges).
! alltoallw sends and receives through datatypes made here (a contiguous pair and a vector).
! Non-blocking requests are completed, in turn, by MPI_Wait, MPI_Waitall, MPI_Waitany,
! MPI_Waitsome, MPI_Test, MPI_Testall, MPI_Testany and MPI_Testsome, always together with a
! point-to-point request, in an order that differs between even and odd ranks; with
! NHOOD_PERSISTENT (MPI 4's MPI_Neighbor_*_init) or NHOOD_MPIX_PERSISTENT (Open MPI 4.1's
! MPIX_Neighbor_*_init), persistent requests are also waited for while inactive, started
! twice, and freed. Rank 0 prints "fortran collectives: OK" or "WRONG".
!
! With the argument mpi-own (the run without the library), what Open MPI 4.1's own Fortran
! bindings get wrong is left out: MPI_NEIGHBOR_ALLTOALLW where a process has more neighbors
! than the communicator has processes (MPI_ERR_TYPE: it converts as many datatypes as there are
! processes), and MPI_INEIGHBOR_ALLTOALLW and MPIX_NEIGHBOR_ALLTOALLW_INIT (their test or wait
! crashes). Through the library all of them run, and must be right.
!
! MPICH 4.0's own mpi_f08 MPI_Neighbor_alltoallw and MPI_Ineighbor_alltoallw ask for the
! neighbor counts of a distributed graph whatever the communicator, and fail on graph and
! Cartesian ones: with mpi-own they are left out there too. The library's own mpi_f08
! procedures run them (src/interpose/fortran_mpich.c).
#if defined(NHOOD_MPIX_PERSISTENT)
! Open MPI 4.1: the persistent collectives are its extension's MPIX_ procedures.
#define NHOOD_PERSISTENT
#define ALLGATHER_INIT MPIX_Neighbor_allgather_init
#define ALLGATHERV_INIT MPIX_Neighbor_allgatherv_init
#define ALLTOALL_INIT MPIX_Neighbor_alltoall_init
#define ALLTOALLV_INIT MPIX_Neighbor_alltoallv_init
#define ALLTOALLW_INIT MPIX_Neighbor_alltoallw_init
#else
#define ALLGATHER_INIT MPI_Neighbor_allgather_init
#define ALLGATHERV_INIT MPI_Neighbor_allgatherv_init
#define ALLTOALL_INIT MPI_Neighbor_alltoall_init
#define ALLTOALLV_INIT MPI_Neighbor_alltoallv_init
#define ALLTOALLW_INIT MPI_Neighbor_alltoallw_init
#endif
program collectives
#if defined(NHOOD_F08)
  use mpi_f08
#if defined(NHOOD_MPIX_PERSISTENT)
  use mpi_f08_ext
#endif
#define COMM_T type(MPI_Comm)
#define REQUEST_T type(MPI_Request)
#define TYPE_T type(MPI_Datatype)
#define STATUS_DECL(v) type(MPI_Status) :: v
#define STATUSES_DECL(v, n) type(MPI_Status) :: v(n)
#elif defined(NHOOD_USE_MPI)
  use mpi
#if defined(NHOOD_MPIX_PERSISTENT)
  use mpi_ext
#endif
#define COMM_T integer
#define REQUEST_T integer
#define TYPE_T integer
#define STATUS_DECL(v) integer :: v(MPI_STATUS_SIZE)
#define STATUSES_DECL(v, n) integer :: v(MPI_STATUS_SIZE, n)
#endif
  implicit none
#if !defined(NHOOD_F08) && !defined(NHOOD_USE_MPI)
  include 'mpif.h'
#if defined(NHOOD_MPIX_PERSISTENT)
  include 'mpif-ext.h'
#endif
#define COMM_T integer
#define REQUEST_T integer
#define TYPE_T integer
#define STATUS_DECL(v) integer :: v(MPI_STATUS_SIZE)
#define STATUSES_DECL(v, n) integer :: v(MPI_STATUS_SIZE, n)
#endif
  integer, parameter :: MAXDEG = 8, NKINDS = 6
  integer, parameter :: ALLGATHER = 1, ALLGATHERV = 2, ALLTOALL = 3, ALLTOALLV = 4, ALLTOALLW = 5
  character(len=10), parameter :: names(5) = [character(len=10) :: 'allgather', 'allgatherv', 'alltoall', &
                                                'alltoallv', 'alltoallw']
  COMM_T :: comms(NKINDS)
  TYPE_T :: pair, vec, stypes(0:MAXDEG - 1), rtypes(0:MAXDEG - 1)
  integer :: rank, np, ierr, wrong, total, topo, coll, nb, dummy
  integer :: indeg, outdeg, srcs(0:MAXDEG - 1), dsts(0:MAXDEG - 1)
  integer :: scounts(0:MAXDEG - 1), sdispls(0:MAXDEG - 1), rcounts(0:MAXDEG - 1), rdispls(0:MAXDEG - 1)
  integer :: swcounts(0:MAXDEG - 1), rwcounts(0:MAXDEG - 1)
  integer(kind=MPI_ADDRESS_KIND) :: sbytes(0:MAXDEG - 1), rbytes(0:MAXDEG - 1)
  integer :: sbuf(0:2 * MAXDEG - 1), rbuf(0:3 * MAXDEG - 1), expect(0:3 * MAXDEG - 1)
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: version
  character(len=16) :: arg
  integer :: vlen
  logical :: own_w_broken ! the run without the library, on Open MPI: alltoallw left out (above)
  logical :: f08_w_broken ! MPICH's mpi_f08 alltoallw on graph and Cartesian communicators (above)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  if (np /= 4) then
    if (rank == 0) print '(A)', 'fortran collectives: run it on 4 processes'
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  wrong = 0
  nb = 0
  call get_command_argument(1, arg)
  call MPI_Get_library_version(version, vlen, ierr)
  own_w_broken = trim(arg) == 'mpi-own' .and. index(version(1:vlen), 'Open MPI') > 0
  f08_w_broken = .false.
#if defined(NHOOD_F08)
  f08_w_broken = trim(arg) == 'mpi-own' .and. index(version(1:vlen), 'MPICH') > 0
#endif
  call make_comms()
  call MPI_Type_contiguous(2, MPI_INTEGER, pair, ierr)
  call MPI_Type_commit(pair, ierr)
  call MPI_Type_vector(2, 1, 1, MPI_INTEGER, vec, ierr)
  call MPI_Type_commit(vec, ierr)

  do topo = 1, NKINDS
    call lists(topo, rank, indeg, srcs, outdeg, dsts)
    do coll = ALLGATHER, ALLTOALLW
      if (f08_w_broken .and. coll == ALLTOALLW .and. topo >= 3 .and. topo <= 5) cycle
      if (.not. (own_w_broken .and. coll == ALLTOALLW .and. maxval([indeg, outdeg]) > np)) then
        call blocking(comms(topo), coll)
        call check(topo, coll, 'blocking')
      end if
      if (.not. (own_w_broken .and. coll == ALLTOALLW)) then
        call nonblocking(comms(topo), coll)
        call check(topo, coll, 'non-blocking')
      end if
#if defined(NHOOD_PERSISTENT)
      if (.not. (own_w_broken .and. coll == ALLTOALLW)) call persistent(comms(topo), coll, topo)
#endif
    end do
  end do
  call two_in_flight()
  call reused_handles()
  call sections()
  call errors()

  call MPI_Allreduce(wrong, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (total == 0) then
      print '(A)', 'fortran collectives: OK'
    else
      print '(A,I0,A)', 'fortran collectives: WRONG (', total, ' checks failed)'
    end if
  end if
  call MPI_Type_free(pair, ierr)
  call MPI_Type_free(vec, ierr)
  do topo = 1, NKINDS
    call MPI_Comm_free(comms(topo), ierr)
  end do
  call MPI_Finalize(ierr)

contains

  ! What rank r's sources and destinations are on communicator `which` (the formulas that made
  ! it); MPI_PROC_NULL where a Cartesian neighbor is off the grid.
  subroutine lists(which, r, nin, s, nout, d)
    integer, intent(in) :: which, r
    integer, intent(out) :: nin, s(0:MAXDEG - 1), nout, d(0:MAXDEG - 1)
    integer :: l, rr, x, y, dx, dy, k
    l = modulo(r - 1, np)
    rr = modulo(r + 1, np)
    x = r / 2
    y = modulo(r, 2)
    select case (which)
    case (1)
      nin = 3
      s(0:2) = [l, rr, l]
      nout = 3
      d(0:2) = [rr, l, rr]
    case (2)
      nin = 0
      nout = 0
      if (r > 0) then
        nin = 1
        s(0) = r - 1
      end if
      if (r < np - 1) then
        nout = 1
        d(0) = r + 1
      end if
    case (3, 4)
      nin = 2
      s(0:1) = [l, rr]
      nout = 2
      d(0:1) = [l, rr]
    case (5)
      nin = 4
      s(0:3) = [on_grid(x - 1, y), on_grid(x + 1, y), on_grid(x, y - 1), on_grid(x, y + 1)]
      nout = 4
      d(0:3) = s(0:3)
    case (6)
      k = 0
      do dx = -1, 1
        do dy = -1, 1
          if (dx == 0 .and. dy == 0) cycle
          s(k) = 2 * modulo(x + dx, 2) + modulo(y + dy, 2)
          k = k + 1
        end do
      end do
      nin = 8
      nout = 8
      d(0:7) = s(0:7)
    end select
  end subroutine

  integer function on_grid(x, y)
    integer, intent(in) :: x, y
    on_grid = MPI_PROC_NULL
    if (x >= 0 .and. x < 2 .and. y >= 0 .and. y < 2) on_grid = 2 * x + y
  end function

  subroutine make_comms()
    integer :: nin, s(0:MAXDEG - 1), nout, d(0:MAXDEG - 1), idx(0:3), edges(0:7), i, t, dims(2)
    logical :: periods(2)
    do t = 1, NKINDS
      select case (t)
      case (1, 2, 6)
        call lists(t, rank, nin, s, nout, d)
        call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, s, MPI_UNWEIGHTED, nout, d, MPI_UNWEIGHTED, &
                                            MPI_INFO_NULL, .false., comms(t), ierr)
      case (3)
        do i = 0, np - 1
          idx(i) = 2 * (i + 1)
          edges(2 * i:2 * i + 1) = [modulo(i - 1, np), modulo(i + 1, np)]
        end do
        call MPI_Graph_create(MPI_COMM_WORLD, np, idx, edges, .false., comms(t), ierr)
      case (4)
        dims(1) = np
        periods(1) = .true.
        call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., comms(t), ierr)
      case (5)
        dims = [2, 2]
        periods = [.false., .false.]
        call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., comms(t), ierr)
      end select
    end do
  end subroutine

  ! Element e (1 or 2) of the block that rank r sends as its block j (allgather: j = 0).
  integer function datum(r, j, e)
    integer, intent(in) :: r, j, e
    datum = 1000 * r + 10 * j + e
  end function

  ! The send buffer, the counts, displacements and datatypes of `coll`, and the receive buffer
  ! cleared. Blocks of two integers; the v and w receive blocks leave a gap of one integer.
  subroutine prepare(c)
    integer, intent(in) :: c
    integer :: j
    do j = 0, MAXDEG - 1
      sbuf(2 * j:2 * j + 1) = [datum(rank, j, 1), datum(rank, j, 2)]
      if (c == ALLGATHER .or. c == ALLGATHERV) sbuf(2 * j:2 * j + 1) = [datum(rank, 0, 1), datum(rank, 0, 2)]
      scounts(j) = 2
      sdispls(j) = 2 * j
      sbytes(j) = 8 * j
      rcounts(j) = 2
      rdispls(j) = 3 * j
      rbytes(j) = 12 * j
      stypes(j) = MPI_INTEGER
      if (modulo(j, 2) == 0) stypes(j) = pair
      rtypes(j) = MPI_INTEGER
      if (modulo(j, 2) == 1) rtypes(j) = vec
    end do
    do j = 0, MAXDEG - 1
      swcounts(j) = 2
      if (stypes(j) == pair) swcounts(j) = 1
      rwcounts(j) = 2
      if (rtypes(j) == vec) rwcounts(j) = 1
    end do
    rbuf = -1
  end subroutine

  subroutine blocking(comm, c)
    COMM_T, intent(in) :: comm
    integer, intent(in) :: c
    call prepare(c)
    select case (c)
    case (ALLGATHER)
      call MPI_Neighbor_allgather(sbuf, 2, MPI_INTEGER, rbuf, 2, MPI_INTEGER, comm, ierr)
    case (ALLGATHERV)
      call MPI_Neighbor_allgatherv(sbuf, 2, MPI_INTEGER, rbuf, rcounts, rdispls, MPI_INTEGER, comm, ierr)
    case (ALLTOALL)
      call MPI_Neighbor_alltoall(sbuf, 2, MPI_INTEGER, rbuf, 2, MPI_INTEGER, comm, ierr)
    case (ALLTOALLV)
      call MPI_Neighbor_alltoallv(sbuf, scounts, sdispls, MPI_INTEGER, rbuf, rcounts, rdispls, MPI_INTEGER, &
                                  comm, ierr)
    case (ALLTOALLW)
      call MPI_Neighbor_alltoallw(sbuf, swcounts, sbytes, stypes, rbuf, rwcounts, rbytes, rtypes, comm, ierr)
    end select
  end subroutine

  ! Starts `coll` without blocking into req.
  subroutine start_one(comm, c, req)
    COMM_T, intent(in) :: comm
    integer, intent(in) :: c
    REQUEST_T, intent(out) :: req
    call prepare(c)
    select case (c)
    case (ALLGATHER)
      call MPI_Ineighbor_allgather(sbuf, 2, MPI_INTEGER, rbuf, 2, MPI_INTEGER, comm, req, ierr)
    case (ALLGATHERV)
      call MPI_Ineighbor_allgatherv(sbuf, 2, MPI_INTEGER, rbuf, rcounts, rdispls, MPI_INTEGER, comm, req, ierr)
    case (ALLTOALL)
      call MPI_Ineighbor_alltoall(sbuf, 2, MPI_INTEGER, rbuf, 2, MPI_INTEGER, comm, req, ierr)
    case (ALLTOALLV)
      call MPI_Ineighbor_alltoallv(sbuf, scounts, sdispls, MPI_INTEGER, rbuf, rcounts, rdispls, MPI_INTEGER, &
                                   comm, req, ierr)
    case (ALLTOALLW)
      call MPI_Ineighbor_alltoallw(sbuf, swcounts, sbytes, stypes, rbuf, rwcounts, rbytes, rtypes, comm, req, ierr)
    end select
  end subroutine

  ! A non-blocking call and a point-to-point receive from MPI_PROC_NULL, completed together by
  ! the next of eight request functions.
  subroutine nonblocking(comm, c)
    COMM_T, intent(in) :: comm
    integer, intent(in) :: c
    REQUEST_T :: reqs(2)
    integer :: me
    call start_one(comm, c, reqs(1))
    call MPI_Irecv(dummy, 0, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, reqs(2), ierr)
    me = 1
    if (modulo(rank, 2) == 1) then ! odd ranks list the point-to-point request first
      reqs = [reqs(2), reqs(1)]
      me = 2
    end if
    call complete(reqs, me, modulo(nb, 8))
    nb = nb + 1
  end subroutine

  ! Completes reqs with method m (0-7); reqs(mine) is the collective's.
  subroutine complete(reqs, mine, m)
    REQUEST_T, intent(inout) :: reqs(2)
    integer, intent(in) :: mine, m
    STATUS_DECL(status)
    STATUSES_DECL(statuses, 2)
    integer :: index, outcount, indices(2), k, seen(2)
    logical :: flag
    seen = 0
    select case (m)
    case (0) ! MPI_Wait, one after the other
      call MPI_Wait(reqs(1), status, ierr)
      call MPI_Wait(reqs(2), MPI_STATUS_IGNORE, ierr)
      seen = 1
    case (1)
      call MPI_Waitall(2, reqs, statuses, ierr)
      seen = 1
    case (2)
      do k = 1, 2
        call MPI_Waitany(2, reqs, index, status, ierr)
        call saw(index, seen)
      end do
      call MPI_Waitany(2, reqs, index, MPI_STATUS_IGNORE, ierr)
      if (index /= MPI_UNDEFINED) call report('MPI_Waitany on null requests: an index')
    case (3)
      do while (sum(seen) < 2)
        call MPI_Waitsome(2, reqs, outcount, indices, statuses, ierr)
        if (outcount == MPI_UNDEFINED) exit
        do k = 1, outcount
          call saw(indices(k), seen)
        end do
      end do
    case (4)
      do k = 1, 2
        flag = .false.
        do while (.not. flag)
          call MPI_Test(reqs(k), flag, status, ierr)
        end do
      end do
      seen = 1
    case (5) ! with statuses: they are written only once all completed
      flag = .false.
      do while (.not. flag)
        call MPI_Testall(2, reqs, flag, statuses, ierr)
      end do
      seen = 1
    case (6)
      do while (sum(seen) < 2)
        call MPI_Testany(2, reqs, index, flag, status, ierr)
        if (flag .and. index == MPI_UNDEFINED) exit
        if (flag) call saw(index, seen)
      end do
    case (7)
      do while (sum(seen) < 2)
        call MPI_Testsome(2, reqs, outcount, indices, MPI_STATUSES_IGNORE, ierr)
        if (outcount == MPI_UNDEFINED) exit
        do k = 1, outcount
          call saw(indices(k), seen)
        end do
      end do
    end select
    if (any(seen /= 1)) call report('request indices')
    if (reqs(mine) /= MPI_REQUEST_NULL .or. reqs(3 - mine) /= MPI_REQUEST_NULL) call report('requests left non-null')
  end subroutine

  ! An index that MPI_Waitany ... returned, counted in seen.
  subroutine saw(i, seen)
    integer, intent(in) :: i
    integer, intent(inout) :: seen(2)
    if (i < 1 .or. i > 2) then
      call report('an index out of 1..2')
    else
      seen(i) = seen(i) + 1
    end if
  end subroutine

#if defined(NHOOD_PERSISTENT)
  ! A persistent request: waited for inactive (at once), started twice (the send buffer changed
  ! in between), then freed.
  subroutine persistent(comm, c, which)
    COMM_T, intent(in) :: comm
    integer, intent(in) :: c, which
    REQUEST_T :: req, reqs(2)
    integer :: round
    call prepare(c)
    select case (c)
    case (ALLGATHER)
      call ALLGATHER_INIT(sbuf, 2, MPI_INTEGER, rbuf, 2, MPI_INTEGER, comm, MPI_INFO_NULL, req, ierr)
    case (ALLGATHERV)
      call ALLGATHERV_INIT(sbuf, 2, MPI_INTEGER, rbuf, rcounts, rdispls, MPI_INTEGER, comm, &
                                        MPI_INFO_NULL, req, ierr)
    case (ALLTOALL)
      call ALLTOALL_INIT(sbuf, 2, MPI_INTEGER, rbuf, 2, MPI_INTEGER, comm, MPI_INFO_NULL, req, ierr)
    case (ALLTOALLV)
      call ALLTOALLV_INIT(sbuf, scounts, sdispls, MPI_INTEGER, rbuf, rcounts, rdispls, MPI_INTEGER, &
                                       comm, MPI_INFO_NULL, req, ierr)
    case (ALLTOALLW)
      call ALLTOALLW_INIT(sbuf, swcounts, sbytes, stypes, rbuf, rwcounts, rbytes, rtypes, comm, &
                                       MPI_INFO_NULL, req, ierr)
    end select
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr) ! inactive: returns at once
    if (req == MPI_REQUEST_NULL) call report('an inactive persistent request became null')
    do round = 1, 2
      call prepare(c)
      call MPI_Start(req, ierr)
      call MPI_Irecv(dummy, 0, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, reqs(2), ierr)
      reqs(1) = req
      call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
      if (reqs(1) /= req) call report('a persistent request changed handle')
      call check(which, c, 'persistent')
    end do
    call MPI_Request_free(req, ierr)
    if (req /= MPI_REQUEST_NULL) call report('a freed request is not null')
  end subroutine
#endif

  ! Two collectives in flight on two communicators; even ranks wait for them in one order, odd
  ! ranks in the other.
  subroutine two_in_flight()
    REQUEST_T :: a, b
    integer :: gathered(0:3), g2(0:3), mine(2)
    mine = rank
    gathered = -1
    g2 = -1
    call MPI_Ineighbor_allgather(mine, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, comms(3), a, ierr)
    call MPI_Ineighbor_allgather(mine(2), 1, MPI_INTEGER, g2, 1, MPI_INTEGER, comms(4), b, ierr)
    if (modulo(rank, 2) == 0) then
      call MPI_Wait(a, MPI_STATUS_IGNORE, ierr)
      call MPI_Wait(b, MPI_STATUS_IGNORE, ierr)
    else
      call MPI_Wait(b, MPI_STATUS_IGNORE, ierr)
      call MPI_Wait(a, MPI_STATUS_IGNORE, ierr)
    end if
    if (any(gathered(0:1) /= [modulo(rank - 1, np), modulo(rank + 1, np)]) .or. &
        any(g2(0:1) /= [modulo(rank - 1, np), modulo(rank + 1, np)])) call report('two in flight')
  end subroutine

  ! Communicators made and freed in turn, with other neighbors each time, get the same Fortran
  ! handle back; the library keeps the C handle of the last one a thread called, so each call
  ! must still run on the communicator its handle names now, whether the last one was freed
  ! through the library (MPI_COMM_FREE) or around it (PMPI_COMM_FREE). A duplicate of
  ! MPI_COMM_WORLD freed after the ring lets the next ring take other memory (a C handle of its
  ! own) with the ring's Fortran handle.
  subroutine reused_handles()
    COMM_T :: ring, other
    integer :: k, shift, src(1), dst(1), got(1), mine(1)
    mine = rank
    do k = 1, 6
      shift = 1 + modulo(k, np - 1)
      src = modulo(rank - shift, np)
      dst = modulo(rank + shift, np)
      call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, MPI_UNWEIGHTED, 1, dst, MPI_UNWEIGHTED, &
                                          MPI_INFO_NULL, .false., ring, ierr)
      got = -1
      call MPI_Neighbor_allgather(mine, 1, MPI_INTEGER, got, 1, MPI_INTEGER, ring, ierr)
      if (ierr /= MPI_SUCCESS .or. got(1) /= src(1)) call report('reused handles')
      call MPI_Comm_dup(MPI_COMM_WORLD, other, ierr)
      if (modulo(k, 2) == 0) then
        call PMPI_Comm_free(ring, ierr)
      else
        call MPI_Comm_free(ring, ierr)
      end if
      call MPI_Comm_free(other, ierr)
    end do
  end subroutine

  ! Buffers that are array sections, contiguous or not, on a ring of two neighbors each way: a
  ! strided send and receive (with mpi_f08 on MPICH they come as descriptors that the library
  ! must not read as contiguous: the gaps must keep their values, and each neighbor's block has
  ! its place in the section, which MPICH 4.0's own procedures get wrong), a matrix's column
  ! (contiguous) and row (strided), blocking and non-blocking.
  subroutine sections()
    COMM_T :: ring
    REQUEST_T :: req
    integer :: nbr(2), sv(4), rv(8), m(2, 4), expect8(8), j
    nbr = [modulo(rank - 1, np), modulo(rank + 1, np)]
    call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, nbr, MPI_UNWEIGHTED, 2, nbr, MPI_UNWEIGHTED, &
                                        MPI_INFO_NULL, .false., ring, ierr)
    sv = [(10 * rank + j, j = 1, 4)]
    ! Send elements 1 and 3; receive them into the odd places of rv.
    rv = -7
    call MPI_Neighbor_allgather(sv(1:3:2), 2, MPI_INTEGER, rv(1:7:2), 2, MPI_INTEGER, ring, ierr)
    expect8 = -7
    expect8(1:7:2) = [10 * nbr(1) + 1, 10 * nbr(1) + 3, 10 * nbr(2) + 1, 10 * nbr(2) + 3]
    if (ierr /= MPI_SUCCESS .or. any(rv /= expect8)) call report('strided allgather')
    ! A row of m (strided) out, a column of m (contiguous) in: m(:, 3) gets one from each.
    m = -7
    m(1, :) = [(100 * rank + j, j = 1, 4)]
    call MPI_Neighbor_alltoall(m(1, 1:2), 1, MPI_INTEGER, m(:, 3), 1, MPI_INTEGER, ring, ierr)
    if (ierr /= MPI_SUCCESS .or. any(m(:, 3) /= [100 * nbr(1) + 2, 100 * nbr(2) + 1]) .or. any(m(2, [1, 2, 4]) /= -7)) &
      call report('matrix row and column alltoall')
    call MPI_Comm_free(ring, ierr)
    ! Non-blocking, where the MPI takes sections as they are (else the compiler's copy of the
    ! section is copied back before the wait), from the left neighbor into the even places of rv.
    ! One block only: the library leaves a non-blocking call's sections to MPICH's own procedure,
    ! whose datatype for a whole section is right only for a single block.
    if (MPI_SUBARRAYS_SUPPORTED) then
      call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, nbr(1:1), MPI_UNWEIGHTED, 1, nbr(2:2), &
                                          MPI_UNWEIGHTED, MPI_INFO_NULL, .false., ring, ierr)
      rv = -7
      call MPI_Ineighbor_allgather(sv(2:4:2), 2, MPI_INTEGER, rv(2:4:2), 2, MPI_INTEGER, ring, req, ierr)
      call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
      expect8 = -7
      expect8(2:4:2) = [10 * nbr(1) + 2, 10 * nbr(1) + 4]
      if (ierr /= MPI_SUCCESS .or. any(rv /= expect8)) call report('strided ineighbor_allgather')
      call MPI_Comm_free(ring, ierr)
    end if
  end subroutine

  ! A bad argument from Fortran is reported as from C: through the communicator's error handler
  ! (MPI_ERRORS_RETURN here), with the class a C call gets (a negative count: MPI_ERR_COUNT),
  ! blocking and non-blocking, and the communicator still works after it.
  subroutine errors()
    REQUEST_T :: req
    integer :: code, cls, one(1), got(0:MAXDEG - 1)
    call MPI_Comm_set_errhandler(comms(3), MPI_ERRORS_RETURN, ierr)
    one = rank
    call MPI_Neighbor_allgather(one, -1, MPI_INTEGER, got, 1, MPI_INTEGER, comms(3), code)
    call MPI_Error_class(code, cls, ierr)
    if (cls /= MPI_ERR_COUNT) call report('negative count, blocking: not MPI_ERR_COUNT')
    call MPI_Ineighbor_alltoall(one, 1, MPI_INTEGER, got, -1, MPI_INTEGER, comms(3), req, code)
    call MPI_Error_class(code, cls, ierr)
    if (cls /= MPI_ERR_COUNT) call report('negative count, non-blocking: not MPI_ERR_COUNT')
    got = -1
    call MPI_Neighbor_allgather(one, 1, MPI_INTEGER, got, 1, MPI_INTEGER, comms(3), code)
    if (code /= MPI_SUCCESS .or. any(got(0:1) /= [modulo(rank - 1, np), modulo(rank + 1, np)])) &
      call report('after the errors')
  end subroutine

  ! rbuf against what the sources sent: receive block k from source s is s's block sent to this
  ! process as the n-th message from s, n counting s among this process's first k+1 sources.
  subroutine check(which, c, mode)
    integer, intent(in) :: which, c
    character(*), intent(in) :: mode
    integer :: k, s, n, j, at, sin, sout, ss(0:MAXDEG - 1), sd(0:MAXDEG - 1)
    expect = -1
    do k = 0, indeg - 1
      s = srcs(k)
      if (s == MPI_PROC_NULL) cycle
      n = count(srcs(0:k) == s)
      call lists(which, s, sin, ss, sout, sd)
      do j = 0, sout - 1
        if (sd(j) == rank) n = n - 1
        if (n == 0) exit
      end do
      if (c == ALLGATHER .or. c == ALLGATHERV) j = 0
      at = 2 * k
      if (c == ALLGATHERV .or. c == ALLTOALLV .or. c == ALLTOALLW) at = 3 * k
      expect(at:at + 1) = [datum(s, j, 1), datum(s, j, 2)]
    end do
    if (any(rbuf /= expect)) then
      print '(A,I0,A,I0,4A)', 'rank ', rank, ': communicator ', which, ': wrong result, ', trim(names(c)), ' ', mode
      wrong = wrong + 1
    end if
  end subroutine

  subroutine report(what)
    character(*), intent(in) :: what
    print '(A,I0,2A)', 'rank ', rank, ': ', what
    wrong = wrong + 1
  end subroutine
end program
