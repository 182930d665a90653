/* SPDX-License-Identifier: MIT */
/*
 * Point-to-point messages with deadlines.  Open MPI 4.1 aborts the job when
 * a rank dies unless mpirun has --enable-recovery, and even then a blocking
 * call on a dead peer never returns: so every call here is nonblocking and
 * tested against a deadline, and a stop signal ends the wait.  MPI's errors
 * come back as codes (MPI_ERRORS_RETURN, set in main).
 */
#include <errno.h>
#include <sched.h>

#include <mpi.h>

#include "launcher.h"

/* Wait for req until deadline; busy: no sleep between tests (a round trip
 * of the clock ping-pong must not grow by a sleep). */
static int wait_req(MPI_Request *req, int64_t deadline, int busy)
{
	int done = 0;

	for (;;) {
		if (MPI_Test(req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			return -EIO;
		if (done)
			return 0;
		if (hl_stop_signal)
			break;
		if (hl_now_mono() >= deadline)
			break;
		if (busy)
			sched_yield();
		else
			hl_sleep_ms(1);
	}
	/* a receive not taken is cancelled; a send may stay queued in the
	 * library (freed: MPI finishes or drops it) */
	if (MPI_Cancel(req) == MPI_SUCCESS)
		MPI_Request_free(req);
	return hl_stop_signal ? -EINTR : -ETIMEDOUT;
}

int hl_send(int dest, int tag, const void *buf, size_t len, int64_t deadline)
{
	MPI_Request req;

	if (MPI_Isend(buf, (int)len, MPI_BYTE, dest, tag, MPI_COMM_WORLD,
		      &req) != MPI_SUCCESS)
		return -EIO;
	return wait_req(&req, deadline, 0);
}

static int recv(int src, int tag, void *buf, size_t len, int64_t deadline,
		int busy)
{
	MPI_Request req;

	if (MPI_Irecv(buf, (int)len, MPI_BYTE, src, tag, MPI_COMM_WORLD,
		      &req) != MPI_SUCCESS)
		return -EIO;
	return wait_req(&req, deadline, busy);
}

int hl_recv(int src, int tag, void *buf, size_t len, int64_t deadline)
{
	return recv(src, tag, buf, len, deadline, 0);
}

int hl_recv_busy(int src, int tag, void *buf, size_t len, int64_t deadline)
{
	return recv(src, tag, buf, len, deadline, 1);
}

int hl_pending(int src, int tag)
{
	int flag = 0;

	if (MPI_Iprobe(src, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE) !=
	    MPI_SUCCESS)
		return 0;
	return flag;
}
