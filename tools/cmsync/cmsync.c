// SPDX-License-Identifier: GPL-2.0
/*
 * cmsync.so: an LD_PRELOAD shim that orders each rdma_cm connect of a
 * perftest client after the matching rdma_cm listen of its server.
 *
 * perftest -R makes two rdma_cm connections one after the other, each
 * with its own event channel on the client and its own listen on the
 * server: first its parameter-exchange channel, then, right after an
 * exchange over that channel, the test's QPs.  For the second nothing
 * orders the server's new listen before the client's connect, so a slow
 * server (a busy emulated CPU) lets the client's TCP SYN meet no
 * listener: RST, RDMA_CM_EVENT_REJECTED with -ECONNREFUSED, which is what
 * an RNIC must report, and perftest 4.5's retry after it crashes in
 * librdmacm.  Both ends of a test share one filesystem, so:
 *
 *   SOFTIW_CM_SYNC=FILE   the server appends one octet to FILE each time
 *                         rdma_listen() succeeds; the client's
 *                         rdma_resolve_addr() on the Nth event channel
 *                         it uses waits (up to SOFTIW_CM_SYNC_SECS,
 *                         default 60) until FILE holds N octets.
 *   SOFTIW_CM_SYNC_DELAY_MS=N  sleep N ms before each real rdma_listen()
 *                         (to show the race, and that the shim closes it).
 *
 * Without SOFTIW_CM_SYNC (or with it empty) the shim changes nothing.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

#define MAX_CHANNELS 16

static void *next_sym(const char *name)
{
	void *sym = dlsym(RTLD_NEXT, name);

	if (!sym) {
		fprintf(stderr, "cmsync: no %s after the shim\n", name);
		abort();
	}
	return sym;
}

static const char *sync_file(void)
{
	const char *v = getenv("SOFTIW_CM_SYNC");

	return v && *v ? v : NULL;
}

static long env_long(const char *name, long dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtol(v, NULL, 10) : dflt;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	int (*real)(struct rdma_cm_id *, int) = next_sym("rdma_listen");
	const char *file = sync_file();
	int ret, fd;

	if (file)
		sleep_ms(env_long("SOFTIW_CM_SYNC_DELAY_MS", 0));
	ret = real(id, backlog);
	if (!ret && file) {
		fd = open(file, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd < 0 || write(fd, "L", 1) != 1)
			perror("cmsync: record listen");
		if (fd >= 0)
			close(fd);
	}
	return ret;
}

/* 1 for the first event channel this process resolves on, 2 for the next */
static long channel_ordinal(struct rdma_event_channel *ch)
{
	static struct rdma_event_channel *seen[MAX_CHANNELS];
	static int nseen;
	int i;

	for (i = 0; i < nseen; i++)
		if (seen[i] == ch)
			return i + 1;
	if (nseen < MAX_CHANNELS)
		seen[nseen++] = ch;
	return nseen;
}

static long listens(const char *file)
{
	struct stat st;

	return stat(file, &st) ? 0 : st.st_size;
}

int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src,
		      struct sockaddr *dst, int timeout_ms)
{
	int (*real)(struct rdma_cm_id *, struct sockaddr *, struct sockaddr *,
		    int) = next_sym("rdma_resolve_addr");
	const char *file = sync_file();
	long want, left;

	if (file) {
		want = channel_ordinal(id->channel);
		left = env_long("SOFTIW_CM_SYNC_SECS", 60) * 100;
		while (listens(file) < want && left-- > 0)
			sleep_ms(10);
		if (left < 0)
			fprintf(stderr, "cmsync: listen %ld did not come\n",
				want);
	}
	return real(id, src, dst, timeout_ms);
}
