// libnl-genl-3 (generic netlink over libnl-3) and the nl80211 definitions, for the Wi-Fi wrapper (Nl80211).
#include <netlink/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <linux/nl80211.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

// The callbacks libnl calls for each message (nl_recvmsg_msg_cb_t) take a context pointer; Swift passes a boxed
// closure through it. NL_CB_CUSTOM and NL_CB_VALID are enum constants Swift imports as they are.

// Whether an interface is up (IFF_UP through SIOCGIFFLAGS): 1 up, 0 down, -1 with errno set.
static inline int peerscan_interface_is_up(const char *name) {
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct ifreq request = {0};
    strncpy(request.ifr_name, name, IFNAMSIZ - 1);
    int result = ioctl(fd, SIOCGIFFLAGS, &request);
    int saved = errno;
    close(fd);
    if (result < 0) { errno = saved; return -1; }
    return (request.ifr_flags & IFF_UP) != 0;
}
