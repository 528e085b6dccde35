// SPDX-License-Identifier: GPL-2.0
/*
 * The slice of `make stress` that `make check` runs: the stress driver
 * (tests/guest/stress/run.sh, in the guest /stress/run.sh) with a budget of
 * 48 seconds over tmpfs, ext4, xfs and btrfs layers (12 s each, the
 * driver's least): per file system the slice set of stress-ng file system
 * stressors, each for a count of bogo operations, union_fsx on lower
 * files and racing workers in a writable union over a populated lower
 * layer, then the union's view, a clean unmount, the lower layer's
 * fingerprint and the kernel log are checked, with the storm across lazy
 * unmounts of both layers (a lower file it wrote in sessions 5-6 was the
 * storm's own absolute symlink leading to the covered bind mount once the
 * union was gone: README.md "Stress").  3-4 minutes of
 * guest time on an idle host (README.md, "Stress"); on a starved host the
 * driver counts the work done, not the time, so it takes longer instead of
 * failing.  TAP comes from the driver; an argument overrides the seconds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *secs = argc > 1 ? argv[1] : "48";

	if (access("/stress/run.sh", R_OK)) {
		printf("1..0 # SKIP no /stress/run.sh in the initramfs\n");
		return 4;
	}
	fflush(stdout);
	execl("/bin/sh", "sh", "/stress/run.sh", secs, (char *)NULL);
	perror("exec /stress/run.sh");
	return 1;
}
