#!/bin/sh
# Extract the few files softiw needs from Debian's linux-source-6.1 tarball
# (checkpatch, the kselftest framework) into build/linux-source/.
# Prints the directory.  Idempotent: extracts once.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
out="$top/build/linux-source"
tarball=$(ls /usr/src/linux-source-6.1.tar.xz 2>/dev/null | head -n 1)
if [ -z "$tarball" ]; then
	echo "softiw: /usr/src/linux-source-6.1.tar.xz missing; run 'make deps'" >&2
	exit 1
fi
if [ ! -e "$out/.done" ] || [ "$tarball" -nt "$out/.done" ]; then
	rm -rf "$out"
	mkdir -p "$out"
	tar -xJf "$tarball" -C "$out" --strip-components=1 \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch \
		linux-source-6.1/tools/testing/selftests/kselftest_harness.h \
		linux-source-6.1/tools/testing/selftests/kselftest.h \
		linux-source-6.1/tools/testing/selftests/lib.mk \
		linux-source-6.1/tools/testing/selftests/kselftest \
		linux-source-6.1/tools/testing/selftests/run_kselftest.sh
	touch "$out/.done"
fi
echo "$out"
