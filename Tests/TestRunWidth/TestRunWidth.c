// Caps how many test cases Swift Testing runs at once in the test binary, at four per core
// this process may run on, at most 32 (eight on CI's two cores), unless the caller set
// SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH itself (Swift 6.3's testing library reads it;
// older ones ignore it). `swift test` otherwise starts every test case of the suite at once:
// on two cores the run held some 2,200 descriptors and 2.2 GB, took 29 minutes and 3,180 s of
// CPU time, while capped at eight it held 130 descriptors and 680 MB and took 13 minutes and
// 1,460 s. Past about 1,360 open descriptors, Foundation's Process.run() on Linux can read past
// the end of its listing of /proc/self/fd and crash the run (see runAlone() in
// RepositoriesTestSupport).
//
// A constructor, run as the binary loads: the testing library reads the variable when it
// starts, after every constructor and before the first test.
#if defined(__linux__)
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "TestRunWidth.h"

static long widthSet = 0;
static long coresCounted = 0;

long testRunWidthSet(void) { return widthSet; }

long testRunWidthCores(void) { return coresCounted; }

/// The cores this process may run on: its affinity mask on Linux (a container's cpuset), the
/// cores online elsewhere; at least 1.
static long usableCores(void) {
#if defined(__linux__)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) {
        return CPU_COUNT(&set);
    }
#endif
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 1 ? online : 1;
}

__attribute__((constructor)) static void capTestRunWidth(void) {
    coresCounted = usableCores();
    if (getenv("SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH") != NULL) return;
    long width = 4 * coresCounted;
    if (width > 32) width = 32;
    char value[24];
    snprintf(value, sizeof value, "%ld", width);
    if (setenv("SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH", value, 0) == 0) widthSet = width;
}
