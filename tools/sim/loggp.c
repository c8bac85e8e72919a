#include "loggp.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/cost_model.h"
#include "sim_mailbox.h"

/* ------------------------------------------------------------------------------------- */
/* Parameters                                                                             */
/* ------------------------------------------------------------------------------------- */

enum { KEY_L, KEY_O, KEY_SMALL_G, KEY_G, KEY_GCOPY, KEY_PRESET, NKEYS };
static const char *const key_names[NKEYS] = {"L", "o", "g", "G", "Gcopy", "preset"};

static int parse_value(const char *key, const char *value, double *out, char *err, size_t errlen) {
  char *end;
  errno = 0;
  double v = strtod(value, &end);
  if (value[0] == '\0' || *end != '\0' || errno != 0 || !isfinite(v) || v < 0) {
    snprintf(err, errlen, "--model: %s=%s is not a non-negative number", key, value);
    return 1;
  }
  *out = v;
  return 0;
}

/* The library's presets (common/cost_model.h), so that nhood-sim predicts with the numbers the
 * cost model of "auto" uses. */
static int apply_preset(const char *name, loggp_params *out, char *err, size_t errlen) {
  nhood_cost_params p;
  if (nhood_cost_preset(name, &p) != 0) {
    snprintf(err, errlen, "--model: unknown preset '%s' (known: %s)", name, nhood_cost_preset_names());
    return 1;
  }
  *out = (loggp_params){.L = p.L, .o = p.o, .g = p.g, .G = p.G, .Gcopy = p.Gcopy, .eager = p.eager, .rdv = p.rdv};
  return 0;
}

/* One "key=value" item; seen marks the keys given so far. */
static int parse_item(char *item, loggp_params *out, int seen[NKEYS], char *err, size_t errlen) {
  char *eq = strchr(item, '=');
  if (eq == NULL) {
    snprintf(err, errlen, "--model: '%s' is not of the form key=value", item);
    return 1;
  }
  *eq = '\0';
  const char *value = eq + 1;
  int key = 0;
  while (key < NKEYS && strcmp(key_names[key], item) != 0) key++;
  if (key == NKEYS) {
    snprintf(err, errlen, "--model: unknown key '%s' (expected preset, L, o, g, G, Gcopy)", item);
    return 1;
  }
  if (seen[key]) {
    snprintf(err, errlen, "--model: '%s' given twice", item);
    return 1;
  }
  int any_value = seen[KEY_L] || seen[KEY_O] || seen[KEY_SMALL_G] || seen[KEY_G] || seen[KEY_GCOPY];
  if (key == KEY_PRESET && any_value) {
    snprintf(err, errlen, "--model: preset must come first, so that the keys after it override it");
    return 1;
  }
  seen[key] = 1;
  double *field[NKEYS] = {&out->L, &out->o, &out->g, &out->G, &out->Gcopy, NULL};
  if (key == KEY_PRESET) return apply_preset(value, out, err, errlen);
  return parse_value(item, value, field[key], err, errlen);
}

int loggp_parse(const char *spec, loggp_params *out, char *err, size_t errlen) {
  static const char prefix[] = "loggp:";
  char items[256];
  int seen[NKEYS] = {0};
  memset(out, 0, sizeof *out);
  if (strncmp(spec, prefix, sizeof prefix - 1) != 0) {
    snprintf(err, errlen,
             "--model: '%s' is not a model (expected loggp:preset=NAME or "
             "loggp:L=..,o=..,g=..,G=..)",
             spec);
    return 1;
  }
  if (strlen(spec + sizeof prefix - 1) >= sizeof items) {
    snprintf(err, errlen, "--model: too long");
    return 1;
  }
  strcpy(items, spec + sizeof prefix - 1);
  for (char *item = strtok(items, ","); item != NULL; item = strtok(NULL, ","))
    if (parse_item(item, out, seen, err, errlen) != 0) return 1;
  if (!seen[KEY_PRESET])
    for (int key = KEY_L; key <= KEY_G; key++)
      if (!seen[key]) {
        snprintf(err, errlen, "--model: '%s' has no %s= (and no preset= to take it from)", spec, key_names[key]);
        return 1;
      }
  if (!seen[KEY_GCOPY]) out->Gcopy = out->G / 4;
  return 0;
}

/* ------------------------------------------------------------------------------------- */
/* Evaluation                                                                             */
/* ------------------------------------------------------------------------------------- */

/* Where one rank stands. */
typedef struct rank_clock {
  int round;        /* current round; the schedule's nrounds once finished */
  int pending;      /* receives of the current round still without their message */
  int waiting;      /* 1 while stopped in a round for messages */
  int nposted;      /* receives posted in the current round */
  double cpu;       /* when the CPU is free next */
  double next_send; /* earliest start of the next injection: g + (m - 1) G after the last */
  double sends_out; /* when the last byte of the current round's sends has left */
  size_t arrivals;  /* where the current round's arrival times start in evaluation.arrival */
} rank_clock;

typedef struct evaluation {
  int nranks;
  const nhood_sched *scheds;
  const loggp_params *p;
  rank_clock *clock;
  double *arrival; /* per rank, room for the receives of its largest round */
  sim_mailbox mailbox;
  int *ready; /* ranks whose waiting round got its last message */
  int nready;
  char *err;
  size_t errlen;
} evaluation;

static uint64_t time_bits(double t) {
  uint64_t bits;
  memcpy(&bits, &t, sizeof bits);
  return bits;
}

static double bits_time(uint64_t bits) {
  double t;
  memcpy(&t, &bits, sizeof t);
  return t;
}

static int compare_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int check_peer(evaluation *ev, int rank, int peer) {
  if (peer >= 0 && peer < ev->nranks) return 0;
  snprintf(ev->err, ev->errlen, "rank %d's schedule names rank %d, outside 0..%d", rank, peer, ev->nranks - 1);
  return 1;
}

static int post_recv(evaluation *ev, int r, const nhood_op *op) {
  rank_clock *c = &ev->clock[r];
  size_t slot = c->arrivals + (size_t)c->nposted++;
  sim_item receive = {slot, op->count}, message;
  int matched;
  if (sim_mailbox_recv(&ev->mailbox, r, op->peer, op->tag, receive, &message, &matched) != 0) {
    snprintf(ev->err, ev->errlen, "out of memory matching messages");
    return 1;
  }
  if (matched)
    ev->arrival[slot] = bits_time(message.word);
  else
    c->pending++;
  return 0;
}

static int post_send(evaluation *ev, int r, const nhood_op *op) {
  const loggp_params *p = ev->p;
  rank_clock *c = &ev->clock[r];
  double stream = (op->count > 0 ? op->count - 1 : 0) * p->G; /* bytes after the first */
  double start = c->cpu > c->next_send ? c->cpu : c->next_send;
  c->cpu = start + p->o;
  c->next_send = start + p->g + stream;
  double out = start + p->o + stream;
  if (out > c->sends_out) c->sends_out = out;
  sim_item message = {time_bits(out + p->L), op->count}, receive;
  int matched;
  if (sim_mailbox_send(&ev->mailbox, r, op->peer, op->tag, message, &receive, &matched) != 0) {
    snprintf(ev->err, ev->errlen, "out of memory matching messages");
    return 1;
  }
  if (matched) {
    rank_clock *dest = &ev->clock[op->peer];
    ev->arrival[receive.word] = out + p->L;
    if (--dest->pending == 0 && dest->waiting) {
      dest->waiting = 0;
      ev->ready[ev->nready++] = op->peer;
    }
  }
  return 0;
}

/* All receives of rank r's round have their message: the CPU takes them in order of
 * arrival, then the round waits for its sends to be out. */
static void end_round(evaluation *ev, int r) {
  rank_clock *c = &ev->clock[r];
  double *arrival = ev->arrival + c->arrivals;
  qsort(arrival, (size_t)c->nposted, sizeof *arrival, compare_double);
  for (int k = 0; k < c->nposted; k++) c->cpu = (c->cpu > arrival[k] ? c->cpu : arrival[k]) + ev->p->o;
  if (c->sends_out > c->cpu) c->cpu = c->sends_out;
  c->round++;
}

/* Runs rank r's rounds until one waits for a message or the schedule is done. 0, or 1 with
 * a message. */
static int run_rounds(evaluation *ev, int r) {
  const nhood_sched *s = &ev->scheds[r];
  rank_clock *c = &ev->clock[r];
  while (c->round < s->nrounds) {
    int begin = c->round ? s->round_end[c->round - 1] : 0;
    int comm = s->comm_begin[c->round], end = s->round_end[c->round];
    for (int k = begin; k < comm; k += 2) /* a local operation: source, then target entry */
      c->cpu += s->ops[k].count * ev->p->Gcopy;
    c->nposted = 0;
    c->sends_out = c->cpu;
    for (int k = comm; k < end; k++) {
      const nhood_op *op = &s->ops[k];
      if (op->peer == MPI_PROC_NULL) continue;
      if (check_peer(ev, r, op->peer) != 0) return 1;
      if ((op->kind == NHOOD_OP_RECV ? post_recv(ev, r, op) : post_send(ev, r, op)) != 0) return 1;
    }
    if (c->pending > 0) {
      c->waiting = 1;
      return 0;
    }
    end_round(ev, r);
  }
  return 0;
}

/* Room for each rank's largest round of receives, and the mailbox sized for its keys. */
static int evaluation_init(evaluation *ev) {
  int n = ev->nranks, rc = 1;
  int *keys = calloc((size_t)(n > 0 ? n : 1), sizeof *keys); /* calloc: else a GCC 12 -Wmaybe-uninitialized */
  ev->clock = calloc((size_t)(n > 0 ? n : 1), sizeof *ev->clock);
  ev->ready = malloc((size_t)(n > 0 ? n : 1) * sizeof *ev->ready);
  if (keys == NULL || ev->clock == NULL || ev->ready == NULL) goto cleanup;
  size_t total = 0;
  for (int r = 0; r < n; r++) {
    const nhood_sched *s = &ev->scheds[r];
    int largest = 0;
    for (int round = 0; round < s->nrounds; round++) {
      int nrecvs = 0;
      for (int k = s->comm_begin[round]; k < s->round_end[round]; k++) nrecvs += s->ops[k].kind == NHOOD_OP_RECV;
      largest = nrecvs > largest ? nrecvs : largest;
    }
    ev->clock[r].arrivals = total;
    total += (size_t)largest;
    keys[r] = s->nrecvs;
  }
  ev->arrival = malloc((total > 0 ? total : 1) * sizeof *ev->arrival);
  if (ev->arrival == NULL || sim_mailbox_init(&ev->mailbox, n, keys) != 0) goto cleanup;
  rc = 0;
cleanup:
  if (rc != 0) snprintf(ev->err, ev->errlen, "out of memory evaluating %d rank%s", n, cli_plural(n));
  free(keys);
  return rc;
}

/* Names what kept the schedules from completing. */
static void report_incomplete(evaluation *ev) {
  int dest, source, tag;
  sim_item item;
  for (int r = 0; r < ev->nranks; r++) {
    const rank_clock *c = &ev->clock[r];
    if (c->round >= ev->scheds[r].nrounds) continue;
    if (sim_mailbox_find_waiting(&ev->mailbox, SIM_WAITING_RECEIVES, r, &dest, &source, &tag, &item) && dest == r)
      snprintf(ev->err, ev->errlen,
               "the schedules deadlock: rank %d waits in round %d for a "
               "message from rank %d (tag %d)",
               r, c->round, source, tag);
    else
      snprintf(ev->err, ev->errlen, "the schedules deadlock: rank %d waits in round %d", r, c->round);
    return;
  }
  if (sim_mailbox_find_waiting(&ev->mailbox, SIM_WAITING_MESSAGES, 0, &dest, &source, &tag, &item))
    snprintf(ev->err, ev->errlen,
             "%lld message(s) are never received, the first from rank %d to "
             "rank %d (tag %d)",
             ev->mailbox.waiting_messages, source, dest, tag);
}

int loggp_predict(int nranks, const nhood_sched *scheds, const loggp_params *p, loggp_prediction *out, char *err,
                  size_t errlen) {
  int rc = 1;
  evaluation ev = {.nranks = nranks, .scheds = scheds, .p = p, .err = err, .errlen = errlen};
  *out = (loggp_prediction){0, -1};
  if (evaluation_init(&ev) != 0) goto cleanup;
  /* Every rank runs as far as it can; then each rank whose last missing message arrived
   * finishes its round and goes on, until no rank is ready. */
  for (int r = 0; r < nranks; r++)
    if (run_rounds(&ev, r) != 0) goto cleanup;
  while (ev.nready > 0) {
    int r = ev.ready[--ev.nready];
    end_round(&ev, r);
    if (run_rounds(&ev, r) != 0) goto cleanup;
  }
  int complete = ev.mailbox.waiting_messages == 0;
  for (int r = 0; r < nranks; r++) complete &= ev.clock[r].round >= scheds[r].nrounds;
  if (!complete) {
    report_incomplete(&ev);
    goto cleanup;
  }
  for (int r = 0; r < nranks; r++)
    if (scheds[r].nrounds > 0 && (out->slowest_rank < 0 || ev.clock[r].cpu > out->time_us)) {
      out->time_us = ev.clock[r].cpu;
      out->slowest_rank = r;
    }
  rc = 0;
cleanup:
  sim_mailbox_free(&ev.mailbox);
  free(ev.clock);
  free(ev.arrival);
  free(ev.ready);
  return rc;
}
