/* GOAL schedules (goal.h): nhood-sim's schedules written for LogGOPSim, and read back. */
#include "goal.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A message in err; 1. */
static int fail(char *err, size_t errlen, const char *format, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  vsnprintf(err, errlen, format, ap);
  va_end(ap);
  return 1;
}

/* ---- writing ------------------------------------------------------------------------------ */

typedef struct {
  FILE *out;
  long long next;     /* the next label's number */
  long long prev_end; /* the label of the previous round's end, -1 before the first */
  double gcopy_ps;    /* per byte */
  double round_ps;    /* per round with messages */
} writer;

static long long bytes_of(const nhood_op *op) { return op->count; } /* MPI_BYTE only (checked) */

/* One round: its round cost and copies as one calc, its messages, its end. */
static void write_round(writer *w, const nhood_sched *s, int q, int tag_offset) {
  int first = q ? s->round_end[q - 1] : 0, comm = s->comm_begin[q], end = s->round_end[q];
  long long copy_bytes = 0, calc = -1, start = w->next;
  for (int k = first; k < comm; k++)
    if (s->ops[k].kind == NHOOD_OP_COPY || s->ops[k].kind == NHOOD_OP_REDUCE) copy_bytes += bytes_of(&s->ops[k]);
  double work = (double)copy_bytes * w->gcopy_ps + (comm < end ? w->round_ps : 0);
  if (work > 0) {
    calc = w->next++;
    fprintf(w->out, "l%lld: calc %lld\n", calc, llround(work));
    if (w->prev_end >= 0) fprintf(w->out, "l%lld requires l%lld\n", calc, w->prev_end);
  }
  for (int k = comm; k < end; k++) {
    const nhood_op *op = &s->ops[k];
    long long l = w->next++, after = op->kind == NHOOD_OP_SEND && calc >= 0 ? calc : w->prev_end;
    if (op->kind == NHOOD_OP_SEND)
      fprintf(w->out, "l%lld: send %lldb to %d tag %d\n", l, bytes_of(op), op->peer, op->tag + tag_offset);
    else
      fprintf(w->out, "l%lld: recv %lldb from %d tag %d\n", l, bytes_of(op), op->peer, op->tag + tag_offset);
    if (after >= 0) fprintf(w->out, "l%lld requires l%lld\n", l, after);
  }
  long long e = w->next++;
  fprintf(w->out, "l%lld: calc 0\n", e);
  for (long long l = start; l < e; l++) fprintf(w->out, "l%lld requires l%lld\n", e, l);
  if (start == e && w->prev_end >= 0) fprintf(w->out, "l%lld requires l%lld\n", e, w->prev_end);
  w->prev_end = e;
}

static int bytes_only(const nhood_sched *s, int r, char *err, size_t errlen) {
  for (int k = 0; s && k < s->nops; k++)
    if (s->ops[k].type != MPI_BYTE) {
      return fail(err, errlen, "rank %d's schedule uses a datatype other than MPI_BYTE", r);
    }
  return 0;
}

int goal_write(FILE *out, int nranks, const nhood_sched *passes, const nhood_sched *scheds, double gcopy_us_per_byte,
               double round_us, char *err, size_t errlen) {
  fprintf(out, "num_ranks %d\n", nranks);
  for (int r = 0; r < nranks; r++) {
    const nhood_sched *pass = passes ? &passes[r] : NULL;
    if (bytes_only(pass, r, err, errlen) || bytes_only(&scheds[r], r, err, errlen)) return 1;
    writer w = {.out = out, .next = 1, .prev_end = -1, .gcopy_ps = gcopy_us_per_byte * 1e6, .round_ps = round_us * 1e6};
    fprintf(out, "\nrank %d {\n", r);
    for (int q = 0; pass && q < pass->nrounds; q++) write_round(&w, pass, q, 0);
    for (int q = 0; q < scheds[r].nrounds; q++) write_round(&w, &scheds[r], q, pass ? pass->ntags : 0);
    fprintf(out, "}\n");
  }
  return ferror(out) ? fail(err, errlen, "writing the GOAL schedule failed") : 0;
}

/* ---- reading back ------------------------------------------------------------------------- */

/* A rank's labels: open addressing on a string hash. */
typedef struct {
  char **slot;
  size_t cap, n;
} label_set;

static uint64_t hash_of(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static char **find_slot(const label_set *set, const char *label) {
  size_t i = hash_of(label) & (set->cap - 1);
  while (set->slot[i] && strcmp(set->slot[i], label) != 0) i = (i + 1) & (set->cap - 1);
  return &set->slot[i];
}

static void labels_clear(label_set *set) {
  for (size_t i = 0; i < set->cap; i++) free(set->slot[i]);
  free(set->slot);
  *set = (label_set){0};
}

/* 0, 1 where it is there already, -1 out of memory. */
static int labels_add(label_set *set, const char *label) {
  if (2 * (set->n + 1) > set->cap) {
    label_set grown = {calloc(set->cap ? 2 * set->cap : 64, sizeof(char *)), set->cap ? 2 * set->cap : 64, set->n};
    if (!grown.slot) return -1;
    for (size_t i = 0; i < set->cap; i++)
      if (set->slot[i]) *find_slot(&grown, set->slot[i]) = set->slot[i];
    free(set->slot);
    *set = grown;
  }
  char **s = find_slot(set, label);
  if (*s) return 1;
  if (!(*s = strdup(label))) return -1;
  set->n++;
  return 0;
}

typedef struct {
  int src, dst, tag;
  long long seq, bytes;
} message;

static int by_channel(const void *a, const void *b) {
  const message *x = a, *y = b;
  if (x->src != y->src) return x->src < y->src ? -1 : 1;
  if (x->dst != y->dst) return x->dst < y->dst ? -1 : 1;
  if (x->tag != y->tag) return x->tag < y->tag ? -1 : 1;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

typedef struct {
  message *m;
  long long n, cap;
} messages;

static int messages_add(messages *v, message m) {
  if (v->n == v->cap) {
    long long cap = v->cap ? 2 * v->cap : 1024;
    message *grown = realloc(v->m, sizeof *grown * (size_t)cap);
    if (!grown) return 1;
    v->m = grown, v->cap = cap;
  }
  v->m[v->n++] = m;
  return 0;
}

/* Pairs sends with receives in order per (source, destination, tag). */
static int match(messages *sends, messages *recvs, char *err, size_t errlen) {
  qsort(sends->m, (size_t)sends->n, sizeof(message), by_channel);
  qsort(recvs->m, (size_t)recvs->n, sizeof(message), by_channel);
  for (long long k = 0; k < sends->n || k < recvs->n; k++) {
    const message *s = k < sends->n ? &sends->m[k] : NULL, *r = k < recvs->n ? &recvs->m[k] : NULL;
    int same = s && r && s->src == r->src && s->dst == r->dst && s->tag == r->tag;
    if (!same) {
      const message *x = !r || (s && by_channel(s, r) < 0) ? s : r;
      return fail(err, errlen, "a %s from %d to %d with tag %d has no matching %s", x == s ? "send" : "receive", x->src,
                  x->dst, x->tag, x == s ? "receive" : "send");
    }
    if (s->bytes != r->bytes) {
      return fail(err, errlen, "a message from %d to %d with tag %d is sent with %lld bytes and received with %lld",
                  s->src, s->dst, s->tag, s->bytes, r->bytes);
    }
  }
  return 0;
}

typedef struct {
  int nranks, rank, ranks_seen;
  long long line, seq;
  label_set labels;
  messages sends, recvs;
  char *seen; /* per rank */
} reader;

/* One line inside a rank's braces. */
static int read_op(reader *rd, const char *line, char *err, size_t errlen) {
  char a[64], b[64];
  long long bytes, work;
  int peer, tag, added, send = 0;
  if (sscanf(line, " %63[A-Za-z0-9_] requires %63[A-Za-z0-9_]", a, b) == 2 ||
      sscanf(line, " %63[A-Za-z0-9_] irequires %63[A-Za-z0-9_]", a, b) == 2) {
    if (!*find_slot(&rd->labels, a) || !*find_slot(&rd->labels, b))
      return fail(err, errlen, "line %lld: a dependency on a label rank %d has not defined", rd->line, rd->rank);
    return 0;
  }
  if ((send = sscanf(line, " %63[A-Za-z0-9_]: send %lldb to %d tag %d", a, &bytes, &peer, &tag) == 4) ||
      sscanf(line, " %63[A-Za-z0-9_]: recv %lldb from %d tag %d", a, &bytes, &peer, &tag) == 4) {
    if (peer < 0 || peer >= rd->nranks || bytes < 0)
      return fail(err, errlen, "line %lld: rank %d or size %lld out of range", rd->line, peer, bytes);
    message m = {
        .src = send ? rd->rank : peer, .dst = send ? peer : rd->rank, .tag = tag, .seq = rd->seq++, .bytes = bytes};
    if (messages_add(send ? &rd->sends : &rd->recvs, m)) return fail(err, errlen, "out of memory reading GOAL");
  } else if (sscanf(line, " %63[A-Za-z0-9_]: calc %lld", a, &work) == 2) {
    if (work < 0) return fail(err, errlen, "line %lld: negative calc", rd->line);
  } else {
    return fail(err, errlen, "line %lld: not understood: %.60s", rd->line, line);
  }
  if ((added = labels_add(&rd->labels, a)) < 0) return fail(err, errlen, "out of memory reading GOAL");
  if (added) return fail(err, errlen, "line %lld: label %s defined twice on rank %d", rd->line, a, rd->rank);
  return 0;
}

static int read_line(reader *rd, const char *line, char *err, size_t errlen) {
  int r;
  if (strspn(line, " \t\r\n") == strlen(line)) return 0;
  if (rd->rank < 0) {
    if (rd->nranks == 0 && sscanf(line, " num_ranks %d", &rd->nranks) == 1) {
      if (rd->nranks < 1 || !(rd->seen = calloc((size_t)rd->nranks, 1)))
        return fail(err, errlen, "num_ranks %d: not a rank count, or out of memory", rd->nranks);
      return 0;
    }
    if (rd->nranks > 0 && sscanf(line, " rank %d {", &r) == 1) {
      if (r < 0 || r >= rd->nranks || rd->seen[r])
        return fail(err, errlen, "line %lld: rank %d out of range or twice", rd->line, r);
      rd->seen[r] = 1, rd->rank = r, rd->ranks_seen++;
      return 0;
    }
    return fail(err, errlen, "line %lld: expected num_ranks, then rank blocks", rd->line);
  }
  if (strchr(line, '}')) {
    labels_clear(&rd->labels);
    rd->rank = -1;
    return 0;
  }
  return read_op(rd, line, err, errlen);
}

int goal_check(FILE *in, long long *messages_out, char *err, size_t errlen) {
  reader rd = {.rank = -1};
  char line[512];
  int rc = 0;
  while (rc == 0 && fgets(line, sizeof line, in)) {
    rd.line++;
    rc = read_line(&rd, line, err, errlen);
  }
  if (rc == 0 && (rd.rank >= 0 || rd.ranks_seen != rd.nranks || rd.nranks == 0))
    rc = fail(err, errlen, "%d of %d ranks, the last one %s", rd.ranks_seen, rd.nranks,
              rd.rank >= 0 ? "left open" : "closed");
  if (rc == 0) rc = match(&rd.sends, &rd.recvs, err, errlen);
  if (rc == 0) *messages_out = rd.sends.n;
  labels_clear(&rd.labels);
  free(rd.sends.m), free(rd.recvs.m), free(rd.seen);
  return rc;
}
