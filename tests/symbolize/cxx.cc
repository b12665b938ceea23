// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxx.cc - a C++ fixture of the symbolizer test: a member function, a
 * template instance and an inlined function in a namespace, whose names
 * in .symtab and DWARF are mangled.  Named, never run for its output.
 */
namespace fxt {

struct counter {
	int n;
	int bump(int by);
};

__attribute__((noinline)) int counter::bump(int by)
{
	n += by;
	return n;
}

template <typename T> __attribute__((noinline)) T twice(T v)
{
	return v + v;
}
template int twice<int>(int);

inline __attribute__((always_inline)) int scaled(counter &c)
{
	return c.bump(2) * 3;	/* inlined into run */
}

__attribute__((noinline)) int run(counter &c)
{
	return scaled(c) + twice(4);
}

} // namespace fxt

int main()
{
	fxt::counter c{1};

	return fxt::run(c) == 0;
}
