/* The kernels of rules.c and kernels.c as XLA FFI handlers: what the jitted rules and feature
 * planes call on the CPU.
 *
 * Written against XLA's C FFI API (xla/ffi/api/c_api.h, shipped in jaxlib's
 * include directory), in plain C. gojax/_native registers each handler with
 * jax.ffi.register_ffi_target(name, pycapsule, platform="cpu") under the
 * name of its function, and gojax/features/_native_calls.py calls it with
 * jax.ffi.ffi_call. A handler:
 *
 * - answers XLA's metadata query (a call frame carrying the metadata
 *   extension, made when the handler is registered) with the API version of
 *   the header it was built with and no traits;
 * - reads the batch from its result: the leading axes vmap added, one call
 *   for the whole batch (the per-game handlers need every argument with those
 *   axes, vmap_method="broadcast_all"; the ladder reads take axes of size 1
 *   too, "expand_dims", and broadcast them);
 * - checks every buffer's type and shape (an error names the target and the
 *   argument), then splits the games over XLA's intra-op thread pool when
 *   the batch is large enough: chunks taken from a shared counter by the
 *   calling thread and by pool tasks, so a batch of one never leaves the
 *   calling thread, and a pool that is busy or missing only means fewer
 *   helpers.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "xla/ffi/api/c_api.h"

#define MAX_BATCH_RANK 16

/* ------------------------------------------------------------------ call frames */

static XLA_FFI_Error *fail(const XLA_FFI_CallFrame *frame, XLA_FFI_Error_Code code, const char *target,
                           const char *format, ...) {
  char message[512];
  int n = snprintf(message, sizeof message, "%s: ", target);
  va_list args;
  va_start(args, format);
  vsnprintf(message + n, sizeof message - (size_t)n, format, args);
  va_end(args);
  XLA_FFI_Error_Create_Args create = {XLA_FFI_Error_Create_Args_STRUCT_SIZE, NULL, message, code};
  return frame->api->XLA_FFI_Error_Create(&create);
}

static void drop(const XLA_FFI_CallFrame *frame, XLA_FFI_Error *error) {
  XLA_FFI_Error_Destroy_Args destroy = {XLA_FFI_Error_Destroy_Args_STRUCT_SIZE, NULL, error};
  frame->api->XLA_FFI_Error_Destroy(&destroy);
}

/* 1 when the handler has nothing to compute (XLA's metadata query, another stage) or the frame
 * is not one it can read: then it returns *out. Else 0 (an execution with `args_low` to
 * `args_high` arguments and `rets` results, all buffers). */
static int answered_with(XLA_FFI_CallFrame *frame, const char *target, int64_t args_low, int64_t args_high,
                         int64_t rets, XLA_FFI_Error **out) {
  *out = NULL;
  XLA_FFI_Extension_Base *extension = frame->extension_start;
  if (extension != NULL && extension->type == XLA_FFI_Extension_Metadata) {
    XLA_FFI_Metadata_Extension *query = (XLA_FFI_Metadata_Extension *)extension;
    if (extension->struct_size < XLA_FFI_Metadata_Extension_STRUCT_SIZE ||
        query->metadata->struct_size < XLA_FFI_Metadata_STRUCT_SIZE) {
      *out = fail(frame, XLA_FFI_Error_Code_INVALID_ARGUMENT, target, "unexpected metadata struct size");
      return 1;
    }
    query->metadata->api_version = (XLA_FFI_Api_Version){XLA_FFI_Api_Version_STRUCT_SIZE, NULL,
                                                         XLA_FFI_API_MAJOR, XLA_FFI_API_MINOR};
    query->metadata->traits = 0;
    query->metadata->state_type_id = (XLA_FFI_TypeId){0};
    return 1;
  }
  if (frame->struct_size < XLA_FFI_CallFrame_STRUCT_SIZE) {
    *out = fail(frame, XLA_FFI_Error_Code_INVALID_ARGUMENT, target, "call frame of an older XLA (size %zu)",
                frame->struct_size);
    return 1;
  }
  if (frame->stage != XLA_FFI_ExecutionStage_EXECUTE) return 1;
  if (frame->args.size < args_low || frame->args.size > args_high || frame->rets.size != rets) {
    char expected[64];
    if (args_low == args_high) snprintf(expected, sizeof expected, "%lld", (long long)args_low);
    else snprintf(expected, sizeof expected, "%lld or %lld", (long long)args_low, (long long)args_high);
    *out = fail(frame, XLA_FFI_Error_Code_INVALID_ARGUMENT, target,
                "expected %s arguments and %lld result(s), got %lld and %lld", expected, (long long)rets,
                (long long)frame->args.size, (long long)frame->rets.size);
    return 1;
  }
  for (int64_t i = 0; i < frame->args.size; i++) {
    if (frame->args.types[i] != XLA_FFI_ArgType_BUFFER) {
      *out = fail(frame, XLA_FFI_Error_Code_INVALID_ARGUMENT, target, "argument %lld is not a buffer",
                  (long long)i);
      return 1;
    }
  }
  for (int64_t i = 0; i < rets; i++) {
    if (frame->rets.types[i] != XLA_FFI_RetType_BUFFER) {
      *out = fail(frame, XLA_FFI_Error_Code_INVALID_ARGUMENT, target, "result %lld is not a buffer",
                  (long long)i);
      return 1;
    }
  }
  return 0;
}

static int answered(XLA_FFI_CallFrame *frame, const char *target, int64_t args, XLA_FFI_Error **out) {
  return answered_with(frame, target, args, args, 1, out);
}

static const XLA_FFI_Buffer *arg(const XLA_FFI_CallFrame *frame, int i) {
  return (const XLA_FFI_Buffer *)frame->args.args[i];
}

static const XLA_FFI_Buffer *result(const XLA_FFI_CallFrame *frame) {
  return (const XLA_FFI_Buffer *)frame->rets.rets[0];
}

/* The integer scalar attribute `name` in *value: 1, or 0 when the call has none. */
static int attribute(const XLA_FFI_CallFrame *frame, const char *name, int64_t *value) {
  size_t length = strlen(name);
  for (int64_t i = 0; i < frame->attrs.size; i++) {
    const XLA_FFI_ByteSpan *key = frame->attrs.names[i];
    if (key->len != length || memcmp(key->ptr, name, length) != 0) continue;
    if (frame->attrs.types[i] != XLA_FFI_AttrType_SCALAR) return 0;
    const XLA_FFI_Scalar *scalar = (const XLA_FFI_Scalar *)frame->attrs.attrs[i];
    switch (scalar->dtype) {
      case XLA_FFI_DataType_PRED:
      case XLA_FFI_DataType_U8: *value = *(const uint8_t *)scalar->value; return 1;
      case XLA_FFI_DataType_S8: *value = *(const int8_t *)scalar->value; return 1;
      case XLA_FFI_DataType_S16: *value = *(const int16_t *)scalar->value; return 1;
      case XLA_FFI_DataType_S32: *value = *(const int32_t *)scalar->value; return 1;
      case XLA_FFI_DataType_S64: *value = *(const int64_t *)scalar->value; return 1;
      case XLA_FFI_DataType_U32: *value = *(const uint32_t *)scalar->value; return 1;
      default: return 0;
    }
  }
  return 0;
}

/* ------------------------------------------------------------------ shapes */

/* The batch of a call: the leading axes of its result (those vmap added). */
typedef struct {
  int rank;
  const int64_t *dims;
  int64_t games;
} Batch;

static int batch_of(const XLA_FFI_Buffer *out, int trailing, Batch *batch) {
  if (out->rank < trailing || out->rank - trailing > MAX_BATCH_RANK) return 0;
  batch->rank = (int)(out->rank - trailing);
  batch->dims = out->dims;
  batch->games = 1;
  for (int k = 0; k < batch->rank; k++) batch->games *= out->dims[k];
  return 1;
}

/* Whether `b` is dtype[batch..., trailing...]: its leading axes those of `batch` (or 1 where
 * `broadcast`), then `n` axes of sizes `trailing` (-1: any size). */
static int shaped(const XLA_FFI_Buffer *b, XLA_FFI_DataType dtype, const Batch *batch, int broadcast, int n,
                  const int64_t *trailing) {
  if (b->dtype != dtype || b->rank != batch->rank + n) return 0;
  for (int k = 0; k < batch->rank; k++)
    if (b->dims[k] != batch->dims[k] && !(broadcast && b->dims[k] == 1)) return 0;
  for (int k = 0; k < n; k++)
    if (trailing[k] >= 0 && b->dims[batch->rank + k] != trailing[k]) return 0;
  return 1;
}

static XLA_FFI_Error *bad_shape(const XLA_FFI_CallFrame *frame, const char *target, const char *name,
                                const char *want) {
  return fail(frame, XLA_FFI_Error_Code_INVALID_ARGUMENT, target,
              "%s must be %s (the result's leading batch axes first)", name, want);
}

static int board_size(int64_t points) {
  for (int size = 2; size <= MAX_SIZE; size++)
    if (size * size == points) return size;
  return 0;
}

/* ------------------------------------------------------------------ threads */

typedef void Range(const void *job, int64_t begin, int64_t end);

/* A batch being split: chunks of `chunk` items taken from `next` until `n`; `done` counts the
 * items finished; freed by the last of its `refs` holders (the caller and each pool task). */
typedef struct {
  Range *run;
  const void *job;
  int64_t n, chunk;
  atomic_llong next, done;
  atomic_int refs;
  pthread_mutex_t lock;
  pthread_cond_t finished;
} Split;

static void work(Split *split) {
  for (;;) {
    int64_t begin = atomic_fetch_add(&split->next, split->chunk);
    if (begin >= split->n) return;
    int64_t end = begin + split->chunk < split->n ? begin + split->chunk : split->n;
    split->run(split->job, begin, end);
    if (atomic_fetch_add(&split->done, end - begin) + (end - begin) == split->n) {
      pthread_mutex_lock(&split->lock);
      pthread_cond_broadcast(&split->finished);
      pthread_mutex_unlock(&split->lock);
    }
  }
}

static void release(Split *split) {
  if (atomic_fetch_sub(&split->refs, 1) == 1) {
    pthread_mutex_destroy(&split->lock);
    pthread_cond_destroy(&split->finished);
    free(split);
  }
}

/* A pool task: the chunks left when it starts (none, if the caller and other tasks took them
 * all: it then touches nothing but the split). */
static void task(void *data) {
  work((Split *)data);
  release((Split *)data);
}

static int64_t pool_threads(const XLA_FFI_CallFrame *frame) {
  const XLA_FFI_Api *api = frame->api;
  if (api->struct_size < offsetof(XLA_FFI_Api, XLA_FFI_ThreadPool_NumThreads) + sizeof(void *)) return 0;
  int64_t threads = 0;
  XLA_FFI_ThreadPool_NumThreads_Args args = {XLA_FFI_ThreadPool_NumThreads_Args_STRUCT_SIZE, NULL, frame->ctx,
                                             &threads};
  XLA_FFI_Error *error = api->XLA_FFI_ThreadPool_NumThreads(&args);
  if (error != NULL) {
    drop(frame, error);
    return 0;
  }
  return threads;
}

/* run(job, begin, end) over [0, n): on the calling thread alone when n is at most `grain` (or
 * XLA offers no pool), else in chunks of at least `grain` items shared with pool tasks. Returns
 * when every item is done. */
static XLA_FFI_Error *parallel(const XLA_FFI_CallFrame *frame, Range *run, const void *job, int64_t n,
                               int64_t grain) {
  int64_t threads = n > grain ? pool_threads(frame) : 0;
  if (threads <= 1) {
    run(job, 0, n);
    return NULL;
  }
  int64_t chunk = (n + 4 * threads - 1) / (4 * threads);
  chunk = chunk < grain ? grain : chunk;
  int64_t chunks = (n + chunk - 1) / chunk, helpers = threads - 1 < chunks - 1 ? threads - 1 : chunks - 1;
  Split *split = malloc(sizeof *split);
  if (split == NULL) {
    run(job, 0, n);
    return NULL;
  }
  split->run = run;
  split->job = job;
  split->n = n;
  split->chunk = chunk;
  atomic_init(&split->next, 0);
  atomic_init(&split->done, 0);
  atomic_init(&split->refs, (int)helpers + 1);
  pthread_mutex_init(&split->lock, NULL);
  pthread_cond_init(&split->finished, NULL);
  for (int64_t i = 0; i < helpers; i++) {
    XLA_FFI_ThreadPool_Schedule_Args args = {XLA_FFI_ThreadPool_Schedule_Args_STRUCT_SIZE, NULL, frame->ctx,
                                             task, split};
    XLA_FFI_Error *error = frame->api->XLA_FFI_ThreadPool_Schedule(&args);
    if (error != NULL) { /* no pool after all: the tasks not scheduled hold no reference */
      drop(frame, error);
      atomic_fetch_sub(&split->refs, (int)(helpers - i));
      break;
    }
  }
  work(split);
  /* Every chunk is taken; those still running are on threads that do not wait on anything. */
  pthread_mutex_lock(&split->lock);
  while (atomic_load(&split->done) < n) pthread_cond_wait(&split->finished, &split->lock);
  pthread_mutex_unlock(&split->lock);
  release(split);
  return NULL;
}

/* ------------------------------------------------------------------ the per-game kernels */

/* Boards of a batch and what a kernel reads besides (see kernels.h). */
typedef struct {
  int32_t size, words, channels, suicide, colour_white;
  const uint32_t *stones, *standing, *history;
  const int32_t *turn, *ko_point, *want_moves;
  const uint8_t *legal;
  void *out;
} Boards;

static void alphago_range(const void *job, int64_t begin, int64_t end) {
  const Boards *b = job;
  gojax_alphago_planes(begin, end, b->size, b->words, b->stones, b->turn, b->ko_point, b->standing, b->legal,
                       b->channels, b->out);
}

static void katago_range(const void *job, int64_t begin, int64_t end) {
  const Boards *b = job;
  gojax_katago_tables(begin, end, b->size, b->words, b->stones, b->turn, b->ko_point, b->want_moves, b->out);
}

static void benson_range(const void *job, int64_t begin, int64_t end) {
  const Boards *b = job;
  gojax_benson_tables(begin, end, b->size, b->words, b->stones, b->suicide, b->out);
}

static void history_range(const void *job, int64_t begin, int64_t end) {
  const Boards *b = job;
  gojax_history_planes(begin, end, b->size, b->words, b->stones, b->turn, b->history, b->colour_white, b->out);
}

/* The stones (argument 0) of a batch: uint32[batch..., 2, W] with W words enough for the board. */
static XLA_FFI_Error *stones_of(const XLA_FFI_CallFrame *frame, const char *target, const Batch *batch,
                               int broadcast, Boards *b) {
  const XLA_FFI_Buffer *stones = arg(frame, 0);
  const int64_t two[2] = {2, -1};
  if (!shaped(stones, XLA_FFI_DataType_U32, batch, broadcast, 2, two))
    return bad_shape(frame, target, "stones", "uint32[..., 2, W]");
  b->words = (int32_t)stones->dims[stones->rank - 1];
  if (b->words * 32 < b->size * b->size)
    return fail(frame, XLA_FFI_Error_Code_INVALID_ARGUMENT, target, "%d words cannot hold a %dx%d board",
                b->words, b->size, b->size);
  b->stones = stones->data;
  return NULL;
}

/* turn and ko point (arguments 1 and 2): int32[batch...]. */
static XLA_FFI_Error *mover_of(const XLA_FFI_CallFrame *frame, const char *target, const Batch *batch,
                               Boards *b) {
  if (!shaped(arg(frame, 1), XLA_FFI_DataType_S32, batch, 0, 0, NULL))
    return bad_shape(frame, target, "turn", "int32[...]");
  if (!shaped(arg(frame, 2), XLA_FFI_DataType_S32, batch, 0, 0, NULL))
    return bad_shape(frame, target, "ko_point", "int32[...]");
  b->turn = arg(frame, 1)->data;
  b->ko_point = arg(frame, 2)->data;
  return NULL;
}

/* AlphaGo's planes: (stones u32[..., 2, W], turn s32[...], ko_point s32[...], standing
 * u32[..., 8, W], legal pred[..., N, N]) -> pred[..., N, N, C], C 48 or 49. */
XLA_FFI_Error *gojax_ffi_alphago_planes(XLA_FFI_CallFrame *frame) {
  static const char target[] = "gojax_ffi_alphago_planes";
  XLA_FFI_Error *error;
  if (answered(frame, target, 5, &error)) return error;
  const XLA_FFI_Buffer *out = result(frame);
  Batch batch;
  Boards b = {0};
  if (out->dtype != XLA_FFI_DataType_PRED || !batch_of(out, 3, &batch))
    return bad_shape(frame, target, "the result", "bool[..., N, N, C]");
  b.size = (int32_t)out->dims[batch.rank];
  b.channels = (int32_t)out->dims[batch.rank + 2];
  if (b.size < 2 || b.size > MAX_SIZE || out->dims[batch.rank + 1] != b.size)
    return bad_shape(frame, target, "the result", "bool[..., N, N, C] with N in 2..25");
  if (b.channels != 48 && b.channels != 49)
    return fail(frame, XLA_FFI_Error_Code_INVALID_ARGUMENT, target, "channels must be 48 or 49, got %d",
                b.channels);
  if ((error = stones_of(frame, target, &batch, 0, &b)) || (error = mover_of(frame, target, &batch, &b)))
    return error;
  const int64_t standing[2] = {8, b.words}, grid[2] = {b.size, b.size};
  if (!shaped(arg(frame, 3), XLA_FFI_DataType_U32, &batch, 0, 2, standing))
    return bad_shape(frame, target, "standing", "uint32[..., 8, W]");
  if (!shaped(arg(frame, 4), XLA_FFI_DataType_PRED, &batch, 0, 2, grid))
    return bad_shape(frame, target, "legal", "bool[..., N, N]");
  b.standing = arg(frame, 3)->data;
  b.legal = arg(frame, 4)->data;
  b.out = out->data;
  return parallel(frame, alphago_range, &b, batch.games, 2);
}

/* KataGo's ladder tables: (stones, turn, ko_point, want_moves s32[...]) -> s16[..., 4, P]. */
XLA_FFI_Error *gojax_ffi_katago_tables(XLA_FFI_CallFrame *frame) {
  static const char target[] = "gojax_ffi_katago_tables";
  XLA_FFI_Error *error;
  if (answered(frame, target, 4, &error)) return error;
  const XLA_FFI_Buffer *out = result(frame);
  Batch batch;
  Boards b = {0};
  if (out->dtype != XLA_FFI_DataType_S16 || !batch_of(out, 2, &batch) ||
      out->dims[batch.rank] != GOJAX_KATAGO_TABLES || !(b.size = board_size(out->dims[batch.rank + 1])))
    return bad_shape(frame, target, "the result", "int16[..., 4, N * N] with N in 2..25");
  if ((error = stones_of(frame, target, &batch, 0, &b)) || (error = mover_of(frame, target, &batch, &b)))
    return error;
  if (!shaped(arg(frame, 3), XLA_FFI_DataType_S32, &batch, 0, 0, NULL))
    return bad_shape(frame, target, "want_moves", "int32[...]");
  b.want_moves = arg(frame, 3)->data;
  b.out = out->data;
  return parallel(frame, katago_range, &b, batch.games, 2);
}

/* Benson's marks of both colours: (stones) -> s16[..., 2, 4, P]; attribute suicide (0 or 1). */
XLA_FFI_Error *gojax_ffi_benson_tables(XLA_FFI_CallFrame *frame) {
  static const char target[] = "gojax_ffi_benson_tables";
  XLA_FFI_Error *error;
  if (answered(frame, target, 1, &error)) return error;
  const XLA_FFI_Buffer *out = result(frame);
  Batch batch;
  Boards b = {0};
  int64_t suicide;
  if (out->dtype != XLA_FFI_DataType_S16 || !batch_of(out, 3, &batch) || out->dims[batch.rank] != 2 ||
      out->dims[batch.rank + 1] != GOJAX_BENSON_MARKS || !(b.size = board_size(out->dims[batch.rank + 2])))
    return bad_shape(frame, target, "the result", "int16[..., 2, 4, N * N] with N in 2..25");
  if (!attribute(frame, "suicide", &suicide))
    return fail(frame, XLA_FFI_Error_Code_INVALID_ARGUMENT, target, "needs an integer attribute suicide");
  b.suicide = suicide != 0;
  if ((error = stones_of(frame, target, &batch, 0, &b))) return error;
  b.out = out->data;
  return parallel(frame, benson_range, &b, batch.games, 8);
}

/* AlphaGo Zero's planes: (stones u32[..., 2, W], turn s32[...], history u32[..., 8, 2, W]) ->
 * pred[..., N, N, 17]; attribute colour_white (0: the colour plane lit when black is to move, 1:
 * when white is). */
XLA_FFI_Error *gojax_ffi_history_planes(XLA_FFI_CallFrame *frame) {
  static const char target[] = "gojax_ffi_history_planes";
  XLA_FFI_Error *error;
  if (answered(frame, target, 3, &error)) return error;
  const XLA_FFI_Buffer *out = result(frame);
  Batch batch;
  Boards b = {0};
  int64_t colour_white;
  if (out->dtype != XLA_FFI_DataType_PRED || !batch_of(out, 3, &batch) || out->dims[batch.rank + 2] != 17)
    return bad_shape(frame, target, "the result", "bool[..., N, N, 17]");
  b.size = (int32_t)out->dims[batch.rank];
  if (b.size < 2 || b.size > MAX_SIZE || out->dims[batch.rank + 1] != b.size)
    return bad_shape(frame, target, "the result", "bool[..., N, N, 17] with N in 2..25");
  if (!attribute(frame, "colour_white", &colour_white))
    return fail(frame, XLA_FFI_Error_Code_INVALID_ARGUMENT, target, "needs an integer attribute colour_white");
  b.colour_white = colour_white != 0;
  if ((error = stones_of(frame, target, &batch, 0, &b))) return error;
  if (!shaped(arg(frame, 1), XLA_FFI_DataType_S32, &batch, 0, 0, NULL))
    return bad_shape(frame, target, "turn", "int32[...]");
  const int64_t boards[3] = {8, 2, b.words};
  if (!shaped(arg(frame, 2), XLA_FFI_DataType_U32, &batch, 0, 3, boards))
    return bad_shape(frame, target, "history", "uint32[..., 8, 2, W]");
  b.turn = arg(frame, 1)->data;
  b.history = arg(frame, 2)->data;
  b.out = out->data;
  return parallel(frame, history_range, &b, batch.games, 16);
}

/* ------------------------------------------------------------------ ladder reads */

typedef struct {
  int32_t size, words;
  const GojaxLadderRead *reads;
  uint8_t *out;
} Reads;

static void reads_range(const void *job, int64_t begin, int64_t end) {
  const Reads *r = job;
  gojax_ladder_read_list(r->size, r->words, r->reads, begin, end, r->out);
}

/* Element offset of game `game` (row-major over the batch) in a buffer of `items` elements per
 * game whose batch axes are `dims` (each the batch's, or 1: broadcast). */
static int64_t offset(const Batch *batch, const int64_t *dims, int64_t items, int64_t game) {
  int64_t at = 0, stride = items;
  for (int k = batch->rank - 1; k >= 0; k--) {
    int64_t index = game % batch->dims[k];
    game /= batch->dims[k];
    if (dims[k] != 1) at += index * stride;
    stride *= dims[k];
  }
  return at;
}

/* Ladder reads: (stones, turn, ko_point, then per read s32[..., T] mode, mover_attacks, move,
 * prey, and pred[..., T] active) -> pred[..., T]; attribute size (the board's side). Every
 * argument's batch axes are the result's or 1 (vmap_method="expand_dims"); only the active
 * reads are made (False elsewhere). */
XLA_FFI_Error *gojax_ffi_ladder_reads(XLA_FFI_CallFrame *frame) {
  static const char target[] = "gojax_ffi_ladder_reads";
  static const char *names[] = {"mode", "mover_attacks", "move", "prey"};
  XLA_FFI_Error *error;
  if (answered(frame, target, 8, &error)) return error;
  const XLA_FFI_Buffer *out = result(frame);
  Batch batch;
  Boards b = {0};
  int64_t size;
  if (out->dtype != XLA_FFI_DataType_PRED || !batch_of(out, 1, &batch))
    return bad_shape(frame, target, "the result", "bool[..., T]");
  if (!attribute(frame, "size", &size) || size < 2 || size > MAX_SIZE)
    return fail(frame, XLA_FFI_Error_Code_INVALID_ARGUMENT, target, "needs an attribute size in 2..25");
  b.size = (int32_t)size;
  int64_t tasks = out->dims[batch.rank];
  if ((error = stones_of(frame, target, &batch, 1, &b))) return error;
  if (!shaped(arg(frame, 1), XLA_FFI_DataType_S32, &batch, 1, 0, NULL))
    return bad_shape(frame, target, "turn", "int32[...]");
  if (!shaped(arg(frame, 2), XLA_FFI_DataType_S32, &batch, 1, 0, NULL))
    return bad_shape(frame, target, "ko_point", "int32[...]");
  const int32_t *columns[4];
  for (int i = 0; i < 4; i++) {
    if (!shaped(arg(frame, 3 + i), XLA_FFI_DataType_S32, &batch, 1, 1, &tasks))
      return bad_shape(frame, target, names[i], "int32[..., T]");
    columns[i] = arg(frame, 3 + i)->data;
  }
  if (!shaped(arg(frame, 7), XLA_FFI_DataType_PRED, &batch, 1, 1, &tasks))
    return bad_shape(frame, target, "active", "bool[..., T]");
  const uint8_t *active = arg(frame, 7)->data;
  const uint32_t *stones = arg(frame, 0)->data;
  const int32_t *turn = arg(frame, 1)->data, *ko_point = arg(frame, 2)->data;
  uint8_t *flags = out->data;
  int64_t count = 0, reads = batch.games * tasks;
  memset(flags, 0, (size_t)reads);
  for (int64_t game = 0; game < batch.games; game++) {
    const uint8_t *on = active + offset(&batch, arg(frame, 7)->dims, tasks, game);
    for (int64_t t = 0; t < tasks; t++) count += on[t] != 0;
  }
  if (count == 0) return NULL;
  GojaxLadderRead *list = malloc(sizeof *list * (size_t)count);
  if (list == NULL)
    return fail(frame, XLA_FFI_Error_Code_RESOURCE_EXHAUSTED, target, "no memory for %lld reads",
                (long long)count);
  int64_t k = 0;
  for (int64_t game = 0; game < batch.games; game++) {
    const uint8_t *on = active + offset(&batch, arg(frame, 7)->dims, tasks, game);
    const int32_t *per_task[4];
    for (int i = 0; i < 4; i++) per_task[i] = columns[i] + offset(&batch, arg(frame, 3 + i)->dims, tasks, game);
    const uint32_t *board = stones + offset(&batch, arg(frame, 0)->dims, 2 * b.words, game);
    int32_t mover = turn[offset(&batch, arg(frame, 1)->dims, 1, game)];
    int32_t ko = ko_point[offset(&batch, arg(frame, 2)->dims, 1, game)];
    for (int64_t t = 0; t < tasks; t++) {
      if (!on[t]) continue;
      list[k++] = (GojaxLadderRead){board,           mover,           ko,           per_task[0][t],
                                    per_task[1][t], per_task[2][t], per_task[3][t], game * tasks + t};
    }
  }
  Reads job = {b.size, b.words, list, flags};
  error = parallel(frame, reads_range, &job, count, 16);
  free(list);
  return error;
}

/* ------------------------------------------------------------------ the rules */

/* The fields of gojax.GoState in order: their types and trailing shapes (rules_shapes). */
#define GAME_FIELDS 17
static const char *const field_names[GAME_FIELDS] = {
    "stones", "atari", "atari_liberty", "turn", "hash", "history", "history_head", "history_prev", "move_number",
    "passes", "ko_point", "captures", "last_move", "terminated", "truncated", "loser", "illegal_move"};
static const XLA_FFI_DataType field_types[GAME_FIELDS] = {
    XLA_FFI_DataType_U32, XLA_FFI_DataType_U32, XLA_FFI_DataType_U32,  XLA_FFI_DataType_S8,
    XLA_FFI_DataType_U32, XLA_FFI_DataType_U32, XLA_FFI_DataType_S16,  XLA_FFI_DataType_S16,
    XLA_FFI_DataType_S32, XLA_FFI_DataType_S8,  XLA_FFI_DataType_S16,  XLA_FFI_DataType_S16,
    XLA_FFI_DataType_S16, XLA_FFI_DataType_PRED, XLA_FFI_DataType_PRED, XLA_FFI_DataType_S8,
    XLA_FFI_DataType_PRED};
static const size_t field_bytes[GAME_FIELDS] = {4, 4, 4, 1, 4, 4, 2, 2, 4, 1, 2, 2, 2, 1, 1, 1, 1};

typedef struct {
  int rank[GAME_FIELDS];
  int64_t dims[GAME_FIELDS][2];
  int64_t items[GAME_FIELDS]; /* elements per game */
} Shapes;

static void rules_shapes(const GojaxRules *rules, Shapes *s) {
  GojaxSizes n;
  gojax_rules_sizes(rules, &n);
  const int64_t table[GAME_FIELDS][3] = {
      {2, 2, n.words}, {2, 2, n.words}, {2, n.planes, n.words}, {0}, {1, 2}, {2, n.history, 2}, {1, n.buckets},
      {1, n.history},  {0},             {0},                      {0}, {1, 2}, {0},                {0}, {0}, {0}, {0}};
  for (int i = 0; i < GAME_FIELDS; i++) {
    s->rank[i] = (int)table[i][0];
    s->items[i] = 1;
    for (int k = 0; k < s->rank[i]; k++) {
      s->dims[i][k] = table[i][1 + k];
      s->items[i] *= table[i][1 + k];
    }
  }
}

/* The rules' attributes: size, ko_rule, suicide, move_cap. */
static XLA_FFI_Error *rules_attributes(const XLA_FFI_CallFrame *frame, const char *target, GojaxRules *rules) {
  int64_t size, ko_rule, suicide, move_cap;
  if (!attribute(frame, "size", &size) || size < 2 || size > MAX_SIZE)
    return fail(frame, XLA_FFI_Error_Code_INVALID_ARGUMENT, target, "needs an attribute size in 2..25");
  if (!attribute(frame, "ko_rule", &ko_rule) || ko_rule < 0 || ko_rule > 2)
    return fail(frame, XLA_FFI_Error_Code_INVALID_ARGUMENT, target, "needs an attribute ko_rule in 0..2");
  if (!attribute(frame, "suicide", &suicide))
    return fail(frame, XLA_FFI_Error_Code_INVALID_ARGUMENT, target, "needs an attribute suicide");
  if (!attribute(frame, "move_cap", &move_cap) || move_cap < 1 || move_cap > 32767)
    return fail(frame, XLA_FFI_Error_Code_INVALID_ARGUMENT, target, "needs an attribute move_cap in 1..32767");
  *rules = (GojaxRules){(int32_t)size, (int32_t)ko_rule, suicide != 0, (int32_t)move_cap};
  return NULL;
}

/* Game `i` of a batch whose fields are `data[field]` (each with the batch's axes in front). */
static GojaxGame game_at(void *const *data, const Shapes *s, int64_t i) {
#define FIELD(k, type) \
  ((type *)(s->items[k] ? (char *)data[k] + (size_t)(i * s->items[k]) * field_bytes[k] : (char *)data[k]))
  return (GojaxGame){FIELD(0, uint32_t),  FIELD(1, uint32_t), FIELD(2, uint32_t), FIELD(3, int8_t),
                     FIELD(4, uint32_t),  FIELD(5, uint32_t), FIELD(6, int16_t),  FIELD(7, int16_t),
                     FIELD(8, int32_t),   FIELD(9, int8_t),   FIELD(10, int16_t), FIELD(11, int16_t),
                     FIELD(12, int16_t),  FIELD(13, uint8_t), FIELD(14, uint8_t), FIELD(15, int8_t),
                     FIELD(16, uint8_t)};
#undef FIELD
}

typedef struct {
  GojaxRules rules;
  Shapes shapes;
  void *data[GAME_FIELDS];
  const int32_t *actions;
  const uint8_t *mask;
  int32_t superko;
  int64_t actions_per_game;
  uint8_t *out;
} Games;

static void step_range(const void *job, int64_t begin, int64_t end) {
  const Games *j = job;
  GojaxGame games[GOJAX_OVERLAP];
  const uint8_t *masks[GOJAX_OVERLAP];
  for (int64_t i = begin; i < end; i += GOJAX_OVERLAP) {
    int64_t n = end - i < GOJAX_OVERLAP ? end - i : GOJAX_OVERLAP;
    for (int64_t k = 0; k < n; k++) {
      games[k] = game_at(j->data, &j->shapes, i + k);
      masks[k] = j->mask ? j->mask + (i + k) * j->actions_per_game : NULL;
    }
    gojax_play_many(&j->rules, games, j->actions + i, j->mask ? masks : NULL, n);
  }
}

static void legal_range(const void *job, int64_t begin, int64_t end) {
  const Games *j = job;
  GojaxGame games[GOJAX_OVERLAP];
  uint8_t *outs[GOJAX_OVERLAP];
  for (int64_t i = begin; i < end; i += GOJAX_OVERLAP) {
    int64_t n = end - i < GOJAX_OVERLAP ? end - i : GOJAX_OVERLAP;
    for (int64_t k = 0; k < n; k++) {
      games[k] = game_at(j->data, &j->shapes, i + k);
      outs[k] = j->out + (i + k) * j->actions_per_game;
    }
    gojax_legal_many(&j->rules, games, j->superko, outs, n);
  }
}

/* Checks argument or result `b` as field `k` of a game batch. */
static int field_shaped(const XLA_FFI_Buffer *b, const Shapes *s, const Batch *batch, int k) {
  return shaped(b, field_types[k], batch, 0, s->rank[k], s->dims[k]);
}

static XLA_FFI_Error *bad_field(const XLA_FFI_CallFrame *frame, const char *target, const char *what, int k) {
  return fail(frame, XLA_FFI_Error_Code_INVALID_ARGUMENT, target,
              "%s %s has the wrong type or shape for the rules' attributes", what, field_names[k]);
}

/* gojax.step: (the 17 fields of GoState, action s32[...] [, mask pred[..., P + 1]]) -> the 17
 * fields, each result aliasing its argument; attributes size, ko_rule, suicide, move_cap. */
XLA_FFI_Error *gojax_ffi_step(XLA_FFI_CallFrame *frame) {
  static const char target[] = "gojax_ffi_step";
  XLA_FFI_Error *error;
  if (answered_with(frame, target, GAME_FIELDS + 1, GAME_FIELDS + 2, GAME_FIELDS, &error)) return error;
  Games job = {0};
  if ((error = rules_attributes(frame, target, &job.rules))) return error;
  rules_shapes(&job.rules, &job.shapes);
  Batch batch;
  const XLA_FFI_Buffer *moves = (const XLA_FFI_Buffer *)frame->rets.rets[8];
  if (!batch_of(moves, 0, &batch)) return bad_field(frame, target, "result", 8);
  for (int k = 0; k < GAME_FIELDS; k++) {
    const XLA_FFI_Buffer *in = arg(frame, k), *out = (const XLA_FFI_Buffer *)frame->rets.rets[k];
    if (!field_shaped(in, &job.shapes, &batch, k)) return bad_field(frame, target, "argument", k);
    if (!field_shaped(out, &job.shapes, &batch, k)) return bad_field(frame, target, "result", k);
    if (out->data != in->data && batch.games * job.shapes.items[k] > 0)
      memcpy(out->data, in->data, (size_t)(batch.games * job.shapes.items[k]) * field_bytes[k]);
    job.data[k] = out->data;
  }
  if (!shaped(arg(frame, GAME_FIELDS), XLA_FFI_DataType_S32, &batch, 0, 0, NULL))
    return bad_shape(frame, target, "action", "int32[...]");
  job.actions = arg(frame, GAME_FIELDS)->data;
  job.actions_per_game = (int64_t)job.rules.size * job.rules.size + 1;
  if (frame->args.size == GAME_FIELDS + 2) {
    if (!shaped(arg(frame, GAME_FIELDS + 1), XLA_FFI_DataType_PRED, &batch, 0, 1, &job.actions_per_game))
      return bad_shape(frame, target, "mask", "bool[..., P + 1]");
    job.mask = arg(frame, GAME_FIELDS + 1)->data;
  }
  return parallel(frame, step_range, &job, batch.games, 16);
}

/* gojax.legal_action_mask: (the 17 fields of GoState) -> pred[..., P + 1]; attributes size,
 * ko_rule, suicide, move_cap, superko. */
XLA_FFI_Error *gojax_ffi_legal_mask(XLA_FFI_CallFrame *frame) {
  static const char target[] = "gojax_ffi_legal_mask";
  XLA_FFI_Error *error;
  if (answered(frame, target, GAME_FIELDS, &error)) return error;
  Games job = {0};
  int64_t superko;
  if ((error = rules_attributes(frame, target, &job.rules))) return error;
  if (!attribute(frame, "superko", &superko))
    return fail(frame, XLA_FFI_Error_Code_INVALID_ARGUMENT, target, "needs an attribute superko");
  job.superko = superko != 0;
  rules_shapes(&job.rules, &job.shapes);
  job.actions_per_game = (int64_t)job.rules.size * job.rules.size + 1;
  const XLA_FFI_Buffer *out = result(frame);
  Batch batch;
  if (out->dtype != XLA_FFI_DataType_PRED || !batch_of(out, 1, &batch) ||
      out->dims[batch.rank] != job.actions_per_game)
    return bad_shape(frame, target, "the result", "bool[..., P + 1]");
  for (int k = 0; k < GAME_FIELDS; k++) {
    if (!field_shaped(arg(frame, k), &job.shapes, &batch, k)) return bad_field(frame, target, "argument", k);
    job.data[k] = arg(frame, k)->data;
  }
  job.out = out->data;
  return parallel(frame, legal_range, &job, batch.games, 16);
}

/* ------------------------------------------------------------------ the playouts */

static void playouts_range(const void *job, int64_t begin, int64_t end) { gojax_playouts(job, begin, end); }

/* The array attribute `name` of `dtype` in *out: 1, or 0 when the call has none. */
static int array_attribute(const XLA_FFI_CallFrame *frame, const char *name, XLA_FFI_DataType dtype,
                           const XLA_FFI_Array **out) {
  size_t length = strlen(name);
  for (int64_t i = 0; i < frame->attrs.size; i++) {
    const XLA_FFI_ByteSpan *key = frame->attrs.names[i];
    if (key->len != length || memcmp(key->ptr, name, length) != 0) continue;
    if (frame->attrs.types[i] != XLA_FFI_AttrType_ARRAY) return 0;
    *out = (const XLA_FFI_Array *)frame->attrs.attrs[i];
    return (*out)->dtype == dtype;
  }
  return 0;
}

/* Playouts: (stones u32[..., 2, W], turn, ko_point, passes, last, limits s32[...], draws
 * u32[..., T]) -> (owner s8[..., P], first u32[..., 2, W], final stones u32[..., 2, W]); attributes heavy (0 the light policy,
 * 1 the heavy one) and patterns (u32[2048], the 3x3 pattern table). */
XLA_FFI_Error *gojax_ffi_playouts(XLA_FFI_CallFrame *frame) {
  static const char target[] = "gojax_ffi_playouts";
  static const char *const scalars[5] = {"turn", "ko_point", "passes", "last", "limits"};
  XLA_FFI_Error *error;
  if (answered_with(frame, target, 7, 7, 3, &error)) return error;
  const XLA_FFI_Buffer *owner = frame->rets.rets[0], *first = frame->rets.rets[1], *final = frame->rets.rets[2];
  Batch batch;
  GojaxPlayouts job = {0};
  int64_t heavy;
  const XLA_FFI_Array *patterns;
  if (owner->dtype != XLA_FFI_DataType_S8 || !batch_of(owner, 1, &batch) ||
      !(job.size = board_size(owner->dims[batch.rank])))
    return bad_shape(frame, target, "the owner result", "int8[..., N * N] with N in 2..25");
  if (!attribute(frame, "heavy", &heavy))
    return fail(frame, XLA_FFI_Error_Code_INVALID_ARGUMENT, target, "needs an integer attribute heavy");
  if (!array_attribute(frame, "patterns", XLA_FFI_DataType_U32, &patterns) || patterns->size != 2048)
    return fail(frame, XLA_FFI_Error_Code_INVALID_ARGUMENT, target, "needs an attribute patterns uint32[2048]");
  job.heavy = heavy != 0;
  job.patterns = patterns->data;
  const XLA_FFI_Buffer *stones = arg(frame, 0);
  const int64_t two[2] = {2, (job.size * job.size + 31) / 32};
  if (!shaped(stones, XLA_FFI_DataType_U32, &batch, 0, 2, two))
    return bad_shape(frame, target, "stones", "uint32[..., 2, W], W = ceil(N * N / 32)");
  if (!shaped(first, XLA_FFI_DataType_U32, &batch, 0, 2, two))
    return bad_shape(frame, target, "the first result", "uint32[..., 2, W]");
  if (!shaped(final, XLA_FFI_DataType_U32, &batch, 0, 2, two))
    return bad_shape(frame, target, "the final result", "uint32[..., 2, W]");
  job.words = (int32_t)two[1];
  job.stones = stones->data;
  const int32_t **fields[5] = {&job.turn, &job.ko_point, &job.passes, &job.last, &job.limits};
  for (int k = 0; k < 5; k++) {
    if (!shaped(arg(frame, 1 + k), XLA_FFI_DataType_S32, &batch, 0, 0, NULL))
      return bad_shape(frame, target, scalars[k], "int32[...]");
    *fields[k] = arg(frame, 1 + k)->data;
  }
  const XLA_FFI_Buffer *draws = arg(frame, 6);
  const int64_t any_length[1] = {-1};
  if (!shaped(draws, XLA_FFI_DataType_U32, &batch, 0, 1, any_length) || draws->dims[batch.rank] < 1 ||
      draws->dims[batch.rank] > (1 << 30))
    return bad_shape(frame, target, "draws", "uint32[..., T] with T >= 1");
  job.max_moves = (int32_t)draws->dims[batch.rank];
  job.draws = draws->data;
  job.owner = owner->data;
  job.first = first->data;
  job.final = final->data;
  return parallel(frame, playouts_range, &job, batch.games, 2);
}
