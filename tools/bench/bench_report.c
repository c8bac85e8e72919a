/* nhood-bench's results: the table on stdout, the JSON lines of --json, and the latency
 * statistics of a row. */
#include "bench.h"

#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* The table's columns, for the header and every row. Every column is as wide as what it
 * prints (vs_mpi's %.3g takes up to 8 characters, as in 1.23e-05; algo the longest name), so
 * that the rows line up with the header. */
#define TABLE_LINE "%-11s %-11s %9s %-*s %10s %10s %10s %8s %5s %6s %-5s %s\n"

static void json_field(FILE *out, const char *key, const char *value) {
  fprintf(out, ",\"%s\":", key);
  cli_json_string(out, value);
}

/* A count, or null when it does not apply (negative). */
static void json_count(FILE *out, const char *key, int value) {
  if (value >= 0)
    fprintf(out, ",\"%s\":%d", key, value);
  else
    fprintf(out, ",\"%s\":null", key);
}

void print_table_header(const bench *b) {
  printf(TABLE_LINE, "coll", "mode", "bytes", b->algo_width, "algo", "median_us", "min_us", "max_us", "vs_mpi", "msgs",
         "rounds", "valid", "note");
}

void emit_row(const bench *b, const result_row *row) {
  if (b->rank != 0) return;
  char bytes[16], ratio[32] = "-", msgs[16] = "-", rounds[16] = "-", note[ERROR_LEN + 64] = "";
  snprintf(bytes, sizeof bytes, "%d", row->bytes);
  if (row->timed && row->mpi_median > 0) snprintf(ratio, sizeof ratio, "%.3g", row->median / row->mpi_median);
  if (row->msgs >= 0) snprintf(msgs, sizeof msgs, "%d", row->msgs);
  if (row->rounds >= 0) snprintf(rounds, sizeof rounds, "%d", row->rounds);
  if (row->error != NULL)
    snprintf(note, sizeof note, "error: %s", row->error);
  else if (row->us_per_nbr >= 0)
    snprintf(note, sizeof note, "%.3f us/neighbor", row->us_per_nbr);
  else if (row->mpi_persistent != NULL && strcmp(row->mpi_persistent, "native") != 0)
    snprintf(note, sizeof note, "persistent: %s", row->mpi_persistent);
  else if (row->overlap_pct >= 0)
    snprintf(note, sizeof note, "overlap %.0f%% (call %.2f us, compute %.2f us, progress %s)%s%s", row->overlap_pct,
             row->pure_us, row->compute_us, row->progress ? row->progress : "off",
             row->algo_resolved && strcmp(row->algo_resolved, row->algo) != 0 ? "; ran " : "",
             row->algo_resolved && strcmp(row->algo_resolved, row->algo) != 0 ? row->algo_resolved : "");
  else if (row->algo_resolved != NULL && strcmp(row->algo_resolved, row->algo) != 0)
    snprintf(note, sizeof note, "ran %s", row->algo_resolved);
  char median[32] = "-", min[32] = "-", max[32] = "-";
  if (row->timed) {
    snprintf(median, sizeof median, "%.2f", row->median);
    snprintf(min, sizeof min, "%.2f", row->min);
    snprintf(max, sizeof max, "%.2f", row->max);
  }
  char mode[32];
  if (row->calls > 0)
    snprintf(mode, sizeof mode, "%s/%d", row->mode, row->calls);
  else
    snprintf(mode, sizeof mode, "%s", row->mode);
  printf(TABLE_LINE, row->coll, mode, bytes, b->algo_width, row->algo, median, min, max, ratio, msgs, rounds,
         row->validated ? "yes" : "NO", note);
  fflush(stdout);

  FILE *out = b->json;
  if (out == NULL) return;
  fprintf(out, "{\"topo\":");
  cli_json_string(out, row->topo);
  json_field(out, "coll", row->coll);
  json_field(out, "mode", row->mode);
  fprintf(out, ",\"bytes\":%d", row->bytes);
  json_field(out, "algo", row->algo);
  if (row->algo_resolved != NULL) json_field(out, "algo_resolved", row->algo_resolved);
  if (row->selection != NULL) json_field(out, "selection", row->selection);
  fprintf(out, ",\"ranks\":%d,\"iters\":%d,\"warmup\":%d", b->size, row->iters, row->warmup);
  if (row->calls > 0) fprintf(out, ",\"calls_per_comm\":%d", row->calls);
  if (row->timed)
    fprintf(out, ",\"lat_us_median\":%.3f,\"lat_us_min\":%.3f,\"lat_us_max\":%.3f,\"lat_us_rank_median\":%.3f",
            row->median, row->min, row->max, row->rank_median);
  else
    fprintf(out, ",\"lat_us_median\":null,\"lat_us_min\":null,\"lat_us_max\":null,\"lat_us_rank_median\":null");
  if (row->timed && row->mpi_median > 0) fprintf(out, ",\"ratio_to_mpi\":%.6g", row->median / row->mpi_median);
  json_count(out, "msgs_sent_max", row->msgs);
  json_count(out, "rounds_max", row->rounds);
  fprintf(out, ",\"validated\":%s", row->validated ? "true" : "false");
  if (row->us_per_nbr >= 0) fprintf(out, ",\"us_per_nbr\":%.4f", row->us_per_nbr);
  if (row->mpi_persistent != NULL) json_field(out, "mpi_persistent", row->mpi_persistent);
  if (row->overlap_pct >= 0)
    fprintf(out, ",\"overlap_pct\":%.2f,\"pure_us\":%.3f,\"compute_us\":%.3f", row->overlap_pct, row->pure_us,
            row->compute_us);
  if (row->progress != NULL) json_field(out, "progress", row->progress);
  if (row->error != NULL) json_field(out, "error", row->error);
  json_field(out, "mpi_library", b->mpi_library);
  fprintf(out, "}\n");
  fflush(out);
}

/* A call's latency is its slowest rank's time (every call starts after a barrier): the median,
 * min and max over calls of that, in microseconds (n is the same on every rank, and sample i
 * is the same call everywhere). Also the older statistic, each rank's median, maximum over
 * ranks: it let one rank's unlucky calls set the figure, and moved twice as much between
 * algorithms that ran the very same schedule. Meaningful on
 * rank 0, which emits the row. Sorts the samples. */
void reduce_latency(double *samples, int n, result_row *row) {
  double *slowest = xmalloc((size_t)n * sizeof *slowest);
  MPI_Reduce(samples, slowest, n, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  double local = cli_median(samples, n), global;
  MPI_Reduce(&local, &global, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  row->timed = 1;
  row->median = cli_median(slowest, n) * 1e6;
  row->min = slowest[0] * 1e6;
  row->max = slowest[n - 1] * 1e6;
  row->rank_median = global * 1e6;
  free(slowest);
}
