! nhood-hotloop-f: nhood-hotloop's `mpi` mode from Fortran (use mpi_f08): a 4 B blocking
! MPI_Neighbor_allgather between two processes, each the other's only neighbor, N times on a
! distributed-graph communicator (nhood's with the interposition library preloaded, MPI's own
! without). With `time`, each call is timed and rank 0 prints the median and the mean over the
! calls of the slowest process's time, as nhood-hotloop does: scripts/fortran_overhead.sh
! compares the two.
!
!   mpiexec -n 2 nhood-hotloop-f N [time]
program hotloop
  use mpi_f08
  implicit none
  type(MPI_Comm) :: graph
  integer :: rank, np, ierr, other(1), x(1), y(1), n, i
  character(len=32) :: arg
  logical :: timed
  double precision, allocatable :: seconds(:)
  double precision :: t0

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  n = -1
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *, iostat=ierr) n
    if (ierr /= 0) n = -1
  end if
  timed = .false.
  if (command_argument_count() == 2) then
    call get_command_argument(2, arg)
    timed = trim(arg) == 'time'
    if (.not. timed) n = -1
  end if
  if (n < 0 .or. np > 2 .or. command_argument_count() > 2) then
    if (rank == 0) write (0, '(A)') 'usage: mpiexec -n 2 nhood-hotloop-f N [time]'
    call MPI_Finalize(ierr)
    stop 2
  end if
  other(1) = np - 1 - rank
  x(1) = rank
  y(1) = -1
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, other, MPI_UNWEIGHTED, 1, other, MPI_UNWEIGHTED, &
                                      MPI_INFO_NULL, .false., graph, ierr)
  allocate (seconds(max(n, 1)))
  do i = 1, n
    if (timed) t0 = MPI_Wtime()
    call MPI_Neighbor_allgather(x, 1, MPI_INTEGER, y, 1, MPI_INTEGER, graph, ierr)
    if (timed) seconds(i) = MPI_Wtime() - t0
    if (ierr /= MPI_SUCCESS) exit
  end do
  if (ierr /= MPI_SUCCESS .or. (n > 0 .and. y(1) /= other(1))) then
    write (0, '(A,I0,A,I0,A)') 'nhood-hotloop-f: rank ', rank, ': wrong data or a failed call (received ', y(1), ')'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call MPI_Comm_free(graph, ierr)
  if (timed .and. n > 0) then
    call MPI_Allreduce(MPI_IN_PLACE, seconds, n, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
    t0 = sum(seconds(1:n)) / n
    call sort(seconds(1:n))
    if (rank == 0) print '(A,F12.4,A,F12.4)', 'median_us ', 1d6 * seconds(n / 2 + 1), ' mean_us ', 1d6 * t0
  end if
  call MPI_Finalize(ierr)

contains

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
