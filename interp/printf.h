/*
 * interp/printf.h — CUDA device printf, formatted on the host.
 *
 * nvcc lowers printf(fmt, a, b, …) to `call.uni (ret), vprintf, (fmt, args)`: fmt is a generic
 * pointer to the format string, args a generic pointer to a local buffer holding the arguments
 * after the default promotions, each at its natural alignment — int, char, short and unsigned
 * as 4 bytes; long, long long, size_t and pointers (char * for %s too) as 8 bytes; float
 * promoted to double, 8 bytes. A printf without arguments passes args = 0.
 *
 * As on a GPU, the host C library does the final formatting (the CUDA programming guide,
 * "Formatted Output"): dev_printf_format walks the format, takes each argument from the buffer
 * by the size its conversion implies and hands it to the host's snprintf. The output of a
 * launch goes through a bounded FIFO (struct dev_printf_buf) written out at kernel end.
 */
#ifndef PTXEMU_PRINTF_H
#define PTXEMU_PRINTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Arguments a device printf may take besides the format (later conversions print as-is). */
#define DEV_PRINTF_MAX_ARGS 32

/* Reads the NUL-terminated device string at addr: copies at most cap-1 bytes into buf and
 * NUL-terminates it (cap >= 1), returning the string's full length (strlcpy style), or a
 * negative value when addr is not readable device memory. */
typedef int (*dev_printf_read_str)(void *ctx, uint64_t addr, char *buf, size_t cap);

/*
 * Format one device printf into out (at most cap-1 bytes, NUL-terminated when cap > 0).
 * Returns the length the full output has (snprintf style: >= cap means truncated), or
 *   -EINVAL  fmt is NULL, args is NULL while args_len > 0, or out is NULL while cap > 0;
 *   -EFAULT  a %s argument is neither NULL nor readable through read_str.
 *
 * Semantics (CUDA "Formatted Output", formatting done by the host C library):
 *   - conversions d i u o x X c s p f F e E g G a A and %%; flags - + space # 0; width and
 *     precision as digits or `*` (an int taken from the buffer, negative width = '-' flag,
 *     negative precision = none); length modifiers hh h l ll j z t (L is accepted and ignored).
 *   - argument size comes from the conversion and modifier, never from the caller's types:
 *     integers 4 bytes, or 8 with l ll j z t; floating conversions 8 (double); %s %p 8; %c 4.
 *     Each is read at the next offset aligned to its size, as nvcc lays the buffer out.
 *   - a mismatched format reads the buffer the way the format says (e.g. %d of a double prints
 *     its low 32 bits and shifts the following arguments), like a GPU does.
 *   - at most DEV_PRINTF_MAX_ARGS arguments (a `*` counts as one); conversions after that, and
 *     conversions whose argument lies past args_len, are printed as their literal text.
 *   - an unknown conversion character (e.g. %n, %k) is printed literally and takes no argument.
 *   - %s of NULL prints "(null)" (or "" when the precision is below 6, as glibc does).
 */
int dev_printf_format(const char *fmt, const uint8_t *args, size_t args_len,
                      dev_printf_read_str read_str, void *ctx, char *out, size_t cap);

/* What vprintf returns to the kernel: the number of arguments the format takes (a `*` counts
 * as one; at most DEV_PRINTF_MAX_ARGS), 0 for none, -1 for a NULL format ("Unlike the C
 * printf, CUDA's printf() returns the number of arguments parsed"; -2, an internal error, is
 * for the caller to return when it cannot run the printf at all). */
int dev_printf_nargs(const char *fmt);

/* ---------------------------------------------------------------- per-launch output FIFO */

/* A launch's printf output: records of formatted text tagged with (CTA linear id, warp, issue
 * order), appended concurrently by CTA threads and written out at kernel end. Bounded like
 * cudaLimitPrintfFifoSize: each record costs its text plus a 24-byte header rounded to 8; a
 * record that does not fit is dropped whole (and counted), as the GPU drops output once its
 * FIFO is full. */
struct dev_printf_buf;

/* Create a FIFO of capacity bytes (0: 1 MiB, CUDA's default). 0 or -ENOMEM / -EINVAL. */
int dev_printf_buf_create(size_t capacity, struct dev_printf_buf **out);
void dev_printf_buf_destroy(struct dev_printf_buf *b);

/* Append len bytes of text as one record (thread-safe, lock-free). seq orders the records of
 * one warp: e.g. the warp's printf count * 32 + lane. Returns 0, 1 when dropped for lack of
 * room, or -EINVAL. Empty text is accepted and stores nothing. */
int dev_printf_buf_append(struct dev_printf_buf *b, uint64_t cta, uint32_t warp, uint64_t seq,
                          const char *text, size_t len);

/* Format with dev_printf_format and append the result (same return values as append, or the
 * negative error of dev_printf_format, in which case nothing is appended). */
int dev_printf_buf_printf(struct dev_printf_buf *b, uint64_t cta, uint32_t warp, uint64_t seq,
                          const char *fmt, const uint8_t *args, size_t args_len,
                          dev_printf_read_str read_str, void *ctx);

/* Write every record to f — sorted by (cta, warp, seq) when ordered (use it for deterministic
 * runs), else in arrival order — and empty the FIFO. Call when no thread appends (kernel end).
 * Returns the bytes written, or -EIO / -ENOMEM (the FIFO is emptied in every case). */
long dev_printf_buf_flush(struct dev_printf_buf *b, FILE *f, bool ordered);

/* Records dropped since the last flush (a full FIFO); read it before flushing. */
uint64_t dev_printf_buf_dropped(const struct dev_printf_buf *b);

#endif
