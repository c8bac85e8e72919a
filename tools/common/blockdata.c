#include "blockdata.h"

/* Salts keep the hashes of counts and of data independent of each other. */
#define SALT_EDGE_COUNT 0x6564676563ULL
#define SALT_RANK_COUNT 0x72616e6bULL
#define SALT_EDGE_DATA 0x64617461ULL
#define SALT_RANK_DATA 0x67617468ULL

static uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

static uint64_t hash3(uint64_t salt, int a, int b) {
  return mix64(mix64(mix64(salt) ^ (uint64_t)(int64_t)a) ^ (uint64_t)(int64_t)b);
}

static int full_or_half(uint64_t hash, int bytes) {
  int half = bytes / 2 > 0 ? bytes / 2 : bytes;
  return (hash & 1) ? bytes : half;
}

int blockdata_edge_bytes(int p, int q, int bytes) { return full_or_half(hash3(SALT_EDGE_COUNT, p, q), bytes); }

int blockdata_rank_bytes(int p, int bytes) { return full_or_half(hash3(SALT_RANK_COUNT, p, 0), bytes); }

uint64_t blockdata_rank_key(int p) { return hash3(SALT_RANK_DATA, p, 0); }

uint64_t blockdata_edge_key(int p, int q, int occurrence) {
  return mix64(hash3(SALT_EDGE_DATA, p, q) + (uint64_t)occurrence);
}

void blockdata_fill(unsigned char *dst, int len, uint64_t key) {
  for (int k = 0; k < len; k += 8) {
    uint64_t word = mix64(key + (uint64_t)(k / 8));
    for (int b = 0; b < 8 && k + b < len; b++) dst[k + b] = (unsigned char)(word >> (8 * b));
  }
}
