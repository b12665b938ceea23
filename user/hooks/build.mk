# SPDX-License-Identifier: GPL-2.0-only
#
# user/hooks/build.mk - libfxtprof-hooks.so: application annotations
# (include/fxtprof_hooks.h) and the Kokkos Tools callbacks.
#   $(HOOKS_LIB)   $(B)/lib/libfxtprof-hooks.so; dlopen() it, or link it
#                  and #include <fxtprof_hooks.h>.  Its soname is
#                  $(HOOKS_SONAME), libfxtprof-hooks.so.0, which a program
#                  linked with it loads: a symlink of that name is made
#                  next to it (make install installs the library under
#                  that name, and the link the other way)
# The standalone outputs run the pipeline of `fxtprof record` (state,
# encoder, sink, transport, libfxt) inside the library, so those parts are
# built a second time as position-independent code, under $(B)/pic/, and
# archived there; the .so takes what it needs from the archives and the
# version script exports only the public names.  The fragments of those
# parts are read after this one (in name order), so their sources are
# found here by wildcard; an archive pulls in only the objects it needs.
# liburing and liblz4 are linked as shared libraries: their static
# archives are not PIC.  The sink brings the archive part (a standalone
# file:///x.fxtz is an archive, as for `fxtprof record`).

HOOKS_SRCS := user/hooks/hooks.c user/hooks/hooks_state.c \
	      user/hooks/hooks_thread.c \
	      user/hooks/name_stack.c user/hooks/section_table.c \
	      user/hooks/thread_ring.c user/hooks/out_device.c \
	      user/hooks/out_standalone.c user/hooks/kokkos.c
HOOKS_MAP := user/hooks/libfxtprof-hooks.map
HOOKS_LIB := $(B)/lib/libfxtprof-hooks.so
HOOKS_SONAME := libfxtprof-hooks.so.0
# In link order: a part before the parts it uses.
HOOKS_PIC_PARTS := state encode sink archive transport fxt util
HOOKS_PIC_LIBS := $(HOOKS_PIC_PARTS:%=$(B)/pic/lib/lib%.a)

# PIC objects of any source: the pipeline's and the library's own.
$(B)/pic/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iuser -Iuser/fxt $(CFLAGS) -fPIC -MMD -MP -c -o $@ $<

# $(call hooks_pic_objs,PART): the PIC objects of user/PART, tools left out.
hooks_pic_objs = $(patsubst %.c,$(B)/pic/%.o,$(filter-out %_tool.c,$(wildcard user/$(1)/*.c)))
$(foreach p,$(HOOKS_PIC_PARTS),$(eval $(B)/pic/lib/lib$(p).a: $(call hooks_pic_objs,$(p))))
$(HOOKS_PIC_LIBS):
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

# The board's LDFLAGS say -static (programs); a shared library takes only
# their search path.
HOOKS_LDFLAGS := $(filter-out -static,$(LDFLAGS))

$(HOOKS_LIB): $(HOOKS_SRCS:%.c=$(B)/pic/%.o) $(HOOKS_PIC_LIBS) $(HOOKS_MAP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(HOOKS_LDFLAGS) -shared -fPIC \
		-Wl,--version-script=$(HOOKS_MAP) -Wl,-Bsymbolic \
		-Wl,-z,nodelete -Wl,--no-undefined -Wl,-soname,$(HOOKS_SONAME) \
		-o $@ $(filter %.o %.a,$^) -luring $(ARCHIVE_LDLIBS) -lpthread
	ln -sf $(notdir $@) $(@D)/$(HOOKS_SONAME)

USER_PROGS += $(HOOKS_LIB)
