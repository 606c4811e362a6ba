/*
 * u64set.h - a growable open-addressing set of 64-bit numbers (block or
 * inode numbers seen by a walk), for cycle detection.  Memory grows with
 * the number of members, which every caller bounds by what it has read.
 */
#ifndef XA_U64SET_H
#define XA_U64SET_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

struct xa_u64set {
	uint64_t *slots;   /* 0 = empty; members are stored as value + 1 */
	size_t    cap, used;
};

static inline size_t xa_u64set_slot(uint64_t key, size_t cap)
{
	return (size_t)(key * 0x9E3779B97F4A7C15ull >> 17) & (cap - 1);
}

/* Add v; 1 if it was new, 0 if already present, -1 when out of memory.
 * (UINT64_MAX cannot be a member.) */
static inline int xa_u64set_add(struct xa_u64set *s, uint64_t v)
{
	uint64_t key = v + 1;
	size_t i;

	if (key == 0)
		return 0;
	if ((s->used + 1) * 2 > s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 64;
		uint64_t *n = calloc(ncap, sizeof(*n));

		if (!n)
			return -1;
		for (size_t k = 0; k < s->cap; k++) {
			if (!s->slots[k])
				continue;
			i = xa_u64set_slot(s->slots[k], ncap);
			while (n[i])
				i = (i + 1) & (ncap - 1);
			n[i] = s->slots[k];
		}
		free(s->slots);
		s->slots = n;
		s->cap = ncap;
	}
	i = xa_u64set_slot(key, s->cap);
	while (s->slots[i]) {
		if (s->slots[i] == key)
			return 0;
		i = (i + 1) & (s->cap - 1);
	}
	s->slots[i] = key;
	s->used++;
	return 1;
}

/* True if v is a member. */
static inline int xa_u64set_has(const struct xa_u64set *s, uint64_t v)
{
	uint64_t key = v + 1;
	size_t i;

	if (!s->cap || key == 0)
		return 0;
	i = xa_u64set_slot(key, s->cap);
	while (s->slots[i]) {
		if (s->slots[i] == key)
			return 1;
		i = (i + 1) & (s->cap - 1);
	}
	return 0;
}

static inline void xa_u64set_release(struct xa_u64set *s)
{
	free(s->slots);
	s->slots = NULL;
	s->cap = s->used = 0;
}

#endif /* XA_U64SET_H */
