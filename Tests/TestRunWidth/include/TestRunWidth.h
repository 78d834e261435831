// TestRunWidth: nothing to call. Linking this target into the test binary caps how many test
// cases Swift Testing runs at once (see TestRunWidth.c).
#ifndef TEST_RUN_WIDTH_H
#define TEST_RUN_WIDTH_H
#endif
