#!/usr/bin/env bash
# Runs the Windows builds of the engine's runtime packages' tests (standard library only:
# they are compiled into the test binaries) and of the command's unit tests (-test.short:
# the tests that need a Go toolchain to build test binaries are left out, there is no Windows
# Go under Wine) under Wine, and prints a line per package and a summary line
# (.ci/wine/summary.go, which also says which failures are Wine's, not the tool's). Installs what it needs on Debian
# once: wine64 and binutils-mingw-w64-x86-64 from apt, a Wine prefix and, into it,
# bcryptprimitives.dll (bcryptprimitives.s: Debian 12's Wine 8 lacks the DLL, which Go
# programs since Go 1.22 load at start), cached in $WINE_CACHE (default
# ~/.cache/interleave-wine).
set -euo pipefail
cd "$(dirname "$0")/../.."
CACHE=${WINE_CACHE:-$HOME/.cache/interleave-wine}
mkdir -p "$CACHE"
if [ ! -x /usr/lib/wine/wine64 ] || ! command -v x86_64-w64-mingw32-ld >/dev/null 2>&1; then
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wine64 binutils-mingw-w64-x86-64
fi
WINE=/usr/lib/wine/wine64
export WINEPREFIX="$CACHE/prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
dll="$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
if [ ! -f "$dll" ]; then
	"$WINE" wineboot --init >/dev/null 2>&1
	tmp=$(mktemp -d)
	x86_64-w64-mingw32-as -o "$tmp/p.o" .ci/wine/bcryptprimitives.s
	x86_64-w64-mingw32-dlltool -d .ci/wine/bcrypt.def -l "$tmp/libbcrypt.a"
	x86_64-w64-mingw32-ld --dll -e DllMain --subsystem windows -o "$dll" "$tmp/p.o" .ci/wine/bcryptprimitives.def "$tmp/libbcrypt.a"
	rm -rf "$tmp"
fi
out=$(mktemp -d)
trap 'rm -rf "$out"; "${WINE%/*}/wineserver" -k 2>/dev/null || true' EXIT
pkgs=$(go list ./engine/... ./cmd/interleave/... | grep -v '/engine/instrument')
for p in $pkgs; do
	name=$(echo "$p" | tr '/.' '__')
	GOOS=windows GOARCH=amd64 go test -c -o "$out/$name.test.exe" "$p"
	[ -f "$out/$name.test.exe" ] || continue # no test files
	(cd "$(go list -f '{{.Dir}}' "$p")" && timeout 600 "$WINE" "$out/$name.test.exe" -test.short -test.v=test2json -test.timeout 9m 2>&1 | go tool test2json -p "$(go list "$p")" -t) >>"$out/events.json" || true
done
go run .ci/wine/summary.go .ci/wine/known-failures.txt <"$out/events.json"
