#include "common/cost_model.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Approximations, not measurements of one machine; docs/SIM.md says where they come from.
 * Gcopy is G / 4 (a local copy moves bytes about four times faster than the network). */
static const struct {
  const char *name;
  nhood_cost_params params;
} presets[] = {
    /* InfiniBand EDR (100 Gb/s): ~1.2 us MPI latency, ~12 GB/s; above 8 KiB a message waits
     * for a handshake, about a round trip (UCX and MVAPICH switch protocols at 8-16 KiB on
     * such networks), split between its ends. */
    {"ib-edr",
     {.L = 1.2,
      .o = 0.3,
      .g = 0.2,
      .G = 1.0 / 12000.0,
      .Gcopy = 1.0 / 48000.0,
      .mpi_factor = 1.0,
      .eager = 8192,
      .rdv = 1.2,
      .margin = NHOOD_COST_MARGIN,
      /* On-node messages as the shm preset below. The network interface: 100 Gb/s is
       * 12.5 GB/s for the node, and a ConnectX-4/5 EDR adapter is quoted at 150-200 million
       * messages per second for the whole node (the lower figure taken). */
      .node_L = 0.3,
      .node_o = 0.1,
      .node_g = 0.05,
      .node_G = 1.0 / 10000.0,
      .nic_o = 1.0 / 150.0,
      .nic_G = 1.0 / 12500.0,
      .setup = NHOOD_COST_SETUP}},
    /* Shared memory within a node: ~0.3 us latency, ~10 GB/s single-copy; Open MPI's vader
     * sends up to 4 KiB eagerly. */
    {"shm",
     {.L = 0.3,
      .o = 0.1,
      .g = 0.05,
      .G = 1.0 / 10000.0,
      .Gcopy = 1.0 / 40000.0,
      .mpi_factor = 1.0,
      .eager = 4096,
      .rdv = 0.3,
      .margin = NHOOD_COST_MARGIN,
      .node_L = 0.3,
      .node_o = 0.1,
      .node_g = 0.05,
      .node_G = 1.0 / 10000.0,
      .setup = NHOOD_COST_SETUP}},
};
#define NPRESETS (sizeof presets / sizeof presets[0])

int nhood_cost_preset(const char *name, nhood_cost_params *out) {
  for (size_t k = 0; k < NPRESETS; k++)
    if (strcmp(presets[k].name, name) == 0) {
      *out = presets[k].params;
      return 0;
    }
  return 1;
}

const char *nhood_cost_preset_names(void) { return "ib-edr, shm"; }

void nhood_cost_params_default(nhood_cost_params *out) { *out = presets[0].params; }

/* f processes per CPU time-share the cores: a message waits until its receiver runs, so
 * every term grows with f. The rules are fits to nhood-calibrate on a 2-core machine at 4, 8,
 * 16 and 32 processes (L grows about quadratically in f at first, then linearly; o, G, rdv and rdv_round about
 * in proportion to f). */
void nhood_cost_params_node(double f, nhood_cost_params *out) {
  nhood_cost_preset("shm", out);
  if (!(f > 1)) return;
  out->L = fmin(2.6 * f, 0.3 * f * f);
  out->o = fmax(out->o, 0.2 * f);
  out->G = 1.9e-4 * f;
  out->Gcopy = 5e-5 * f;
  out->eager = 3072;
  out->rdv = 1.1 * f;
  out->rdv_round = 2 * f;
  out->node_L = out->L;
  out->node_o = out->o;
  out->node_g = out->g;
  out->node_G = out->G;
}

/* ---- the file format ------------------------------------------------------------------ */

static const struct {
  const char *key;
  size_t offset;
} keys[] = {
    {"L", offsetof(nhood_cost_params, L)},
    {"o", offsetof(nhood_cost_params, o)},
    {"g", offsetof(nhood_cost_params, g)},
    {"G", offsetof(nhood_cost_params, G)},
    {"Gcopy", offsetof(nhood_cost_params, Gcopy)},
    {"mpi_factor", offsetof(nhood_cost_params, mpi_factor)},
    {"eager", offsetof(nhood_cost_params, eager)},
    {"rdv", offsetof(nhood_cost_params, rdv)},
    {"rdv_round", offsetof(nhood_cost_params, rdv_round)},
    {"margin", offsetof(nhood_cost_params, margin)},
    {"node_L", offsetof(nhood_cost_params, node_L)},
    {"node_o", offsetof(nhood_cost_params, node_o)},
    {"node_g", offsetof(nhood_cost_params, node_g)},
    {"node_G", offsetof(nhood_cost_params, node_G)},
    {"nic_o", offsetof(nhood_cost_params, nic_o)},
    {"nic_G", offsetof(nhood_cost_params, nic_G)},
    {"setup", offsetof(nhood_cost_params, setup)},
};
#define NKEYS (sizeof keys / sizeof keys[0])

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r')) s[--n] = '\0';
  return s;
}

/* One line (comment already cut off); 0, or 1 with a message. */
static int read_line(char *line, nhood_cost_params *out, char *err, size_t errlen) {
  char *text = trim(line);
  if (*text == '\0') return 0;
  char *eq = strchr(text, '=');
  if (eq == NULL) {
    snprintf(err, errlen, "expected \"key = value\", found \"%.60s\"", text);
    return 1;
  }
  *eq = '\0';
  char *key = trim(text), *value = trim(eq + 1);
  if (strcmp(key, "preset") == 0) {
    if (nhood_cost_preset(value, out) == 0) return 0;
    snprintf(err, errlen, "unknown preset \"%.40s\" (known: %s)", value, nhood_cost_preset_names());
    return 1;
  }
  for (size_t k = 0; k < NKEYS; k++) {
    if (strcmp(keys[k].key, key) != 0) continue;
    char *end;
    errno = 0;
    double v = strtod(value, &end);
    if (*value == '\0' || *end != '\0' || errno != 0 || !isfinite(v) || v < 0) {
      snprintf(err, errlen, "%s = \"%.40s\" is not a non-negative number", key, value);
      return 1;
    }
    *(double *)((char *)out + keys[k].offset) = v;
    return 0;
  }
  snprintf(err, errlen,
           "unknown key \"%.40s\" (known: preset, L, o, g, G, Gcopy, mpi_factor, eager, rdv, rdv_round, margin, "
           "node_L, node_o, node_g, node_G, nic_o, nic_G, setup)",
           key);
  return 1;
}

int nhood_cost_params_read(const char *path, nhood_cost_params *out, char *err, size_t errlen) {
  FILE *in = fopen(path, "r");
  if (in == NULL) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return 1;
  }
  char line[512], why[256];
  int lineno = 0, failed = 0;
  while (!failed && fgets(line, sizeof line, in) != NULL) {
    lineno++;
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    if (read_line(line, out, why, sizeof why) != 0) {
      snprintf(err, errlen, "%s, line %d: %s", path, lineno, why);
      failed = 1;
    }
  }
  if (!failed && ferror(in)) {
    snprintf(err, errlen, "%s: read error", path);
    failed = 1;
  }
  fclose(in);
  return failed;
}

int nhood_cost_params_write(FILE *out, const nhood_cost_params *p, const char *header) {
  for (const char *line = header; line != NULL && *line != '\0';) {
    size_t n = strcspn(line, "\n");
    fprintf(out, "# %.*s\n", (int)n, line);
    line += n + (line[n] == '\n');
  }
  fprintf(out, "L = %.6g          # us per round\n", p->L);
  fprintf(out, "o = %.6g          # us per message, at each end\n", p->o);
  fprintf(out, "g = %.6g          # us between injections\n", p->g);
  fprintf(out, "G = %.6g          # us per byte of a message\n", p->G);
  fprintf(out, "Gcopy = %.6g      # us per byte of a local copy\n", p->Gcopy);
  fprintf(out, "mpi_factor = %.6g # MPI's own collective / nhood's direct schedule\n", p->mpi_factor);
  fprintf(out, "eager = %.6g      # bytes: larger messages go by rendezvous\n", p->eager);
  fprintf(out, "rdv = %.6g        # us per message above eager, at each end (0: none)\n", p->rdv);
  fprintf(out, "rdv_round = %.6g  # us per round with a message above eager (0: none)\n", p->rdv_round);
  fprintf(out, "margin = %.6g     # predicted gain a schedule with more rounds or copies must beat\n", p->margin);
  fprintf(out, "node_L = %.6g     # a message between processes of one node: us per round\n", p->node_L);
  fprintf(out, "node_o = %.6g     # ... us per message, at each end\n", p->node_o);
  fprintf(out, "node_g = %.6g     # ... us between injections\n", p->node_g);
  fprintf(out, "node_G = %.6g     # ... us per byte\n", p->node_G);
  fprintf(out, "nic_o = %.6g      # a node's network interface: us per message (0: not modelled)\n", p->nic_o);
  fprintf(out, "nic_G = %.6g      # ... us per byte (0: not modelled)\n", p->nic_G);
  fprintf(out, "setup = %.6g      # nhood's set-up on a communicator, in its allreduces\n", p->setup);
  return ferror(out) ? 1 : 0;
}

int nhood_cost_params_valid(const nhood_cost_params *p) {
  for (size_t k = 0; k < NKEYS; k++) {
    double v = *(const double *)((const char *)p + keys[k].offset);
    if (!isfinite(v) || v < 0) return 0;
  }
  return 1;
}

/* ---- the price of a round ------------------------------------------------------------- */

double nhood_cost_round(const nhood_cost_params *p, const nhood_cost_round_load *r) {
  double t = p->Gcopy * r->copied;
  if (r->sends + r->recvs > 0)
    t += p->L + p->o * (r->sends + r->recvs) + p->g * (r->sends > 1 ? r->sends - 1 : 0) +
         p->G * (r->sent > r->received ? r->sent : r->received);
  if (r->node_sends + r->node_recvs > 0)
    t += (r->sends + r->recvs > 0 ? 0 : p->node_L) + p->node_o * (r->node_sends + r->node_recvs) +
         p->node_g * (r->node_sends > 1 ? r->node_sends - 1 : 0) +
         p->node_G * (r->node_sent > r->node_received ? r->node_sent : r->node_received);
  int rendezvous = r->sends_rdv + r->recvs_rdv;
  return t + p->rdv * rendezvous + (rendezvous > 0 ? p->rdv_round : 0);
}
