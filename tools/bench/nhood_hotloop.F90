! nhood-hotloop-f: nhood-hotloop's `mpi` mode from Fortran (use mpi_f08): a 4 B blocking
! MPI_Neighbor_allgather between two processes, each the other's only neighbor, N times on a
! distributed-graph communicator (nhood's with the interposition library preloaded, MPI's own
! without). With `time`, each call is timed and rank 0 prints the median and the mean over the
! calls of the slowest process's time, as nhood-hotloop does: scripts/fortran_overhead.sh
! compares the two. With `time alternate`, the N calls go in blocks of 100, each block timed as
! a whole (a call is shorter than the clock's steps resolve to 3%), and each block is followed
! by (or, every other block, follows) a block of the same call from C (nhood_hotloop_c.c); the
! figures are per call, over the blocks, for both (the C one prefixed c_): the two compared in
! one run, side by side.
!
! With `moore R`, any number of processes on a periodic 2-D grid gather from their Moore
! neighborhood of radius R, as nhood-hotloop's: what `auto` picks (NHOOD_STATS) must be the same.
!
!   mpiexec -n 2 nhood-hotloop-f N [time [alternate]] [moore R]
program hotloop
  use mpi_f08
  implicit none
  type(MPI_Comm) :: graph
  integer :: rank, np, ierr, x(1), n, i, j, a, radius, degree, samples
  integer, parameter :: BLOCK = 100
  integer, allocatable :: nbr(:), y(:)
  character(len=32) :: arg
  logical :: timed, alternate, bad
  double precision, allocatable :: seconds(:), c_seconds(:)
  double precision :: t0
  interface
    ! The same call from C, timed (nhood_hotloop_c.c).
    function c_calls(x, y, comm, count, rc) bind(C, name='nhood_hotloop_c_calls') result(seconds)
      use, intrinsic :: iso_c_binding, only: c_int, c_double
      integer(c_int), intent(in) :: x(*)
      integer(c_int), intent(inout) :: y(*)
      integer(c_int), value :: comm, count
      integer(c_int), intent(out) :: rc
      real(c_double) :: seconds
    end function
  end interface

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  n = -1
  bad = command_argument_count() < 1
  if (.not. bad) then
    call get_command_argument(1, arg)
    read (arg, *, iostat=ierr) n
    bad = ierr /= 0 .or. n < 0
  end if
  a = 2
  timed = .false.
  alternate = .false.
  radius = 0
  if (.not. bad .and. a <= command_argument_count()) then
    call get_command_argument(a, arg)
    if (trim(arg) == 'time') then
      timed = .true.
      a = a + 1
    end if
  end if
  if (timed .and. a <= command_argument_count()) then
    call get_command_argument(a, arg)
    if (trim(arg) == 'alternate') then
      alternate = .true.
      a = a + 1
    end if
  end if
  if (.not. bad .and. a + 1 <= command_argument_count()) then
    call get_command_argument(a, arg)
    if (trim(arg) == 'moore') then
      call get_command_argument(a + 1, arg)
      read (arg, *, iostat=ierr) radius
      bad = ierr /= 0 .or. radius < 1
      a = a + 2
    end if
  end if
  if (bad .or. a <= command_argument_count() .or. (radius == 0 .and. np > 2)) then
    if (rank == 0) write (0, '(A)') 'usage: mpiexec -n 2 nhood-hotloop-f N [time [alternate]] [moore R]'
    call MPI_Finalize(ierr)
    stop 2
  end if
  if (radius > 0) then
    degree = (2 * radius + 1)**2 - 1
    allocate (nbr(degree), y(degree))
    call moore(radius, nbr)
  else
    degree = 1
    allocate (nbr(1), y(1))
    nbr(1) = np - 1 - rank
  end if
  x(1) = rank
  y = -1
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, degree, nbr, MPI_UNWEIGHTED, degree, nbr, MPI_UNWEIGHTED, &
                                      MPI_INFO_NULL, .false., graph, ierr)
  allocate (seconds(max(n, 1)), c_seconds(max(n, 1)))
  samples = n
  if (alternate) then
    samples = n / BLOCK
    do i = 1, samples
      if (modulo(i, 2) == 0) c_seconds(i) = c_calls(x, y, graph%MPI_VAL, BLOCK, ierr)
      if (ierr /= MPI_SUCCESS) exit
      t0 = MPI_Wtime()
      do j = 1, BLOCK
        call MPI_Neighbor_allgather(x, 1, MPI_INTEGER, y, 1, MPI_INTEGER, graph, ierr)
        if (ierr /= MPI_SUCCESS) exit
      end do
      seconds(i) = (MPI_Wtime() - t0) / BLOCK
      if (ierr /= MPI_SUCCESS) exit
      if (modulo(i, 2) == 1) c_seconds(i) = c_calls(x, y, graph%MPI_VAL, BLOCK, ierr)
      if (ierr /= MPI_SUCCESS) exit
    end do
  else
    do i = 1, n
      if (timed) t0 = MPI_Wtime()
      call MPI_Neighbor_allgather(x, 1, MPI_INTEGER, y, 1, MPI_INTEGER, graph, ierr)
      if (timed) seconds(i) = MPI_Wtime() - t0
      if (ierr /= MPI_SUCCESS) exit
    end do
  end if
  if (ierr /= MPI_SUCCESS .or. (n > 0 .and. any(y /= nbr))) then
    write (0, '(A,I0,A)') 'nhood-hotloop-f: rank ', rank, ': wrong data or a failed call'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call MPI_Comm_free(graph, ierr)
  if (timed .and. samples > 0) then
    call summary('', seconds(1:samples))
    if (alternate) call summary('c_', c_seconds(1:samples))
  end if
  call MPI_Finalize(ierr)

contains

  ! The median and mean over the samples (calls, or blocks' calls) of the slowest process's
  ! time, printed by rank 0.
  subroutine summary(prefix, t)
    character(*), intent(in) :: prefix
    double precision, intent(inout) :: t(:)
    double precision :: mean
    integer :: m
    m = size(t)
    call MPI_Allreduce(MPI_IN_PLACE, t, m, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
    mean = sum(t) / m
    call sort(t)
    if (rank == 0) print '(2A,F12.4,3A,F12.4)', prefix, 'median_us ', 1d6 * t(m / 2 + 1), ' ', prefix, 'mean_us ', &
      1d6 * mean
  end subroutine

  ! This process's neighbors on a Moore stencil of radius r on a periodic 2-D grid of all the
  ! processes (MPI_Dims_create's), row-major, offsets in order: nhood-hotloop's list.
  subroutine moore(r, list)
    integer, intent(in) :: r
    integer, intent(out) :: list(:)
    integer :: dims(2), px, py, dx, dy, k
    dims = 0
    call MPI_Dims_create(np, 2, dims, ierr)
    px = rank / dims(2)
    py = modulo(rank, dims(2))
    k = 0
    do dx = -r, r
      do dy = -r, r
        if (dx == 0 .and. dy == 0) cycle
        k = k + 1
        list(k) = modulo(px + dx, dims(1)) * dims(2) + modulo(py + dy, dims(2))
      end do
    end do
  end subroutine

  ! Heapsort: n can be large, and no library sort is standard Fortran.
  subroutine sort(a)
    double precision, intent(inout) :: a(:)
    integer :: last, k
    double precision :: t
    do k = size(a) / 2, 1, -1
      call sift(a, k, size(a))
    end do
    do last = size(a), 2, -1
      t = a(1)
      a(1) = a(last)
      a(last) = t
      call sift(a, 1, last - 1)
    end do
  end subroutine

  subroutine sift(a, start, last)
    double precision, intent(inout) :: a(:)
    integer, intent(in) :: start, last
    integer :: root, child
    double precision :: t
    root = start
    do while (2 * root <= last)
      child = 2 * root
      if (child < last) then
        if (a(child) < a(child + 1)) child = child + 1
      end if
      if (a(root) >= a(child)) return
      t = a(root)
      a(root) = a(child)
      a(child) = t
      root = child
    end do
  end subroutine
end program
