"""Integration tests: the agent's ways onto a link of the host's without a
judged send (review h-attack38).

A multicast membership makes the kernel announce the group and source
addresses the agent chose on the link (IGMP and MLD reports), and a TUN or
TAP device turns every write() into a packet the host routes or bridges.
Both ran as the review's own reproductions (review-net.sh's network
namespaces, veth pairs and captures); the data of each mode must reach no
undeclared host.

Registered into harness.TESTS when run.py imports it."""

import os
import re
import shutil

from harness import SV, Skip, mutant_binary, review, test


def review_net(ctx, script, binary, timeout=120, **env):
    """tests/review/SCRIPT (a review-net.sh reproduction, which takes the
    supervisor as its argument) against binary; returns its output."""
    if os.geteuid() != 0 or not shutil.which("ip") or not shutil.which("musl-gcc"):
        raise Skip("needs root (network namespaces, veth), iproute2 and musl-gcc")
    return review(ctx, script, binary, timeout=timeout, env=env, extra=[binary])


def exits(out):
    """{mode: the supervisor's exit status} from the review's '== MODE.1:' lines."""
    return dict(re.findall(r"^== (\w+)\.1: supervisor exit (\d+)", out, re.M))


@test(timeout=200, beside=True)
def multicast_joins_of_agent_chosen_addresses_are_denied(ctx):
    # ha38-mcast.sh: IP_ADD_MEMBERSHIP of 239.x.y.z groups (3 bytes each),
    # IP_MSFILTER with the data as sources, IPV6_ADD_MEMBERSHIP of ff0e::
    # groups (14 bytes each) and MCAST_MSFILTER with v6 sources: as uid
    # 1000, untrapped, the undeclared host on the link captured the secret
    # in the reports, verdict pass. Denied now (multicast-join): the
    # capture sees the kernel's own reports only, and each mode is exit 1.
    # Mutant multicast-join-open: the secret is captured again.
    modes = "group msfilter mld mldfilter"
    for binary, leaked in ((SV, False), (mutant_binary("multicast-join-open"), True)):
        out = review_net(ctx, "ha38-mcast.sh", binary, MODES=modes, CAPTURE_S="60")
        got = exits(out)
        ctx.require(len(got) == 4, "modes run: %s (%s)" % (got, out[-600:]))
        captured = len(re.findall(r"UNDECLARED host \S+ on \S+ link captured .*agent-secret", out))
        if not leaked:
            ctx.expect_eq(captured, 0, "reports holding the secret at the undeclared host")
            ctx.expect_eq(got, dict((m, "1") for m in modes.split()), "supervisor exits")
            ctx.expect(out.count("denied multicast-join") >= 4, "joins denied multicast-join: %s"
                       % out[-600:])
        else:
            ctx.expect(captured > 0, "mutant multicast-join-open: no report held the secret (%s)"
                       % out[-600:])


@test(timeout=200, beside=True)
def tun_and_tap_devices_carry_nothing_of_the_agents(ctx):
    # ha38-tun.sh, as uid 1000: the agent attaches to a persistent TUN (and
    # a TAP on a bridge) its uid owns, or writes to a TUN the caller left on
    # its stdin; each packet reached the undeclared host, pass. TUNSETIFF is
    # denied now (tun-attach, exit 1) and a character device on 0-2 refuses
    # the run (exit 3). Mutants tun-attach-open and stdio-chardev-open each
    # reopen their half.
    runs = ((SV, set()), (mutant_binary("tun-attach-open"), {"tap", "attach"}),
            (mutant_binary("stdio-chardev-open"), {"tun"}))
    for binary, leaked in runs:
        out = review_net(ctx, "ha38-tun.sh", binary)
        got = exits(out)
        ctx.require(len(got) == 3, "modes run: %s (%s)" % (got, out[-600:]))
        reached = set(re.findall(r"^  == (\w+)\.1\n  UNDECLARED host", out, re.M))
        name = os.path.basename(os.path.dirname(binary)) or "supervisor"
        ctx.expect_eq(reached, leaked, "%s: modes whose packet reached the undeclared host" % name)
        if binary == SV:
            ctx.expect_eq(got, {"tap": "1", "attach": "1", "tun": "3"}, "supervisor exits")
