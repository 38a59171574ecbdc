// libmnl and the rtnetlink definitions of the neighbour table (RTM_*NEIGH, struct ndmsg, NDA_*, NUD_*).
#include <libmnl/libmnl.h>
#include <linux/if_ether.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/socket.h>

// setns(2) for network namespaces (declared by <sched.h> only under _GNU_SOURCE): a socket is opened inside the
// namespace a test or tool names.
extern int setns(int fd, int nstype);
static inline int peerscan_enter_network_namespace(int fd) { return setns(fd, 0x40000000 /* CLONE_NEWNET */); }
