/*
 * nhood's API under threads.
 *
 *   test_threads_api                    MPI_THREAD_MULTIPLE (skipped, status 77, where the MPI
 *                                   library does not provide it):
 *     concurrent   each of THREADS threads runs its own communicator and topology object,
 *                  each under another algorithm (auto, direct, combine, mpi): blocking
 *                  allgather, non-blocking alltoall, persistent allgather started and
 *                  tested, all checked; meanwhile one more thread creates, reverses, queries
 *                  and frees topology objects without pause.
 *     handoff      requests created in one thread and completed in another: on each of
 *                  THREADS/2 communicators one thread issues non-blocking alltoalls and
 *                  starts a persistent allgather, and passes each request to a second thread,
 *                  which waits or tests it and checks the data.
 *     memo         one thread repeats a blocking allgather, another makes a blocking
 *                  alltoall on the same topology object in between, then the first repeats
 *                  its call again: the data of every call is checked.
 *   test_threads_api --level serialized | funneled | single
 *                  MPI initialized at that level: what nhood needs of it is checked. Rank 0
 *                  has a second thread call nhood while its first thread is inside a blocking
 *                  call (serialized), or call it at all (funneled, single): the call fails
 *                  with MPI_ERR_OTHER and a message that names the level, and the first
 *                  thread's call completes correctly.
 * Either way, a collective called before MPI_Init fails with MPI_ERR_OTHER.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep, rand_r */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nhood.h"
#include "testutil.h"

#define THREADS 4
#define ROUNDS 150
#define HANDOFFS 200
#define INFLIGHT 4 /* non-blocking requests a handoff pair keeps in flight */
#define MAXDEG 6

static int rank, size;

/* This thread's last nhood message. */
static const char *last_message(void) {
  static _Thread_local char text[NHOOD_MAX_ERROR_STRING];
  int len = 0;
  if (NHOOD_Error_message(text, &len) != MPI_SUCCESS) text[0] = '\0';
  return text;
}

static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}
static const char *const algorithms[] = {"auto", "direct", "combine", "mpi"};

/* What process q sends to process `to` in round r on thread id's communicator (to = -1: the
 * same block for every neighbor). */
static int value(int q, int to, int id, int r) { return ((q * 131 + to + 1) * 17 + id) * 1000 + r; }

typedef struct {
  int id, failures;
  MPI_Comm comm;
  NHOOD_Topo topo;
  int degree, neighbors[MAXDEG];
} worker;

/* A ring with chords at distance id + 1 and, for odd ids, the ring's edges twice: neighbor
 * lists differ per thread. The same list serves as sources and destinations, which the
 * ring's symmetry makes consistent. */
static void make_worker(worker *w, int id) {
  int d = (id + 1) % size, n = 0;
  *w = (worker){.id = id};
  w->neighbors[n++] = (rank + 1) % size;
  w->neighbors[n++] = (rank + size - 1) % size;
  w->neighbors[n++] = (rank + d) % size;
  w->neighbors[n++] = (rank + size - d) % size;
  if (id % 2) { /* both again: each edge of the ring twice, consistently on both ends */
    w->neighbors[n++] = (rank + 1) % size;
    w->neighbors[n++] = (rank + size - 1) % size;
  }
  w->degree = n;
  TEST_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &w->comm));
  MPI_Info info;
  TEST_CHECK(MPI_Info_create(&info));
  TEST_CHECK(MPI_Info_set(info, NHOOD_INFO_ALGORITHM, algorithms[id % 4]));
  TEST_CHECK(NHOOD_Topo_create_adjacent(w->degree, w->neighbors, test_unweighted(), w->degree, w->neighbors,
                                        test_unweighted(), info, &w->topo));
  TEST_CHECK(MPI_Info_free(&info));
}

static void free_worker(worker *w) {
  TEST_CHECK(NHOOD_Topo_free(&w->topo));
  TEST_CHECK(MPI_Comm_free(&w->comm));
}

#define EXPECT(cond, ...)                                    \
  do {                                                       \
    if (!(cond)) {                                           \
      if (w->failures++ < 5) {                               \
        fprintf(stderr, "rank %d thread %d: ", rank, w->id); \
        fprintf(stderr, __VA_ARGS__);                        \
        fprintf(stderr, " (%s)\n", last_message());          \
      }                                                      \
    }                                                        \
  } while (0)

/* ---- concurrent: one communicator per thread ------------------------------------------- */

static void *concurrent(void *arg) {
  worker *w = arg;
  int send[MAXDEG], got[MAXDEG], psend = 0, pgot[MAXDEG];
  NHOOD_Request req, preq;
  EXPECT(NHOOD_Neighbor_allgather_init(&psend, 1, MPI_INT, pgot, 1, MPI_INT, w->comm, w->topo, MPI_INFO_NULL, &preq) ==
             MPI_SUCCESS,
         "allgather_init");
  for (int r = 0; r < ROUNDS; r++) {
    int mine = value(rank, -1, w->id, r);
    EXPECT(NHOOD_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, w->comm, w->topo) == MPI_SUCCESS, "allgather");
    for (int i = 0; i < w->degree; i++)
      EXPECT(got[i] == value(w->neighbors[i], -1, w->id, r), "allgather round %d block %d", r, i);
    for (int j = 0; j < w->degree; j++) send[j] = value(rank, w->neighbors[j], w->id, r);
    EXPECT(NHOOD_Ineighbor_alltoall(send, 1, MPI_INT, got, 1, MPI_INT, w->comm, w->topo, &req) == MPI_SUCCESS,
           "ialltoall");
    psend = value(rank, -2, w->id, r);
    EXPECT(NHOOD_Start(&preq) == MPI_SUCCESS, "start");
    for (int done = 0; !done;) EXPECT(NHOOD_Test(&preq, &done) == MPI_SUCCESS, "test");
    EXPECT(NHOOD_Wait(&req) == MPI_SUCCESS, "wait");
    for (int i = 0; i < w->degree; i++) {
      EXPECT(got[i] == value(w->neighbors[i], rank, w->id, r), "alltoall round %d block %d", r, i);
      EXPECT(pgot[i] == value(w->neighbors[i], -2, w->id, r), "persistent round %d block %d", r, i);
    }
  }
  EXPECT(NHOOD_Request_free(&preq) == MPI_SUCCESS, "request_free");
  return NULL;
}

/* Topology objects created, queried, reversed and freed while the collectives run. */
static atomic_int churn_stop;
static long churn_cycles;
static void *churn(void *arg) {
  worker *w = arg;
  unsigned seed = 12345u + (unsigned)rank;
  while (!atomic_load(&churn_stop)) {
    int n = (int)(rand_r(&seed) % MAXDEG), list[MAXDEG], in = 0, out = 0, weighted = 0;
    for (int k = 0; k < n; k++) list[k] = (int)(rand_r(&seed) % (unsigned)size);
    NHOOD_Topo t = NHOOD_TOPO_NULL, r = NHOOD_TOPO_NULL;
    EXPECT(NHOOD_Topo_create_adjacent(n, list, test_unweighted(), n, list, test_unweighted(), MPI_INFO_NULL, &t) ==
               MPI_SUCCESS,
           "create");
    EXPECT(NHOOD_Topo_reverse(t, &r) == MPI_SUCCESS, "reverse");
    EXPECT(NHOOD_Topo_degrees(r, 0, &in, &out, &weighted) == MPI_SUCCESS && in == n && out == n, "degrees");
    EXPECT(NHOOD_Topo_free(&r) == MPI_SUCCESS && NHOOD_Topo_free(&t) == MPI_SUCCESS, "free");
    if (++churn_cycles % 16 == 0) sleep_ms(1); /* leave the cores to the collectives */
  }
  return NULL;
}

/* ---- handoff: requests completed by another thread ------------------------------------- */

typedef struct {
  pthread_mutex_t lock;
  pthread_cond_t changed;
  NHOOD_Request queue[INFLIGHT]; /* FIFO of requests made by the producer, one per round */
  int head, count, done;
  worker *w;
  int send[INFLIGHT][MAXDEG], got[INFLIGHT][MAXDEG];
  int psend, pgot[MAXDEG];
  NHOOD_Request preq;
  int pstarted; /* the round whose persistent start the producer handed over, -1 none */
} handoff;

static void *producer(void *arg) {
  handoff *h = arg;
  worker *w = h->w;
  for (int r = 0; r < HANDOFFS; r++) {
    pthread_mutex_lock(&h->lock);
    while (h->count == INFLIGHT || (r % 10 == 0 && h->pstarted >= 0)) pthread_cond_wait(&h->changed, &h->lock);
    pthread_mutex_unlock(&h->lock);
    int slot = r % INFLIGHT;
    for (int j = 0; j < w->degree; j++) h->send[slot][j] = value(rank, w->neighbors[j], w->id, r);
    NHOOD_Request req = NHOOD_REQUEST_NULL;
    EXPECT(NHOOD_Ineighbor_alltoall(h->send[slot], 1, MPI_INT, h->got[slot], 1, MPI_INT, w->comm, w->topo, &req) ==
               MPI_SUCCESS,
           "ialltoall");
    if (r % 10 == 0) { /* every tenth round also a start of the persistent request */
      h->psend = value(rank, -2, w->id, r);
      EXPECT(NHOOD_Start(&h->preq) == MPI_SUCCESS, "start");
    }
    pthread_mutex_lock(&h->lock);
    h->queue[(h->head + h->count) % INFLIGHT] = req;
    h->count++;
    if (r % 10 == 0) h->pstarted = r;
    pthread_cond_broadcast(&h->changed);
    pthread_mutex_unlock(&h->lock);
  }
  return NULL;
}

static void *consumer(void *arg) {
  handoff *h = arg;
  worker *w = h->w;
  for (int r = 0; r < HANDOFFS; r++) {
    pthread_mutex_lock(&h->lock);
    while (h->count == 0) pthread_cond_wait(&h->changed, &h->lock);
    NHOOD_Request req = h->queue[h->head];
    int pstarted = h->pstarted;
    pthread_mutex_unlock(&h->lock);
    int slot = r % INFLIGHT;
    if (r % 2) { /* odd rounds tested to completion, even ones waited */
      for (int done = 0; !done;) EXPECT(NHOOD_Test(&req, &done) == MPI_SUCCESS, "test");
    } else {
      EXPECT(NHOOD_Wait(&req) == MPI_SUCCESS, "wait");
    }
    EXPECT(req == NHOOD_REQUEST_NULL, "a completed non-blocking request is not NHOOD_REQUEST_NULL");
    for (int i = 0; i < w->degree; i++)
      EXPECT(h->got[slot][i] == value(w->neighbors[i], rank, w->id, r), "handoff alltoall round %d block %d", r, i);
    if (pstarted == r) {
      EXPECT(NHOOD_Wait(&h->preq) == MPI_SUCCESS, "persistent wait");
      for (int i = 0; i < w->degree; i++)
        EXPECT(h->pgot[i] == value(w->neighbors[i], -2, w->id, r), "handoff persistent round %d block %d", r, i);
    }
    pthread_mutex_lock(&h->lock);
    h->head = (h->head + 1) % INFLIGHT;
    h->count--;
    if (pstarted == r) h->pstarted = -1;
    pthread_cond_broadcast(&h->changed);
    pthread_mutex_unlock(&h->lock);
  }
  return NULL;
}

/* ---- memo: a thread's last call after another thread rebuilt the cached schedule -------- */

/* The first thread repeats one blocking allgather (same buffers, so its memo of the call
 * holds: api/call_cache.h), parks while a second thread makes another call on the same
 * topology object (which rebuilds the object's cached schedule), then repeats it again. */
typedef struct {
  worker *w;
  atomic_int step; /* 1: the first thread is parked; 2: go on */
} memo_case;

static void *memo_first(void *arg) {
  memo_case *m = arg;
  worker *w = m->w;
  int mine, got[MAXDEG];
  for (int r = 0; r < 3; r++) {
    if (r == 2) {
      atomic_store(&m->step, 1);
      while (atomic_load(&m->step) != 2) sleep_ms(1);
    }
    mine = value(rank, -1, w->id, 500 + r);
    for (int i = 0; i < w->degree; i++) got[i] = -1;
    EXPECT(NHOOD_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, w->comm, w->topo) == MPI_SUCCESS, "allgather");
    for (int i = 0; i < w->degree; i++)
      EXPECT(got[i] == value(w->neighbors[i], -1, w->id, 500 + r), "repeated allgather %d block %d", r, i);
  }
  return NULL;
}

static void *memo_second(void *arg) {
  worker *w = ((memo_case *)arg)->w;
  int send[MAXDEG], got[MAXDEG];
  for (int j = 0; j < w->degree; j++) send[j] = value(rank, w->neighbors[j], w->id, 600);
  EXPECT(NHOOD_Neighbor_alltoall(send, 1, MPI_INT, got, 1, MPI_INT, w->comm, w->topo) == MPI_SUCCESS, "alltoall");
  for (int i = 0; i < w->degree; i++)
    EXPECT(got[i] == value(w->neighbors[i], rank, w->id, 600), "alltoall in between, block %d", i);
  return NULL;
}

static void run_memo_case(worker *w) {
  memo_case m = {.w = w};
  pthread_t first, second;
  pthread_create(&first, NULL, memo_first, &m);
  while (atomic_load(&m.step) != 1) sleep_ms(1);
  pthread_create(&second, NULL, memo_second, &m);
  pthread_join(second, NULL);
  atomic_store(&m.step, 2);
  pthread_join(first, NULL);
}

static int run_multiple(void) {
  worker w[THREADS + 1];
  pthread_t threads[THREADS + 1];
  for (int t = 0; t < THREADS; t++) make_worker(&w[t], t);
  w[THREADS] = (worker){.id = THREADS};
  /* concurrent */
  watchdog_arm("concurrent collectives on 4 threads, topology churn on a fifth");
  for (int t = 0; t < THREADS; t++) pthread_create(&threads[t], NULL, concurrent, &w[t]);
  pthread_create(&threads[THREADS], NULL, churn, &w[THREADS]);
  for (int t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
  atomic_store(&churn_stop, 1);
  pthread_join(threads[THREADS], NULL);
  /* handoff: pairs (0, 1) on worker 0's communicator, (2, 3) on worker 2's */
  watchdog_arm("requests completed by another thread");
  handoff h[THREADS / 2];
  for (int p = 0; p < THREADS / 2; p++) {
    h[p] = (handoff){.w = &w[2 * p], .pstarted = -1};
    pthread_mutex_init(&h[p].lock, NULL);
    pthread_cond_init(&h[p].changed, NULL);
    TEST_CHECK(NHOOD_Neighbor_allgather_init(&h[p].psend, 1, MPI_INT, h[p].pgot, 1, MPI_INT, w[2 * p].comm,
                                             w[2 * p].topo, MPI_INFO_NULL, &h[p].preq));
    pthread_create(&threads[2 * p], NULL, producer, &h[p]);
    pthread_create(&threads[2 * p + 1], NULL, consumer, &h[p]);
  }
  for (int t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
  /* memo: on worker 1's topology object, whose algorithm ("direct") runs the cached schedule */
  watchdog_arm("a repeated call after another thread's call on the same topology object");
  run_memo_case(&w[1]);
  int failures = 0;
  for (int p = 0; p < THREADS / 2; p++) {
    TEST_CHECK(NHOOD_Request_free(&h[p].preq));
    pthread_mutex_destroy(&h[p].lock);
    pthread_cond_destroy(&h[p].changed);
  }
  for (int t = 0; t <= THREADS; t++) failures += w[t].failures;
  for (int t = 0; t < THREADS; t++) free_worker(&w[t]);
  watchdog_disarm();
  if (rank == 0)
    printf(
        "test_threads_api np=%d: %d threads x %d rounds (3 collectives each), %ld topology cycles alongside, "
        "%d pairs x %d handed-off requests\n",
        size, THREADS, ROUNDS, churn_cycles, THREADS / 2, HANDOFFS);
  return failures;
}

/* ---- below MPI_THREAD_MULTIPLE ------------------------------------------------------- */

typedef struct {
  int level, rc;
  char message[512];
} intruder;

static void *intrude(void *arg) {
  intruder *in = arg;
  if (in->level == MPI_THREAD_SERIALIZED) sleep_ms(300); /* the first thread is inside by then */
  NHOOD_Topo empty;
  int x = 1;
  TEST_CHECK(NHOOD_Topo_create_adjacent(0, NULL, test_unweighted(), 0, NULL, test_unweighted(), MPI_INFO_NULL, &empty));
  in->rc = NHOOD_Neighbor_allgather(&x, 1, MPI_INT, NULL, 0, MPI_INT, MPI_COMM_SELF, empty);
  snprintf(in->message, sizeof in->message, "%s", last_message());
  TEST_CHECK(NHOOD_Topo_free(&empty));
  return NULL;
}

static int run_below(int level, const char *level_name) {
  int failures = 0;
  watchdog_arm(level_name);
  worker wk, *w = &wk;
  make_worker(w, 1); /* "direct" */
  /* Rank 0's first thread enters a blocking allgather at once; the others join 1 s later, so
   * rank 0 is inside it for about a second. */
  pthread_t second;
  intruder in = {.level = level, .rc = -1};
  if (rank == 0) pthread_create(&second, NULL, intrude, &in);
  if (rank != 0) sleep_ms(1000);
  int mine = value(rank, -1, 0, 0), got[MAXDEG];
  EXPECT(NHOOD_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, w->comm, w->topo) == MPI_SUCCESS, "allgather");
  for (int i = 0; i < w->degree; i++) EXPECT(got[i] == value(w->neighbors[i], -1, 0, 0), "allgather block %d", i);
  if (rank == 0) {
    pthread_join(second, NULL);
    if (in.rc != MPI_ERR_OTHER || strstr(in.message, level_name) == NULL) {
      fprintf(stderr, "rank 0: the second thread's call returned %d (expected MPI_ERR_OTHER, %d) with \"%s\"\n", in.rc,
              MPI_ERR_OTHER, in.message);
      failures++;
    } else {
      printf("test_threads_api --level: the second thread got: %s\n", in.message);
    }
  }
  /* The first thread goes on working after the refusal. */
  EXPECT(NHOOD_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, w->comm, w->topo) == MPI_SUCCESS,
         "allgather after");
  free_worker(w);
  return failures + w->failures;
}

int main(int argc, char **argv) {
  int required = MPI_THREAD_MULTIPLE, provided = MPI_THREAD_SINGLE;
  const char *level_name = "MPI_THREAD_MULTIPLE";
  if (argc == 3 && strcmp(argv[1], "--level") == 0) {
    if (strcmp(argv[2], "serialized") == 0)
      required = MPI_THREAD_SERIALIZED, level_name = "MPI_THREAD_SERIALIZED";
    else if (strcmp(argv[2], "funneled") == 0)
      required = MPI_THREAD_FUNNELED, level_name = "MPI_THREAD_FUNNELED";
    else if (strcmp(argv[2], "single") == 0)
      required = MPI_THREAD_SINGLE, level_name = "MPI_THREAD_SINGLE";
    else {
      fprintf(stderr, "usage: test_threads_api [--level serialized|funneled|single]\n");
      return 2;
    }
  } else if (argc != 1) {
    fprintf(stderr, "usage: test_threads_api [--level serialized|funneled|single]\n");
    return 2;
  }
  /* Before MPI_Init: an error, not a crash in MPI. */
  NHOOD_Topo empty;
  int x = 0, early_failures = 0;
  if (NHOOD_Topo_create_adjacent(0, NULL, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL, &empty) !=
          MPI_SUCCESS ||
      NHOOD_Neighbor_allgather(&x, 1, MPI_INT, NULL, 0, MPI_INT, MPI_COMM_SELF, empty) != MPI_ERR_OTHER ||
      strstr(last_message(), "not initialized") == NULL || NHOOD_Topo_free(&empty) != MPI_SUCCESS) {
    fprintf(stderr, "a call before MPI_Init: \"%s\" (expected MPI_ERR_OTHER, \"not initialized\")\n", last_message());
    early_failures = 1;
  }
  MPI_Init_thread(&argc, &argv, required, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (provided != required) {
    if (rank == 0) printf("test_threads_api: skipped, the MPI library provides %d for %s\n", provided, level_name);
    MPI_Finalize();
    return 77;
  }
  int failures = early_failures + (required == MPI_THREAD_MULTIPLE ? run_multiple() : run_below(required, level_name));
  return test_finish("test_threads_api", failures);
}
