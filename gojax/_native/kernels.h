/* The kernels of kernels.c as ffi.c (the XLA FFI handlers) and ctypes (gojax/_native) call them.
 *
 * Every batch function works on the boards [begin, end) of a batch laid out
 * game after game (stones uint32[B, 2, W], turn and ko point int32[B], the
 * result per game), so that callers can split a batch over threads.
 */
#ifndef GOJAX_KERNELS_H_
#define GOJAX_KERNELS_H_

#include <stdint.h>

/* The version of the exported functions: gojax/_native/__init__.py's ABI, which loads only a
 * library built with the same. Raise both when an exported signature or FFI target changes. */
#define GOJAX_KERNELS_ABI 6

#define MAX_SIZE 25

int32_t gojax_kernels_abi(void);

/* The rows of gojax_alphago_tables, gojax_katago_tables, and of gojax_benson_tables per colour. */
#define GOJAX_ALPHAGO_TABLES 7
#define GOJAX_KATAGO_TABLES 4
#define GOJAX_BENSON_MARKS 4

void gojax_alphago_tables(int64_t begin, int64_t end, int32_t size, int32_t words, const uint32_t *stones,
                          const int32_t *turn, const int32_t *ko_point, int16_t *out);
void gojax_alphago_planes(int64_t begin, int64_t end, int32_t size, int32_t words, const uint32_t *stones,
                          const int32_t *turn, const int32_t *ko_point, const uint32_t *standing,
                          const uint8_t *legal, int32_t channels, uint8_t *out);
void gojax_katago_tables(int64_t begin, int64_t end, int32_t size, int32_t words, const uint32_t *stones,
                         const int32_t *turn, const int32_t *ko_point, const int32_t *want_moves,
                         int16_t *out);
void gojax_benson_tables(int64_t begin, int64_t end, int32_t size, int32_t words, const uint32_t *stones,
                         int32_t suicide, int16_t *out);
/* AlphaGo Zero's 17 planes: stones uint32[B, 2, W], history uint32[B, 8, 2, W] -> bool[B, P, 17]. */
void gojax_history_planes(int64_t begin, int64_t end, int32_t size, int32_t words, const uint32_t *stones,
                          const int32_t *turn, const uint32_t *history, int32_t colour_white, uint8_t *out);

/* One ladder read: the board `stones` (uint32[2, W]) with `turn` to move and `ko_point`, the
 * read's kind `mode` (0 capture, 1 extend, 2 defend), whether the side to move attacks, the
 * attacker's first move (capture reads) and a stone of the runner; `out` its entry in the
 * caller's result. */
typedef struct {
  const uint32_t *stones;
  int32_t turn, ko_point, mode, mover_attacks, first_move, prey;
  int64_t out;
} GojaxLadderRead;

/* Reads [begin, end) of `reads`: out[reads[k].out] = 1 when the runner is captured, else 0. */
void gojax_ladder_read_list(int32_t size, int32_t words, const GojaxLadderRead *reads, int64_t begin,
                            int64_t end, uint8_t *out);
void gojax_ladder_reads(int64_t n, int32_t size, int32_t words, const uint32_t *stones, const int32_t *turn,
                        const int32_t *ko_point, const int32_t *games, const int32_t *modes,
                        const uint8_t *mover_attacks, const int32_t *first_moves, const int32_t *prey,
                        uint8_t *out);

/* ------------------------------------------------------------------ the rules (rules.c) */

#define GOJAX_KO_SIMPLE 0
#define GOJAX_KO_POSITIONAL 1
#define GOJAX_KO_SITUATIONAL 2

/* gojax.GoConfig as the rules read it (komi aside). */
typedef struct {
  int32_t size, ko_rule, suicide, move_cap;
} GojaxRules;

/* One game's gojax.GoState, field by field (W words a bitboard, L label planes, H = move_cap + 1
 * history entries and M buckets, both 0 under the simple ko rule). */
typedef struct {
  uint32_t *stones;  /* [2, W] */
  uint32_t *atari;   /* [2, W] */
  uint32_t *labels;  /* atari_liberty [L, W] */
  int8_t *turn;
  uint32_t *hash;    /* [2] */
  uint32_t *history; /* [H, 2] */
  int16_t *heads;    /* history_head [M] */
  int16_t *links;    /* history_prev [H] */
  int32_t *move_number;
  int8_t *passes;
  int16_t *ko_point;
  int16_t *captures; /* [2] */
  int16_t *last_move;
  uint8_t *terminated, *truncated;
  int8_t *loser;
  uint8_t *illegal_move;
} GojaxGame;

/* The sizes of a game's fields under `rules`: words of a bitboard (W), label planes (L), history
 * entries (H), count classes, white splits and buckets (M) of the history lists. */
typedef struct {
  int32_t words, planes, history, classes, split, buckets;
} GojaxSizes;
void gojax_rules_sizes(const GojaxRules *rules, GojaxSizes *out);

/* gojax.step in place for each of games[0, n): the game after actions[k] (masks NULL, or per
 * game its legal mask bool[P + 1] - whose ko and superko verdict is taken instead of searching
 * the history, as gojax.step_with_mask - or NULL). Up to GOJAX_OVERLAP moves at a time, their
 * history walks side by side. */
#define GOJAX_OVERLAP 4
void gojax_play_many(const GojaxRules *rules, const GojaxGame *games, const int32_t *actions,
                     const uint8_t *const *masks, int64_t n);
/* gojax.legal_action_mask for each of games[0, n), into outs[k] (bool[P + 1]): up to
 * GOJAX_OVERLAP games at a time. Reads the stones, atari, turn, hash, history (with its heads
 * and links) and ko point of each game. */
void gojax_legal_many(const GojaxRules *rules, const GojaxGame *games, int32_t superko, uint8_t *const *outs,
                      int64_t n);
/* The Zobrist keys of an N x N board (gojax._core.zobrist): points uint32[2, P, 2], side
 * uint32[2, 2]. */
void gojax_zobrist_tables(int32_t size, uint32_t *points, uint32_t *side);

/* ------------------------------------------------------------------ the playouts (playouts.c) */

/* A batch of playouts (gojax.playouts' light kernel): per playout its start (stones uint32[2, W],
 * turn, ko point, consecutive passes, last move's point, -1 or P for none), its move limit and
 * its random draws uint32[max_moves]; the heavy policy's 3x3 pattern table (bit c of word c / 32
 * for the neighbourhood code c). Out per playout: the final owner int8[P], the points each
 * colour played first uint32[2, W] and the final stones uint32[2, W]. */
typedef struct {
  int32_t size, words, heavy, max_moves;
  const uint32_t *stones, *draws, *patterns;
  const int32_t *turn, *ko_point, *passes, *last, *limits;
  int8_t *owner;
  uint32_t *first, *final;
} GojaxPlayouts;
void gojax_playouts(const GojaxPlayouts *job, int64_t begin, int64_t end);

#endif /* GOJAX_KERNELS_H_ */
