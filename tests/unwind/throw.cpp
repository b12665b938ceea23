// SPDX-License-Identifier: GPL-2.0-only
/*
 * throw.cpp - a C++ program that throws and catches, built -O2
 * -fomit-frame-pointer: landing pads, .gcc_except_table and the
 * unwinder's own frames in its CFI.  test_unwind_cfi checks its table;
 * test_bpf_unwind (natively: PIE, the host's libstdc++) and the VM's
 * test_unwind_walk (static) record it, in one of two modes:
 *
 *   throw catch MS	each round throws through 4 frames of throw_deep
 *			and is hot in catch_spin, called from the catch
 *			block of catch_site, 4 frames below main:
 *			catch_spin <- catch_site <- catch_mid <- throw_loop
 *			<- main
 *   throw dtor MS	each round throws through 4 frames of throw_deep
 *			and is hot in dtor_spin, called by the destructor
 *			of a Guard that the cleanup landing pad of dtor_mid
 *			runs while the exception unwinds:
 *			dtor_spin <- (~Guard) <- dtor_mid <- dtor_catch <-
 *			throw_loop <- main
 *
 * Between two spins, samples land in the unwinder (libgcc's and
 * libstdc++'s); the tests count them.  It writes 'r' to stdout once
 * running, waits for a byte on stdin (the test maps its tables
 * meanwhile), works for MS milliseconds and exits.  The named functions
 * are extern "C" and noipa, so that their symbols are the frames; gcc
 * may put a catch block or a landing pad in a "NAME.cold" part, which
 * the tests take as NAME.
 */
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <unistd.h>

#define NOIPA	__attribute__((noipa))

static volatile unsigned long sink;

struct oops {
	unsigned long n;
};

static unsigned long now_ms()
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

extern "C" {

/* Slow on purpose, so that most samples land here and not in a throw. */
NOIPA unsigned long catch_spin(unsigned long x)
{
	for (int i = 0; i < 20000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

NOIPA unsigned long dtor_spin(unsigned long x)
{
	return catch_spin(x) ^ 1;
}

/* The volatile write after the call keeps it a call, not a jump. */
NOIPA void throw_deep(int depth)
{
	if (!depth)
		throw oops{ sink };
	throw_deep(depth - 1);
	sink++;
}

NOIPA void catch_site()
{
	try {
		throw_deep(3);
	} catch (const oops &e) {
		sink += catch_spin(e.n);
	}
	sink++;
}

NOIPA void catch_mid()
{
	catch_site();
	sink++;
}

}

struct guard {
	NOIPA ~guard() { sink += dtor_spin(sink); }
};

extern "C" {

NOIPA void dtor_mid()
{
	guard g;

	throw_deep(3);
	sink++;
}

NOIPA void dtor_catch()
{
	try {
		dtor_mid();
	} catch (const oops &) {
		sink++;
	}
	sink++;
}

NOIPA void throw_loop(bool dtor, unsigned long until)
{
	do {
		if (dtor)
			dtor_catch();
		else
			catch_mid();
	} while (now_ms() < until);
}

}

int main(int argc, char **argv)
{
	char c;

	if (argc != 3 || (strcmp(argv[1], "catch") && strcmp(argv[1], "dtor")))
		return 2;
	if (write(1, "r", 1) != 1 || read(0, &c, 1) != 1)
		return 3;
	throw_loop(!strcmp(argv[1], "dtor"),
		   now_ms() + strtoul(argv[2], NULL, 10));
	return 0;
}
