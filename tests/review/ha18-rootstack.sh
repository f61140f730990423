#!/bin/bash
# ha18-rootstack.sh (hostile review h-attack18, against main 22693ed): a
# mount on top of "/" in the caller's namespace (here `mount --bind / /`,
# writable, in a private mount namespace standing for the caller's) is
# judged covered: statx("/") names the process's root, the mount beneath,
# so host_read_only skips it and so does the read-back. But ".." from any
# directory of the root steps onto the mount on top of it (path walk
# follows the mounts on the dentry it lands on): the agent writes the
# host's root file system through "/tmp/..", with a pass.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
M=/var/tmp/ha18/rootstack-marker
rm -f $M
cat >/tmp/ha18-rootstack-agent.sh <<'AGENT'
#!/bin/sh
touch /var/tmp/ha18/rootstack-marker 2>&1
cd /tmp && cd -P .. && touch ./var/tmp/ha18/rootstack-marker && echo "agent: wrote /tmp/../var/tmp/ha18/rootstack-marker"
grep -E ' / / ' /proc/self/mountinfo
AGENT
chmod +x /tmp/ha18-rootstack-agent.sh
mkdir -p /var/tmp/ha18
unshare -m --propagation private sh -c "mount --bind / / && $SV -- /tmp/ha18-rootstack-agent.sh; echo supervisor exit \$?"
ls -la $M
rm -f $M /tmp/ha18-rootstack-agent.sh
