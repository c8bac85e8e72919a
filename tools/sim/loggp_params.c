/* nhood-sim's model as text: the --model line (loggp_parse) and model files, which
 * nhood-calibrate --sim-model writes and nhood-sim --model @FILE reads (loggp.h). */
#include "loggp.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cost_model.h"

/* ------------------------------------------------------------------------------------- */
/* Parameters                                                                             */
/* ------------------------------------------------------------------------------------- */

enum {
  KEY_L,
  KEY_O,
  KEY_SMALL_G,
  KEY_G,
  KEY_GCOPY,
  KEY_NODE_L,
  KEY_NODE_O,
  KEY_NODE_SMALL_G,
  KEY_NODE_G,
  KEY_NIC_O,
  KEY_NIC_G,
  KEY_BIG_O,
  KEY_NODE_BIG_O,
  KEY_OCOPY,
  KEY_ROUND,
  KEY_OSELF,
  KEY_GSELF,
  KEY_STEP,
  KEY_OSTEP,
  KEY_LBYTE,
  KEY_NOISE0,
  KEY_NOISE,
  KEY_SKEW,
  KEY_PRESET,
  NKEYS
};
static const char *const key_names[] = {"L",      "o",     "g",     "G",     "Gcopy",  "node_L", "node_o", "node_g",
                                        "node_G", "nic_o", "nic_G", "O",     "node_O", "ocopy",  "round",  "oself",
                                        "Gself",  "step",  "ostep", "Lbyte", "noise0", "noise",  "skew",   "preset"};
_Static_assert(sizeof key_names / sizeof key_names[0] == NKEYS, "a name per key");

const double loggp_noise_p[LOGGP_NOISE_POINTS] = {0,   0.1, 0.2,  0.3,  0.4,   0.5,    0.6, 0.7,
                                                  0.8, 0.9, 0.95, 0.99, 0.999, 0.9999, 1};

int loggp_has_noise(const loggp_params *p) {
  return p->noise[LOGGP_NOISE_POINTS - 1] > 0 || p->skew[LOGGP_NOISE_POINTS - 1] > 0;
}

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

void loggp_from_cost(const nhood_cost_params *p, loggp_params *out) {
  *out = (loggp_params){.L = p->L,
                        .o = p->o,
                        .g = p->g,
                        .G = p->G,
                        .Gcopy = p->Gcopy,
                        .eager = p->eager,
                        .rdv = p->rdv,
                        .node_L = p->node_L,
                        .node_o = p->node_o,
                        .node_g = p->node_g,
                        .node_G = p->node_G,
                        .nic_o = p->nic_o,
                        .nic_G = p->nic_G};
}

void loggp_to_cost(const loggp_params *m, nhood_cost_params *p) {
  p->L = m->L;
  p->o = m->o;
  p->g = m->g;
  p->G = m->G;
  p->Gcopy = m->Gcopy;
  p->eager = m->eager;
  p->rdv = m->rdv;
  p->node_L = m->node_L;
  p->node_o = m->node_o;
  p->node_g = m->node_g;
  p->node_G = m->node_G;
  p->nic_o = m->nic_o;
  p->nic_G = m->nic_G;
}

/* noise= or skew=Q0/.../Q14: the quantiles at loggp_noise_p, non-decreasing. */
static int parse_quantiles(const char *key, const char *value, double *noise, char *err, size_t errlen) {
  char copy[512];
  int n = 0, extra = 0;
  if (strlen(value) >= sizeof copy) {
    snprintf(err, errlen, "--model: %s= is too long", key);
    return 1;
  }
  strcpy(copy, value);
  char *save = NULL;
  for (char *q = strtok_r(copy, "/", &save); q != NULL; q = strtok_r(NULL, "/", &save)) {
    if (n == LOGGP_NOISE_POINTS) {
      extra = 1;
      break;
    }
    if (parse_value(key, q, &noise[n], err, errlen) != 0) return 1;
    if (n > 0 && noise[n] < noise[n - 1]) {
      snprintf(err, errlen, "--model: %s= quantiles must not decrease (%g after %g)", key, noise[n], noise[n - 1]);
      return 1;
    }
    n++;
  }
  if (n != LOGGP_NOISE_POINTS || extra) {
    snprintf(err, errlen,
             "--model: %s= takes %d quantiles separated by '/' (at probabilities 0, 0.1, ..., 0.9, 0.95, 0.99, 0.999, "
             "0.9999, 1)",
             key, LOGGP_NOISE_POINTS);
    return 1;
  }
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
  loggp_from_cost(&p, out);
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
    snprintf(err, errlen,
             "--model: unknown key '%s' (expected preset, L, o, g, G, Gcopy, node_L, node_o, node_g, node_G, "
             "nic_o, nic_G, O, node_O, ocopy, round, oself, Gself, step, ostep, Lbyte, noise0, noise, skew)",
             item);
    return 1;
  }
  if (seen[key]) {
    snprintf(err, errlen, "--model: '%s' given twice", item);
    return 1;
  }
  int any_value = 0;
  for (int k = 0; k < KEY_PRESET; k++) any_value |= seen[k];
  if (key == KEY_PRESET && any_value) {
    snprintf(err, errlen, "--model: preset must come first, so that the keys after it override it");
    return 1;
  }
  seen[key] = 1;
  double *field[] = {&out->L,      &out->o,      &out->g,      &out->G,     &out->Gcopy, &out->node_L,
                     &out->node_o, &out->node_g, &out->node_G, &out->nic_o, &out->nic_G, &out->O,
                     &out->node_O, &out->ocopy,  &out->round,  &out->oself, &out->Gself, &out->step,
                     &out->ostep,  &out->Lbyte,  &out->noise0, NULL,        NULL,        NULL};
  _Static_assert(sizeof field / sizeof field[0] == NKEYS, "a field per key (NULL: parsed apart)");
  if (key == KEY_PRESET) return apply_preset(value, out, err, errlen);
  if (key == KEY_NOISE || key == KEY_SKEW)
    return parse_quantiles(key_names[key], value, key == KEY_NOISE ? out->noise : out->skew, err, errlen);
  return parse_value(item, value, field[key], err, errlen);
}

int loggp_parse(const char *spec, loggp_params *out, char *err, size_t errlen) {
  static const char prefix[] = "loggp:";
  char items[1024];
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
  /* Without a preset, a message within a node costs what one between nodes does, and the NIC
   * nothing (nic_* stay 0): one level unless node or NIC keys say otherwise. */
  if (!seen[KEY_PRESET]) {
    double *node[] = {&out->node_L, &out->node_o, &out->node_g, &out->node_G};
    const double process[] = {out->L, out->o, out->g, out->G};
    for (int k = 0; k < 4; k++)
      if (!seen[KEY_NODE_L + k]) *node[k] = process[k];
    if (!seen[KEY_NODE_BIG_O]) out->node_O = out->O;
  }
  /* A message to oneself: by default o, and its bytes at the local copy's rate. */
  if (!seen[KEY_OSELF]) out->oself = out->node_o;
  if (!seen[KEY_GSELF]) out->Gself = out->Gcopy;
  return 0;
}

int loggp_read_model_file(const char *option, const char *path, char *text, size_t len, char *err, size_t errlen) {
  FILE *in = fopen(path, "r");
  if (in == NULL) {
    snprintf(err, errlen, "%s: cannot read %s", option, path);
    return 1;
  }
  int found = 0;
  while (!found && fgets(text, (int)len, in) != NULL) {
    text[strcspn(text, "\r\n")] = '\0';
    found = text[0] != '\0' && text[0] != '#';
  }
  fclose(in);
  if (!found) snprintf(err, errlen, "%s: %s holds no model line", option, path);
  return !found;
}
