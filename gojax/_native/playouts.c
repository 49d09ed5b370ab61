/* The playouts of gojax's tree search in C: the light kernel of gojax/playouts and its two
 * policies, one game at a time.
 *
 * The same playouts as the XLA code of gojax/playouts/_light.py, _heavy.py and
 * _light_loop.py (which stays the reference and the path of accelerators): given the same start
 * and the same random uint32 per move, a playout here plays the same moves and ends in the same
 * position. The rules are the playouts' cheaper ones: the simple ko rule, suicide never played,
 * own one-point eyes never filled; a playout stops at two passes or at its move limit.
 *
 * The move sets of the policies (playable points, the heavy policy's tiers) are whole-board
 * bitboard expressions, as in the XLA code, on 64-bit words (point p at bit p % 64 of word
 * p / 64, so a set's points come in point order). Playing a move keeps chains instead of growing
 * them: each point knows its chain's representative, and each chain its stones and its
 * liberties as bitboards, so captures, merges and the chains in atari are read off directly.
 *
 * Each function works on the board sizes 2..25 with the word count a compile-time constant of
 * its caller (2, 6 or 10 words), so that the compiler unrolls the bitboard loops.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

#define MAX_WORDS 10 /* 64-bit words of the largest board (625 points) */
#define MAX_POINTS (MAX_SIZE * MAX_SIZE)
#define INLINE static inline __attribute__((always_inline))

/* The batch loops are compiled for x86-64-v3 (AVX2, BMI, POPCNT) and v2 (POPCNT) too, picked when
 * the library loads (GCC's function multi-versioning, on Linux): without POPCNT every popcount of
 * a bitboard word is a call into libgcc. */
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__)
#define CLONES __attribute__((target_clones("arch=x86-64-v3", "arch=x86-64-v2", "default")))
#else
#define CLONES
#endif

typedef uint64_t Bits[MAX_WORDS];

typedef struct {
  int size, points;
  Bits board, left, right, inner; /* left: a point with a left neighbour; right: with a right one */
  int16_t next[MAX_POINTS][4];    /* orthogonal neighbours, -1 off the board */
  int16_t ring[MAX_POINTS][8];    /* the 3x3 neighbourhood's cells row by row (centre skipped), OFF off the board */
  Bits square[MAX_POINTS];        /* the point and its 3x3 neighbourhood on the board */
} Geometry;

#define OFF MAX_POINTS /* the cell of Playout.colour that reads as off the board */

/* One playout: the stones, the chains in atari, and per point its chain's representative, per
 * representative its chain's stones and liberties. */
typedef struct {
  Bits stones[2], atari[2], first[2];
  Bits chain_stones[MAX_POINTS], chain_liberties[MAX_POINTS];
  int16_t chain[MAX_POINTS];
  int8_t colour[MAX_POINTS + 1]; /* 0 empty, 1 black, 2 white; 3 at OFF */
  int turn, ko, passes, moves, last;
} Playout;

/* ------------------------------------------------------------------ bitboards */

INLINE void clear(uint64_t *x, int nw) {
  for (int i = 0; i < nw; i++) x[i] = 0;
}

INLINE int count(const uint64_t *x, int nw) {
  int n = 0;
  for (int i = 0; i < nw; i++) n += __builtin_popcountll(x[i]);
  return n;
}

INLINE int any(const uint64_t *x, int nw) {
  uint64_t a = 0;
  for (int i = 0; i < nw; i++) a |= x[i];
  return a != 0;
}

INLINE void set_bit(uint64_t *x, int p) { x[p >> 6] |= 1ull << (p & 63); }
INLINE void clear_bit(uint64_t *x, int p) { x[p >> 6] &= ~(1ull << (p & 63)); }
INLINE int has_bit(const uint64_t *x, int p) { return (int)((x[p >> 6] >> (p & 63)) & 1); }

/* out[p] = x[p + k] for 0 < k < 64 (zeros past the last word). */
INLINE void ahead(uint64_t *out, const uint64_t *x, int k, int nw) {
  for (int i = 0; i < nw; i++) out[i] = (x[i] >> k) | (i + 1 < nw ? x[i + 1] << (64 - k) : 0);
}

/* out[p] = x[p - k] for 0 < k < 64. */
INLINE void behind(uint64_t *out, const uint64_t *x, int k, int nw) {
  for (int i = nw - 1; i >= 0; i--) out[i] = (x[i] << k) | (i > 0 ? x[i - 1] >> (64 - k) : 0);
}

/* out[r, c] = x[r + rows, c + cols] for rows, cols in {-1, 0, 1}, zero where that is off the board. */
INLINE void shift(const Geometry *g, uint64_t *out, const uint64_t *x, int rows, int cols, int nw) {
  int offset = rows * g->size + cols;
  uint64_t t[MAX_WORDS];
  if (offset > 0) ahead(t, x, offset, nw);
  else behind(t, x, -offset, nw);
  const uint64_t *edge = cols == 1 ? g->right : cols == -1 ? g->left : g->board;
  for (int i = 0; i < nw; i++) out[i] = t[i] & edge[i] & g->board[i];
}

/* The points orthogonally next to a point of x. */
INLINE void neighbours(const Geometry *g, uint64_t *out, const uint64_t *x, int nw) {
  if (!any(x, nw)) { /* often so for the chains in atari */
    clear(out, nw);
    return;
  }
  uint64_t a[MAX_WORDS], b[MAX_WORDS], c[MAX_WORDS], d[MAX_WORDS];
  ahead(a, x, 1, nw);
  behind(b, x, 1, nw);
  ahead(c, x, g->size, nw);
  behind(d, x, g->size, nw);
  for (int i = 0; i < nw; i++) out[i] = ((a[i] & g->right[i]) | (b[i] & g->left[i]) | c[i] | d[i]) & g->board[i];
}

INLINE uint64_t two_of_four(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  return (a & b) | (c & d) | ((a | b) & (c | d));
}

/* The point of x of rank `draw * count / 2**32` (as gojax.playouts._light._pick: a float32
 * product), or `points` (pass) when x is empty. */
INLINE int pick(const uint64_t *x, uint32_t draw, int points, int nw) {
  int total = count(x, nw);
  if (total == 0) return points;
  float uniform = (float)(draw >> 8) * 0x1p-24f;
  int rank = (int)floorf(uniform * (float)total);
  for (int i = 0; i < nw; i++) {
    int here = __builtin_popcountll(x[i]);
    if (rank < here) { /* halve the word until the bit is found */
      uint64_t word = x[i];
      int at = i * 64;
      for (int width = 32; width; width >>= 1) {
        int low = __builtin_popcountll(word & ((1ull << width) - 1));
        if (rank >= low) rank -= low, word >>= width, at += width;
      }
      return at;
    }
    rank -= here;
  }
  return points; /* not reached: rank < total */
}

/* ------------------------------------------------------------------ the board */

static void geometry(Geometry *g, int size) {
  memset(g, 0, sizeof *g);
  g->size = size;
  g->points = size * size;
  for (int p = 0; p < g->points; p++) {
    int r = p / size, c = p % size;
    set_bit(g->board, p);
    if (c > 0) set_bit(g->left, p);
    if (c < size - 1) set_bit(g->right, p);
    if (r > 0 && r < size - 1 && c > 0 && c < size - 1) set_bit(g->inner, p);
    g->next[p][0] = (int16_t)(c + 1 < size ? p + 1 : -1);
    g->next[p][1] = (int16_t)(c > 0 ? p - 1 : -1);
    g->next[p][2] = (int16_t)(r + 1 < size ? p + size : -1);
    g->next[p][3] = (int16_t)(r > 0 ? p - size : -1);
    int k = 0;
    for (int dr = -1; dr <= 1; dr++)
      for (int dc = -1; dc <= 1; dc++) {
        int rr = r + dr, cc = c + dc, inside = rr >= 0 && rr < size && cc >= 0 && cc < size;
        if (inside) set_bit(g->square[p], rr * size + cc);
        if (dr != 0 || dc != 0) g->ring[p][k++] = (int16_t)(inside ? rr * size + cc : OFF);
      }
  }
}

/* Whether the chain of `rep` has one liberty: its stones in or out of its colour's atari set. */
INLINE void mark_atari(Playout *s, int rep, int nw) {
  uint64_t *atari = s->atari[s->colour[rep] - 1];
  const uint64_t *stones = s->chain_stones[rep];
  if (count(s->chain_liberties[rep], nw) == 1)
    for (int i = 0; i < nw; i++) atari[i] |= stones[i];
  else
    for (int i = 0; i < nw; i++) atari[i] &= ~stones[i];
}

/* The chains of a start position (uint32[2, W] stones), each grown from its lowest point. */
INLINE void setup(const Geometry *g, Playout *s, const uint32_t *stones, int words, int nw) {
  int16_t stack[MAX_POINTS];
  clear(s->stones[0], nw), clear(s->stones[1], nw);
  clear(s->atari[0], nw), clear(s->atari[1], nw);
  clear(s->first[0], nw), clear(s->first[1], nw);
  s->colour[OFF] = 3;
  for (int p = 0; p < g->points; p++) {
    int black = (stones[p >> 5] >> (p & 31)) & 1, white = (stones[words + (p >> 5)] >> (p & 31)) & 1;
    s->colour[p] = (int8_t)(black ? 1 : white ? 2 : 0);
    s->chain[p] = -1;
    if (s->colour[p]) set_bit(s->stones[s->colour[p] - 1], p);
  }
  for (int p = 0; p < g->points; p++) {
    if (!s->colour[p] || s->chain[p] >= 0) continue;
    uint64_t *own = s->chain_stones[p], *liberties = s->chain_liberties[p];
    clear(own, nw), clear(liberties, nw);
    int top = 0;
    stack[top++] = (int16_t)p;
    s->chain[p] = (int16_t)p;
    while (top) {
      int q = stack[--top];
      set_bit(own, q);
      for (int k = 0; k < 4; k++) {
        int n = g->next[q][k];
        if (n < 0) continue;
        if (s->colour[n] == 0) set_bit(liberties, n);
        else if (s->colour[n] == s->colour[p] && s->chain[n] < 0) {
          s->chain[n] = (int16_t)p;
          stack[top++] = (int16_t)n;
        }
      }
    }
    mark_atari(s, p, nw);
  }
}

/* Removes the chain of `rep` (no liberty left): its stones' neighbours of the other colour gain
 * them as liberties. Returns how many stones it had. */
INLINE int capture(const Geometry *g, Playout *s, int rep, int nw) {
  int colour = s->colour[rep], captured = 0;
  uint64_t stones[MAX_WORDS];
  memcpy(stones, s->chain_stones[rep], sizeof(uint64_t) * (size_t)nw);
  for (int i = 0; i < nw; i++) {
    s->stones[colour - 1][i] &= ~stones[i];
    s->atari[colour - 1][i] &= ~stones[i];
    for (uint64_t word = stones[i]; word; word &= word - 1) {
      int p = i * 64 + __builtin_ctzll(word);
      s->colour[p] = 0;
      s->chain[p] = -1;
      captured++;
    }
  }
  for (int i = 0; i < nw; i++)
    for (uint64_t word = stones[i]; word; word &= word - 1) {
      int p = i * 64 + __builtin_ctzll(word);
      for (int k = 0; k < 4; k++) {
        int n = g->next[p][k];
        if (n >= 0 && s->colour[n]) set_bit(s->chain_liberties[s->chain[n]], p);
      }
    }
  return captured;
}

/* Plays `point` (a legal move of the player to move, or `points` to pass). */
INLINE void play(const Geometry *g, Playout *s, int point, int nw) {
  int me = s->turn, mine = me + 1, theirs = 2 - me;
  s->turn = 1 - me;
  s->moves++;
  if (point >= g->points) {
    s->passes++;
    s->ko = -1;
    s->last = -1;
    return;
  }
  s->passes = 0;
  s->last = point;
  if (!has_bit(s->first[0], point) && !has_bit(s->first[1], point)) set_bit(s->first[me], point);
  /* The new stone, then its chain merged into the largest neighbouring one of its colour. */
  s->colour[point] = (int8_t)mine;
  set_bit(s->stones[me], point);
  int rep = point, biggest = 1;
  for (int k = 0; k < 4; k++) {
    int n = g->next[point][k];
    if (n < 0 || s->colour[n] != mine) continue;
    int size = count(s->chain_stones[s->chain[n]], nw);
    if (size > biggest) rep = s->chain[n], biggest = size;
  }
  uint64_t *stones = s->chain_stones[rep], *liberties = s->chain_liberties[rep];
  if (rep == point) clear(stones, nw), clear(liberties, nw);
  set_bit(stones, point);
  s->chain[point] = (int16_t)rep;
  for (int k = 0; k < 4; k++) {
    int n = g->next[point][k];
    if (n < 0) continue;
    if (s->colour[n] == 0) set_bit(liberties, n);
    if (s->colour[n] != mine || s->chain[n] == rep) continue;
    int other = s->chain[n];
    for (int i = 0; i < nw; i++) {
      stones[i] |= s->chain_stones[other][i];
      liberties[i] |= s->chain_liberties[other][i];
      for (uint64_t word = s->chain_stones[other][i]; word; word &= word - 1)
        s->chain[i * 64 + __builtin_ctzll(word)] = (int16_t)rep;
    }
  }
  clear_bit(liberties, point);
  /* The opponent's chains next to it lose the liberty; those left with none are captured. */
  int captured = 0, ko = -1;
  for (int k = 0; k < 4; k++) {
    int n = g->next[point][k];
    if (n < 0 || s->colour[n] != theirs) continue;
    int other = s->chain[n];
    clear_bit(s->chain_liberties[other], point);
    if (any(s->chain_liberties[other], nw)) {
      mark_atari(s, other, nw);
    } else {
      int taken = capture(g, s, other, nw);
      if (taken == 1) ko = n;
      captured += taken;
    }
  }
  /* The mover's chains in atari next to the captured stones gained liberties. */
  if (captured) {
    uint64_t todo[MAX_WORDS];
    for (int i = 0; i < nw; i++) todo[i] = s->atari[me][i];
    for (int i = 0; i < nw; i++)
      while (todo[i]) {
        int other = s->chain[i * 64 + __builtin_ctzll(todo[i])];
        mark_atari(s, other, nw);
        for (int j = 0; j < nw; j++) todo[j] &= ~s->chain_stones[other][j];
      }
  }
  mark_atari(s, rep, nw);
  s->ko = (captured == 1 && count(stones, nw) == 1 && count(liberties, nw) == 1) ? ko : -1;
}

/* ------------------------------------------------------------------ the policies */

/* The 3x3 neighbourhood code of `point`: cell k (the offsets row by row, the centre skipped) in
 * bits 2k, 2k + 1 as 0 empty, 1 black, 2 white, 3 off the board. */
INLINE int neighbourhood(const Geometry *g, const Playout *s, int point) {
  const int16_t *ring = g->ring[point];
  int code = 0;
  for (int k = 0; k < 8; k++) code |= s->colour[ring[k]] << (2 * k);
  return code;
}

/* The points of `near` where a pattern of the table (bit code of uint32 code / 32) matches. */
INLINE void patterns_at(const Geometry *g, const Playout *s, const uint32_t *table, const uint64_t *near,
                        uint64_t *out, int nw) {
  for (int i = 0; i < nw; i++) {
    out[i] = 0;
    for (uint64_t word = near[i]; word; word &= word - 1) {
      int p = i * 64 + __builtin_ctzll(word), code = neighbourhood(g, s, p);
      if ((table[code >> 5] >> (code & 31)) & 1) out[i] |= word & -word;
    }
  }
}

/* `seeds & inside` grown two steps inside `inside`, and then the points next to it. */
INLINE void reach(const Geometry *g, const uint64_t *seeds, const uint64_t *inside, uint64_t *out, int nw) {
  uint64_t grown[MAX_WORDS], around[MAX_WORDS];
  for (int i = 0; i < nw; i++) grown[i] = seeds[i] & inside[i];
  for (int step = 0; step < 2; step++) {
    neighbours(g, around, grown, nw);
    for (int i = 0; i < nw; i++) grown[i] = (grown[i] | around[i]) & inside[i];
  }
  neighbours(g, out, grown, nw);
}

/* The move of the player to move: gojax.playouts._light.light_move (heavy 0) or
 * gojax.playouts._heavy.heavy_move (heavy 1), picked by `draw`; `points` passes. */
INLINE int choose(const Geometry *g, const Playout *s, uint32_t draw, int heavy, const uint32_t *table, int nw) {
  const int me = s->turn, points = g->points;
  const uint64_t *own = s->stones[me], *opponent = s->stones[1 - me];
  const uint64_t *own_atari = s->atari[me], *opponent_atari = s->atari[1 - me];
  uint64_t empty[MAX_WORDS], t[MAX_WORDS], breathes[MAX_WORDS], walls[MAX_WORDS], d[4][MAX_WORDS];
  uint64_t playable[MAX_WORDS];
  for (int i = 0; i < nw; i++) {
    empty[i] = g->board[i] & ~(own[i] | opponent[i]);
    t[i] = empty[i] | (own[i] & ~own_atari[i]) | opponent_atari[i];
  }
  neighbours(g, breathes, t, nw);
  for (int i = 0; i < nw; i++) t[i] = g->board[i] & ~own[i];
  neighbours(g, walls, t, nw);
  shift(g, d[0], opponent, -1, -1, nw);
  shift(g, d[1], opponent, -1, 1, nw);
  shift(g, d[2], opponent, 1, -1, nw);
  shift(g, d[3], opponent, 1, 1, nw);
  for (int i = 0; i < nw; i++) {
    uint64_t some = d[0][i] | d[1][i] | d[2][i] | d[3][i], two = two_of_four(d[0][i], d[1][i], d[2][i], d[3][i]);
    uint64_t eyes = empty[i] & ~walls[i] & ~two & (g->inner[i] | ~some);
    playable[i] = empty[i] & breathes[i] & ~eyes;
  }
  if (s->ko >= 0) clear_bit(playable, s->ko);
  if (!heavy) return pick(playable, draw, points, nw);

  uint64_t sides[4][MAX_WORDS], safe[MAX_WORDS], beside_safe[MAX_WORDS], by_opponent[MAX_WORDS];
  uint64_t by_own[MAX_WORDS], captures[MAX_WORDS], escapes[MAX_WORDS], quiet[MAX_WORDS], tier[MAX_WORDS];
  shift(g, sides[0], empty, 0, 1, nw);
  shift(g, sides[1], empty, 0, -1, nw);
  shift(g, sides[2], empty, 1, 0, nw);
  shift(g, sides[3], empty, -1, 0, nw);
  for (int i = 0; i < nw; i++) safe[i] = own[i] & ~own_atari[i];
  neighbours(g, beside_safe, safe, nw);
  neighbours(g, by_opponent, opponent_atari, nw);
  neighbours(g, by_own, own_atari, nw);
  for (int i = 0; i < nw; i++) {
    uint64_t extends = two_of_four(sides[0][i], sides[1][i], sides[2][i], sides[3][i]) | beside_safe[i];
    captures[i] = playable[i] & by_opponent[i];
    escapes[i] = playable[i] & by_own[i] & extends;
    quiet[i] = playable[i] & (extends | captures[i]);
  }
  if (s->last >= 0) {
    /* The last move's 3x3 neighbourhood, the chains in atari two steps from it, their liberties. */
    uint64_t threatened[MAX_WORDS], takeable[MAX_WORDS];
    const uint64_t *near = g->square[s->last];
    reach(g, near, own_atari, threatened, nw);
    reach(g, near, opponent_atari, takeable, nw);
    for (int i = 0; i < nw; i++) tier[i] = (captures[i] & takeable[i]) | (escapes[i] & threatened[i]);
    if (any(tier, nw)) return pick(tier, draw, points, nw);
    for (int i = 0; i < nw; i++) t[i] = quiet[i] & near[i];
    clear_bit(t, s->last);
    patterns_at(g, s, table, t, tier, nw);
    if (any(tier, nw)) return pick(tier, draw, points, nw);
  }
  for (int i = 0; i < nw; i++) tier[i] = captures[i] | escapes[i];
  if (any(tier, nw)) return pick(tier, draw, points, nw);
  if (any(quiet, nw)) return pick(quiet, draw, points, nw);
  return pick(playable, draw, points, nw);
}

/* ------------------------------------------------------------------ playouts */

/* The Tromp-Taylor owner of each point: +1 black, -1 white, 0 neither. */
INLINE void owners(const Geometry *g, const Playout *s, int8_t *out, int nw) {
  uint64_t empty[MAX_WORDS], reached[2][MAX_WORDS], around[MAX_WORDS];
  for (int i = 0; i < nw; i++) empty[i] = g->board[i] & ~(s->stones[0][i] | s->stones[1][i]);
  for (int c = 0; c < 2; c++) {
    uint64_t *x = reached[c];
    neighbours(g, x, s->stones[c], nw);
    for (int i = 0; i < nw; i++) x[i] &= empty[i];
    for (int grew = 1; grew;) {
      neighbours(g, around, x, nw);
      grew = 0;
      for (int i = 0; i < nw; i++) {
        uint64_t y = (x[i] | around[i]) & empty[i];
        grew |= y != x[i];
        x[i] = y;
      }
    }
  }
  for (int p = 0; p < g->points; p++) {
    int black = has_bit(s->stones[0], p) || (has_bit(reached[0], p) && !has_bit(reached[1], p));
    int white = has_bit(s->stones[1], p) || (has_bit(reached[1], p) && !has_bit(reached[0], p));
    out[p] = (int8_t)(black - white);
  }
}

INLINE void playouts(const Geometry *g, const GojaxPlayouts *job, Playout *s, int64_t begin, int64_t end,
                     int nw) {
  const int words = job->words, points = g->points;
  for (int64_t b = begin; b < end; b++) {
    setup(g, s, job->stones + b * 2 * words, words, nw);
    s->turn = job->turn[b] != 0; /* any other turn than 0 (black) reads as white */
    s->ko = job->ko_point[b] >= 0 && job->ko_point[b] < points ? job->ko_point[b] : -1;
    s->passes = job->passes[b];
    s->last = job->last[b] >= 0 && job->last[b] < points ? job->last[b] : -1;
    s->moves = 0;
    const uint32_t *draws = job->draws + b * job->max_moves;
    const int limit = job->limits[b];
    while (s->passes < 2 && s->moves < limit) {
      uint32_t draw = draws[s->moves < job->max_moves ? s->moves : job->max_moves - 1];
      play(g, s, choose(g, s, draw, job->heavy, job->patterns, nw), nw);
    }
    owners(g, s, job->owner + b * points, nw);
    uint32_t *first = job->first + b * 2 * words, *final = job->final + b * 2 * words;
    for (int c = 0; c < 2; c++)
      for (int k = 0; k < words; k++) {
        first[c * words + k] = (uint32_t)(s->first[c][k >> 1] >> (32 * (k & 1)));
        final[c * words + k] = (uint32_t)(s->stones[c][k >> 1] >> (32 * (k & 1)));
      }
  }
}

CLONES static void playouts_2(const Geometry *g, const GojaxPlayouts *job, Playout *s, int64_t begin, int64_t end) {
  playouts(g, job, s, begin, end, 2);
}
CLONES static void playouts_6(const Geometry *g, const GojaxPlayouts *job, Playout *s, int64_t begin, int64_t end) {
  playouts(g, job, s, begin, end, 6);
}
CLONES static void playouts_10(const Geometry *g, const GojaxPlayouts *job, Playout *s, int64_t begin, int64_t end) {
  playouts(g, job, s, begin, end, 10);
}

void gojax_playouts(const GojaxPlayouts *job, int64_t begin, int64_t end) {
  Geometry *g = malloc(sizeof *g);
  Playout *s = malloc(sizeof *s);
  if (g != NULL && s != NULL) {
    geometry(g, job->size);
    int points = job->size * job->size;
    if (points <= 128) playouts_2(g, job, s, begin, end);
    else if (points <= 384) playouts_6(g, job, s, begin, end);
    else playouts_10(g, job, s, begin, end);
  }
  free(g);
  free(s);
}
