/* ha59-autoload: hostile review h-attack59, target 3 (see ha59-autoload.sh).
 * Makes, once each, the calls whose kernel path runs request_module()
 * before any capability check (net/socket.c: SIOCGIFVLAN and SIOCSIFVLAN
 * ask for "8021q", the six bridge ioctls for "bridge", while no module
 * has set the hook), and two that a capability gates (dev_load's
 * "netdev-NAME" and TCP_CONGESTION's "tcp_NAME": capable(CAP_NET_ADMIN)
 * in the initial user namespace). Prints each call's errno: ENOPKG is the
 * kernel's answer after it asked modprobe (a kernel without modules
 * answers it too); a trapped call would be EPERM/EACCES and recorded. */
#define _GNU_SOURCE
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static void show(const char *what, int rc)
{
	printf("ha59 %s: %s\n", what, rc == 0 ? "0" : strerrorname_np(errno));
}

int main(void)
{
	int s = socket(AF_INET, SOCK_STREAM, 0);
	char vlan[32] = {0}; /* struct vlan_ioctl_args: cmd 8, GET_VLAN_REALDEV_NAME_CMD */
	char br[64] = {0};
	struct ifreq ifr = {0};
	unsigned long args[3] = {2 /* BRCTL_GET_BRIDGES */, (unsigned long)br, 4};

	vlan[0] = 8;
	strcpy(vlan + 4, "ha59vlan");
	show("SIOCGIFVLAN (8021q)", ioctl(s, 0x8982, vlan));
	show("SIOCSIFVLAN (8021q)", ioctl(s, 0x8983, vlan));
	show("SIOCGIFBR (bridge)", ioctl(s, 0x8940, args));
	show("SIOCBRADDBR (bridge)", ioctl(s, 0x89a0, "ha59br"));
	strcpy(ifr.ifr_name, "ha59secret");
	show("SIOCGIFINDEX (netdev-NAME, CAP_NET_ADMIN)", ioctl(s, SIOCGIFINDEX, &ifr));
	show("TCP_CONGESTION (tcp_NAME, CAP_NET_ADMIN)",
	     setsockopt(s, IPPROTO_TCP, TCP_CONGESTION, "ha59cc", 6));
	show("TCP_ULP (tcp-ulp-NAME, CAP_NET_ADMIN)",
	     setsockopt(s, IPPROTO_TCP, TCP_ULP, "ha59u", 5));
	return 0;
}
