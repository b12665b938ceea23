// SPDX-License-Identifier: GPL-2.0-only
/*
 * inl.c - a function inlined into another, for the inline-frame test.
 * Built without frame pointers so that inl_caller's first instructions
 * are inl's own.
 */
extern volatile int sink;

static inline __attribute__((always_inline)) int inl(int x)
{
	return x * x + sink;
}

__attribute__((noinline)) int inl_caller(int x)
{
	return inl(x) ^ 5; /* LINE_CALL */
}
