// SPDX-License-Identifier: GPL-2.0
/* Harness self-test: plans one test and never finishes it. */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	printf("TAP version 13\n1..1\n");
	fflush(stdout);
	for (;;)
		pause();
}
