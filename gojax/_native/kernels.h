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
#define GOJAX_KERNELS_ABI 3

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

#endif /* GOJAX_KERNELS_H_ */
