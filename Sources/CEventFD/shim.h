#ifndef PEERSCAN_CEVENTFD_SHIM_H
#define PEERSCAN_CEVENTFD_SHIM_H
// eventfd(2), which Swift's Glibc module leaves out: the wakeup of AsyncPrimitives' ThreadWakeup.
#include <sys/eventfd.h>
#endif
