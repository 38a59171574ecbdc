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
