# SPDX-License-Identifier: MIT
#
# tests/util/build.mk - host tests of user/util (kselftest harness):
#   test_hmap   the hash map, plain and under ASan+UBSan

$(B)/tests/util/test_hmap: $(B)/tests/util/test_hmap.o $(UTIL_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^
$(B)/tests/util/%.o: CPPFLAGS += -Iuser

$(B)/asan/tests/util/test_hmap: tests/util/test_hmap.c $(UTIL_LIB_ASAN)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iuser -isystem $(KSFT_INC) $(CFLAGS) \
		-Wno-unused-parameter $(FXT_SAN_FLAGS) -o $@ $< $(UTIL_LIB_ASAN)

HOST_TESTS += $(B)/tests/util/test_hmap $(B)/asan/tests/util/test_hmap
