/*
 * swar.h - eight bytes at a time in a 64-bit word (SIMD within a register)
 *
 * For the loops that go through every byte of a large text: the JSON
 * framing's split of a List into items, the writer's check of what a
 * string needs escaped. Portable C, no intrinsics.
 *
 * A mask from gt_swar_eq or gt_swar_lt has the high bit of each byte that
 * matches; a borrow can also set the bits of bytes above a match, never
 * below one, so the first byte a mask names (gt_swar_first) is exact, and
 * only the first may be used.
 */
#ifndef GT_SWAR_H
#define GT_SWAR_H

#include <stdint.h>
#include <string.h>

#define GT_SWAR_ONES 0x0101010101010101ULL
#define GT_SWAR_HIGHS 0x8080808080808080ULL

/* The eight bytes at @p, in memory order. */
static inline uint64_t gt_swar_load(const void *p)
{
	uint64_t w;
	memcpy(&w, p, sizeof(w));
	return w;
}

/* The bytes of @w equal to @c. */
static inline uint64_t gt_swar_eq(uint64_t w, unsigned char c)
{
	uint64_t x = w ^ (GT_SWAR_ONES * c);
	return (x - GT_SWAR_ONES) & ~x & GT_SWAR_HIGHS;
}

/* The bytes of @w below @c (@c at most 0x80). */
static inline uint64_t gt_swar_lt(uint64_t w, unsigned char c)
{
	return (w - GT_SWAR_ONES * c) & ~w & GT_SWAR_HIGHS;
}

/* The index (0-7, in memory order) of the first byte @mask names; @mask not 0. */
static inline unsigned gt_swar_first(uint64_t mask)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (unsigned)__builtin_ctzll(mask) / 8;
#else
	return (unsigned)__builtin_clzll(mask) / 8;
#endif
}

#endif /* GT_SWAR_H */
