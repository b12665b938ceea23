// SPDX-License-Identifier: GPL-2.0-only
/*
 * stack_refs.c - see stack_refs.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stack_refs.h"
#include "fxt/fxt_profile.h"

struct stack_refs {
	struct stack_key slot[FXT_STACK_REFS_MAX];
};

int stack_refs__new(struct stack_refs **rp)
{
	*rp = calloc(1, sizeof(**rp));
	return *rp ? 0 : -ENOMEM;
}

void stack_refs__free(struct stack_refs *r)
{
	free(r);
}

void stack_refs__reset(struct stack_refs *r)
{
	memset(r->slot, 0, sizeof(r->slot));
}

/*
 * Two multiply chains with different odd constants and seeds, each
 * finished by a 64-bit mixer (splitmix64's), so that the two hashes of a
 * stack are independent for any practical purpose.
 */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static struct stack_key stack_key(const __u64 *ips, unsigned int n,
				  unsigned int kframes)
{
	uint64_t a = (uint64_t)n << 16 | kframes, b = ~a;
	struct stack_key k;
	unsigned int i;

	for (i = 0; i < n; i++) {
		a = (a ^ ips[i]) * 0x9e3779b97f4a7c15ull;
		b = (b + ips[i]) * 0xff51afd7ed558ccdull;
		b ^= b >> 29;
	}
	k.a = mix(a);
	k.b = mix(b) | 1;	/* never the empty slot's 0, 0 */
	return k;
}

bool stack_refs__find(const struct stack_refs *r, const __u64 *ips,
		      unsigned int n, unsigned int kframes, uint32_t *id,
		      struct stack_key *key)
{
	const struct stack_key *s;

	*key = stack_key(ips, n, kframes);
	*id = (uint32_t)(key->a % FXT_STACK_REFS_MAX);
	s = &r->slot[*id];
	return s->a == key->a && s->b == key->b;
}

void stack_refs__defined(struct stack_refs *r, uint32_t id,
			 const struct stack_key *key)
{
	if (id < FXT_STACK_REFS_MAX)
		r->slot[id] = *key;
}
