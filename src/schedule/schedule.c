#include "schedule/schedule.h"

#include <stdlib.h>
#include <string.h>

#include "common/errors.h"

static int grow(void **array, int *capacity, int needed, size_t elem) {
  if (needed <= *capacity) return MPI_SUCCESS;
  int cap = *capacity ? *capacity : 8;
  while (cap < needed) cap *= 2;
  void *bigger = realloc(*array, elem * (size_t)cap);
  if (!bigger) return nhood_error(MPI_ERR_NO_MEM, "out of memory building a schedule of %d entries", needed);
  *array = bigger;
  *capacity = cap;
  return MPI_SUCCESS;
}

int nhood_sched_init(nhood_sched *s, const char *algorithm, int expected_ops, int ntags) {
  memset(s, 0, sizeof *s);
  s->algorithm = algorithm;
  s->ntags = ntags;
  return grow((void **)&s->ops, &s->ops_capacity, expected_ops > 0 ? expected_ops : 1, sizeof(nhood_op));
}

static int append(nhood_sched *s, nhood_op_kind kind, int peer, int tag, nhood_region r) {
  int rc = grow((void **)&s->ops, &s->ops_capacity, s->nops + 1, sizeof(nhood_op));
  if (rc != MPI_SUCCESS) return rc;
  s->ops[s->nops++] = (nhood_op){.offset = r.offset,
                                 .type = r.type,
                                 .count = r.count,
                                 .peer = peer,
                                 .tag = tag,
                                 .kind = (uint8_t)kind,
                                 .buf = (uint8_t)r.buf,
                                 .block = r.block < NHOOD_BLOCK_UNKNOWN ? (uint16_t)r.block : NHOOD_BLOCK_UNKNOWN};
  return MPI_SUCCESS;
}

int nhood_sched_send(nhood_sched *s, int peer, int tag, nhood_region data) {
  return append(s, NHOOD_OP_SEND, peer, tag, data);
}

int nhood_sched_recv(nhood_sched *s, int peer, int tag, nhood_region data) {
  return append(s, NHOOD_OP_RECV, peer, tag, data);
}

int nhood_sched_copy(nhood_sched *s, nhood_region from, nhood_region to) {
  int rc = append(s, NHOOD_OP_COPY, 0, 0, from);
  return rc == MPI_SUCCESS ? append(s, NHOOD_OP_TARGET, 0, 0, to) : rc;
}

int nhood_sched_reduce(nhood_sched *s, nhood_region from, nhood_region to, MPI_Op op) {
  int rc = grow((void **)&s->reduce_ops, &s->reduce_ops_capacity, s->nreduce_ops + 1, sizeof(MPI_Op));
  if (rc != MPI_SUCCESS) return rc;
  s->reduce_ops[s->nreduce_ops] = op;
  rc = append(s, NHOOD_OP_REDUCE, 0, s->nreduce_ops++, from);
  return rc == MPI_SUCCESS ? append(s, NHOOD_OP_TARGET, 0, 0, to) : rc;
}

int nhood_sched_fence(nhood_sched *s) {
  int begin = s->nrounds ? s->round_end[s->nrounds - 1] : 0;
  if (s->nops == begin) return MPI_SUCCESS; /* empty rounds are not kept */
  int capacity = s->rounds_capacity;
  int rc = grow((void **)&s->round_end, &s->rounds_capacity, s->nrounds + 1, sizeof(int));
  if (rc == MPI_SUCCESS) rc = grow((void **)&s->comm_begin, &capacity, s->nrounds + 1, sizeof(int));
  if (rc != MPI_SUCCESS) return rc;
  s->round_end[s->nrounds++] = s->nops;
  return MPI_SUCCESS;
}

/* A round's operations in the order they run: local operations (with their target entries),
 * then receives, then sends. */
static int rank_of(const nhood_op *op) { return op->kind == NHOOD_OP_RECV ? 1 : op->kind == NHOOD_OP_SEND ? 2 : 0; }

/* Stable partition of one round by rank_of. Receives go before sends so that a message, a
 * message to oneself above all, finds its receive posted: MPI keeps an early one as
 * unexpected and copies it twice (on 2 processes a Cartesian schedule's round of 4 messages to
 * itself before their receives took about 0.2 us more per message). Matching is unchanged:
 * the receives keep their order among themselves, and so do the sends. */
static int order_round(nhood_sched *s, int begin, int end, int *comm_begin) {
  int count[3] = {0, 0, 0};
  for (int k = begin; k < end; k++) count[rank_of(&s->ops[k])]++;
  *comm_begin = begin + count[0];
  int sorted_already = 1;
  for (int k = begin + 1; k < end && sorted_already; k++)
    sorted_already = rank_of(&s->ops[k - 1]) <= rank_of(&s->ops[k]);
  if (sorted_already) return MPI_SUCCESS;
  nhood_op *sorted = malloc(sizeof(nhood_op) * (size_t)(end - begin));
  if (!sorted) return nhood_error(MPI_ERR_NO_MEM, "out of memory ordering a schedule round");
  int next[3] = {0, count[0], count[0] + count[1]};
  for (int k = begin; k < end; k++) sorted[next[rank_of(&s->ops[k])]++] = s->ops[k];
  memcpy(&s->ops[begin], sorted, sizeof(nhood_op) * (size_t)(end - begin));
  free(sorted);
  return MPI_SUCCESS;
}

/* The summary of the rounds as they are ordered. */
static void summarize(nhood_sched *s) {
  s->nsends = s->nrecvs = s->comm_rounds = s->max_comm_per_round = 0;
  for (int r = 0; r < s->nrounds; r++) {
    for (int k = s->comm_begin[r]; k < s->round_end[r]; k++) {
      s->nsends += s->ops[k].kind == NHOOD_OP_SEND;
      s->nrecvs += s->ops[k].kind == NHOOD_OP_RECV;
    }
    int comm = s->round_end[r] - s->comm_begin[r];
    s->comm_rounds += comm > 0;
    if (comm > s->max_comm_per_round) s->max_comm_per_round = comm;
  }
}

int nhood_sched_finish(nhood_sched *s) {
  int rc = nhood_sched_fence(s);
  if (rc != MPI_SUCCESS) return rc;
  for (int r = 0, begin = 0; r < s->nrounds; begin = s->round_end[r++])
    if ((rc = order_round(s, begin, s->round_end[r], &s->comm_begin[r])) != MPI_SUCCESS) return rc;
  summarize(s);
  return MPI_SUCCESS;
}

/* One round's messages to `self`, paired as MPI matches them (the i-th receive of a tag with
 * the i-th send of it), as local copies: the entries [begin, end) rewritten in place (a pair
 * of entries becomes a copy's two). A round where one of them has no partner in the round is
 * left as it is. `partner` has room for end - comm. */
static void round_to_copies(nhood_sched *s, int r, int begin, int self, int *partner, nhood_op *out) {
  int comm = s->comm_begin[r], end = s->round_end[r], pairs = 0, unpaired = 0;
  for (int k = comm; k < end; k++) partner[k - comm] = -1;
  for (int k = comm; k < end; k++) {
    const nhood_op *recv = &s->ops[k];
    if (recv->kind != NHOOD_OP_RECV || recv->peer != self) continue;
    int j = comm;
    while (j < end && !(s->ops[j].kind == NHOOD_OP_SEND && s->ops[j].peer == self && s->ops[j].tag == recv->tag &&
                        partner[j - comm] < 0))
      j++;
    if (j == end) {
      unpaired = 1;
      break;
    }
    partner[k - comm] = j, partner[j - comm] = k;
    pairs++;
  }
  for (int j = comm; j < end && !unpaired; j++)
    unpaired = s->ops[j].kind == NHOOD_OP_SEND && s->ops[j].peer == self && partner[j - comm] < 0;
  if (pairs == 0 || unpaired) return;
  int n = 0;
  for (int k = begin; k < comm; k++) out[n++] = s->ops[k];
  for (int k = comm; k < end; k++)
    if (s->ops[k].kind == NHOOD_OP_RECV && partner[k - comm] >= 0) {
      nhood_op from = s->ops[partner[k - comm]], to = s->ops[k];
      from.kind = NHOOD_OP_COPY, to.kind = NHOOD_OP_TARGET;
      from.peer = from.tag = to.peer = to.tag = 0;
      out[n++] = from;
      out[n++] = to;
    }
  for (int k = comm; k < end; k++)
    if (partner[k - comm] < 0) out[n++] = s->ops[k];
  memcpy(&s->ops[begin], out, sizeof(nhood_op) * (size_t)n);
  s->comm_begin[r] = comm + 2 * pairs;
}

int nhood_sched_local_messages(nhood_sched *s, int self) {
  int most = 0;
  for (int r = 0, begin = 0; r < s->nrounds; begin = s->round_end[r++])
    if (s->round_end[r] - begin > most) most = s->round_end[r] - begin;
  int any = 0;
  for (int k = 0; k < s->nops && !any; k++)
    any = (s->ops[k].kind == NHOOD_OP_SEND || s->ops[k].kind == NHOOD_OP_RECV) && s->ops[k].peer == self;
  if (!any) return MPI_SUCCESS;
  int *partner = malloc(sizeof(int) * (size_t)most);
  nhood_op *out = malloc(sizeof(nhood_op) * (size_t)most);
  if (!partner || !out) {
    free(partner);
    free(out);
    return nhood_error(MPI_ERR_NO_MEM, "out of memory ordering a schedule round");
  }
  for (int r = 0, begin = 0; r < s->nrounds; begin = s->round_end[r++])
    round_to_copies(s, r, begin, self, partner, out);
  free(partner);
  free(out);
  summarize(s);
  return MPI_SUCCESS;
}

static int is_predefined(MPI_Datatype type, int *predefined) {
  int nints, naddrs, ntypes, combiner;
  int code = MPI_Type_get_envelope(type, &nints, &naddrs, &ntypes, &combiner);
  if (code != MPI_SUCCESS) return nhood_mpi_error(code, "MPI_Type_get_envelope");
  *predefined = combiner == MPI_COMBINER_NAMED;
  return MPI_SUCCESS;
}

/* Replaces *type by the schedule's duplicate of it, creating that on first sight.
 * originals[k] is the caller's type that owned_types[k] duplicates. Linear in the number of
 * distinct derived types, which is small except for alltoallw with a type per neighbor. */
static int own_type(nhood_sched *s, MPI_Datatype **originals, int *capacity, MPI_Datatype *type) {
  int rc = MPI_SUCCESS, predefined = 1;
  if (*type == MPI_DATATYPE_NULL) return MPI_SUCCESS;
  NHOOD_TRY(is_predefined(*type, &predefined));
  if (predefined) return MPI_SUCCESS;
  for (int k = s->nowned - 1; k >= 0; k--)
    if ((*originals)[k] == *type) {
      *type = s->owned_types[k];
      return MPI_SUCCESS;
    }
  int owned_capacity = *capacity;
  NHOOD_TRY(grow((void **)originals, capacity, s->nowned + 1, sizeof(MPI_Datatype)));
  NHOOD_TRY(grow((void **)&s->owned_types, &owned_capacity, s->nowned + 1, sizeof(MPI_Datatype)));
  (*originals)[s->nowned] = *type;
  NHOOD_MPI_CALL(MPI_Type_dup(*type, &s->owned_types[s->nowned]));
  *type = s->owned_types[s->nowned++];
cleanup:
  return rc;
}

int nhood_sched_own_types(nhood_sched *s) {
  int rc = MPI_SUCCESS, capacity = 0;
  MPI_Datatype *originals = NULL;
  for (int k = 0; k < s->nops; k++) NHOOD_TRY(own_type(s, &originals, &capacity, &s->ops[k].type));
cleanup:
  free(originals);
  return rc;
}

void nhood_sched_free(nhood_sched *s) {
  int finalized = 0;
  if (s->nowned) MPI_Finalized(&finalized);
  for (int k = 0; k < s->nowned && !finalized; k++) MPI_Type_free(&s->owned_types[k]);
  free(s->owned_types);
  free(s->ops);
  free(s->round_end);
  free(s->comm_begin);
  free(s->reduce_ops);
  memset(s, 0, sizeof *s);
}
