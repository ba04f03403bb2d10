// The only C surface of the project: libnl-3, libnl-route-3, libnl-genl-3 and the kernel headers the
// netlink code needs, plus tiny wrappers for calls Swift's Glibc module does not import.
#ifndef REACH_CNETLINK_SHIM_H
#define REACH_CNETLINK_SHIM_H

#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/if_arp.h>
#include <linux/if_addr.h>
#include <linux/fib_rules.h>
#include <netdb.h>
#include <malloc.h>

#include <netlink/netlink.h>
#include <netlink/version.h>
#include <netlink/errno.h>
#include <netlink/socket.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include <netlink/cache.h>
#include <netlink/object.h>
#include <netlink/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/addr.h>
#include <netlink/route/rtnl.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <linux/genetlink.h>
#include <linux/nl80211.h>

// Declared here rather than through _GNU_SOURCE, which would make the C headers disagree with
// Swift's Glibc module.
extern int setns(int fd, int nstype);
extern int unshare(int flags);
extern int pthread_setname_np(pthread_t thread, const char *name);
#define REACH_CLONE_NEWNET 0x40000000
static inline int reach_setns_net(int fd) { return setns(fd, REACH_CLONE_NEWNET); }
static inline int reach_unshare_net(void) { return unshare(REACH_CLONE_NEWNET); }
static inline void reach_set_thread_name(pthread_t thread, const char *name) { (void)pthread_setname_np(thread, name); }
static inline int reach_eventfd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }
static inline int reach_errno(void) { return errno; }

// poll() with a nanosecond timeout (negative: none).
extern int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout, const sigset_t *sigmask);
static inline int reach_poll_ns(struct pollfd *fds, nfds_t count, long long nanoseconds) {
    if (nanoseconds < 0) return ppoll(fds, count, NULL, NULL);
    struct timespec timeout = { .tv_sec = nanoseconds / 1000000000LL, .tv_nsec = nanoseconds % 1000000000LL };
    return ppoll(fds, count, &timeout, NULL);
}
static inline long long reach_thread_cpu_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}
static inline long long reach_monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

// Kernel values that arrive as macros Swift cannot import or that are missing on old headers.
static const int reach_arphrd_rawip = 519;
static const int reach_rtm_getroute = RTM_GETROUTE;
static const int reach_rtm_newroute = RTM_NEWROUTE;
static const int reach_rtm_delroute = RTM_DELROUTE;
static const int reach_nlmsg_hdrlen = NLMSG_HDRLEN;
static const int reach_rta_max = RTA_MAX;
static const int reach_rtnlgrp_ipv4_route = RTNLGRP_IPV4_ROUTE;
static const int reach_rtnlgrp_ipv6_route = RTNLGRP_IPV6_ROUTE;
static const int reach_rtnlgrp_ipv4_rule = RTNLGRP_IPV4_RULE;
static const int reach_rtnlgrp_ipv6_rule = RTNLGRP_IPV6_RULE;
static const int reach_rta_oif = RTA_OIF;
static const int reach_rta_gateway = RTA_GATEWAY;
static const int reach_rta_priority = RTA_PRIORITY;
static const int reach_rta_table = RTA_TABLE;
static const int reach_rta_multipath = RTA_MULTIPATH;
static const int reach_rta_prefsrc = RTA_PREFSRC;
static const int reach_rta_dst = RTA_DST;
static const int reach_rta_mark = RTA_MARK;
static const int reach_rta_via = RTA_VIA;
static const int reach_rtm_f_cloned = RTM_F_CLONED;
static const int reach_sol_netlink = SOL_NETLINK;
static const int reach_rtm_getrule = RTM_GETRULE;
static const int reach_rtm_newrule = RTM_NEWRULE;
static const int reach_fra_fwmark = FRA_FWMARK;
static const int reach_fra_priority = FRA_PRIORITY;
static const int reach_netlink_get_strict_chk = NETLINK_GET_STRICT_CHK;

// Walks the next hops of an RTA_MULTIPATH attribute; returns the next one or NULL.
static inline struct rtnexthop *reach_rtnh_next(struct rtnexthop *nh, int *remaining) {
    int len = RTNH_ALIGN(nh->rtnh_len);
    *remaining -= len;
    if (*remaining < (int)sizeof(struct rtnexthop)) return NULL;
    struct rtnexthop *next = (struct rtnexthop *)((char *)nh + len);
    if (next->rtnh_len < sizeof(struct rtnexthop) || next->rtnh_len > *remaining) return NULL;
    return next;
}
static inline struct rtattr *reach_rtnh_attrs(struct rtnexthop *nh) { return RTNH_DATA(nh); }
static inline int reach_rtnh_attrs_len(struct rtnexthop *nh) { return nh->rtnh_len - RTNH_LENGTH(0); }
static inline struct rtattr *reach_rta_next(struct rtattr *rta, int *remaining) {
    struct rtattr *next = RTA_NEXT(rta, *remaining);
    return RTA_OK(next, *remaining) ? next : NULL;
}
static inline int reach_rta_ok(struct rtattr *rta, int remaining) { return RTA_OK(rta, remaining); }
static inline void *reach_rta_data(struct rtattr *rta) { return RTA_DATA(rta); }
static inline int reach_rta_payload(struct rtattr *rta) { return RTA_PAYLOAD(rta); }

// The command and attribute bytes of a generic-netlink message (what follows `struct
// genlmsghdr`); -1 when the message is too short to hold the headers. libnl has already checked
// nlmsg_len against the bytes received.
static inline int reach_genl_body(struct nl_msg *message, unsigned char *command, const void **attributes, int *length) {
    struct nlmsghdr *header = nlmsg_hdr(message);
    if (header->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN) return -1;
    struct genlmsghdr *genl = (struct genlmsghdr *)nlmsg_data(header);
    *command = genl->cmd;
    *attributes = (const char *)genl + GENL_HDRLEN;
    *length = (int)header->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
    return 0;
}
static const int reach_nlm_f_dump = NLM_F_DUMP;

#endif
