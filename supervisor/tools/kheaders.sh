#!/usr/bin/env bash
# Makes a project-local include directory that holds only the kernel UAPI
# headers (Debian's linux-libc-dev), for musl-gcc, which does not search
# /usr/include. Links, not copies: they follow the installed package.
#   kheaders.sh DIR
set -euo pipefail

main() {
	local dir=${1:?usage: kheaders.sh DIR}
	mkdir -p "$dir"
	ln -sfn /usr/include/linux "$dir/linux"
	ln -sfn /usr/include/asm-generic "$dir/asm-generic"
	ln -sfn /usr/include/x86_64-linux-gnu/asm "$dir/asm"
	ln -sfn /usr/include/mtd "$dir/mtd"
	[[ -f $dir/linux/seccomp.h && -f $dir/asm/unistd_64.h ]] ||
		{ echo "kheaders: kernel headers missing: apt-get install linux-libc-dev" >&2; exit 1; }
}

main "$@"
