// Caps how many test cases Swift Testing runs at once in the test binary, at four per core
// (eight on CI's two cores), unless the caller set SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH
// itself (Swift 6.3's testing library reads it; older ones ignore it). `swift test` otherwise
// starts every test case of the suite at once: on two cores the run held some 2,200
// descriptors and 2.2 GB, took 29 minutes and 3,180 s of CPU time, while capped at eight it
// held 130 descriptors and 680 MB and took 13 minutes and 1,460 s. Past about 1,360 open
// descriptors, Foundation's Process.run() on Linux reads past the end of its listing of
// /proc/self/fd (it copies each entry's whole 256-byte name) and the run crashes.
//
// A constructor, run as the binary loads: the testing library reads the variable when it
// starts, after every constructor and before the first test.
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "TestRunWidth.h"

__attribute__((constructor)) static void capTestRunWidth(void) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    long width = 4 * (cores > 1 ? cores : 1);
    char value[24];
    snprintf(value, sizeof value, "%ld", width);
    setenv("SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH", value, 0);
}
