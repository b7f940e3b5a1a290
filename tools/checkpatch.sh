#!/bin/sh
# checkpatch.pl --strict over every module source file and the
# selftests' kernel modules.  Exit status is non-zero on any error,
# warning or check.  checkpatch writes a camel-case cache
# (.checkpatch-camelcase.*) into its working directory, so it runs
# from build/checkpatch, never from the tree.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
src=$("$top/tools/linux-source.sh")
cd "$top"
files=$(ls "$top"/drivers/infiniband/sw/softiw/*.[ch] \
	"$top"/include/uapi/rdma/softiw-abi.h \
	"$top"/selftests/softiw/kmod/*.c)
mkdir -p "$top/build/checkpatch"
cd "$top/build/checkpatch"
"$src/scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
	--ignore FILE_PATH_CHANGES \
	--file $files
