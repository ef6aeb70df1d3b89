/* pinbench's staged copy engine (pinbench/staged_copy.hpp), its block copier, its pinned arena
 * and its run-record reader behind a C ABI, in libpinbench_c.so. One build serves every language
 * with a C FFI, and every Python 3 through ctypes (python/pinbench): no Python headers, no torch
 * ABI, the CUDA runtime linked statically, so only the driver is needed where it runs.
 *
 * Every call that can fail returns a pinbench_status; on failure the calling thread's
 * pinbench_last_error() holds the engine's one-line message (valid until the thread's next
 * failing call). Nothing throws across this boundary.
 *
 * Pointers are plain device and host addresses (the CUDA runtime's primary context is shared,
 * so memory from torch or CuPy works as is); a stream is a cudaStream_t as an integer (0: the
 * legacy default stream, 2: the per-thread default stream). */
#ifndef PINBENCH_PINBENCH_C_H
#define PINBENCH_PINBENCH_C_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Raised whenever a function's signature or a struct's layout changes. */
#define PINBENCH_C_ABI_VERSION 5

typedef enum pinbench_status {
  PINBENCH_OK = 0,
  PINBENCH_INVALID_ARGUMENT = 1, /* the engine refused its arguments; nothing was copied */
  PINBENCH_NO_GPU = 2,           /* no usable CUDA device or driver */
  PINBENCH_CUDA_ERROR = 3,       /* a CUDA call failed; see pinbench_last_cuda_error() */
  PINBENCH_INPUT_ERROR = 4,      /* a run record that cannot be read or is not valid */
  PINBENCH_INTERNAL_ERROR = 5    /* anything else (out of memory, ...) */
} pinbench_status;

typedef struct pinbench_copier pinbench_copier; /* a StagedCopier */
typedef struct pinbench_copy pinbench_copy;     /* a StagedCopy in flight */

/* StagedCopyOptions, field for field (see pinbench/staged_options.hpp for what each means). */
typedef struct pinbench_options {
  size_t h2d_chunk_bytes;
  int h2d_depth;
  int h2d_threads;
  size_t d2h_chunk_bytes;
  int d2h_depth;
  int d2h_threads;
  size_t edge_chunk_bytes;
  size_t h2d_direct_below_bytes; /* ABI 2: one threshold per direction */
  size_t d2h_direct_below_bytes;
  size_t max_staging_bytes;
  int streaming_drain;        /* 0 or 1 */
  int caller_copies;          /* 0 or 1 */
  int device;                 /* -1: the calling thread's current device */
  int streaming_fill_edges;   /* 0 or 1 (ABI 2) */
  int caller_drives;          /* 0 or 1 (ABI 3) */
  int host_threads;           /* 0: sized to the machine (ABI 3) */
  size_t prefault_from_bytes; /* 0: never (ABI 3) */
  int fresh_huge_pages;       /* 0 or 1 (ABI 3) */
} pinbench_options;

int pinbench_abi_version(void);
const char* pinbench_version(void);

/* The calling thread's last failure: its message ("" if none), the CUDA error code
 * (cudaSuccess = 0 when the failure was not CUDA's) and how many bytes of the failed copy's
 * destination are known to hold the data. */
const char* pinbench_last_error(void);
int pinbench_last_cuda_error(void);
size_t pinbench_last_bytes_done(void);

void pinbench_default_options(pinbench_options* out);

/* The number of usable CUDA devices; 0, with PINBENCH_OK, when there are none (the reason is
 * then in pinbench_last_error()). */
pinbench_status pinbench_device_count(int* count);

/* Where the driver says `ptr` lives: *device is its ordinal for device memory, -1 for host
 * memory (pageable or page-locked), -2 for managed memory. */
pinbench_status pinbench_pointer_device(const void* ptr, int* device);

pinbench_status pinbench_copier_create(const pinbench_options* options, pinbench_copier** out);
/* Completes every copy already submitted, then frees the engine. NULL is ignored. */
void pinbench_copier_destroy(pinbench_copier* copier);
pinbench_status pinbench_copier_device(const pinbench_copier* copier, int* device);
pinbench_status pinbench_copier_staging_bytes(const pinbench_copier* copier, size_t* bytes);

/* Synchronous: return once the data has arrived. */
pinbench_status pinbench_copy_to_device(pinbench_copier* copier, void* dst, const void* src,
                                        size_t bytes, uintptr_t stream);
pinbench_status pinbench_copy_to_host(pinbench_copier* copier, void* dst, const void* src,
                                      size_t bytes, uintptr_t stream);

/* Asynchronous: *out is the copy in flight; wait on it, then free it. Freeing an unfinished copy
 * does not stop it: the memory must stay valid until it completes. */
pinbench_status pinbench_copy_to_device_async(pinbench_copier* copier, void* dst, const void* src,
                                              size_t bytes, uintptr_t stream, pinbench_copy** out);
pinbench_status pinbench_copy_to_host_async(pinbench_copier* copier, void* dst, const void* src,
                                            size_t bytes, uintptr_t stream, pinbench_copy** out);
pinbench_status pinbench_copy_wait(const pinbench_copy* copy);
pinbench_status pinbench_copy_stream_wait(const pinbench_copy* copy, uintptr_t stream);
/* *done: 1 once the copy is complete (successfully or not). Never blocks. */
pinbench_status pinbench_copy_done(const pinbench_copy* copy, int* done);
/* *staged: 0 when the copy went straight to cudaMemcpyAsync. */
pinbench_status pinbench_copy_staged(const pinbench_copy* copy, int* staged);
void pinbench_copy_free(pinbench_copy* copy);

/* pinbench::BlockCopier (pinbench/block_copier.hpp), ABI 4: many blocks between a host arena
 * and a device arena by the method its calibration (or a `pinbench blocks --recommend` file)
 * chooses. A calibration or rules file that cannot be used is PINBENCH_INPUT_ERROR. */
typedef struct pinbench_block_copier pinbench_block_copier;

/* One block: StagedBlock, field for field. */
typedef struct pinbench_block {
  size_t host_offset;
  size_t device_offset;
  size_t bytes;
} pinbench_block;

typedef struct pinbench_block_options {
  int device;              /* -1: the calling thread's current device */
  const char* rules_file;  /* NULL or "": the calibration */
  const char* cache_dir;   /* NULL or "": $XDG_CACHE_HOME/pinbench, else ~/.cache/pinbench */
  int use_cache;           /* 0: measure, neither reading nor writing a cache */
  double max_slowdown_pct; /* < 0: no budget */
  unsigned kernel_sms;     /* 0: every SM */
} pinbench_block_options;

void pinbench_block_default_options(pinbench_block_options* out);
pinbench_status pinbench_block_copier_create(const pinbench_block_options* options,
                                             pinbench_block_copier** out);
void pinbench_block_copier_destroy(pinbench_block_copier* copier);
/* Reads the cache or rules, or measures, now rather than on the first copy. */
pinbench_status pinbench_block_copier_calibrate(pinbench_block_copier* copier);
/* direction: 0 host to device, 1 device to host. method: -1 the copier's choice, else one of
 * 0 batch-stream, 1 batch-overlap, 2 loop, 3 staged, 4 kernel. */
pinbench_status pinbench_block_copy(pinbench_block_copier* copier, int direction, void* host_arena,
                                    void* device_arena, const pinbench_block* blocks, size_t count,
                                    uintptr_t stream, int method);
/* stats() as JSON in *json_out (free with pinbench_free): source, source_path, source_note,
 * calibration_s, calls, blocks, bytes, calls_by_method, and the last call's shape and choice. */
pinbench_status pinbench_block_copier_stats(const pinbench_block_copier* copier, char** json_out);

/* pinbench::PinnedArena (pinbench/pinned_arena.hpp), ABI 5: page-locked host memory of exactly
 * the size asked, pinned in chunks on background threads, usable range by range as they land.
 *
 * One copy, one chunk: each chunk is its own registration, and one cudaMemcpyAsync that spans
 * two of them fails with cudaErrorInvalidValue. pinbench_arena_copy_to_device and
 * pinbench_arena_copy_from_device split a range where chunks meet; pinbench_arena_piece_bytes
 * says how far one copy of the caller's own may reach. Blocks whose size divides the chunk size,
 * at offsets that are multiples of it, never cross.
 *
 * Errors: PINBENCH_INVALID_ARGUMENT for a bad argument, and from pinbench_arena_create for a size
 * past one of the host's limits (refused, never attempted: the message names the limit and its
 * value); PINBENCH_NO_GPU or PINBENCH_CUDA_ERROR for a CUDA failure (from create where the
 * device cannot be found, from wait and the copies for a chunk whose registration failed);
 * PINBENCH_INTERNAL_ERROR where the kernel could not give the memory. */
typedef struct pinbench_arena pinbench_arena;

/* Flags of pinbench_arena_create; 0 is the default (transparent huge pages, this device only). */
#define PINBENCH_ARENA_NO_HUGE_PAGES 1u /* no madvise(MADV_HUGEPAGE) */
#define PINBENCH_ARENA_PORTABLE 2u      /* cudaHostRegisterPortable: page-locked for every device */

/* PinnedArenaStats, field for field. */
typedef struct pinbench_arena_stats {
  size_t bytes;       /* the size asked, rounded up to a 4 KiB page */
  size_t chunk_bytes; /* the last chunk may be shorter */
  size_t chunks;
  unsigned threads;
  size_t chunks_pinned;
  double first_chunk_ms;  /* from the start to the first chunk page-locked */
  double pinned_ms;       /* to the last one; 0 while chunks remain */
  double longest_call_ms; /* the longest cudaHostRegister of one chunk */
} pinbench_arena_stats;

/* Maps `bytes` (at least 1) and starts pinning; returns without waiting for any chunk.
 * chunk_bytes: 0 for the default (32 MiB), else rounded up to a multiple of 2 MiB; threads: 0 for
 * half the CPUs this process may use (1 to 16); flags: PINBENCH_ARENA_*; device: -1 for the
 * calling thread's current device. The host's limits are always checked. */
pinbench_status pinbench_arena_create(size_t bytes, size_t chunk_bytes, unsigned threads,
                                      unsigned flags, int device, pinbench_arena** out);
/* Waits for the work queued on the arena's device (cudaDeviceSynchronize: a copy still queued
 * never reads or writes freed memory), stops the pinning, then unregisters and unmaps the
 * chunks. NULL is ignored. */
void pinbench_arena_destroy(pinbench_arena* arena);
pinbench_status pinbench_arena_data(const pinbench_arena* arena, void** data);
pinbench_status pinbench_arena_size(const pinbench_arena* arena, size_t* bytes); /* as asked */
pinbench_status pinbench_arena_device(const pinbench_arena* arena, int* device);
pinbench_status pinbench_arena_chunk_bytes(const pinbench_arena* arena, size_t* bytes);
/* *ready: 1 when every chunk of [offset, offset + bytes) is page-locked. Never blocks. */
pinbench_status pinbench_arena_ready(const pinbench_arena* arena, size_t offset, size_t bytes,
                                     int* ready);
/* Returns once every chunk of the range is page-locked; the error of one that failed. */
pinbench_status pinbench_arena_wait(const pinbench_arena* arena, size_t offset, size_t bytes);
/* How many bytes from `offset` (at most `bytes`) one copy may move: to the end of its chunk. */
pinbench_status pinbench_arena_piece_bytes(const pinbench_arena* arena, size_t offset, size_t bytes,
                                           size_t* piece);
/* cudaMemcpyAsync of the range on `stream`, split where chunks meet, after waiting for the
 * range to be page-locked; ordered on `stream` like one cudaMemcpyAsync (synchronize it before
 * reading the result). */
pinbench_status pinbench_arena_copy_to_device(const pinbench_arena* arena, void* device_dst,
                                              size_t offset, size_t bytes, uintptr_t stream);
pinbench_status pinbench_arena_copy_from_device(const pinbench_arena* arena, size_t offset,
                                                const void* device_src, size_t bytes,
                                                uintptr_t stream);
pinbench_status pinbench_arena_get_stats(const pinbench_arena* arena, pinbench_arena_stats* out);

/* A run record read and validated as every pinbench reader does (load_record), returned as JSON
 * text in *json_out, to free with pinbench_free:
 *  - pinbench_record_rows: one flat object per case (the columns of `pinbench report --csv`,
 *    typed: numbers as numbers, absent figures as null), plus the record's header fields;
 *  - pinbench_record_json: the whole record as pinbench writes it. */
pinbench_status pinbench_record_rows(const char* path, char** json_out);
pinbench_status pinbench_record_json(const char* path, char** json_out);
void pinbench_free(char* text);

#ifdef __cplusplus
}
#endif

#endif /* PINBENCH_PINBENCH_C_H */
