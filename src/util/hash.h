/*
 * hash.h - FNV-1a, the one string hash (and a faster one for tables)
 *
 * 64-bit FNV-1a: a byte at a time, no seed, the same value on every
 * machine and in every run, which is what the users of a hash here need:
 * open-addressing tables (strtab, smap), and names derived from content
 * (an event named after what it says, a GPU group named after its node)
 * that must come out the same after a restart. Not for untrusted keys an
 * attacker could choose to collide (nothing here hashes such keys into a
 * table whose cost they could blow up).
 *
 * To hash several strings as one: h = GT_HASH_INIT, then
 * h = gt_hash_add(h, a); h = gt_hash_add(h, b); ...
 *
 * gt_hash_mix() combines integers (ids, counts) instead of bytes: the
 * victim search's scenario fingerprints and KAI's scheduling signatures
 * hash interned ids, and sets of them as sums of mixes (order-free).
 *
 * gt_hash_bytes() is for the tables of strings alone (strtab, a document
 * input's keys): a word at a time, three to four times fewer instructions
 * than FNV-1a on a name, and its value depends on the machine's byte
 * order, so nothing that must come out the same elsewhere is named by it.
 */
#ifndef GT_HASH_H
#define GT_HASH_H

#include <stddef.h>
#include <stdint.h>

#define GT_HASH_INIT 1469598103934665603ULL	/* FNV-1a 64-bit offset basis */
#define GT_HASH_PRIME 1099511628211ULL

/* @h with the bytes of @s (up to its NUL) mixed in. */
static inline uint64_t gt_hash_add(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * GT_HASH_PRIME;
	return h;
}

static inline uint64_t gt_hash_str(const char *s)
{
	return gt_hash_add(GT_HASH_INIT, s);
}

/* @h with the integer @v mixed in (boost's combine, then a splitmix64 finaliser). */
static inline uint64_t gt_hash_mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
	h ^= h >> 31;
	h *= 0xBF58476D1CE4E5B9ULL;
	return h ^ (h >> 27);
}

/*
 * Bytes [@from, @from + 8) of @s (@len long) as one integer, zeros past its
 * end, in the machine's byte order: a whole word where there is one, else a
 * byte at a time (reading a whole word would read past the end). Strings
 * compared or hashed a word at a time are packed by this one function.
 */
static inline uint64_t gt_bytes_word(const char *s, size_t len, size_t from)
{
	uint64_t w = 0;
	if (len >= from + sizeof(w)) {
		__builtin_memcpy(&w, s + from, sizeof(w));
		return w;
	}
	for (size_t i = from; i < len; i++)
		w |= (uint64_t)(unsigned char)s[i] << 8 * (i - from);
	return w;
}

/*
 * The @len bytes at @s, eight at a time, for a table of strings (names,
 * keys): every byte counts; the last word is the last eight bytes,
 * overlapping the one before, so nothing is read past the end and no
 * byte loop runs but for strings under eight bytes.
 */
static inline uint64_t gt_hash_bytes(const char *s, size_t len)
{
	uint64_t h = GT_HASH_INIT ^ len, w;
	if (len < sizeof(w))
		return gt_hash_mix(h, gt_bytes_word(s, len, 0));
	for (size_t i = 0; i + sizeof(w) < len; i += sizeof(w)) {
		__builtin_memcpy(&w, s + i, sizeof(w));
		h = gt_hash_mix(h, w);
	}
	__builtin_memcpy(&w, s + len - sizeof(w), sizeof(w));
	return gt_hash_mix(h, w);
}

#endif /* GT_HASH_H */
