/*
 * The Fortran request functions, MPI_COMM_FREE and MPI_FINALIZE, interposed on both MPIs.
 *
 * A request function called from Fortran must advance nhood's requests and hand MPI the stand-in
 * of a persistent one, as the C functions in requests.c do. Open MPI's Fortran bindings call
 * PMPI_* directly; MPICH's mpif.h bindings call the C names but add 1 to the index that
 * MPI_WAITANY returns even when it is MPI_UNDEFINED, and its mpi_f08 procedures call PMPI_*
 * and return the indices of MPI_WAITANY, MPI_WAITSOME, MPI_TESTANY and MPI_TESTSOME counted
 * from 0 (MPICH 4.0). So every name form is defined here: mpif.h's and `use mpi`'s (fortran.h),
 * on Open MPI the body its mpi_f08 procedures call, and the mpi_f08 specific procedures
 * (mpi_<name>_f08_) that do not go through that body: five on Open MPI (they call the Fortran
 * PMPI names), all of them on MPICH. Each converts the handles (MPI_*_f2c, _c2f), calls the
 * library's C function and converts back; MPI_STATUS(ES)_IGNORE are the addresses MPI names in
 * C (MPI_F_STATUS_IGNORE, and MPICH's MPI_F08_STATUS_IGNORE for its mpi_f08 procedures).
 */
#include <stdlib.h>

#include "interpose/fortran.h"

static int status_ignored(const MPI_Fint *s) {
#if defined(MPICH_NUMVERSION)
  if ((const void *)s == (const void *)MPI_F08_STATUS_IGNORE) return 1;
#endif
  return s == MPI_F_STATUS_IGNORE;
}

static int statuses_ignored(const MPI_Fint *s) {
#if defined(MPICH_NUMVERSION)
  if ((const void *)s == (const void *)MPI_F08_STATUSES_IGNORE) return 1;
#endif
  return s == MPI_F_STATUSES_IGNORE;
}

/* ---- the request functions --------------------------------------------------------------- */

/* A Fortran array of n requests as C handles, and their statuses, on the stack up to a few. */
#define FEW 16
typedef struct {
  int n;
  MPI_Request *c, few[FEW];
  MPI_Status *s, few_s[FEW]; /* MPI_STATUSES_IGNORE where Fortran ignores them */
} c_requests;

static int c_requests_of(c_requests *r, int n, const MPI_Fint *f, const MPI_Fint *f_statuses) {
  int ignored = f_statuses == NULL || statuses_ignored(f_statuses);
  r->n = n < 0 ? 0 : n;
  r->c = r->n <= FEW ? r->few : malloc(sizeof(MPI_Request) * (size_t)r->n);
  /* MPI_STATUSES_IGNORE may be NULL (Open MPI's is). */
  r->s = ignored ? MPI_STATUSES_IGNORE : r->n <= FEW ? r->few_s : malloc(sizeof(MPI_Status) * (size_t)r->n);
  if (r->c == NULL || (!ignored && r->s == NULL)) return MPI_ERR_NO_MEM;
  for (int k = 0; k < r->n; k++) r->c[k] = PMPI_Request_f2c(f[k]);
  return MPI_SUCCESS;
}

/* Back to Fortran: every handle (completed ones are now MPI_REQUEST_NULL), and the statuses
 * (none where f_statuses is NULL) listed in `which` (all when NULL, the first `count` of which
 * otherwise). */
static void c_requests_done(c_requests *r, int rc, MPI_Fint *f, MPI_Fint *f_statuses, const int *which, int count) {
  if (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) {
    for (int k = 0; k < r->n; k++) f[k] = PMPI_Request_c2f(r->c[k]);
    if (r->s != MPI_STATUSES_IGNORE && f_statuses != NULL) {
      int m = which ? count : r->n;
      for (int k = 0; k < m; k++) PMPI_Status_c2f(&r->s[k], f_statuses + (size_t)k * IP_F_STATUS_INTS);
    }
  }
  if (r->c != r->few) free(r->c);
  if (r->s != r->few_s && r->s != MPI_STATUSES_IGNORE) free(r->s); /* free(NULL) is harmless */
}

static void status_out(int rc, const MPI_Status *c, MPI_Fint *f) {
  if ((rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && !status_ignored(f)) PMPI_Status_c2f(c, f);
}

/* A test's answer: .true. and the status when it completed. */
static void flag_out(int rc, int done, const MPI_Status *c, MPI_Fint *flag, MPI_Fint *status) {
  if (rc != MPI_SUCCESS) return;
  *flag = done ? IP_F_TRUE : 0;
  if (done) status_out(rc, c, status);
}

/* A C index to Fortran's, which count from 1. */
static MPI_Fint index_out(int index) { return index == MPI_UNDEFINED ? MPI_UNDEFINED : index + 1; }

IP_FORTRAN(IP_F_BODY, mpi, wait, MPI_WAIT, (MPI_Fint * request, MPI_Fint *status, MPI_Fint *ierr)) {
  MPI_Request c = PMPI_Request_f2c(*request);
  MPI_Status s;
  *ierr = MPI_Wait(&c, status_ignored(status) ? MPI_STATUS_IGNORE : &s);
  if (*ierr == MPI_SUCCESS) *request = PMPI_Request_c2f(c);
  status_out(*ierr, &s, status);
}

IP_FORTRAN(IP_F_BODY, mpi, test, MPI_TEST, (MPI_Fint * request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr)) {
  MPI_Request c = PMPI_Request_f2c(*request);
  MPI_Status s;
  int done = 0;
  *ierr = MPI_Test(&c, &done, status_ignored(status) ? MPI_STATUS_IGNORE : &s);
  if (*ierr == MPI_SUCCESS) *request = PMPI_Request_c2f(c);
  flag_out(*ierr, done, &s, flag, status);
}

IP_FORTRAN(IP_F_BODY, mpi, request_get_status, MPI_REQUEST_GET_STATUS,
           (MPI_Fint * request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr)) {
  MPI_Status s;
  int done = 0;
  *ierr = MPI_Request_get_status(PMPI_Request_f2c(*request), &done, status_ignored(status) ? MPI_STATUS_IGNORE : &s);
  flag_out(*ierr, done, &s, flag, status);
}

IP_FORTRAN(IP_F_BODY, mpi, waitall, MPI_WAITALL,
           (MPI_Fint * count, MPI_Fint *requests, MPI_Fint *statuses, MPI_Fint *ierr)) {
  c_requests r;
  if ((*ierr = c_requests_of(&r, *count, requests, statuses)) == MPI_SUCCESS) *ierr = MPI_Waitall(r.n, r.c, r.s);
  c_requests_done(&r, *ierr, requests, statuses, NULL, 0);
}

IP_FORTRAN(IP_F_BODY, mpi, testall, MPI_TESTALL,
           (MPI_Fint * count, MPI_Fint *requests, MPI_Fint *flag, MPI_Fint *statuses, MPI_Fint *ierr)) {
  c_requests r;
  int done = 0;
  if ((*ierr = c_requests_of(&r, *count, requests, statuses)) == MPI_SUCCESS) *ierr = MPI_Testall(r.n, r.c, &done, r.s);
  if (*ierr == MPI_SUCCESS) *flag = done ? IP_F_TRUE : 0;
  c_requests_done(&r, *ierr, requests, done ? statuses : NULL, NULL, 0); /* statuses once all completed */
}

IP_FORTRAN(IP_F_BODY, mpi, waitany, MPI_WAITANY,
           (MPI_Fint * count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *status, MPI_Fint *ierr)) {
  c_requests r;
  MPI_Status s;
  int i = MPI_UNDEFINED;
  if ((*ierr = c_requests_of(&r, *count, requests, NULL)) == MPI_SUCCESS)
    *ierr = MPI_Waitany(r.n, r.c, &i, status_ignored(status) ? MPI_STATUS_IGNORE : &s);
  c_requests_done(&r, *ierr, requests, NULL, NULL, 0);
  if (*ierr != MPI_SUCCESS) return;
  *index = index_out(i);
  status_out(*ierr, &s, status);
}

IP_FORTRAN(IP_F_BODY, mpi, testany, MPI_TESTANY,
           (MPI_Fint * count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr)) {
  c_requests r;
  MPI_Status s;
  int i = MPI_UNDEFINED, done = 0;
  if ((*ierr = c_requests_of(&r, *count, requests, NULL)) == MPI_SUCCESS)
    *ierr = MPI_Testany(r.n, r.c, &i, &done, status_ignored(status) ? MPI_STATUS_IGNORE : &s);
  c_requests_done(&r, *ierr, requests, NULL, NULL, 0);
  if (*ierr == MPI_SUCCESS) *index = index_out(i);
  flag_out(*ierr, done, &s, flag, status);
}

/* Waitsome and Testsome (`some`, the C function): the statuses of the completed requests, in
 * the order of indices, which count from 1. */
static void some(int (*fn)(int, MPI_Request[], int *, int[], MPI_Status[]), MPI_Fint *incount, MPI_Fint *requests,
                 MPI_Fint *outcount, MPI_Fint *indices, MPI_Fint *statuses, MPI_Fint *ierr) {
  c_requests r;
  int out = MPI_UNDEFINED;
  *ierr = c_requests_of(&r, *incount, requests, statuses);
  int *c_indices = malloc(sizeof(int) * (size_t)(r.n + 1));
  if (*ierr == MPI_SUCCESS && c_indices == NULL) *ierr = MPI_ERR_NO_MEM;
  if (*ierr == MPI_SUCCESS) *ierr = fn(r.n, r.c, &out, c_indices, r.s);
  int done = *ierr == MPI_SUCCESS || *ierr == MPI_ERR_IN_STATUS;
  c_requests_done(&r, *ierr, requests, statuses, c_indices, done && out != MPI_UNDEFINED ? out : 0);
  if (done) {
    *outcount = out;
    for (int k = 0; out != MPI_UNDEFINED && k < out; k++) indices[k] = c_indices[k] + 1;
  }
  free(c_indices);
}

#define SOME_PARAMS                                                                                       \
  (MPI_Fint * incount, MPI_Fint * requests, MPI_Fint * outcount, MPI_Fint * indices, MPI_Fint * statuses, \
   MPI_Fint * ierr)
IP_FORTRAN(IP_F_BODY, mpi, waitsome, MPI_WAITSOME, SOME_PARAMS) {
  some(MPI_Waitsome, incount, requests, outcount, indices, statuses, ierr);
}
IP_FORTRAN(IP_F_BODY, mpi, testsome, MPI_TESTSOME, SOME_PARAMS) {
  some(MPI_Testsome, incount, requests, outcount, indices, statuses, ierr);
}

IP_FORTRAN(IP_F_BODY, mpi, start, MPI_START, (MPI_Fint * request, MPI_Fint *ierr)) {
  MPI_Request c = PMPI_Request_f2c(*request);
  *ierr = MPI_Start(&c);
}

IP_FORTRAN(IP_F_BODY, mpi, startall, MPI_STARTALL, (MPI_Fint * count, MPI_Fint *requests, MPI_Fint *ierr)) {
  c_requests r;
  if ((*ierr = c_requests_of(&r, *count, requests, NULL)) == MPI_SUCCESS) *ierr = MPI_Startall(r.n, r.c);
  c_requests_done(&r, MPI_ERR_OTHER, requests, NULL, NULL, 0); /* handles unchanged: only frees */
}

IP_FORTRAN(IP_F_BODY, mpi, request_free, MPI_REQUEST_FREE, (MPI_Fint * request, MPI_Fint *ierr)) {
  MPI_Request c = PMPI_Request_f2c(*request);
  *ierr = MPI_Request_free(&c);
  if (*ierr == MPI_SUCCESS) *request = PMPI_Request_c2f(c);
}

IP_FORTRAN(IP_F_BODY, mpi, cancel, MPI_CANCEL, (MPI_Fint * request, MPI_Fint *ierr)) {
  MPI_Request c = PMPI_Request_f2c(*request);
  *ierr = MPI_Cancel(&c);
}

/* ---- communicators and the end ------------------------------------------------------------ */

IP_FORTRAN(IP_F_BODY, mpi, comm_free, MPI_COMM_FREE, (MPI_Fint * comm, MPI_Fint *ierr)) {
  MPI_Comm c = PMPI_Comm_f2c(*comm);
  *ierr = MPI_Comm_free(&c);
  if (*ierr == MPI_SUCCESS) *comm = PMPI_Comm_c2f(c);
}

IP_FORTRAN(IP_F_BODY, mpi, finalize, MPI_FINALIZE, (MPI_Fint * ierr)) { *ierr = MPI_Finalize(); }

/* mpi_f08's specific procedures where they do not reach the body above: on Open MPI, Test,
 * Testall, Testany, Testsome and Request_get_status (they call the Fortran PMPI names); on
 * MPICH, all of them. Their ierror is optional (absent: NULL). */
#define F08(name, params, ...)        \
  void mpi_##name##_f08_ params;      \
  void mpi_##name##_f08_ params {     \
    MPI_Fint rc;                      \
    F08_BODY(name)(__VA_ARGS__, &rc); \
    if (ierror) *ierror = rc;         \
  }
#define F08_BODY(name) F08_BODY_(IP_F_BODY, name)
#define F08_BODY_(body, name) F08_BODY__(body, name)
#define F08_BODY__(body, name) body##_##name##_f

F08(test, (MPI_Fint * request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierror), request, flag, status)
F08(testall, (MPI_Fint * count, MPI_Fint *requests, MPI_Fint *flag, MPI_Fint *statuses, MPI_Fint *ierror), count,
    requests, flag, statuses)
F08(testany,
    (MPI_Fint * count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierror), count,
    requests, index, flag, status)
F08(testsome,
    (MPI_Fint * incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices, MPI_Fint *statuses,
     MPI_Fint *ierror),
    incount, requests, outcount, indices, statuses)
F08(request_get_status, (MPI_Fint * request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierror), request, flag, status)
#if defined(MPICH_NUMVERSION)
F08(wait, (MPI_Fint * request, MPI_Fint *status, MPI_Fint *ierror), request, status)
F08(waitall, (MPI_Fint * count, MPI_Fint *requests, MPI_Fint *statuses, MPI_Fint *ierror), count, requests, statuses)
F08(waitany, (MPI_Fint * count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *status, MPI_Fint *ierror), count,
    requests, index, status)
F08(waitsome,
    (MPI_Fint * incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices, MPI_Fint *statuses,
     MPI_Fint *ierror),
    incount, requests, outcount, indices, statuses)
F08(start, (MPI_Fint * request, MPI_Fint *ierror), request)
F08(startall, (MPI_Fint * count, MPI_Fint *requests, MPI_Fint *ierror), count, requests)
F08(request_free, (MPI_Fint * request, MPI_Fint *ierror), request)
F08(cancel, (MPI_Fint * request, MPI_Fint *ierror), request)
F08(comm_free, (MPI_Fint * comm, MPI_Fint *ierror), comm)
#endif

#if defined(MPICH_NUMVERSION)
void mpi_finalize_f08_(MPI_Fint *ierror);
void mpi_finalize_f08_(MPI_Fint *ierror) {
  MPI_Fint rc;
  ip_fortran_finalize_f(&rc);
  if (ierror) *ierror = rc;
}
#endif
