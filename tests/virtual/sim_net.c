#include "sim_net.h"

#include "cli.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sim_net_init(sim_net *net, int nranks, const nhood_sched *scheds, char *problem, size_t problemlen) {
  memset(net, 0, sizeof *net);
  net->nranks = nranks;
  net->problem = problem;
  net->problemlen = problemlen;
  problem[0] = '\0';
  net->pending = calloc((size_t)(nranks > 0 ? nranks : 1), sizeof *net->pending);
  if (net->pending == NULL) return -1;
  /* pending, borrowed as the mailbox's size hint, is zeroed again below */
  for (int r = 0; scheds != NULL && r < nranks; r++) net->pending[r] = scheds[r].nrecvs;
  if (sim_mailbox_init(&net->mailbox, nranks, net->pending) != 0) return -1;
  memset(net->pending, 0, (size_t)nranks * sizeof *net->pending);
  return 0;
}

void sim_net_free(sim_net *net) {
  sim_mailbox_free(&net->mailbox);
  free(net->parked);
  free(net->pending);
  net->parked = NULL;
  net->pending = NULL;
}

void sim_net_report(sim_net *net, const char *fmt, ...) {
  if (net->problem[0] != '\0') return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(net->problem, net->problemlen, fmt, ap);
  va_end(ap);
}

/* ------------------------------------------------------------------------------------- */
/* The transport                                                                          */
/* ------------------------------------------------------------------------------------- */

static int check_peer(sim_net *net, int rank, int peer, const char *what) {
  if (peer >= 0 && peer < net->nranks) return MPI_SUCCESS;
  sim_net_report(net, "rank %d %s rank %d, outside 0..%d", rank, what, peer, net->nranks - 1);
  return MPI_ERR_RANK;
}

static int deliver(sim_net *net, int source, int dest, int tag, void *buf, int capacity, const unsigned char *data,
                   int bytes) {
  if (bytes > capacity) {
    sim_net_report(net, "rank %d received %d byte%s from rank %d (tag %d) into a receive of %d byte%s", dest, bytes,
                   cli_plural(bytes), source, tag, capacity, cli_plural(capacity));
    return MPI_ERR_TRUNCATE;
  }
  if (bytes > 0) {
    memcpy(buf, data, (size_t)bytes);
    if (net->sabotage) {
      ((unsigned char *)buf)[0] ^= 1;
      net->sabotage = 0;
    }
  }
  net->events++;
  return MPI_SUCCESS;
}

static int park(sim_net *net, const void *data, int bytes) {
  if (net->parked_len + (size_t)bytes > net->parked_capacity) {
    size_t capacity = net->parked_capacity ? net->parked_capacity : 1 << 16;
    while (capacity < net->parked_len + (size_t)bytes) capacity *= 2;
    unsigned char *bigger = realloc(net->parked, capacity);
    if (bigger == NULL) {
      sim_net_report(net, "out of memory buffering %zu bytes of unreceived messages", capacity);
      return MPI_ERR_NO_MEM;
    }
    net->parked = bigger;
    net->parked_capacity = capacity;
  }
  if (bytes > 0) memcpy(net->parked + net->parked_len, data, (size_t)bytes);
  net->parked_len += (size_t)bytes;
  return MPI_SUCCESS;
}

/* Sends complete at once (eager): the data goes into the waiting receive or is parked. */
static int port_send(void *ctx, int slot, const void *buf, int count, MPI_Datatype type, int peer, int tag) {
  sim_port *port = ctx;
  sim_net *net = port->net;
  (void)slot, (void)type;
  if (peer == MPI_PROC_NULL) return MPI_SUCCESS;
  int rc = check_peer(net, port->rank, peer, "sends to");
  if (rc != MPI_SUCCESS) return rc;
  /* Offered at the offset it will have if parked, so the mailbox is asked only once. */
  sim_item message = {net->parked_len, count}, receive;
  int matched;
  if (sim_mailbox_send(&net->mailbox, port->rank, peer, tag, message, &receive, &matched) != 0) {
    sim_net_report(net, "out of memory queueing messages");
    return MPI_ERR_NO_MEM;
  }
  if (!matched) return park(net, buf, count);
  net->pending[peer]--;
  return deliver(net, port->rank, peer, tag, (void *)(uintptr_t)receive.word, receive.count, buf, count);
}

static int port_recv(void *ctx, int slot, void *buf, int count, MPI_Datatype type, int peer, int tag) {
  sim_port *port = ctx;
  sim_net *net = port->net;
  (void)slot, (void)type;
  if (peer == MPI_PROC_NULL) return MPI_SUCCESS;
  int rc = check_peer(net, port->rank, peer, "receives from");
  if (rc != MPI_SUCCESS) return rc;
  sim_item receive = {(uintptr_t)buf, count}, message;
  int matched;
  if (sim_mailbox_recv(&net->mailbox, port->rank, peer, tag, receive, &message, &matched) != 0) {
    sim_net_report(net, "out of memory queueing receives");
    return MPI_ERR_NO_MEM;
  }
  if (!matched) {
    net->pending[port->rank]++;
    return MPI_SUCCESS;
  }
  return deliver(net, peer, port->rank, tag, buf, count, net->parked + message.word, message.count);
}

/* Only receives can be outstanding, and the engine posts one round at a time. */
static int port_test(void *ctx, int nslots, int *done, int *failed) {
  sim_port *port = ctx;
  (void)nslots;
  *failed = -1;
  *done = port->net->pending[port->rank] == 0;
  return MPI_SUCCESS;
}

/* One process cannot block for the others: the driver only tests. */
static int port_wait(void *ctx, int nslots, int *failed) {
  int done;
  port_test(ctx, nslots, &done, failed);
  return done ? MPI_SUCCESS : MPI_ERR_PENDING;
}

static int port_copy(void *ctx, const void *src, int scount, MPI_Datatype stype, void *dst, int dcount,
                     MPI_Datatype dtype) {
  sim_port *port = ctx;
  (void)stype, (void)dtype;
  if (scount > dcount) {
    sim_net_report(port->net, "rank %d copies %d byte%s into a region of %d byte%s", port->rank, scount,
                   cli_plural(scount), dcount, cli_plural(dcount));
    return MPI_ERR_TRUNCATE;
  }
  if (scount > 0) memcpy(dst, src, (size_t)scount);
  return MPI_SUCCESS;
}

/* Neighborhood collectives move data without reducing it; a reduction in their schedules is
 * a bug worth stopping at. */
static int port_reduce(void *ctx, const void *src, void *dst, int count, MPI_Datatype type, MPI_Op op) {
  sim_port *port = ctx;
  (void)src, (void)dst, (void)count, (void)type, (void)op;
  sim_net_report(port->net, "rank %d's schedule reduces, which nhood-sim does not simulate", port->rank);
  return MPI_ERR_OP;
}

const nhood_transport sim_net_transport = {
    .post_send = port_send,
    .post_recv = port_recv,
    .wait = port_wait,
    .test = port_test,
    .copy = port_copy,
    .reduce = port_reduce,
};

/* ------------------------------------------------------------------------------------- */
/* The run                                                                                */
/* ------------------------------------------------------------------------------------- */

static void report_deadlock(sim_net *net, const nhood_exec *execs, const int *stuck, int nstuck) {
  int r = stuck[0], dest, source, tag;
  sim_item oldest;
  if (sim_mailbox_find_waiting(&net->mailbox, SIM_WAITING_RECEIVES, r, &dest, &source, &tag, &oldest) && dest == r)
    sim_net_report(net,
                   "deadlock: %d rank(s) cannot progress; rank %d waits in round %d of %d for a message "
                   "from rank %d (tag %d)",
                   nstuck, r, execs[r].round, execs[r].sched->nrounds, source, tag);
  else
    sim_net_report(net, "deadlock: %d rank(s) cannot progress, rank %d in round %d of %d", nstuck, r, execs[r].round,
                   execs[r].sched->nrounds);
}

int sim_net_run(sim_net *net, nhood_exec *execs, int tag_base) {
  int n = net->nranks, nactive = 0, rc = 1;
  int *active = malloc((size_t)(n > 0 ? n : 1) * sizeof *active);
  if (active == NULL) {
    sim_net_report(net, "out of memory for %d rank%s", n, cli_plural(n));
    goto cleanup;
  }
  for (int r = 0; r < n; r++) {
    if (nhood_exec_start(&execs[r], tag_base) != MPI_SUCCESS) {
      sim_net_report(net, "rank %d: the engine failed starting its schedule", r);
      goto cleanup;
    }
    if (!nhood_exec_done(&execs[r])) active[nactive++] = r;
  }
  while (nactive > 0) {
    long long before = net->events;
    int kept = 0;
    for (int k = 0; k < nactive; k++) {
      int r = active[k], round = execs[r].round, done = 0;
      if (nhood_exec_test(&execs[r], &done) != MPI_SUCCESS) {
        sim_net_report(net, "rank %d: the engine failed in round %d", r, execs[r].round);
        goto cleanup;
      }
      net->events += execs[r].round != round;
      if (!done) active[kept++] = r;
    }
    nactive = kept;
    if (nactive > 0 && net->events == before) {
      report_deadlock(net, execs, active, nactive);
      goto cleanup;
    }
  }
  rc = 0;
cleanup:
  free(active);
  return rc;
}

int sim_net_report_leftover(sim_net *net) {
  int dest, source, tag;
  sim_item left;
  if (net->mailbox.waiting_messages > 0 &&
      sim_mailbox_find_waiting(&net->mailbox, SIM_WAITING_MESSAGES, 0, &dest, &source, &tag, &left)) {
    sim_net_report(net,
                   "%lld message(s) never received, the first from rank %d to rank %d (tag %d, %d "
                   "byte%s)",
                   net->mailbox.waiting_messages, source, dest, tag, left.count, cli_plural(left.count));
    return 1;
  }
  return 0;
}
