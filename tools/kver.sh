#!/bin/sh
# Print the kernel release to build for: the running kernel when its headers
# are installed, else the newest /lib/modules/*/build that has a matching
# /boot/vmlinuz-*.  Prints nothing when no usable headers exist.
run=$(uname -r)
if [ -d "/lib/modules/$run/build" ]; then
	echo "$run"
	exit 0
fi
for d in $(ls -d /lib/modules/*/build 2>/dev/null | sort -rV); do
	kver=${d#/lib/modules/}
	kver=${kver%/build}
	if [ -e "/boot/vmlinuz-$kver" ]; then
		echo "$kver"
		exit 0
	fi
done
exit 0
