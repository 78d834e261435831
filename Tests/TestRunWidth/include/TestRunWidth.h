// TestRunWidth: linking this target into the test binary caps how many test cases Swift
// Testing runs at once (see TestRunWidth.c).
#ifndef TEST_RUN_WIDTH_H
#define TEST_RUN_WIDTH_H

/// The width the constructor set SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH to: four per
/// core this process may run on, at most 32; 0 when the caller had set it.
long testRunWidthSet(void);

/// The cores this process may run on, as the constructor counted them: its CPU affinity on
/// Linux, the cores online elsewhere.
long testRunWidthCores(void);

#endif
