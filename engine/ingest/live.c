/* SPDX-License-Identifier: MIT */
/*
 * Whether a recording whose note says "recording" is still being recorded
 * (ingest.h, docs/design.md "Ingest"): the note's owner lines (host, boot,
 * pid, the recorder's lock), what the note's lock says and what this host
 * knows decide it.  Only a recording provably dead is repaired.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/ingest.h"

/* Append a line to buf[len] at *n; the first failure sticks in *rc. */
static void add(char *buf, size_t len, size_t *n, int *rc, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void add(char *buf, size_t len, size_t *n, int *rc, const char *fmt, ...)
{
	va_list ap;
	int m;

	if (*rc < 0)
		return;
	va_start(ap, fmt);
	m = vsnprintf(buf + *n, len - *n, fmt, ap);
	va_end(ap);
	if (m < 0 || (size_t)m >= len - *n)
		*rc = -ERANGE;
	else
		*n += (size_t)m;
}

int eng_ingest_owner_text(const struct eng_ingest_owner *o, char *buf,
			  size_t len)
{
	size_t n = 0;
	int rc = 0;

	if (!len)
		return -ERANGE;
	buf[0] = '\0';
	if (!o)
		return 0;
	if (o->host[0])
		add(buf, len, &n, &rc, "host %s\n", o->host);
	if (o->machine[0])
		add(buf, len, &n, &rc, "machine %s\n", o->machine);
	if (o->boot[0])
		add(buf, len, &n, &rc, "boot %s\n", o->boot);
	if (o->pid > 0)
		add(buf, len, &n, &rc, "pid %" PRId64 " %" PRIu64 "\n", o->pid,
		    o->pid_start);
	if (o->host[0] || o->boot[0])
		add(buf, len, &n, &rc, "lock %s\n",
		    o->lock_shared ? "shared" : "local");
	if (o->run[0])
		add(buf, len, &n, &rc, "run %s\n", o->run);
	return rc;
}

int eng_ingest_locks_shared(const char *fstype, const char *options)
{
	/* a local disk's file system: another host reaches it only through
	 * this kernel's NFS or SMB server, whose locks are this kernel's;
	 * a cluster file system locks across its nodes */
	static const char *const local[] = {
	    "ext2", "ext3", "ext4", "xfs",	"btrfs", "tmpfs",
	    "f2fs", "zfs",  "jfs",  "bcachefs", "gfs2",	 "ocfs2"};
	const char *o = options ? options : "";
	size_t i;

	for (i = 0; i < sizeof(local) / sizeof(local[0]); i++)
		if (strcmp(fstype, local[i]) == 0)
			return 1;
	/* NFS passes fcntl locks to the server unless they are kept local
	 * (local_lock=posix or all; NFSv3's nolock is local_lock=all) */
	if (strcmp(fstype, "nfs") == 0 || strcmp(fstype, "nfs4") == 0)
		return !strstr(o, "local_lock=posix") &&
		       !strstr(o, "local_lock=all") && !strstr(o, "nolock");
	/* SMB sends byte-range locks to the server unless nobrl */
	if (strcmp(fstype, "cifs") == 0 || strcmp(fstype, "smb3") == 0)
		return !strstr(o, "nobrl");
	/* FUSE (sshfs ...), overlays and the rest: nothing proves it */
	return 0;
}

/* Is the note's owner this host (host name, and machine id where both
 * have one)? */
static int same_host(const struct eng_ingest_owner *o,
		     const struct eng_ingest_owner *me)
{
	if (!o->host[0] || strcmp(o->host, me->host) != 0)
		return 0;
	return !o->machine[0] || !me->machine[0] ||
	       strcmp(o->machine, me->machine) == 0;
}

enum eng_ingest_life eng_ingest_life(const struct eng_ingest_owner *o,
				     const struct eng_ingest_self *self,
				     int lock, char *why, size_t len)
{
	const struct eng_ingest_owner *me = &self->me;
	int run;

	if (lock == -EAGAIN || lock == -EACCES) {
		snprintf(why, len,
			 "recorded now (its note is locked) by %s "
			 "pid %" PRId64,
			 o->host[0] ? o->host : "a daemon", o->pid);
		return ENG_INGEST_LIVE;
	}
	if (!o->host[0] && !o->boot[0]) {
		/* a note of a timelinefs that named no owner and took no
		 * lock: as it was repaired before */
		snprintf(why, len, "its note names no daemon");
		return ENG_INGEST_DEAD;
	}
	if (o->boot[0] && strcmp(o->boot, me->boot) == 0) {
		/* this kernel: the lock is seen whatever the file system,
		 * and the pid is this boot's */
		run = self->running && o->pid > 0
			  ? self->running(self->ctx, o->pid, o->pid_start)
			  : -ENOSYS;
		if (run > 0) {
			snprintf(why, len,
				 "its daemon %s pid %" PRId64 " is running",
				 o->host, o->pid);
			return ENG_INGEST_LIVE;
		}
		if (run == 0 || lock == 0) {
			snprintf(why, len,
				 "its daemon %s pid %" PRId64 " is gone",
				 o->host, o->pid);
			return ENG_INGEST_DEAD;
		}
		snprintf(why, len,
			 "whether its daemon %s pid %" PRId64
			 " runs cannot be told",
			 o->host, o->pid);
		return ENG_INGEST_UNKNOWN;
	}
	if (same_host(o, me)) {
		snprintf(why, len, "%s has booted since (boot %s)", o->host,
			 o->boot);
		return ENG_INGEST_DEAD;
	}
	if (lock == 0 && o->lock_shared && self->locks_shared) {
		snprintf(why, len,
			 "%s pid %" PRId64 " holds no lock on it, "
			 "and the locks of both reach the storage",
			 o->host, o->pid);
		return ENG_INGEST_DEAD;
	}
	snprintf(why, len,
		 "recorded by %s pid %" PRId64 ", whose end this "
		 "mount cannot prove (%s); a mount on %s repairs it, or "
		 "remove its host and boot lines once it is stopped",
		 o->host, o->pid,
		 lock != 0	   ? "its lock cannot be read here"
		 : !o->lock_shared ? "its lock does not reach the storage"
				   : "this mount's locks do not reach it",
		 o->host);
	return ENG_INGEST_UNKNOWN;
}
