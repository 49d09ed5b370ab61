/* gojax's native CPU kernels: chain analysis, move outcomes and ladder reads.
 *
 * The same answers as the XLA code of gojax/features (which stays the
 * reference and the path of accelerators), computed on a mailbox board
 * with plain loops. XLA calls them through the FFI handlers of ffi.c (the
 * jitted feature planes), Python through ctypes (the host functions of
 * gojax/_native), on a slice of a batch per thread; every function here is
 * pure and keeps its scratch memory on the stack or in thread-local
 * storage, so threads share nothing.
 *
 * Boards come as gojax bitboards: uint32[2, W] stones (black, white), point
 * p = row * N + col at bit p % 32 of word p / 32. The mailbox has a border
 * of EDGE cells: cell = (row + 1) * (N + 2) + col + 1, in the same order as
 * the points, so the lowest cell of a set is its lowest point.
 */
#include "kernels.h"

#include <string.h>

int32_t gojax_kernels_abi(void) { return GOJAX_KERNELS_ABI; }

#define MAX_STRIDE (MAX_SIZE + 2)
#define CELLS (MAX_STRIDE * MAX_STRIDE)
#define MAX_POINTS (MAX_SIZE * MAX_SIZE)

enum { EMPTY = 0, ATT = 1, DEF = 2, EDGE = 3 }; /* in a read: the attacker's and the runner's stones */
enum { MINE = 1, THEIRS = 2 };                   /* in the analysis: the mover's and the opponent's */
enum { CAPTURED = 1, ESCAPED = 2 };
enum { MODE_CAPTURE = 0, MODE_EXTEND = 1, MODE_DEFEND = 2 };

typedef struct {
  int size, stride, cells, points;
  int dirs[4];
  int cell_of[MAX_POINTS];
  int point_of[CELLS]; /* -1 on the border */
} Geometry;

static void geometry(Geometry *g, int size) {
  g->size = size;
  g->stride = size + 2;
  g->cells = g->stride * g->stride;
  g->points = size * size;
  g->dirs[0] = -g->stride;
  g->dirs[1] = g->stride;
  g->dirs[2] = -1;
  g->dirs[3] = 1;
  for (int c = 0; c < g->cells; c++) g->point_of[c] = -1;
  for (int p = 0; p < g->points; p++) {
    int c = (p / size + 1) * g->stride + p % size + 1;
    g->cell_of[p] = c;
    g->point_of[c] = p;
  }
}

/* The mailbox of one board: `first` colour index as 1, the other as 2. */
static void unpack(const Geometry *g, const uint32_t *stones, int words, int first, int8_t *board) {
  const uint32_t *ones = stones + first * words, *twos = stones + (1 - first) * words;
  memset(board, EDGE, (size_t)g->cells);
  for (int p = 0; p < g->points; p++) {
    int w = p >> 5, s = p & 31;
    board[g->cell_of[p]] = (int8_t)(((ones[w] >> s) & 1u) | (((twos[w] >> s) & 1u) << 1));
  }
}

/* `board` with the colours 1 and 2 swapped (the same board seen from the other side). */
static void swapped(const Geometry *g, const int8_t *board, int8_t *out) {
  for (int c = 0; c < g->cells; c++) {
    int v = board[c];
    out[c] = (int8_t)(v == EDGE ? EDGE : ((v << 1) | (v >> 1)) & 3);
  }
}

/* A thread's own scratch variable: `name` points at it. Its address is taken once and hidden
 * from the optimiser, so that the body reaches it through a plain pointer (in a shared library
 * every use of a thread-local variable by name may call __tls_get_addr). */
#define THREAD_SCRATCH(type, name)   \
  static __thread type name##_tls;   \
  type *name = &name##_tls;          \
  __asm__("" : "+r"(name))

/* ------------------------------------------------------------------ flood fills */

typedef struct {
  uint32_t stamp;
  uint32_t seen[CELLS];  /* stones of the chain being filled */
  uint32_t freed[CELLS]; /* liberties of the chain being filled */
  uint32_t mark_stamp;
  uint32_t mark[CELLS]; /* a caller's own marks */
  int stack[CELLS];
  int stones[CELLS];
  int n_stones;
  int libs[CELLS];
  int n_libs;
} Fill;

/* The chain through `cell`: its stones and liberties in f (overwritten by the next fill).
 * The fill stops once it has found `enough` liberties (returning that many; its stones are
 * then only part of the chain): `enough` says how far a caller's count matters. */
static uint32_t fresh_stamp(uint32_t *stamp, uint32_t *a, uint32_t *b) {
  if (++*stamp == 0) { /* wrapped: old marks could match the new stamps */
    memset(a, 0, sizeof(uint32_t) * CELLS);
    if (b) memset(b, 0, sizeof(uint32_t) * CELLS);
    *stamp = 1;
  }
  return *stamp;
}

static int chain_upto(const Geometry *g, const int8_t *b, int cell, Fill *f, int enough) {
  uint32_t stamp = fresh_stamp(&f->stamp, f->seen, f->freed);
  int8_t colour = b[cell];
  int top = 0;
  f->n_stones = 0;
  f->n_libs = 0;
  f->stack[top++] = cell;
  f->seen[cell] = stamp;
  while (top) {
    int c = f->stack[--top];
    f->stones[f->n_stones++] = c;
    for (int d = 0; d < 4; d++) {
      int q = c + g->dirs[d];
      if (b[q] == colour) {
        if (f->seen[q] != stamp) {
          f->seen[q] = stamp;
          f->stack[top++] = q;
        }
      } else if (b[q] == EMPTY && f->freed[q] != stamp) {
        f->freed[q] = stamp;
        f->libs[f->n_libs++] = q;
        if (f->n_libs >= enough) return f->n_libs;
      }
    }
  }
  return f->n_libs;
}

/* The empty points next to `cell`: a lower bound of its chain's liberties, which spares
 * the fills that only ask whether a chain has none, or only one. */
static inline int empty_beside(const Geometry *g, const int8_t *b, int cell) {
  return (b[cell + g->dirs[0]] == EMPTY) + (b[cell + g->dirs[1]] == EMPTY) + (b[cell + g->dirs[2]] == EMPTY) +
         (b[cell + g->dirs[3]] == EMPTY);
}

/* The whole chain through `cell`. */
static int chain(const Geometry *g, const int8_t *b, int cell, Fill *f) { return chain_upto(g, b, cell, f, CELLS); }

/* ------------------------------------------------------------------ the chase */

typedef struct {
  int8_t b[CELLS];
  int ko;      /* the cell the side to move may not play, or -1 */
  int libs[2]; /* after a runner's move that leaves it 2 liberties: them */
} Position;

static void copy(const Geometry *g, Position *to, const Position *from) {
  memcpy(to->b, from->b, (size_t)g->cells);
  to->ko = from->ko;
  to->libs[0] = from->libs[0];
  to->libs[1] = from->libs[1];
}

/* The runner as the chase has made it: its stones (a set that the runner's moves only grow, so
 * that a read goes back by restoring its size), and its liberty while it is in atari. */
typedef struct {
  int liberty; /* -1 when it has more */
  int n_stones;
  int stones[CELLS];
  uint16_t where[CELLS]; /* a stone's index in stones[]; anything elsewhere (checked against it) */
} Runner;

static inline int in_runner(const Runner *u, int cell) {
  unsigned i = u->where[cell];
  return i < (unsigned)u->n_stones && u->stones[i] == cell;
}

static inline void runner_add(Runner *u, int cell) {
  u->where[cell] = (uint16_t)u->n_stones;
  u->stones[u->n_stones++] = cell;
}

/* The runner as a whole fill found it (f: its stones and liberties). */
static void runner_from_fill(Runner *u, const Fill *f, int liberty) {
  u->n_stones = 0;
  for (int i = 0; i < f->n_stones; i++) runner_add(u, f->stones[i]);
  u->liberty = liberty;
}

typedef struct {
  const Geometry *g;
  Fill *f;
  int prey;         /* a stone of the runner (it stays one while the chase runs) */
  Runner *u;        /* the runner at the node being read */
  int limit;        /* rounds: an attacker to move after them has caught the runner */
  int moves;        /* moves tried */
  int over;         /* the budget ran out */
  int freed[CELLS]; /* the stones a move captured */
} Read;

/* The attacker plays `move`: 1 when it is a legal atari (the runner then has exactly one
 * liberty, r->u->liberty). `two`: the runner's two liberties when known (else NULL); an atari on
 * one of them leaves it the other, since the attacker's captures are never next to it (two
 * chains of one colour never touch). Else one fill of the runner finds its liberty and stones. */
static int attacker_move(Read *r, const Position *pos, int move, const int *two, Position *out) {
  const Geometry *g = r->g;
  if (move < 0 || pos->b[move] != EMPTY || move == pos->ko) return 0;
  copy(r->g, out, pos);
  out->b[move] = ATT;
  if (two && (move == two[0] || move == two[1])) {
    r->u->liberty = move == two[0] ? two[1] : two[0];
  } else {
    if (chain_upto(g, out->b, r->prey, r->f, 2) != 1) return 0;
    /* The fill found one liberty, so it went over the whole chain. */
    runner_from_fill(r->u, r->f, r->f->libs[0]);
  }
  int captured = 0, captured_cell = -1;
  for (int d = 0; d < 4; d++) {
    int q = move + g->dirs[d];
    if (out->b[q] == DEF && !in_runner(r->u, q) && !empty_beside(g, out->b, q) &&
        chain_upto(g, out->b, q, r->f, 1) == 0) {
      for (int i = 0; i < r->f->n_stones; i++) out->b[r->f->stones[i]] = EMPTY;
      captured += r->f->n_stones;
      captured_cell = q;
    }
  }
  if (captured == 0 && empty_beside(g, out->b, move)) { /* legal, no ko: no fill needed */
    out->ko = -1;
    return 1;
  }
  int libs = chain_upto(g, out->b, move, r->f, 2);
  out->ko = (captured == 1 && r->f->n_stones == 1 && libs == 1) ? captured_cell : -1;
  return libs >= 1;
}

/* Adds `cell` to the liberties being counted (marked with `stamp`): the count, kept to at most 3
 * (the runner escapes with 3), the first two in `at`. */
static inline int count_liberty(Fill *f, uint32_t stamp, int cell, int n, int *at) {
  if (n >= 3 || f->mark[cell] == stamp) return n;
  f->mark[cell] = stamp;
  if (n < 2) at[n] = cell;
  return n + 1;
}

/* The runner's liberties (up to 3, the first two in `at`) after its side played `move`, on `b`,
 * from the runner in atari before it (r->u, grown here by `move` and the chains it joins) and the
 * `n_freed` stones the move captured (r->freed). `b` is only borrowed: a joining chain is
 * filled with `move` taken off for the while. */
static int liberties_after_runner(Read *r, int8_t *b, int move, int n_freed, int *at) {
  const Geometry *g = r->g;
  Fill *f = r->f;
  Runner *u = r->u;
  int joins = 0, n = 0;
  for (int d = 0; d < 4; d++) joins |= in_runner(u, move + g->dirs[d]);
  uint32_t stamp = fresh_stamp(&f->mark_stamp, f->mark, NULL);
  if (joins) { /* move was the one liberty: the runner's liberties are all new */
    runner_add(u, move);
    for (int d = 0; d < 4; d++) {
      int q = move + g->dirs[d];
      if (b[q] == EMPTY) {
        n = count_liberty(f, stamp, q, n, at);
      } else if (b[q] == DEF && !in_runner(u, q)) { /* another chain joins: filled without move */
        b[move] = EMPTY;
        chain(g, b, q, f);
        b[move] = DEF;
        for (int i = 0; i < f->n_stones; i++) runner_add(u, f->stones[i]);
        for (int i = 0; i < f->n_libs; i++)
          if (f->libs[i] != move) n = count_liberty(f, stamp, f->libs[i], n, at);
      }
    }
  } else if (u->liberty != move) {
    n = count_liberty(f, stamp, u->liberty, n, at);
  }
  for (int i = 0; i < n_freed && n < 3; i++) {
    int c = r->freed[i], next = 0;
    for (int d = 0; d < 4; d++) next |= in_runner(u, c + g->dirs[d]);
    if (next) n = count_liberty(f, stamp, c, n, at);
  }
  return n;
}

/* The runner's side plays `move`: the runner's liberties after it, up to 3 (0 when illegal);
 * with exactly 2, them in out->libs, lowest first. A runner in atari (r->u->liberty) is followed
 * move by move; another one (a read's start) is filled whole. */
static int runner_move(Read *r, const Position *pos, int move, Position *out) {
  const Geometry *g = r->g;
  if (move < 0 || pos->b[move] != EMPTY || move == pos->ko) return 0;
  copy(r->g, out, pos);
  int alone = 1;
  for (int d = 0; d < 4; d++) alone &= pos->b[move + g->dirs[d]] != DEF;
  out->b[move] = DEF;
  int taken = 0, taken_cell = -1;
  for (int d = 0; d < 4; d++) {
    int q = move + g->dirs[d];
    if (out->b[q] == ATT && !empty_beside(g, out->b, q) && chain_upto(g, out->b, q, r->f, 1) == 0) {
      for (int i = 0; i < r->f->n_stones; i++) {
        out->b[r->f->stones[i]] = EMPTY;
        r->freed[taken + i] = r->f->stones[i];
      }
      taken += r->f->n_stones;
      taken_cell = q;
    }
  }
  int free_around = 0;
  for (int d = 0; d < 4; d++) free_around += out->b[move + g->dirs[d]] == EMPTY;
  out->ko = (alone && free_around == 1 && taken == 1) ? taken_cell : -1;
  int at[2], libs;
  if (r->u->liberty >= 0) {
    libs = liberties_after_runner(r, out->b, move, taken, at);
  } else {
    libs = chain(g, out->b, r->prey, r->f);
    runner_from_fill(r->u, r->f, libs == 1 ? r->f->libs[0] : -1);
    at[0] = libs >= 2 ? r->f->libs[0] : -1;
    at[1] = libs >= 2 ? r->f->libs[1] : -1;
  }
  if (libs == 2) {
    out->libs[0] = at[0] < at[1] ? at[0] : at[1];
    out->libs[1] = at[0] < at[1] ? at[1] : at[0];
  }
  return libs;
}

/* A read's moves: past LADDER_BUDGET tried, the runner is not captured (KataGo's node budget). */
#define LADDER_BUDGET 25000

static int spend(Read *r) {
  if (r->moves >= LADDER_BUDGET) r->over = 1;
  else r->moves++;
  return !r->over;
}

static int attacker_wins(Read *r, const Position *pos, int round, const int *ataris, int n, const int *two);

/* The runner's moves, in the order they are tried: its liberties, then (with `captures`)
 * the liberty of every adjacent attacker chain in atari, each list lowest first. `known`:
 * pos is the position attacker_move just made (r->u holds the runner); else the runner is
 * filled here. */
static int runner_options(Read *r, const Position *pos, int captures, int known, int16_t *options) {
  const Geometry *g = r->g;
  Fill *f = r->f;
  int n = 0;
  if (known) {
    options[n++] = (int16_t)r->u->liberty;
  } else {
    int libs = chain(g, pos->b, r->prey, f);
    for (int i = 0; i < libs; i++) options[n++] = (int16_t)f->libs[i];
    runner_from_fill(r->u, f, libs == 1 ? f->libs[0] : -1); /* the fills below overwrite f */
  }
  for (int i = 1; i < n; i++) /* sorted, lowest first */
    for (int j = i; j > 0 && options[j] < options[j - 1]; j--) {
      int16_t t = options[j];
      options[j] = options[j - 1];
      options[j - 1] = t;
    }
  if (!captures) return n;
  int first = n;
  uint32_t stamp = fresh_stamp(&f->mark_stamp, f->mark, NULL);
  for (int i = 0; i < n; i++) f->mark[options[i]] = stamp; /* taken: the runner's liberties */
  const int *runner = r->u->stones;
  for (int i = 0, stones = r->u->n_stones; i < stones; i++) {
    for (int d = 0; d < 4; d++) {
      int q = runner[i] + g->dirs[d];
      if (pos->b[q] != ATT || f->mark[q] == stamp || empty_beside(g, pos->b, q) >= 2) continue;
      int at = chain_upto(g, pos->b, q, f, 2) == 1 ? f->libs[0] : -1;
      for (int k = 0; k < f->n_stones; k++) f->mark[f->stones[k]] = stamp; /* looked at */
      if (at >= 0 && f->mark[at] != stamp) {
        f->mark[at] = stamp;
        int j = n++;
        for (; j > first && options[j - 1] > at; j--) options[j] = options[j - 1];
        options[j] = (int16_t)at;
      }
    }
  }
  return n;
}

/* The runner, in atari, to move (in round `round`): 1 when every one of its moves fails:
 * it is captured. A move fails when it leaves the runner at most one liberty, or two from
 * which the attacker wins; it escapes with three or more. */
static int runner_caught(Read *r, const Position *pos, int round, int captures, int known) {
  int16_t options[MAX_POINTS]; /* cells fit in 16 bits: 1.25 KiB a node on the stack */
  int n = runner_options(r, pos, captures, known, options);
  int stones = r->u->n_stones, liberty = r->u->liberty; /* the runner here, for each move */
  for (int i = 0; i < n; i++) {
    if (!spend(r)) return 0;
    Position after;
    r->u->n_stones = stones;
    r->u->liberty = liberty;
    int libs = runner_move(r, pos, options[i], &after);
    if (libs >= 3) return 0;
    if (libs == 2) {
      int ataris[2] = {after.libs[0], after.libs[1]};
      if (!attacker_wins(r, &after, round + 1, ataris, 2, ataris)) return 0;
    }
    if (r->over) return 0;
  }
  return 1;
}

/* The attacker to move in round `round` (the runner has two liberties, `two` when known),
 * trying `ataris` in turn: 1 when one of them captures. After the last round the runner counts
 * as captured. An atari that is illegal, leaves the runner more than one liberty, or takes a
 * ko (the runner has the ko fight: no ladder) fails. */
static int attacker_wins(Read *r, const Position *pos, int round, const int *ataris, int n, const int *two) {
  if (round == r->limit) return 1;
  int stones = r->u->n_stones, liberty = r->u->liberty;
  for (int i = 0; i < n; i++) {
    if (!spend(r)) return 0;
    Position attacked;
    r->u->n_stones = stones;
    r->u->liberty = liberty;
    if (!attacker_move(r, pos, ataris[i], two, &attacked) || attacked.ko >= 0) continue;
    if (runner_caught(r, &attacked, round, 1, 1)) return 1;
    if (r->over) return 0;
  }
  return 0;
}

/* The whole read: CAPTURED or ESCAPED. `pos` is the starting position. */
static int read_ladder(const Geometry *g, Fill *f, Position *pos, int prey, int mode, int first_move) {
  THREAD_SCRATCH(Read, r);
  THREAD_SCRATCH(Runner, u);
  r->g = g;
  r->f = f;
  r->prey = prey;
  r->u = u;
  r->limit = 2 * g->size + 1;
  r->moves = r->over = 0;
  u->n_stones = 0;
  u->liberty = -1;
  int caught = mode == MODE_CAPTURE ? attacker_wins(r, pos, 0, &first_move, 1, NULL)
                                    : runner_caught(r, pos, 0, mode != MODE_EXTEND, 0);
  return caught && !r->over ? CAPTURED : ESCAPED;
}

/* ------------------------------------------------------------------ ladder reads, one by one */

/* Reads [begin, end) of `reads` (see kernels.h): the attacker is the side to move where
 * mover_attacks, else the other; `mode` 0 capture (the attacker first, at first_move), 1
 * extend, 2 defend (the runner first: its extension only, or all its options); `prey` a point
 * of the runner. The board's ko point binds the first move when the side to move makes it.
 * out[read.out] = 1 when the runner is captured (0 too when prey is not a stone of the
 * runner's colour, or not a point of the board). A turn other than 0 is white's; a ko point
 * or a first move off the board is none. */
void gojax_ladder_read_list(int32_t size, int32_t words, const GojaxLadderRead *reads, int64_t begin,
                            int64_t end, uint8_t *out) {
  Geometry g;
  THREAD_SCRATCH(Fill, f); /* large: one per thread, not on the stack */
  Position pos;
  geometry(&g, size);
  for (int64_t k = begin; k < end; k++) {
    const GojaxLadderRead *read = reads + k;
    int t = read->turn != 0, mode = read->mode;
    int attacker = read->mover_attacks ? t : 1 - t;
    int first = mode == MODE_CAPTURE ? attacker : 1 - attacker;
    int ko = first == t ? read->ko_point : -1;
    if (read->prey < 0 || read->prey >= g.points || mode < MODE_CAPTURE || mode > MODE_DEFEND) {
      out[read->out] = 0;
      continue;
    }
    unpack(&g, read->stones, words, attacker, pos.b);
    pos.ko = ko >= 0 && ko < g.points ? g.cell_of[ko] : -1;
    int runner = g.cell_of[read->prey];
    int move = read->first_move;
    move = mode == MODE_CAPTURE && move >= 0 && move < g.points ? g.cell_of[move] : -1;
    out[read->out] = pos.b[runner] == DEF && read_ladder(&g, f, &pos, runner, mode, move) == CAPTURED;
  }
}

/* Reads of `n` ladders (gojax_ladder_read_list's): read k is of game games[k] (stones
 * uint32[G, 2, W], turn and ko point int32[G]), with modes[k], mover_attacks[k],
 * first_moves[k] and prey[k]; out[k] its result. */
void gojax_ladder_reads(int64_t n, int32_t size, int32_t words, const uint32_t *stones, const int32_t *turn,
                        const int32_t *ko_point, const int32_t *games, const int32_t *modes,
                        const uint8_t *mover_attacks, const int32_t *first_moves, const int32_t *prey,
                        uint8_t *out) {
  enum { BLOCK = 256 };
  GojaxLadderRead block[BLOCK];
  for (int64_t start = 0; start < n; start += BLOCK) {
    int64_t count = n - start < BLOCK ? n - start : BLOCK;
    for (int64_t i = 0; i < count; i++) {
      int64_t k = start + i, game = games[k];
      block[i] = (GojaxLadderRead){stones + game * 2 * words, turn[game], ko_point[game], modes[k],
                                   mover_attacks[k], first_moves[k], prey[k], k};
    }
    gojax_ladder_read_list(size, words, block, 0, count, out);
  }
}

/* ------------------------------------------------------------------ chains and move outcomes */

typedef struct {
  int label[CELLS]; /* chain index of a stone, -1 elsewhere */
  int n;
  int size[MAX_POINTS], libs[MAX_POINTS], colour[MAX_POINTS], stone[MAX_POINTS];
  int lib_start[MAX_POINTS + 1];
  int lib_cells[4 * MAX_POINTS];
} Chains;

static void analyse(const Geometry *g, const int8_t *b, Chains *c, Fill *f) {
  for (int i = 0; i < g->cells; i++) c->label[i] = -1;
  c->n = 0;
  c->lib_start[0] = 0;
  for (int p = 0; p < g->points; p++) {
    int cell = g->cell_of[p];
    if (b[cell] == EMPTY || c->label[cell] >= 0) continue;
    int k = c->n++, libs = chain(g, b, cell, f);
    for (int i = 0; i < f->n_stones; i++) c->label[f->stones[i]] = k;
    c->size[k] = f->n_stones;
    c->libs[k] = libs;
    c->colour[k] = b[cell];
    c->stone[k] = cell;
    memcpy(c->lib_cells + c->lib_start[k], f->libs, sizeof(int) * (size_t)libs);
    c->lib_start[k + 1] = c->lib_start[k] + libs;
  }
}

/* The distinct chains next to an empty cell: a colour's own and the other colour's. */
typedef struct {
  int own[4], n_own;
  int other[4], n_other;
} Around;

static void around(const Geometry *g, const Chains *c, const int8_t *b, int cell, int colour, Around *a) {
  a->n_own = a->n_other = 0;
  for (int d = 0; d < 4; d++) {
    int q = cell + g->dirs[d];
    if (b[q] == EMPTY || b[q] == EDGE) continue;
    int k = c->label[q], fresh = 1;
    int *list = b[q] == colour ? a->own : a->other, *n = b[q] == colour ? &a->n_own : &a->n_other;
    for (int i = 0; i < *n; i++) fresh &= list[i] != k;
    if (fresh) list[(*n)++] = k;
  }
}

/* Liberties of the chain of a `colour` stone at the empty `cell` (`a`: the chains around it,
 * `colour`'s own), after the chains it captures (the other colour's in atari next to it)
 * when `captures`, else as if none were. */
static int liberties_after_around(const Geometry *g, const Chains *c, const int8_t *b, int cell,
                                  const Around *a, int captures, Fill *f) {
  const int *joined = a->own;
  int n_joined = a->n_own;
  int taken[4], n_taken = 0;
  for (int i = 0; i < a->n_other && captures; i++)
    if (c->libs[a->other[i]] == 1) taken[n_taken++] = a->other[i];
  if (n_taken == 0 && n_joined <= 1) {
    /* Joining at most one chain k, capturing nothing: k's liberties but `cell`, and the empty
     * points beside `cell` that are not already k's (none of their neighbours is k's). */
    int k = n_joined ? joined[0] : -1, count = k >= 0 ? c->libs[k] - 1 : 0;
    for (int d = 0; d < 4; d++) {
      int e = cell + g->dirs[d], known = 0;
      if (b[e] != EMPTY) continue;
      for (int d2 = 0; d2 < 4 && k >= 0; d2++) known |= c->label[e + g->dirs[d2]] == k;
      count += !known;
    }
    return count;
  }
  uint32_t stamp = fresh_stamp(&f->mark_stamp, f->mark, NULL);
  int count = 0;
  f->mark[cell] = stamp;
  for (int d = 0; d < 4; d++) {
    int q = cell + g->dirs[d];
    if (b[q] == EMPTY && f->mark[q] != stamp) f->mark[q] = stamp, count++;
  }
  for (int i = 0; i < n_joined; i++) {
    int k = joined[i];
    for (int j = c->lib_start[k]; j < c->lib_start[k + 1]; j++) {
      int q = c->lib_cells[j];
      if (f->mark[q] != stamp) f->mark[q] = stamp, count++;
    }
  }
  for (int i = 0; i < n_taken; i++) {
    chain(g, b, c->stone[taken[i]], f);
    for (int s = 0; s < f->n_stones; s++) {
      int y = f->stones[s], touches = 0;
      for (int d = 0; d < 4; d++) {
        int q = y + g->dirs[d];
        if (q == cell) touches = 1;
        for (int j = 0; j < n_joined; j++) touches |= c->label[q] == joined[j];
      }
      if (touches && f->mark[y] != stamp) f->mark[y] = stamp, count++;
    }
  }
  return count;
}

static int liberties_after(const Geometry *g, const Chains *c, const int8_t *b, int cell, int colour,
                           int captures, Fill *f) {
  Around a;
  around(g, c, b, cell, colour, &a);
  return liberties_after_around(g, c, b, cell, &a, captures, f);
}

/* Board `game` of a batch set up: `mine` with the mover's stones as 1 (MINE, ATT in a
 * read), `theirs` with the colours swapped, both with the ko cell; its chains in c. A turn
 * other than 0 is white's; a ko point off the board is none. */
static void set_up(const Geometry *g, const uint32_t *stones, int words, const int32_t *turn,
                   const int32_t *ko_point, int64_t game, Position *mine, Position *theirs, Chains *c,
                   Fill *f) {
  int ko = ko_point[game];
  unpack(g, stones + game * 2 * words, words, turn[game] != 0, mine->b);
  swapped(g, mine->b, theirs->b);
  mine->ko = theirs->ko = ko >= 0 && ko < g->points ? g->cell_of[ko] : -1;
  analyse(g, mine->b, c, f);
}

/* Board `game` set up (set_up) for its tables: its `rows` rows of `out` zeroed and returned. */
static int16_t *board_of(const Geometry *g, const uint32_t *stones, int words, const int32_t *turn,
                         const int32_t *ko_point, int64_t game, int rows, int16_t *out, Position *mine,
                         Position *theirs, Chains *c, Fill *f) {
  int16_t *o = out + game * rows * g->points;
  memset(o, 0, sizeof(int16_t) * (size_t)rows * (size_t)g->points);
  set_up(g, stones, words, turn, ko_point, game, mine, theirs, c, f);
  return o;
}

enum {
  T_LIBERTIES,
  T_CAPTURE,
  T_SELF_ATARI,
  T_LIBERTIES_AFTER,
  T_LADDER_CAPTURE,
  T_LADDER_ESCAPE,
  T_EYES,
  TABLES
};
_Static_assert(TABLES == GOJAX_ALPHAGO_TABLES, "kernels.h's alphago rows");

/* An empty cell is the mover's eye (gojax.features.mover_eyes): every neighbour on the board
 * is a mover's stone, and the opponent holds none of its diagonals when one is off the board,
 * else at most one. */
static int mover_eye(const Geometry *g, const int8_t *b, int cell) {
  for (int d = 0; d < 4; d++)
    if (b[cell + g->dirs[d]] != MINE && b[cell + g->dirs[d]] != EDGE) return 0;
  int s = g->stride, off = 0, theirs = 0;
  const int diagonals[4] = {-s - 1, -s + 1, s - 1, s + 1};
  for (int d = 0; d < 4; d++) {
    off |= b[cell + diagonals[d]] == EDGE;
    theirs += b[cell + diagonals[d]] == THEIRS;
  }
  return theirs <= (off ? 0 : 1);
}

/* The AlphaGo planes' tables of one board set up by board_of (its chains in c), into o
 * (int16[TABLES, P], zeroed), per point: the liberties of its stone's chain; what a
 * mover's stone at an empty point would capture, its chain's size if left in atari, its
 * liberties (with captures); whether it captures an opponent chain of 2 liberties by
 * ladder and whether it saves a mover's chain in atari from one (not masked by legality);
 * whether it is the mover's eye. As gojax.features._alphago computes them in XLA. */
static void alphago_board(const Geometry *g, const Position *mine, const Position *theirs, Position *pos,
                          const Chains *c, Fill *f, int16_t *o) {
  int points = g->points;
  const int8_t *b = mine->b;
  for (int p = 0; p < points; p++) {
    int cell = g->cell_of[p];
    if (b[cell] != EMPTY) {
      o[T_LIBERTIES * points + p] = (int16_t)c->libs[c->label[cell]];
      continue;
    }
    Around a;
    around(g, c, b, cell, MINE, &a);
    int after = liberties_after_around(g, c, b, cell, &a, 1, f);
    const int *near = a.other, *own = a.own;
    int n = a.n_other, n_own = a.n_own, captured = 0, joined = 1;
    for (int i = 0; i < n; i++) captured += c->libs[near[i]] == 1 ? c->size[near[i]] : 0;
    for (int i = 0; i < n_own; i++) joined += c->size[own[i]];
    o[T_CAPTURE * points + p] = (int16_t)captured;
    o[T_SELF_ATARI * points + p] = (int16_t)(after == 1 ? joined : 0);
    o[T_LIBERTIES_AFTER * points + p] = (int16_t)after;
    /* Ladder captures: the atari at p on an opponent chain with liberties p and q. The
     * runner's extension at q keeps at most its liberties there ignoring captures, less
     * p: with 3 or more it is out, no read needed. */
    int won = 0;
    for (int i = 0; i < n && !won; i++) {
      int k = near[i];
      if (c->libs[k] != 2) continue;
      const int *libs = c->lib_cells + c->lib_start[k];
      int q = libs[0] == cell ? libs[1] : libs[0];
      if (liberties_after(g, c, b, q, THEIRS, 0, f) - 1 > 2) continue;
      copy(g, pos, mine);
      won = read_ladder(g, f, pos, c->stone[k], MODE_CAPTURE, cell) == CAPTURED;
    }
    o[T_LADDER_CAPTURE * points + p] = (int16_t)won;
    /* Ladder escapes: the extension of a mover's chain in atari on its liberty p, out
     * with 3 or more liberties, chased with 2. */
    int saved = 0;
    for (int i = 0; i < n_own && !saved; i++) {
      int k = own[i];
      if (c->libs[k] != 1 || after < 2) continue;
      if (after >= 3) {
        saved = 1;
        continue;
      }
      copy(g, pos, theirs);
      saved = read_ladder(g, f, pos, c->stone[k], MODE_EXTEND, -1) != CAPTURED;
    }
    o[T_LADDER_ESCAPE * points + p] = (int16_t)saved;
    o[T_EYES * points + p] = (int16_t)mover_eye(g, b, cell);
  }
}

/* The tables of alphago_board for boards [begin, end): out int16[B, TABLES, P]. */
void gojax_alphago_tables(int64_t begin, int64_t end, int32_t size, int32_t words, const uint32_t *stones,
                          const int32_t *turn, const int32_t *ko_point, int16_t *out) {
  Geometry g;
  THREAD_SCRATCH(Fill, f);
  THREAD_SCRATCH(Chains, c);
  Position mine, theirs, pos;
  geometry(&g, size);
  for (int64_t game = begin; game < end; game++) {
    int16_t *o = board_of(&g, stones, words, turn, ko_point, game, TABLES, out, &mine, &theirs, c, f);
    alphago_board(&g, &mine, &theirs, &pos, c, f, o);
  }
}

/* The one-hot planes of AlphaGo's integer features (gojax.features.one_hot_planes): plane k
 * of `planes` set where the value is k + 1, the last where it is `planes` or more. */
static inline void one_hot(uint8_t *at, int value, int planes) {
  if (value > 0) at[(value < planes ? value : planes) - 1] = 1;
}

enum { ONE_HOT = 8 };

/* AlphaGo's 48 planes (49 with the player's colour) of boards [begin, end), written whole:
 * out uint8[B, P, channels], channels last in gojax.features.ALPHAGO_CHANNELS' order. Per
 * board, `standing` uint32[8, W] (gojax.features._blocks._standing: entry k the stones
 * standing in their colour for the last k + 1 boards) gives the turns-since planes and
 * `legal` uint8[P] (the legal moves, superko included) masks the move planes. */
void gojax_alphago_planes(int64_t begin, int64_t end, int32_t size, int32_t words, const uint32_t *stones,
                          const int32_t *turn, const int32_t *ko_point, const uint32_t *standing,
                          const uint8_t *legal, int32_t channels, uint8_t *out) {
  Geometry g;
  THREAD_SCRATCH(Fill, f);
  THREAD_SCRATCH(Chains, c);
  static __thread int16_t tables_tls[TABLES * CELLS];
  int16_t *tables = tables_tls;
  __asm__("" : "+r"(tables));
  Position mine, theirs, pos;
  geometry(&g, size);
  int points = g.points;
  for (int64_t game = begin; game < end; game++) {
    memset(tables, 0, sizeof(int16_t) * TABLES * (size_t)points);
    set_up(&g, stones, words, turn, ko_point, game, &mine, &theirs, c, f);
    alphago_board(&g, &mine, &theirs, &pos, c, f, tables);
    const uint32_t *old = standing + game * 8 * words;
    const uint8_t *ok = legal + game * points;
    uint8_t *o = out + game * points * channels;
    memset(o, 0, (size_t)points * (size_t)channels);
    /* Turns since: plane k the stones standing for k + 1 boards and not k + 2 (the last plane 8
     * or more): each stone in one plane, so only the stones are visited. */
    for (int k = 0; k < 8; k++)
      for (int w = 0; w < words; w++) {
        uint32_t bits = old[k * words + w] & (k < 7 ? ~old[(k + 1) * words + w] : ~0u);
        for (; bits; bits &= bits - 1) {
          int p = w * 32 + __builtin_ctz(bits);
          if (p < points) o[p * channels + 4 + k] = 1;
        }
      }
    for (int p = 0; p < points; p++, o += channels) {
      int8_t v = mine.b[g.cell_of[p]];
      o[0] = v == MINE;
      o[1] = v == THEIRS;
      o[2] = v == EMPTY;
      o[3] = 1;
      one_hot(o + 12, tables[T_LIBERTIES * points + p], ONE_HOT);
      if (ok[p]) {
        one_hot(o + 20, tables[T_CAPTURE * points + p], ONE_HOT);
        one_hot(o + 28, tables[T_SELF_ATARI * points + p], ONE_HOT);
        one_hot(o + 36, tables[T_LIBERTIES_AFTER * points + p], ONE_HOT);
        o[44] = tables[T_LADDER_CAPTURE * points + p] != 0;
        o[45] = tables[T_LADDER_ESCAPE * points + p] != 0;
        o[46] = tables[T_EYES * points + p] == 0;
      }
      if (channels > 48) o[48] = turn[game] == 0;
    }
  }
}

enum { K_LADDERABLE, K_LADDER_MOVES, K_LIBERTIES, K_NOT_SUICIDE, KATAGO_TABLES };
_Static_assert(KATAGO_TABLES == GOJAX_KATAGO_TABLES, "kernels.h's katago rows");

/* KataGo's ladder features of boards [begin, end) (as gojax.features.ladders._katago):
 * out int16[B, KATAGO_TABLES, P], per point: its stone's chain is ladderable (1 liberty:
 * its owner, to move, cannot get out by extending or capturing; 2 liberties: the
 * opponent, to move, captures it by a ladder from either liberty); the mover's atari
 * there starts a working ladder on an opponent chain (not masked by legality); the
 * liberties of its stone's chain; a mover's stone there would have a liberty. Where
 * want_moves[game] is 0 the ladder moves are left 0, and a two-liberty chain is read from
 * its second liberty only when the first atari fails (all its ladderable flag needs). */
void gojax_katago_tables(int64_t begin, int64_t end, int32_t size, int32_t words, const uint32_t *stones,
                         const int32_t *turn, const int32_t *ko_point, const int32_t *want_moves,
                         int16_t *out) {
  Geometry g;
  THREAD_SCRATCH(Fill, f);
  THREAD_SCRATCH(Chains, c);
  Position mine, theirs, pos;
  geometry(&g, size);
  int points = g.points;
  for (int64_t game = begin; game < end; game++) {
    int16_t *o = board_of(&g, stones, words, turn, ko_point, game, KATAGO_TABLES, out, &mine, &theirs, c, f);
    const int8_t *b = mine.b;
    int ko = mine.ko, wanted = want_moves[game] != 0;
    uint8_t laddered[MAX_POINTS];
    for (int k = 0; k < c->n; k++) {
      laddered[k] = 0;
      int libs = c->libs[k];
      if (libs != 1 && libs != 2) continue;
      /* The attacker: the mover where the chain is the opponent's. The side to move's
       * first move is bound by the ko point. */
      int mover_attacks = c->colour[k] == THEIRS;
      const Position *start = mover_attacks ? &mine : &theirs;
      const int *lib = c->lib_cells + c->lib_start[k];
      if (libs == 1) {
        copy(&g, &pos, start);
        pos.ko = mover_attacks ? -1 : ko; /* the owner moves first */
        laddered[k] = read_ladder(&g, f, &pos, c->stone[k], MODE_DEFEND, -1) == CAPTURED;
        continue;
      }
      int low = lib[0] < lib[1] ? lib[0] : lib[1], high = lib[0] < lib[1] ? lib[1] : lib[0];
      int ataris[2] = {low, high}, others[2] = {high, low};
      for (int i = 0; i < 2; i++) {
        /* Once the chain is known ladderable, only the mover's working ataris are still wanted. */
        if (laddered[k] && !(mover_attacks && wanted)) break;
        /* The runner's extension on the other liberty keeps 3+ liberties even ignoring
         * captures: the atari cannot work. */
        if (liberties_after(&g, c, b, others[i], c->colour[k], 0, f) - 1 > 2) continue;
        copy(&g, &pos, start);
        pos.ko = mover_attacks ? ko : -1; /* the attacker moves first */
        if (read_ladder(&g, f, &pos, c->stone[k], MODE_CAPTURE, ataris[i]) == CAPTURED) {
          laddered[k] = 1;
          if (mover_attacks && wanted) o[K_LADDER_MOVES * points + g.point_of[ataris[i]]] = 1;
        }
      }
    }
    for (int p = 0; p < points; p++) {
      int cell = g.cell_of[p];
      if (b[cell] != EMPTY) {
        int k = c->label[cell];
        o[K_LADDERABLE * points + p] = laddered[k];
        o[K_LIBERTIES * points + p] = (int16_t)c->libs[k];
        continue;
      }
      int alive = 0;
      for (int d = 0; d < 4; d++) {
        int q = cell + g.dirs[d];
        if (b[q] == EMPTY) alive = 1;
        else if (b[q] == THEIRS) alive |= c->libs[c->label[q]] == 1;
        else if (b[q] == MINE) alive |= c->libs[c->label[q]] >= 2;
      }
      o[K_NOT_SUICIDE * points + p] = (int16_t)alive;
    }
  }
}

/* ------------------------------------------------------------------ Benson's pass-alive analysis */

enum { B_ALIVE, B_SMALL, B_SAFE_BIG, B_UNSAFE_BIG, BENSON_MARKS };
_Static_assert(BENSON_MARKS == GOJAX_BENSON_MARKS, "kernels.h's benson marks");

typedef struct {
  int16_t parent[MAX_POINTS]; /* union-find of the provisional labels: a set's root is its lowest */
  int16_t first[MAX_POINTS];  /* a root's final number, -1 before its set is met */
  int label[CELLS];      /* a pla stone's chain, any other point's region (b says which) */
  int n_chains, n_regions;
  int candidates[MAX_POINTS][4], n_candidates[MAX_POINTS];
  uint8_t vital[MAX_POINTS][4], has_checked[MAX_POINTS];
  int border_start[MAX_POINTS + 1];
  int border[4 * MAX_POINTS]; /* the pla chains next to each region (with repeats) */
  uint8_t alive[MAX_POINTS], healthy[MAX_POINTS], has_opp[MAX_POINTS];
  int internal[MAX_POINTS], votes[MAX_POINTS];
} Benson;

static inline int benson_root(int16_t *parent, int x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]]; /* path halving */
    x = parent[x];
  }
  return x;
}

/* Chains of pla (1) and regions (every other point) labelled in point order, so that a
 * component's number follows its lowest point. One raster pass gives each point a provisional
 * label, its left neighbour's or its upper neighbour's when of the same kind (joining the two
 * labels when both are), else a new one; a second pass numbers each joined set where it first
 * appears. Returns whether pla has a stone. */
static int benson_label(const Geometry *g, const int8_t *b, Benson *s) {
  int size = g->size, stride = g->stride, any_pla = 0, n = 0;
  int16_t *parent = s->parent, *first = s->first;
  for (int row = 0, cell = stride + 1; row < size; row++, cell += 2)
    for (int col = 0; col < size; col++, cell++) {
      int pla = b[cell] == 1;
      int left = col > 0 && (b[cell - 1] == 1) == pla ? s->label[cell - 1] : -1;
      int up = row > 0 && (b[cell - stride] == 1) == pla ? s->label[cell - stride] : -1;
      if (left < 0 && up < 0) {
        parent[n] = (int16_t)n;
        first[n] = -1;
        left = n++;
      } else if (left < 0) {
        left = up;
      } else if (up >= 0 && up != left) {
        int a = benson_root(parent, left), c = benson_root(parent, up);
        if (a != c) parent[a > c ? a : c] = (int16_t)(a > c ? c : a);
      }
      s->label[cell] = left;
    }
  s->n_chains = s->n_regions = 0;
  for (int row = 0, cell = stride + 1; row < size; row++, cell += 2)
    for (int col = 0; col < size; col++, cell++) {
      int root = benson_root(parent, s->label[cell]), pla = b[cell] == 1;
      any_pla |= pla;
      if (first[root] >= 0) {
        int r = s->label[cell] = first[root];
        if (!pla) s->has_opp[r] |= b[cell] == 2;
      } else if (pla) {
        s->label[cell] = first[root] = (int16_t)s->n_chains++;
      } else {
        int r = s->label[cell] = first[root] = (int16_t)s->n_regions++;
        s->has_opp[r] = b[cell] == 2;
        s->n_candidates[r] = s->has_checked[r] = 0;
        s->internal[r] = 0;
      }
    }
  return any_pla;
}

/* Each region's candidate vital chains (the pla chains next to its first checked point, which
 * every later checked point must touch too) and internal points (next to no pla stone). */
static void benson_vital(const Geometry *g, const int8_t *b, int suicide, Benson *s) {
  for (int p = 0; p < g->points; p++) {
    int cell = g->cell_of[p];
    if (b[cell] == 1) continue;
    int r = s->label[cell], near[4], n_near = 0;
    for (int d = 0; d < 4; d++) {
      int q = cell + g->dirs[d];
      if (b[q] == 1) near[n_near++] = s->label[q];
    }
    s->internal[r] += n_near == 0;
    if (!(suicide || b[cell] == EMPTY)) continue;
    if (!s->has_checked[r]) { /* the head: its distinct chains */
      s->has_checked[r] = 1;
      for (int j = 0; j < n_near; j++) {
        int fresh = 1;
        for (int i = 0; i < s->n_candidates[r]; i++) fresh &= s->candidates[r][i] != near[j];
        if (fresh) {
          s->vital[r][s->n_candidates[r]] = 1;
          s->candidates[r][s->n_candidates[r]++] = near[j];
        }
      }
      continue;
    }
    for (int i = 0; i < s->n_candidates[r]; i++) {
      int touches = 0;
      for (int j = 0; j < n_near; j++) touches |= near[j] == s->candidates[r][i];
      s->vital[r][i] &= (uint8_t)touches;
    }
  }
}

/* The pla chains next to each region, with repeats: border[border_start[r] ...]. */
static void benson_borders(const Geometry *g, const int8_t *b, Benson *s) {
  int *at = s->votes; /* scratch: the next free entry of each region */
  memset(s->border_start, 0, sizeof(int) * (size_t)(s->n_regions + 1));
  for (int p = 0; p < g->points; p++) {
    int cell = g->cell_of[p];
    if (b[cell] == 1) continue;
    for (int d = 0; d < 4; d++) s->border_start[s->label[cell] + 1] += b[cell + g->dirs[d]] == 1;
  }
  for (int r = 0; r < s->n_regions; r++) {
    s->border_start[r + 1] += s->border_start[r];
    at[r] = s->border_start[r];
  }
  for (int p = 0; p < g->points; p++) {
    int cell = g->cell_of[p];
    if (b[cell] == 1) continue;
    for (int d = 0; d < 4; d++)
      if (b[cell + g->dirs[d]] == 1) s->border[at[s->label[cell]]++] = s->label[cell + g->dirs[d]];
  }
}

/* Each region's health: no removed chain next to it. */
static void benson_health(Benson *s) {
  for (int r = 0; r < s->n_regions; r++) {
    int healthy = 1;
    for (int i = s->border_start[r]; i < s->border_start[r + 1]; i++) healthy &= s->alive[s->border[i]];
    s->healthy[r] = (uint8_t)healthy;
  }
}

/* Benson's iteration: a chain with fewer than two healthy vital regions is removed, until none
 * is. With every chain standing every region is healthy, so when no chain has two vital
 * regions at all, every chain goes at once and every region (each next to a chain) is unhealthy:
 * no border lists are needed. */
static void benson_iterate(const Geometry *g, const int8_t *b, Benson *s) {
  int *votes = s->votes, any = 0;
  memset(votes, 0, sizeof(int) * (size_t)s->n_chains);
  for (int r = 0; r < s->n_regions; r++)
    for (int i = 0; i < s->n_candidates[r]; i++) votes[s->candidates[r][i]] += s->vital[r][i];
  for (int k = 0; k < s->n_chains; k++) any |= votes[k] >= 2;
  if (!any) {
    memset(s->alive, 0, (size_t)s->n_chains);
    memset(s->healthy, 0, (size_t)s->n_regions);
    return;
  }
  benson_borders(g, b, s);
  memset(s->alive, 1, (size_t)s->n_chains);
  for (int changed = 1; changed;) {
    changed = 0;
    benson_health(s);
    memset(votes, 0, sizeof(int) * (size_t)s->n_chains);
    for (int r = 0; r < s->n_regions; r++)
      for (int i = 0; i < s->n_candidates[r] && s->healthy[r]; i++) votes[s->candidates[r][i]] += s->vital[r][i];
    for (int k = 0; k < s->n_chains; k++) {
      if (s->alive[k] && votes[k] < 2) {
        s->alive[k] = 0;
        changed = 1;
      }
    }
  }
  benson_health(s); /* with the final chains */
}

/* Benson's algorithm for the stones 1 of board b (2 the opponent's), as
 * gojax.features._benson._marks_for: writes the four marks (0 or 1) of every point. */
static void benson_marks(const Geometry *g, const int8_t *b, int suicide, Benson *s, int16_t *marks) {
  int points = g->points;
  if (!benson_label(g, b, s)) { /* no pla stone: nothing is pass-alive, no region counts */
    memset(marks, 0, sizeof(int16_t) * BENSON_MARKS * (size_t)points);
    return;
  }
  benson_vital(g, b, suicide, s);
  benson_iterate(g, b, s);
  for (int p = 0; p < points; p++) {
    int cell = g->cell_of[p], k = s->label[cell];
    if (b[cell] == 1) {
      marks[B_ALIVE * points + p] = s->alive[k];
      marks[B_SMALL * points + p] = marks[B_SAFE_BIG * points + p] = marks[B_UNSAFE_BIG * points + p] = 0;
      continue;
    }
    marks[B_ALIVE * points + p] = 0;
    marks[B_SMALL * points + p] = s->healthy[k] && s->internal[k] <= 1;
    marks[B_SAFE_BIG * points + p] = s->healthy[k] && !s->has_opp[k];
    marks[B_UNSAFE_BIG * points + p] = !s->has_opp[k];
  }
}

/* Benson's marks of both colours for boards [begin, end): out int16[B, 2 * 4, P], black's
 * four marks (pass-alive stones, pass-alive territory, safe big and unsafe big territory)
 * then white's. `suicide` (0 or 1) is the rule (which points a vital region must touch). */
void gojax_benson_tables(int64_t begin, int64_t end, int32_t size, int32_t words, const uint32_t *stones,
                         int32_t suicide, int16_t *out) {
  Geometry g;
  THREAD_SCRATCH(Benson, s);
  int8_t b[2][CELLS]; /* black's stones as 1, then white's */
  geometry(&g, size);
  for (int64_t game = begin; game < end; game++) {
    unpack(&g, stones + game * 2 * words, words, 0, b[0]);
    swapped(&g, b[0], b[1]);
    for (int colour = 0; colour < 2; colour++)
      benson_marks(&g, b[colour], suicide, s, out + (game * 2 + colour) * BENSON_MARKS * g.points);
  }
}

/* ------------------------------------------------------------------ AlphaGo Zero's planes */

/* SPREAD[parity][x]: the 8 bits of x on bytes parity, parity + 2, ..., parity + 14 (one channel
 * in two: the mover's, parity 0, or the opponent's, parity 1, at times 0..7). */
#define SPREAD_BIT(x, k) ((uint8_t)(((x) >> (k)) & 1u))
#define SPREAD_EVEN(x)                                                                                       \
  {SPREAD_BIT(x, 0), 0, SPREAD_BIT(x, 1), 0, SPREAD_BIT(x, 2), 0, SPREAD_BIT(x, 3), 0, SPREAD_BIT(x, 4), 0, \
   SPREAD_BIT(x, 5), 0, SPREAD_BIT(x, 6), 0, SPREAD_BIT(x, 7), 0}
#define SPREAD_ODD(x)                                                                                        \
  {0, SPREAD_BIT(x, 0), 0, SPREAD_BIT(x, 1), 0, SPREAD_BIT(x, 2), 0, SPREAD_BIT(x, 3), 0, SPREAD_BIT(x, 4), \
   0, SPREAD_BIT(x, 5), 0, SPREAD_BIT(x, 6), 0, SPREAD_BIT(x, 7)}
#define SPREAD_4(F, x) F(x), F((x) + 1u), F((x) + 2u), F((x) + 3u)
#define SPREAD_16(F, x) SPREAD_4(F, x), SPREAD_4(F, (x) + 4u), SPREAD_4(F, (x) + 8u), SPREAD_4(F, (x) + 12u)
#define SPREAD_64(F, x) SPREAD_16(F, x), SPREAD_16(F, (x) + 16u), SPREAD_16(F, (x) + 32u), SPREAD_16(F, (x) + 48u)
#define SPREAD_256(F) SPREAD_64(F, 0u), SPREAD_64(F, 64u), SPREAD_64(F, 128u), SPREAD_64(F, 192u)
static _Alignas(16) const uint8_t SPREAD[2][256][16] = {{SPREAD_256(SPREAD_EVEN)}, {SPREAD_256(SPREAD_ODD)}};

/* The 8 x 8 bit matrix of x (row i its byte i, column j bit j of the row) transposed. */
static inline uint64_t transpose8(uint64_t x) {
  uint64_t t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAull;
  x ^= t ^ (t << 7);
  t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCull;
  x ^= t ^ (t << 14);
  t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ull;
  return x ^ t ^ (t << 28);
}

/* The 16 history channels of one point: the mover's times in `own` (bit t: a stone t moves ago),
 * the opponent's in `theirs`, interleaved on bytes 0..15 of `at`. */
static inline void point_channels(uint8_t *at, unsigned own, unsigned theirs) {
  uint64_t a[2], b[2];
  memcpy(a, SPREAD[0][own], 16);
  memcpy(b, SPREAD[1][theirs], 16);
  a[0] |= b[0];
  a[1] |= b[1];
  memcpy(at, a, 16);
}

/* AlphaGo Zero's 17 planes (gojax.features.alphago_zero_planes) of boards [begin, end): stones
 * uint32[B, 2, W] the positions now, history uint32[B, 8, 2, W] those before (entry t, t >= 1,
 * t moves ago; entry 0 is not read), out bool[B, P, 17]: for each point the mover's and the
 * opponent's stone t = 0..7 moves ago, then the colour plane (1 when black is to move, or with
 * `colour_white` when white is). Black is to move where turn is 0, white elsewhere.
 *
 * A word's 32 points at a time: for each of its bytes, the byte of each of the 8 times is a row of
 * an 8 x 8 bit matrix whose transpose holds each point's 8 times in a byte, which two tables
 * spread on the point's 16 channel bytes. */
void gojax_history_planes(int64_t begin, int64_t end, int32_t size, int32_t words, const uint32_t *stones,
                          const int32_t *turn, const uint32_t *history, int32_t colour_white, uint8_t *out) {
  const int points = size * size;
  for (int64_t g = begin; g < end; g++) {
    const int black = turn[g] == 0;
    const uint8_t colour = (uint8_t)(colour_white ? turn[g] == 1 : black);
    const uint32_t *boards[8];
    for (int t = 0; t < 8; t++) boards[t] = t == 0 ? stones + g * 2 * words : history + (g * 8 + t) * 2 * words;
    const int mine = black ? 0 : words, theirs = black ? words : 0;
    uint8_t *planes = out + g * points * 17;
    for (int w = 0; w * 32 < points; w++) {
      uint32_t own[8], opponent[8];
      for (int t = 0; t < 8; t++) {
        own[t] = boards[t][mine + w];
        opponent[t] = boards[t][theirs + w];
      }
      for (int part = 0; part < 4; part++) {
        const int first = 32 * w + 8 * part;
        if (first >= points) break;
        uint64_t x = 0, y = 0;
        for (int t = 0; t < 8; t++) {
          x |= (uint64_t)((own[t] >> (8 * part)) & 0xFFu) << (8 * t);
          y |= (uint64_t)((opponent[t] >> (8 * part)) & 0xFFu) << (8 * t);
        }
        x = transpose8(x);
        y = transpose8(y);
        const int count = points - first < 8 ? points - first : 8;
        for (int k = 0; k < count; k++) {
          uint8_t *at = planes + (first + k) * 17;
          point_channels(at, (unsigned)(x >> (8 * k)) & 0xFFu, (unsigned)(y >> (8 * k)) & 0xFFu);
          at[16] = colour;
        }
      }
    }
  }
}
