/* The rules of gojax._core (a move, the legal-move mask) as native CPU kernels.
 *
 * The same state as gojax.GoState, field by field (GojaxGame), and the same answers as the
 * XLA code for every well-formed state, which the tests check move by move: gojax.step and
 * gojax.legal_action_mask call these through the XLA FFI handlers of ffi.c on the CPU.
 *
 * Boards are the state's bitboards (point p = row * N + column is bit p % 32 of word p / 32).
 * A chain is found by a walk over its stones (chains are short: a walk costs its stones, not the
 * board). The chains in atari and the liberty labels are updated as gojax._core.bookkeeping
 * updates them: only the chains next to the move or to removed stones change their liberties.
 * A walk of the history waits on memory at every entry (a batch's histories are megabytes), so
 * the batch functions take up to GOJAX_OVERLAP games at a time and walk their lists side by side.
 * Every index read from a state is clamped, and every history walk is bounded, so a malformed
 * state gives some answer but never reads out of bounds or loops.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "kernels.h"

#define MAX_POINTS (MAX_SIZE * MAX_SIZE)
#define MAX_WORDS ((MAX_POINTS + 31) / 32)
#define INDEX_BITS 12
#define SLOTS (1 << INDEX_BITS)
#define MAX_CLASSES 128
#define MAX_SPLIT_SIZE 13
#define WHITE_SPLIT 4

/* ------------------------------------------------------------------ Tables keys */

/* As gojax/_core/zobrist.py: SplitMix64 of (SEED << 40) ^ (N << 32) ^ i. */
#define ZOBRIST_SEED 0x601AC5ull
#define LOW_MULTIPLIER 1427u
#define LOW_OFFSET 977u

/* What the kernels read for one board size, made once: the Tables keys, each point's sides,
 * and the masks of the board and of its first and last columns. */
typedef struct {
  uint32_t points[2][MAX_POINTS][2];
  uint32_t side[2][2];
  int16_t inverse[2][SLOTS];
  int16_t next[MAX_POINTS][4];
  uint8_t degree[MAX_POINTS];
  uint32_t board[MAX_WORDS], first_column[MAX_WORDS], last_column[MAX_WORDS];
} Tables;

static Tables tables[MAX_SIZE + 1];
static atomic_int tables_ready[MAX_SIZE + 1];
static pthread_mutex_t tables_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t splitmix64(uint64_t x) {
  uint64_t z = x + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static void make_zobrist(int size, Tables *z) {
  int points = size * size;
  uint64_t base = (ZOBRIST_SEED << 40) ^ ((uint64_t)size << 32);
  memset(z->inverse, 0xFF, sizeof z->inverse);
  for (int i = 0; i < 2 * points + 2; i++) {
    uint64_t key = splitmix64(base ^ (uint64_t)i);
    uint32_t low = (uint32_t)key, high = (uint32_t)(key >> 32);
    if (i >= 2 * points) {
      z->side[i - 2 * points][0] = low;
      z->side[i - 2 * points][1] = high;
      continue;
    }
    uint32_t slot = ((uint32_t)i * LOW_MULTIPLIER + LOW_OFFSET) & (SLOTS - 1);
    int colour = i / points, point = i % points;
    z->points[colour][point][0] = (low & ~(uint32_t)(SLOTS - 1)) | slot;
    z->points[colour][point][1] = high;
    z->inverse[colour][slot] = (int16_t)point;
  }
}

static void make_geometry(int size, Tables *z) {
  int points = size * size;
  memset(z->board, 0, sizeof z->board);
  memset(z->first_column, 0, sizeof z->first_column);
  memset(z->last_column, 0, sizeof z->last_column);
  for (int p = 0; p < points; p++) {
    int n = 0, row = p / size, column = p % size;
    if (column + 1 < size) z->next[p][n++] = (int16_t)(p + 1);
    if (column > 0) z->next[p][n++] = (int16_t)(p - 1);
    if (row + 1 < size) z->next[p][n++] = (int16_t)(p + size);
    if (row > 0) z->next[p][n++] = (int16_t)(p - size);
    z->degree[p] = (uint8_t)n;
    z->board[p >> 5] |= 1u << (p & 31);
    if (column == 0) z->first_column[p >> 5] |= 1u << (p & 31);
    if (column == size - 1) z->last_column[p >> 5] |= 1u << (p & 31);
  }
}

/* The tables of an N x N board (N clamped to 2..25), made on first use. */
static const Tables *tables_of(int size) {
  size = size < 2 ? 2 : size > MAX_SIZE ? MAX_SIZE : size;
  if (!atomic_load_explicit(&tables_ready[size], memory_order_acquire)) {
    pthread_mutex_lock(&tables_lock);
    if (!atomic_load_explicit(&tables_ready[size], memory_order_relaxed)) {
      make_zobrist(size, &tables[size]);
      make_geometry(size, &tables[size]);
      atomic_store_explicit(&tables_ready[size], 1, memory_order_release);
    }
    pthread_mutex_unlock(&tables_lock);
  }
  return &tables[size];
}

void gojax_zobrist_tables(int32_t size, uint32_t *points, uint32_t *side) {
  if (size < 2 || size > MAX_SIZE) return;
  const Tables *z = tables_of(size);
  int n = size * size;
  for (int c = 0; c < 2; c++) {
    memcpy(points + (size_t)c * n * 2, z->points[c], sizeof(uint32_t) * 2 * (size_t)n);
    memcpy(side + 2 * c, z->side[c], sizeof(uint32_t) * 2);
  }
}

/* ------------------------------------------------------------------ the rules' constants */

typedef struct {
  int size, points, words, planes, history, classes, split, buckets, ko_rule, suicide, move_cap;
  const Tables *z;
} Rules;

void gojax_rules_sizes(const GojaxRules *r, GojaxSizes *out) {
  int points = r->size * r->size;
  out->words = (points + 31) / 32;
  out->planes = 1;
  while ((1 << out->planes) < points) out->planes++;
  out->history = r->ko_rule == GOJAX_KO_SIMPLE ? 0 : r->move_cap + 1;
  out->classes = points + 1 < MAX_CLASSES ? points + 1 : MAX_CLASSES;
  out->split = r->size <= MAX_SPLIT_SIZE ? WHITE_SPLIT : 1;
  out->buckets = out->history ? out->classes * out->split : 0;
}

static void rules_of(const GojaxRules *r, Rules *out) {
  GojaxSizes sizes;
  gojax_rules_sizes(r, &sizes);
  out->size = r->size;
  out->points = r->size * r->size;
  out->words = sizes.words;
  out->planes = sizes.planes;
  out->history = sizes.history;
  out->classes = sizes.classes;
  out->split = sizes.split;
  out->buckets = sizes.buckets;
  out->ko_rule = r->ko_rule;
  out->suicide = r->suicide != 0;
  out->move_cap = r->move_cap;
  out->z = tables_of(r->size);
}

/* ------------------------------------------------------------------ bitboards */

static inline int has(const uint32_t *b, int p) { return (int)((b[p >> 5] >> (p & 31)) & 1u); }
static inline void put(uint32_t *b, int p) { b[p >> 5] |= 1u << (p & 31); }
static inline void take(uint32_t *b, int p) { b[p >> 5] &= ~(1u << (p & 31)); }

/* Set bits of a word (without the POPCNT instruction, which the build does not assume). */
static inline int popcount(uint32_t x) {
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  return (int)((((x + (x >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24);
}

static int count(const uint32_t *b, int words) {
  int n = 0;
  for (int w = 0; w < words; w++) n += popcount(b[w]);
  return n;
}

/* out[p] = bit p of x (a byte 0 or 1), for p in [0, n): a byte of x at a time. */
static void spread(const uint32_t *x, int n, uint8_t *out) {
  for (int p = 0; p < n; p += 8) {
    uint32_t byte = (x[p >> 5] >> (p & 31)) & 0xFFu;
    int m = n - p < 8 ? n - p : 8;
    for (int i = 0; i < m; i++) out[p + i] = (uint8_t)((byte >> i) & 1u);
  }
}

/* The points beside p (from the size's table): their number, the points in out. */
static inline int sides(const Tables *z, int p, int out[4]) {
  int n = z->degree[p];
  for (int i = 0; i < 4; i++) out[i] = z->next[p][i];
  return n;
}

/* out = the points beside the points of x (W words): shifted by one within rows, by N across. */
static void beside(const Tables *z, int size, int words, const uint32_t *x, uint32_t *out) {
  uint32_t right[MAX_WORDS], left[MAX_WORDS]; /* the points of x with a point on their right, left */
  for (int w = 0; w < words; w++) {
    right[w] = x[w] & ~z->last_column[w];
    left[w] = x[w] & ~z->first_column[w];
  }
  for (int w = 0; w < words; w++) {
    /* p + N (the row below), p - N (above), p + 1 (the right), p - 1 (the left) */
    uint32_t below = x[w] << size, above = x[w] >> size;
    uint32_t on_right = right[w] << 1, on_left = left[w] >> 1;
    if (w > 0) {
      below |= x[w - 1] >> (32 - size);
      on_right |= right[w - 1] >> 31;
    }
    if (w + 1 < words) {
      above |= x[w + 1] << (32 - size);
      on_left |= left[w + 1] << 31;
    }
    out[w] = (below | above | on_right | on_left) & z->board[w];
  }
}

/* A chain: its stones and its liberties (distinct empty points beside it, one of them kept). */
typedef struct {
  int n, liberties, liberty;
  int16_t stones[MAX_POINTS];
  uint32_t seen[MAX_WORDS], free[MAX_WORDS];
} Chain;

/* The chain of `within` through p (p itself counted whether in `within` or not), walked until
 * it has `enough` liberties (points of `empty`): then only a part of it is in `c`. */
static void chain_upto(const Rules *r, const uint32_t *within, const uint32_t *empty, int p, Chain *c,
                       int enough) {
  memset(c->seen, 0, sizeof(uint32_t) * (size_t)r->words);
  memset(c->free, 0, sizeof(uint32_t) * (size_t)r->words);
  c->n = 0;
  c->liberties = 0;
  c->liberty = -1;
  c->stones[c->n++] = (int16_t)p;
  put(c->seen, p);
  for (int k = 0; k < c->n; k++) {
    int next[4], m = sides(r->z, c->stones[k], next);
    for (int i = 0; i < m; i++) {
      int q = next[i];
      if (has(within, q)) {
        if (!has(c->seen, q)) {
          put(c->seen, q);
          c->stones[c->n++] = (int16_t)q;
        }
      } else if (has(empty, q) && !has(c->free, q)) {
        put(c->free, q);
        c->liberties++;
        c->liberty = q;
      }
    }
    if (c->liberties >= enough) return;
  }
}

/* The stones of the chain of `within` through p (no liberties counted). */
static void stones_of(const Rules *r, const uint32_t *within, int p, Chain *c) {
  static const uint32_t none[MAX_WORDS];
  chain_upto(r, within, none, p, c, MAX_POINTS + 1);
}

static void hash_chain(const Rules *r, const Chain *c, int colour, uint32_t *hash) {
  for (int k = 0; k < c->n; k++) {
    hash[0] ^= r->z->points[colour][c->stones[k]][0];
    hash[1] ^= r->z->points[colour][c->stones[k]][1];
  }
}

/* ------------------------------------------------------------------ the history */

static int bucket_of(const Rules *r, int stones, int white) {
  int count = ((stones % r->classes) + r->classes) % r->classes; /* in range whatever the counts */
  return count * r->split + ((white % r->split) + r->split) % r->split;
}

static int clamp(int value, int low, int high) { return value < low ? low : value > high ? high : value; }

static void record(const Rules *r, const GojaxGame *g, int64_t index, const uint32_t *situation, int stones,
                   int white, int link) {
  int bucket = bucket_of(r, stones, white), stored = index >= 0 && index < r->history;
  if (link) {
    if (stored) g->links[index] = g->heads[bucket];
    g->heads[bucket] = (int16_t)index;
  }
  if (stored) {
    g->history[2 * index] = situation[0];
    g->history[2 * index + 1] = situation[1];
  }
}

static void situation_of(const Rules *r, const uint32_t *hash, int next, uint32_t *out) {
  out[0] = hash[0];
  out[1] = hash[1];
  if (r->ko_rule == GOJAX_KO_SITUATIONAL) {
    out[0] ^= r->z->side[next][0];
    out[1] ^= r->z->side[next][1];
  }
}

/* ------------------------------------------------------------------ chains in atari */

static void unlabel(const Rules *r, const GojaxGame *g, int colour, int p) {
  take(g->atari + colour * r->words, p);
  for (int b = 0; b < r->planes; b++) take(g->labels + b * r->words, p);
}

/* Marks the chain in atari (liberty `liberty`) or out of it (liberty -1). */
static void mark(const Rules *r, const GojaxGame *g, int colour, const Chain *c, int liberty) {
  for (int k = 0; k < c->n; k++) {
    int p = c->stones[k];
    unlabel(r, g, colour, p);
    if (liberty < 0) continue;
    put(g->atari + colour * r->words, p);
    for (int b = 0; b < r->planes; b++)
      if ((liberty >> b) & 1) put(g->labels + b * r->words, p);
  }
}

/* ------------------------------------------------------------------ a move */

/* The history entry of the position a move makes: move_number + 1 (past the history for a
 * malformed move number, and then not stored). */
static int64_t next_index(const GojaxGame *g) { return (int64_t)*g->move_number + 1; }

static void forfeit(const GojaxGame *g) {
  *g->terminated = 1;
  *g->loser = (int8_t)(*g->turn + 1);
  *g->illegal_move = 1;
}

static void next_turn(const Rules *r, const GojaxGame *g, int colour, int action) {
  int32_t moves = (int32_t)((uint32_t)*g->move_number + 1u); /* wraps as XLA's int32 does */
  *g->move_number = moves;
  *g->turn = (int8_t)(1 - colour);
  *g->last_move = (int16_t)action;
  *g->terminated = *g->passes >= 2;
  *g->truncated = !*g->terminated && moves >= r->move_cap;
}

static void play_pass(const Rules *r, const GojaxGame *g, int colour) {
  if (r->history) {
    uint32_t situation[2];
    situation_of(r, g->hash, 1 - colour, situation);
    int all = count(g->stones, 2 * r->words), white = count(g->stones + r->words, r->words);
    record(r, g, next_index(g), situation, all, white, r->ko_rule != GOJAX_KO_POSITIONAL);
  }
  *g->passes = (int8_t)(*g->passes + 1);
  *g->ko_point = -1;
  next_turn(r, g, colour, r->points);
}

/* The board after a stone of `colour` on the empty point p: what it captures, its chain. */
typedef struct {
  uint32_t own[MAX_WORDS], opponent[MAX_WORDS], empty[MAX_WORDS], captured[MAX_WORDS];
  uint32_t hash[2];
  int captured_count, suicide;
  Chain chain, scratch;
} After;

static void settle(const Rules *r, const GojaxGame *g, int colour, int p, After *a) {
  int words = r->words, next[4], m = sides(r->z, p, next);
  const uint32_t *opponent_atari = g->atari + (1 - colour) * words;
  memcpy(a->own, g->stones + colour * words, sizeof(uint32_t) * (size_t)words);
  memcpy(a->opponent, g->stones + (1 - colour) * words, sizeof(uint32_t) * (size_t)words);
  memset(a->captured, 0, sizeof(uint32_t) * (size_t)words);
  put(a->own, p);
  a->hash[0] = g->hash[0] ^ r->z->points[colour][p][0];
  a->hash[1] = g->hash[1] ^ r->z->points[colour][p][1];
  a->captured_count = 0;
  for (int i = 0; i < m; i++) {
    int q = next[i];
    if (!has(a->opponent, q) || !has(opponent_atari, q) || has(a->captured, q)) continue;
    stones_of(r, a->opponent, q, &a->scratch);
    hash_chain(r, &a->scratch, 1 - colour, a->hash);
    for (int k = 0; k < a->scratch.n; k++) put(a->captured, a->scratch.stones[k]);
    a->captured_count += a->scratch.n;
  }
  for (int w = 0; w < words; w++) a->opponent[w] &= ~a->captured[w];
  for (int w = 0; w < words; w++) a->empty[w] = r->z->board[w] & ~(a->own[w] | a->opponent[w]);
  chain_upto(r, a->own, a->empty, p, &a->chain, 2); /* whole when it has fewer than 2 liberties */
  a->suicide = a->chain.liberties == 0;
  if (a->suicide) {
    hash_chain(r, &a->chain, colour, a->hash);
    for (int k = 0; k < a->chain.n; k++) {
      take(a->own, a->chain.stones[k]);
      put(a->empty, a->chain.stones[k]);
    }
  }
}

/* Takes out of atari the chains of `colour` in atari through the points `at[0, n)` (a point
 * that holds none is passed over). */
static void unmark_at(const Rules *r, const GojaxGame *g, int colour, const int *at, int n, Chain *scratch) {
  const uint32_t *atari = g->atari + colour * r->words;
  for (int i = 0; i < n; i++) {
    if (!has(atari, at[i])) continue;
    stones_of(r, atari, at[i], scratch); /* a chain in atari is all in `atari` */
    mark(r, g, colour, scratch, -1);
  }
}

/* Chains in atari after a legal move (as gojax._core.bookkeeping.atari_after): the captured
 * stones leave, the chains beside removed stones gain liberties (out of atari), the mover's
 * chain and the opponent's chains beside the move are looked at anew. */
static void update_atari(const Rules *r, const GojaxGame *g, int colour, int p, After *a) {
  int words = r->words, next[4], m;
  for (int w = 0; w < words; w++)
    for (uint32_t bits = a->captured[w]; bits; bits &= bits - 1) {
      int s = 32 * w + __builtin_ctz(bits);
      unlabel(r, g, 1 - colour, s);
      m = sides(r->z, s, next);
      unmark_at(r, g, colour, next, m, &a->scratch);
    }
  m = sides(r->z, p, next);
  if (a->suicide) {
    for (int k = 0; k < a->chain.n; k++) {
      int s = a->chain.stones[k], around[4], n = sides(r->z, s, around);
      unlabel(r, g, colour, s);
      unmark_at(r, g, 1 - colour, around, n, &a->scratch);
    }
  } else if (a->chain.liberties == 1) {
    mark(r, g, colour, &a->chain, a->chain.liberty);
  } else {
    unmark_at(r, g, colour, next, m, &a->scratch); /* the chains in atari it joined */
  }
  for (int i = 0; i < m; i++) {
    if (!has(a->opponent, next[i])) continue;
    chain_upto(r, a->opponent, a->empty, next[i], &a->scratch, 2);
    if (a->scratch.liberties == 1) mark(r, g, 1 - colour, &a->scratch, a->scratch.liberty);
  }
}

static int lowest(const uint32_t *b, int words) {
  for (int w = 0; w < words; w++)
    if (b[w]) return 32 * w + __builtin_ctz(b[w]);
  return -1;
}

/* A move between its phases: settled, waiting for its history walk (see gojax_play_many). */
typedef struct {
  const GojaxGame *g;
  int colour, p, own_count, opponent_count, bucket;
  uint32_t situation[2];
  After a;
} Move;

static void end_move(const Rules *r, Move *m, int repeats) {
  const GojaxGame *g = m->g;
  After *a = &m->a;
  int words = r->words, colour = m->colour, p = m->p;
  if (repeats || (a->suicide && !r->suicide)) {
    forfeit(g);
    return;
  }
  int lost = a->suicide ? a->chain.n : 0;
  int ko = a->captured_count == 1 && a->chain.n == 1 && a->chain.liberties == 1;
  update_atari(r, g, colour, p, a);
  memcpy(g->stones + colour * words, a->own, sizeof(uint32_t) * (size_t)words);
  memcpy(g->stones + (1 - colour) * words, a->opponent, sizeof(uint32_t) * (size_t)words);
  g->hash[0] = a->hash[0];
  g->hash[1] = a->hash[1];
  if (r->history) {
    int white = colour == 0 ? m->opponent_count : m->own_count;
    record(r, g, next_index(g), m->situation, m->own_count + m->opponent_count, white, 1);
  }
  g->captures[colour] = (int16_t)(g->captures[colour] + a->captured_count);
  g->captures[1 - colour] = (int16_t)(g->captures[1 - colour] + lost);
  *g->ko_point = (int16_t)(ko ? lowest(a->captured, words) : -1);
  *g->passes = 0;
  next_turn(r, g, colour, p);
}

/* The move's first phases: 1 when it waits for a walk of the history (m->bucket), else 0 (the
 * move is made, or refused, already). */
static int begin_move(const Rules *r, const GojaxGame *g, int32_t action, const uint8_t *mask, Move *m) {
  if (*g->terminated || *g->truncated) return 0;
  int colour = *g->turn != 0;
  if (action < 0 || action > r->points) {
    forfeit(g);
    return 0;
  }
  if (action == r->points) {
    play_pass(r, g, colour);
    return 0;
  }
  if (has(g->stones, action) || has(g->stones + r->words, action)) {
    forfeit(g);
    return 0;
  }
  m->g = g;
  m->colour = colour;
  m->p = action;
  settle(r, g, colour, action, &m->a);
  m->own_count = count(m->a.own, r->words);
  m->opponent_count = count(m->a.opponent, r->words);
  situation_of(r, m->a.hash, 1 - colour, m->situation);
  if (mask != NULL || r->ko_rule == GOJAX_KO_SIMPLE) {
    end_move(r, m, mask != NULL ? !mask[action] : action == *g->ko_point);
    return 0;
  }
  int white = colour == 0 ? m->opponent_count : m->own_count;
  m->bucket = bucket_of(r, m->own_count + m->opponent_count, white);
  return 1;
}

/* Whether each move's situation is in its bucket's list: the walks side by side, one entry of
 * each a round, so that their waits on memory overlap. */
static void walk_moves(const Rules *r, Move *moves, int n, int *found) {
  int pointer[GOJAX_OVERLAP];
  for (int k = 0; k < n; k++) {
    found[k] = 0;
    pointer[k] = moves[k].g->heads[moves[k].bucket];
  }
  for (int steps = 0; steps < r->history; steps++) {
    int walking = 0;
    for (int k = 0; k < n; k++) {
      if (pointer[k] < 0) continue;
      const GojaxGame *g = moves[k].g;
      int at = clamp(pointer[k], 0, r->history - 1);
      if (g->history[2 * at] == moves[k].situation[0] && g->history[2 * at + 1] == moves[k].situation[1]) {
        found[k] = 1;
        pointer[k] = -1;
        continue;
      }
      pointer[k] = g->links[at];
      walking = 1;
    }
    if (!walking) break;
  }
}

void gojax_play_many(const GojaxRules *rules, const GojaxGame *games, const int32_t *actions,
                     const uint8_t *const *masks, int64_t n) {
  Rules r;
  rules_of(rules, &r);
  Move moves[GOJAX_OVERLAP];
  int found[GOJAX_OVERLAP];
  for (int64_t i = 0; i < n; i += GOJAX_OVERLAP) {
    int waiting = 0;
    for (int64_t k = i; k < n && k < i + GOJAX_OVERLAP; k++)
      waiting += begin_move(&r, &games[k], actions[k], masks ? masks[k] : NULL, &moves[waiting]);
    walk_moves(&r, moves, waiting, found);
    for (int k = 0; k < waiting; k++) end_move(&r, &moves[k], found[k]);
  }
}


/* ------------------------------------------------------------------ the legal-move mask */

/* The situation a capturing (or, with suicide allowed, suicidal) move at p makes, and its
 * bucket. */
static int special_key(const Rules *r, const GojaxGame *g, int colour, int p, int suicidal,
                       const uint32_t *base, int stones, int white, Chain *c, uint32_t *situation) {
  const uint32_t *own = g->stones + colour * r->words, *opponent = g->stones + (1 - colour) * r->words;
  const uint32_t *opponent_atari = g->atari + (1 - colour) * r->words;
  uint32_t done[MAX_WORDS] = {0};
  int next[4], m = sides(r->z, p, next), captured = 0, lost = 0;
  situation[0] = base[0] ^ r->z->points[colour][p][0];
  situation[1] = base[1] ^ r->z->points[colour][p][1];
  for (int i = 0; i < m; i++) {
    int q = next[i];
    if (suicidal ? !has(own, q) : !(has(opponent, q) && has(opponent_atari, q))) continue;
    if (has(done, q)) continue;
    stones_of(r, suicidal ? own : opponent, q, c);
    hash_chain(r, c, suicidal ? colour : 1 - colour, situation);
    for (int k = 0; k < c->n; k++) put(done, c->stones[k]);
    if (suicidal) lost += c->n;
    else captured += c->n;
  }
  if (suicidal) { /* the stone itself is lost too: its key, XOR-ed in twice, is out again */
    situation[0] ^= r->z->points[colour][p][0];
    situation[1] ^= r->z->points[colour][p][1];
    lost += 1;
  }
  white += colour == 1 ? 1 - lost : -captured;
  return bucket_of(r, stones + 1 - captured - lost, white);
}

/* One game's mask between its phases: the bitboards, then the situations its moves would make,
 * waiting for the history walks (see gojax_legal_many). */
typedef struct {
  const GojaxGame *g;
  uint8_t *out;
  int colour, plain_bucket, specials, unwalked; /* the specials from `unwalked` on: walked after */
  uint32_t legal[MAX_WORDS], special[MAX_WORDS];
  uint32_t base[2];
  int16_t points[MAX_POINTS];
  int buckets[MAX_POINTS];
  uint32_t situations[MAX_POINTS][2];
} Mask;

/* The mask from the board alone; 1 when the superko test is left to do (then the situations of
 * the capturing and suicidal moves are in m), else 0 (m->out written). */
static int begin_mask(const Rules *r, const GojaxGame *g, int superko, uint8_t *out, Mask *m) {
  const Tables *z = r->z;
  int words = r->words, colour = *g->turn != 0;
  const uint32_t *own = g->stones + colour * words, *opponent = g->stones + (1 - colour) * words;
  const uint32_t *own_atari = g->atari + colour * words, *opponent_atari = g->atari + (1 - colour) * words;
  uint32_t empty[MAX_WORDS] = {0}, free_own[MAX_WORDS] = {0}, captures[MAX_WORDS], breathes[MAX_WORDS];
  uint32_t suicidal[MAX_WORDS], t[MAX_WORDS];
  m->g = g;
  m->out = out;
  m->colour = colour;
  for (int w = 0; w < words; w++) {
    empty[w] = z->board[w] & ~(own[w] | opponent[w]);
    free_own[w] = own[w] & ~own_atari[w];
  }
  beside(z, r->size, words, opponent_atari, captures);
  beside(z, r->size, words, empty, breathes);
  beside(z, r->size, words, free_own, t);
  for (int w = 0; w < words; w++) {
    captures[w] &= empty[w];
    breathes[w] |= t[w] | captures[w];
    suicidal[w] = r->suicide ? empty[w] & ~breathes[w] : 0;
    m->legal[w] = r->suicide ? empty[w] : empty[w] & breathes[w];
    m->special[w] = captures[w] | suicidal[w];
  }
  if (r->ko_rule == GOJAX_KO_SIMPLE || !superko) {
    int ko = *g->ko_point;
    if (ko >= 0 && ko < r->points) take(m->legal, ko);
    spread(m->legal, r->points, out);
    out[r->points] = 1;
    return 0;
  }
  situation_of(r, g->hash, 1 - colour, m->base);
  int stones = count(g->stones, 2 * words), white = count(g->stones + words, words);
  m->plain_bucket = bucket_of(r, stones + 1, white + colour); /* every plain move lands there */
  m->specials = 0;
  Chain c;
  for (int w = 0; w < words; w++)
    for (uint32_t bits = m->legal[w] & m->special[w]; bits; bits &= bits - 1) {
      int p = 32 * w + __builtin_ctz(bits), k = m->specials++;
      m->buckets[k] =
          special_key(r, g, colour, p, has(suicidal, p), m->base, stones, white, &c, m->situations[k]);
      m->points[k] = (int16_t)p;
    }
  return 1;
}

/* A walk of one bucket's list for a mask: its plain moves (`plain`), or its special moves that
 * land in `bucket`. */
typedef struct {
  Mask *m;
  int pointer, bucket, plain;
} Walk;

/* One entry of a walk: the moves that would recreate it leave the mask. A plain move's entry
 * differs from the position by the key of its point, which the key's low bits name. */
static void visit(const Rules *r, const Walk *w, int at) {
  Mask *m = w->m;
  uint32_t low = m->g->history[2 * at], high = m->g->history[2 * at + 1];
  if (w->plain) {
    const Tables *z = r->z;
    low ^= m->base[0];
    high ^= m->base[1];
    int p = z->inverse[m->colour][low & (SLOTS - 1)];
    if (p >= 0 && z->points[m->colour][p][0] == low && z->points[m->colour][p][1] == high &&
        !has(m->special, p))
      take(m->legal, p);
    return;
  }
  for (int k = 0; k < m->specials; k++)
    if (m->buckets[k] == w->bucket && m->situations[k][0] == low && m->situations[k][1] == high)
      take(m->legal, m->points[k]);
}

/* The walks side by side, one entry of each a round, so that their waits on memory overlap. */
static void walk_all(const Rules *r, Walk *walks, int n) {
  for (int steps = 0; steps < r->history; steps++) {
    int walking = 0;
    for (int k = 0; k < n; k++) {
      if (walks[k].pointer < 0) continue;
      int at = clamp(walks[k].pointer, 0, r->history - 1);
      visit(r, &walks[k], at);
      walks[k].pointer = walks[k].m->g->links[at];
      walking = 1;
    }
    if (!walking) break;
  }
}

/* The walks of a mask: its plain moves' bucket, and each bucket its special moves land in. */
static int mask_walks(Mask *m, Walk *walks, int room) {
  int n = 0, k = 0;
  walks[n++] = (Walk){m, m->g->heads[m->plain_bucket], m->plain_bucket, 1};
  for (; k < m->specials; k++) {
    int seen = 0;
    for (int j = 1; j < n; j++) seen |= walks[j].bucket == m->buckets[k];
    if (seen) continue;
    if (n == room) break;
    walks[n++] = (Walk){m, m->g->heads[m->buckets[k]], m->buckets[k], 0};
  }
  m->unwalked = k;
  return n;
}

/* The buckets of the special moves past a mask's walks (more buckets than it had walks), one
 * walk each. */
static void walk_the_rest(const Rules *r, Mask *m, const Walk *walks, int n) {
  for (int k = m->unwalked; k < m->specials; k++) {
    int made = 0, bucket = m->buckets[k];
    for (int j = 0; j < n; j++) made |= !walks[j].plain && walks[j].bucket == bucket;
    for (int j = m->unwalked; j < k; j++) made |= m->buckets[j] == bucket;
    if (made) continue;
    Walk w = {m, m->g->heads[bucket], bucket, 0};
    walk_all(r, &w, 1);
  }
}

#define WALKS_PER_MASK 4 /* the plain moves' bucket and three of the special moves'; more: one by one */

void gojax_legal_many(const GojaxRules *rules, const GojaxGame *games, int32_t superko, uint8_t *const *outs,
                      int64_t n) {
  Rules r;
  rules_of(rules, &r);
  Mask masks[GOJAX_OVERLAP];
  Walk walks[GOJAX_OVERLAP * WALKS_PER_MASK];
  for (int64_t i = 0; i < n; i += GOJAX_OVERLAP) {
    int waiting = 0, count_walks = 0;
    for (int64_t k = i; k < n && k < i + GOJAX_OVERLAP; k++)
      waiting += begin_mask(&r, &games[k], superko, outs[k], &masks[waiting]);
    int first[GOJAX_OVERLAP + 1];
    for (int k = 0; k < waiting; k++) {
      first[k] = count_walks;
      count_walks += mask_walks(&masks[k], walks + count_walks, WALKS_PER_MASK);
    }
    first[waiting] = count_walks;
    walk_all(&r, walks, count_walks);
    for (int k = 0; k < waiting; k++) {
      Mask *m = &masks[k];
      walk_the_rest(&r, m, walks + first[k], first[k + 1] - first[k]);
      spread(m->legal, r.points, m->out);
      m->out[r.points] = 1;
    }
  }
}

