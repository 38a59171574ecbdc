#ifndef PEERSCAN_CMALLOC_SHIM_H
#define PEERSCAN_CMALLOC_SHIM_H
// glibc's allocator statistics (mallinfo2, malloc_trim), for the benchmarks' memory readings.
#include <malloc.h>
#endif
