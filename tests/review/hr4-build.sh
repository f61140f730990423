#!/bin/bash
# Builds review h-realprog4's programs into /tmp: the Go program static
# (CGO_ENABLED=0) and with cgo, and hr4-pidfd (Go 1.22+'s pidfd calls).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/hr4-build.XXXXXX)
trap 'rm -rf "$work"' EXIT
cp "$here/hr4-prog.go" "$work/main.go"
cd "$work"
export GOCACHE="$work/cache" GOPATH="$work/gopath" GOFLAGS=-mod=mod
go mod init hr4 >/dev/null 2>&1
CGO_ENABLED=0 go build -o /tmp/hr4-prog-static .
CGO_ENABLED=1 go build -o /tmp/hr4-prog-cgo .
gcc -O2 -Wall -o /tmp/hr4-pidfd "$here/hr4-pidfd.c"
chmod 755 /tmp/hr4-prog-static /tmp/hr4-prog-cgo /tmp/hr4-pidfd
