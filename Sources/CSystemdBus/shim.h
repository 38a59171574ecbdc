// sd-bus, systemd's D-Bus client library (libsystemd), for the D-Bus wrapper (SystemBus), and what its poll loop needs.
#include <systemd/sd-bus.h>
#include <poll.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>
