#!/bin/sh
# checkpatch.pl --strict over every module source file and the
# selftests' kernel modules.  Exit status is non-zero on any error,
# warning or check.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
src=$("$top/tools/linux-source.sh")
cd "$top"
files=$(ls drivers/infiniband/sw/softiw/*.[ch] include/uapi/rdma/softiw-abi.h \
	selftests/softiw/kmod/*.c)
"$src/scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
	--ignore FILE_PATH_CHANGES \
	--file $files
