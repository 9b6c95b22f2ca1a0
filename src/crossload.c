#include "config.h"
#include "crossload.h"
#include "bwlimit.h"
#include "log.h"
#include "operand.h"
#include "progress.h"
#include "sftp.h"
#include "strv.h"
#include "xfer.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* sftp-client.c's MAX_DIR_DEPTH. */
#define XL_MAX_DEPTH 64
/* Requests in flight per file unless -X nrequests= says otherwise, and
 * the most payload they may carry at once unless the sessions say. */
#define XL_DEFAULT_REQUESTS 64
#define XL_MAX_INFLIGHT (8u << 20)

enum xl_kind { XL_FILE, XL_DIRFIX };

struct xl_item {
	enum xl_kind kind;
	char *src, *dst;
	struct sftp_attrs a;	/* file: the source's; dirfix: SETSTAT attrs */
	bool in_tree;		/* a file under a -r source: scp adds a line on failure */
};

struct crossload_plan {
	struct crossload_params p;
	uint64_t read_inflight, write_inflight;	/* of this run; 0 = default */
	struct xl_item *items;
	size_t n, cap;
	long long bytes;
};

/* ---- helpers -------------------------------------------------------------- */

/* A synchronous call's status; a dead connection ends the copy as in scp. */
static int
xl_alive(int st)
{
	if (st < 0)
		log_fatal("Connection closed");
	return st;
}

static void
xl_add(struct crossload_plan *pl, enum xl_kind kind, const char *src, const char *dst,
    const struct sftp_attrs *a, bool in_tree)
{
	struct xl_item *it;

	if (pl->n == pl->cap) {
		pl->cap = pl->cap ? pl->cap * 2 : 16;
		pl->items = xrealloc(pl->items, pl->cap * sizeof(*pl->items));
	}
	it = &pl->items[pl->n++];
	it->kind = kind;
	it->src = src ? xstrdup(src) : NULL;
	it->dst = xstrdup(dst);
	it->a = *a;
	it->in_tree = in_tree;
	if (kind == XL_FILE && (a->flags & SSH_FILEXFER_ATTR_SIZE))
		pl->bytes += (long long)a->size;
}

/* ---- planning: scp's throughlocal_sftp() and crossload_dir() ------------- */

/* A file do_crossload() would be given; a (NULL: a link, stat it now as
 * do_crossload does).  Returns -1 when scp's do_crossload would fail before
 * opening anything. */
static int
xl_plan_file(struct crossload_plan *pl, struct sftp_conn *from, const char *src,
    const char *dst, const struct sftp_attrs *a, bool in_tree)
{
	struct sftp_attrs la;

	if (a == NULL) {
		int st = xl_alive(sftp_stat(from, src, true, &la));

		if (st != SSH_FX_OK) {
			log_error("stat remote: %s", sftp_status_text((uint32_t)st));
			return -1;
		}
		a = &la;
	}
	if ((a->flags & SSH_FILEXFER_ATTR_PERMISSIONS) && !S_ISREG(a->perm)) {
		/* scp's glob marks a directory with a '/'. */
		size_t n = strlen(src);

		log_error("download \"%s%s\": not a regular file", src,
		    !in_tree && S_ISDIR(a->perm) && n > 0 && src[n - 1] != '/' ? "/" : "");
		return -1;
	}
	xl_add(pl, XL_FILE, src, dst, a, in_tree);
	return 0;
}

static int xl_plan_dir(struct crossload_plan *pl, struct sftp_conn *from,
    struct sftp_conn *to, const char *src, const char *dst,
    const struct sftp_attrs *da, int depth);

/* The destination directory for src, created writable for the copy. */
static int
xl_plan_mkdir(struct sftp_conn *to, const char *dst, const struct sftp_attrs *cur)
{
	struct sftp_attrs ta;
	int st;

	if (xl_alive(sftp_mkdir(to, dst, cur)) == SSH_FX_OK)
		return 0;
	/* SFTP has no EEXIST: see whether it is there already. */
	st = xl_alive(sftp_stat(to, dst, true, &ta));
	if (st != SSH_FX_OK) {
		log_error("stat remote: %s", sftp_status_text((uint32_t)st));
		return -1;
	}
	if (!S_ISDIR(ta.perm)) {
		log_error("\"%s\" exists but is not a directory", dst);
		return -1;
	}
	return 0;
}

static int
xl_plan_entry(struct crossload_plan *pl, struct sftp_conn *from, struct sftp_conn *to,
    const char *src, const char *dst, const struct sftp_dirent *e, int depth)
{
	char *nsrc = xfer_path_join(src, e->name), *ndst = xfer_path_join(dst, e->name);
	int ret = 0;

	if (S_ISDIR(e->a.perm)) {
		ret = xl_plan_dir(pl, from, to, nsrc, ndst, &e->a, depth + 1);
	} else if (S_ISREG(e->a.perm) || S_ISLNK(e->a.perm)) {
		/* Links are followed (do_crossload stats them). */
		if (xl_plan_file(pl, from, nsrc, ndst, S_ISLNK(e->a.perm) ? NULL : &e->a,
		    true) != 0) {
			log_error("crossload \"%s\" to \"%s\" failed", nsrc, ndst);
			ret = -1;
		}
	} else {
		/* scp's logit(): shown, but not an error. */
		fprintf(stderr, "%s: origin \"%s\": not a regular file\r\n",
		    log_progname(), nsrc);
	}
	free(nsrc);
	free(ndst);
	return ret;
}

static int
xl_plan_dir(struct crossload_plan *pl, struct sftp_conn *from, struct sftp_conn *to,
    const char *src, const char *dst, const struct sftp_attrs *da, int depth)
{
	struct sftp_attrs sa, cur;
	struct sftp_dirent *ents;
	size_t n;
	mode_t mode;
	int ret = 0, st;

	if (depth >= XL_MAX_DEPTH) {
		log_error("Maximum directory depth exceeded: %d levels", depth);
		return -1;
	}
	if (da == NULL) {
		if (xl_alive(sftp_stat(from, src, true, &sa)) != SSH_FX_OK) {
			log_error("stat remote \"%s\" failed", src);
			return -1;
		}
		da = &sa;
	}
	if (!S_ISDIR(da->perm)) {
		log_error("\"%s\" is not a directory", src);
		return -1;
	}
	cur = *da;
	cur.flags &= ~(uint32_t)(SSH_FILEXFER_ATTR_SIZE | SSH_FILEXFER_ATTR_UIDGID);
	if (!(cur.flags & SSH_FILEXFER_ATTR_PERMISSIONS)) {
		cur.perm = S_IWUSR | S_IXUSR;
		cur.flags |= SSH_FILEXFER_ATTR_PERMISSIONS;
	}
	/* Writable while it is filled; its own mode (and, as in scp 9.2, its
	 * times, with or without -p) once its contents are in. */
	mode = cur.perm & 01777;
	cur.perm = mode | S_IWUSR | S_IXUSR;
	if (xl_plan_mkdir(to, dst, &cur) != 0)
		return -1;
	cur.perm = mode;
	st = xl_alive(sftp_readdir_all(from, src, &ents, &n));
	if (st == SSH_FX_BAD_MESSAGE) {
		log_error("%s: server sent an invalid file name", src);
	} else if (st != SSH_FX_OK) {
		log_error("origin readdir \"%s\" failed", src);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (xl_plan_entry(pl, from, to, src, dst, &ents[i], depth) != 0)
			ret = -1;
	sftp_dirents_free(ents, n);
	xl_add(pl, XL_DIRFIX, NULL, dst, &cur, false);
	return ret;
}

/* crossload_dir(): the tree under its canonical name. */
static void
xl_plan_tree(struct crossload_plan *pl, struct sftp_conn *from, struct sftp_conn *to,
    const char *src, const char *dst)
{
	char *canon = NULL;

	if (xl_alive(sftp_realpath(from, src, &canon)) != SSH_FX_OK) {
		log_error("crossload \"%s\": path canonicalization failed", src);
		return;
	}
	(void)xl_plan_dir(pl, from, to, canon, dst, NULL, 0);
	free(canon);
}

/* The matches of src: its glob's, or src itself when it exists. */
static bool
xl_matches(struct sftp_conn *from, const char *abs_src, const char *src, struct strv *out)
{
	struct sftp_attrs a;

	xfer_remote_glob(from, abs_src, out);
	if (out->n > 0)
		return true;
	/* GLOB_NOCHECK gave the pattern back: is it there at all? */
	if (xl_alive(sftp_stat(from, abs_src, true, &a)) != SSH_FX_OK) {
		log_error("%s: %s", src, strerror(ENOENT));
		return false;
	}
	strv_push(out, abs_src);
	return true;
}

struct crossload_plan *
crossload_plan(struct sftp_conn *from, struct sftp_conn *to, const char *src,
    const char *targ, const struct crossload_params *p)
{
	struct crossload_plan *pl = xcalloc(1, sizeof(*pl));
	char *abs_src = xfer_remote_path_prepare(src);
	char *target = xfer_remote_path_prepare(targ);
	struct strv matches = { 0 };
	bool target_is_dir;

	pl->p = *p;
	target_is_dir = xfer_remote_is_dir(to, target);
	if (!target_is_dir && p->target_should_be_dir) {
		log_error("%s: destination is not a directory", targ);
		goto out;
	}
	if (!xl_matches(from, abs_src, src, &matches))
		goto out;
	for (size_t i = 0; i < matches.n; i++) {
		const char *m = matches.v[i];
		char *name = operand_basename(m);
		char *dst = target_is_dir ? xfer_path_join(target, name) : xstrdup(target);
		struct sftp_attrs a;
		int st = xl_alive(sftp_stat(from, m, true, &a));

		if (st == SSH_FX_OK && S_ISDIR(a.perm) && p->recursive)
			xl_plan_tree(pl, from, to, m, dst);
		else
			(void)xl_plan_file(pl, from, m, dst, st == SSH_FX_OK ? &a : NULL, false);
		free(name);
		free(dst);
	}
out:
	strv_free(&matches);
	free(abs_src);
	free(target);
	return pl;
}

long long
crossload_plan_bytes(const struct crossload_plan *pl)
{
	return pl->bytes;
}

void
crossload_plan_free(struct crossload_plan *pl)
{
	if (pl == NULL)
		return;
	for (size_t i = 0; i < pl->n; i++) {
		free(pl->items[i].src);
		free(pl->items[i].dst);
	}
	free(pl->items);
	free(pl);
}

/* ---- copying one file: do_crossload() --------------------------------- */

/* Round trips per file: the two OPENs go out together, the READs of the
 * listed size all at once, and the CLOSE of the source with the SETSTATs
 * and CLOSE of the destination together: three round trips for a small
 * file, where scp waits for six. */

struct xl_handle {
	uint8_t h[256];
	uint32_t len;
	bool open;
};

struct xl_read {
	uint32_t id;
	uint64_t off;
	uint32_t len;
};

struct xl_copy {
	struct sftp_conn *from, *to;
	const struct crossload_params *p;
	struct xl_handle fh, th;
	struct xl_read *reads;
	unsigned nreads, max_reads;
	unsigned nwrites, max_writes;	/* WRITEs not yet answered */
	uint32_t buflen;
	uint64_t size, next_off;
	uint64_t end;			/* highest byte written + 1 */
	uint64_t done;			/* bytes moved, for the meter */
	uint32_t read_err, write_err;	/* first failure status, 0 if none */
	bool eof;
};

static void
xl_flush(struct sftp_conn *c)
{
	if (sftp_flush(c) != 0)
		log_fatal("Connection closed");
}

/* The answer to an OPEN sent earlier; tag is scp's "origin" or "dest". */
static int
xl_handle_reply(struct sftp_conn *c, uint32_t id, const char *path, const char *tag,
    struct xl_handle *h)
{
	struct sftp_reply r;

	if (sftp_recv(c, &r) != 0 || r.id != id)
		log_fatal("Connection closed");
	if (r.type == SSH_FXP_HANDLE && r.handle_len <= sizeof(h->h)) {
		memcpy(h->h, r.handle, r.handle_len);
		h->len = r.handle_len;
		h->open = true;
		return 0;
	}
	if (r.type != SSH_FXP_STATUS)
		log_fatal("Connection closed");
	log_error("%s open \"%s\": %s", tag, path, sftp_status_text(r.status));
	return -1;
}

static uint32_t
xl_send_open(struct sftp_conn *c, const char *path, uint32_t flags, const struct sftp_attrs *a)
{
	uint32_t id = sftp_new_id(c);

	sftp_msg_open(&c->out, id, path, flags, a);
	xl_flush(c);
	return id;
}

static uint32_t
xl_send_close(struct sftp_conn *c, const struct xl_handle *h)
{
	uint32_t id = sftp_new_id(c);

	sftp_msg_handle(&c->out, SSH_FXP_CLOSE, id, h->h, h->len);
	return id;
}

static uint32_t
xl_send_fsetstat(struct sftp_conn *c, const struct xl_handle *h, const struct sftp_attrs *a)
{
	uint32_t id = sftp_new_id(c);

	sftp_msg_fsetstat(&c->out, id, h->h, h->len, a);
	return id;
}

/* A STATUS answer; -1 on anything else. */
static int
xl_status_reply(struct sftp_conn *c, struct sftp_reply *r)
{
	if (sftp_recv(c, r) != 0 || r->type != SSH_FXP_STATUS)
		log_fatal("Connection closed");
	return (int)r->status;
}

static int
xl_close_now(struct sftp_conn *c, const struct xl_handle *h)
{
	uint32_t id = xl_send_close(c, h);
	struct sftp_reply r;
	int st = xl_status_reply(c, &r);

	if (r.id != id)
		log_fatal("Connection closed");
	if (st != SSH_FX_OK) {
		log_error("close remote: %s", sftp_status_text((uint32_t)st));
		return -1;
	}
	return 0;
}

static void
xl_send_read(struct xl_copy *k, uint64_t off, uint32_t len)
{
	struct xl_read *rd = &k->reads[k->nreads++];

	rd->id = sftp_new_id(k->from);
	rd->off = off;
	rd->len = len;
	sftp_msg_read(&k->from->out, rd->id, k->fh.h, k->fh.len, off, len);
}

/* One answer from the destination to a WRITE. */
static void
xl_write_acked(struct xl_copy *k, uint32_t status)
{
	if (status != SSH_FX_OK && k->write_err == 0)
		k->write_err = status;
	k->nwrites--;
}

static void
xl_forward(struct xl_copy *k, uint64_t off, const uint8_t *data, uint32_t len)
{
	uint32_t id = sftp_new_id(k->to);
	size_t start = sftp_msg_write_begin(&k->to->out, id, k->th.h, k->th.len, off, len);
	struct sftp_reply r;

	memcpy(sftp_buf_reserve(&k->to->out, len), data, len);
	sftp_msg_end(&k->to->out, start);
	xl_flush(k->to);
	k->nwrites++;
	if (off + len > k->end)
		k->end = off + len;
	k->done += len;
	bwlimit_account(k->p->bw, len);
	progress_update(k->p->progress, (off_t)k->done);
	while (k->nwrites >= k->max_writes)
		xl_write_acked(k, (uint32_t)xl_status_reply(k->to, &r));
}

/* One answer from the source: forward its data, ask again for what a
 * short read left out, stop asking at EOF or an error. */
static void
xl_source_reply(struct xl_copy *k)
{
	struct sftp_reply r;
	unsigned i;

	if (sftp_recv(k->from, &r) != 0)
		log_fatal("Connection closed");
	for (i = 0; i < k->nreads && k->reads[i].id != r.id; i++)
		;
	if (i == k->nreads)
		log_fatal("Unexpected reply %u", r.id);
	struct xl_read rd = k->reads[i];

	k->reads[i] = k->reads[--k->nreads];
	if (r.type == SSH_FXP_STATUS) {
		if (r.status != SSH_FX_EOF && k->read_err == 0)
			k->read_err = r.status;
		k->eof = true;
		return;
	}
	if (r.type != SSH_FXP_DATA)
		log_fatal("Expected SSH2_FXP_DATA(%u) packet, got %u", SSH_FXP_DATA, r.type);
	if (r.data_len > rd.len)
		log_fatal("Received more data than asked for %u > %u", r.data_len, rd.len);
	xl_forward(k, rd.off, r.data, r.data_len);
	if (r.data_len == 0)
		k->eof = true;
	else if (r.data_len < rd.len)
		xl_send_read(k, rd.off + r.data_len, rd.len - r.data_len);
}

/* The listed size, many READs at once (a file that shrank ends early, as
 * in scp; what is appended meanwhile is not copied, as in fscp's
 * downloads). */
static void
xl_pump(struct xl_copy *k)
{
	for (;;) {
		while (!k->eof && k->nreads < k->max_reads && k->next_off < k->size) {
			uint64_t left = k->size - k->next_off;
			uint32_t len = left < k->buflen ? (uint32_t)left : k->buflen;

			xl_send_read(k, k->next_off, len);
			k->next_off += len;
		}
		if (k->nreads == 0)
			break;
		xl_source_reply(k);
	}
}

/* Requests of buflen that fit in bytes (0: the default), at most n, and
 * at least two, so one is answered while the next travels. */
static unsigned
xl_fit(unsigned n, uint64_t bytes, uint32_t buflen)
{
	uint64_t fit = (bytes ? bytes : XL_MAX_INFLIGHT) / buflen;

	if (fit < 2)
		fit = 2;
	return fit < n ? (unsigned)fit : n;
}

/* Each side gets what its own round trip needs (the caller passes the
 * sessions' budgets; for the target its READ-sized one, as this is its only
 * connection: the engine's smaller upload budget is per connection of
 * several, and would make a far target the bottleneck); the WRITEs never
 * fewer than the READs whose data they carry on. */
static void
xl_limits(struct xl_copy *k, uint64_t read_inflight, uint64_t write_inflight)
{
	unsigned n = k->p->nrequests ? k->p->nrequests : XL_DEFAULT_REQUESTS;
	unsigned w;

	k->buflen = k->from->max_read < k->to->max_write ? k->from->max_read :
	    k->to->max_write;
	if (k->buflen == 0)
		k->buflen = 32768;
	k->max_reads = xl_fit(n, read_inflight, k->buflen);
	w = xl_fit(n, write_inflight, k->buflen);
	k->max_writes = w > k->max_reads ? w : k->max_reads;
	k->reads = xcalloc(k->max_reads, sizeof(*k->reads));
}

/* Finish both ends at once: CLOSE the source; cut the destination to the
 * bytes written (it was opened without TRUNC, as scp writes in place),
 * then -p's mode and times (only after a clean copy), then CLOSE it.
 * The status of each step lands in e. */
struct xl_end {
	int from_close, size, preserve, to_close;
};

static void
xl_finish(struct xl_copy *k, const struct sftp_attrs *a, struct xl_end *e)
{
	struct sftp_attrs sz = { .flags = SSH_FILEXFER_ATTR_SIZE, .size = k->end };
	uint32_t id_fc, id_sz, id_p = 0, id_tc;
	struct sftp_reply r;
	int st;

	e->size = e->preserve = e->to_close = SSH_FX_OK;
	id_fc = xl_send_close(k->from, &k->fh);
	xl_flush(k->from);
	/* -p waits for the WRITEs: times go only on a complete copy. */
	if (k->p->preserve)
		while (k->nwrites > 0)
			xl_write_acked(k, (uint32_t)xl_status_reply(k->to, &r));
	id_sz = xl_send_fsetstat(k->to, &k->th, &sz);
	if (k->p->preserve && k->read_err == 0 && k->write_err == 0)
		id_p = xl_send_fsetstat(k->to, &k->th, a);
	id_tc = xl_send_close(k->to, &k->th);
	xl_flush(k->to);
	st = xl_status_reply(k->from, &r);
	if (r.id != id_fc)
		log_fatal("Connection closed");
	e->from_close = st;
	/* Every answer still due: WRITEs, the SETSTATs and the CLOSE. */
	for (int left = id_p != 0 ? 3 : 2; left > 0;) {
		st = xl_status_reply(k->to, &r);
		if (r.id == id_sz)
			e->size = st;
		else if (id_p != 0 && r.id == id_p)
			e->preserve = st;
		else if (r.id == id_tc)
			e->to_close = st;
		else {
			xl_write_acked(k, (uint32_t)st);
			continue;
		}
		left--;
	}
}

/* scp's messages after the data, in its order. */
static int
xl_report(const struct xl_copy *k, const struct xl_item *it, const struct xl_end *e)
{
	int ret = 0;

	if (k->read_err != 0) {
		log_error("read origin \"%s\": %s", it->src, sftp_status_text(k->read_err));
		ret = -1;
	} else if (k->write_err != 0) {
		log_error("write dest \"%s\": %s", it->dst, sftp_status_text(k->write_err));
		ret = -1;
	}
	if (e->from_close != SSH_FX_OK) {
		log_error("close remote: %s", sftp_status_text((uint32_t)e->from_close));
		ret = -1;
	}
	if (e->size != SSH_FX_OK || e->preserve != SSH_FX_OK) {
		log_error("remote fsetstat: %s", sftp_status_text((uint32_t)(e->size != SSH_FX_OK ?
		    e->size : e->preserve)));
		ret = -1;
	}
	if (e->to_close != SSH_FX_OK) {
		log_error("close remote: %s", sftp_status_text((uint32_t)e->to_close));
		ret = -1;
	}
	return ret;
}

/* Both OPENs in flight at once; -1 (said) when either fails. */
static int
xl_open_both(struct xl_copy *k, const struct xl_item *it, const struct sftp_attrs *a)
{
	uint32_t id_f = xl_send_open(k->from, it->src, SSH_FXF_READ, NULL);
	uint32_t id_t = xl_send_open(k->to, it->dst, SSH_FXF_WRITE | SSH_FXF_CREAT, a);
	int rf = xl_handle_reply(k->from, id_f, it->src, "origin", &k->fh);
	int rt = xl_handle_reply(k->to, id_t, it->dst, "dest", &k->th);

	if (rf == 0 && rt == 0)
		return 0;
	if (k->fh.open)
		(void)xl_close_now(k->from, &k->fh);
	if (k->th.open)
		(void)xl_close_now(k->to, &k->th);
	return -1;
}

static int
xl_copy_file(const struct crossload_plan *pl, struct sftp_conn *from, struct sftp_conn *to,
    const struct xl_item *it)
{
	const struct crossload_params *p = &pl->p;
	struct xl_copy k = { .from = from, .to = to, .p = p };
	struct sftp_attrs a = it->a;
	struct xl_end e;
	char *name;

	k.size = (a.flags & SSH_FILEXFER_ATTR_SIZE) ? a.size : 0;
	a.flags &= ~(uint32_t)(SSH_FILEXFER_ATTR_SIZE | SSH_FILEXFER_ATTR_UIDGID);
	a.perm &= 0777;
	if (!p->preserve)
		a.flags &= ~(uint32_t)SSH_FILEXFER_ATTR_ACMODTIME;
	if (xl_open_both(&k, it, &a) != 0)
		return -1;
	xl_limits(&k, pl->read_inflight, pl->write_inflight);
	name = operand_basename(it->src);
	if (k.size != 0)
		progress_start(p->progress, name, (off_t)k.size);
	xl_pump(&k);
	if (k.size != 0)
		progress_finish(p->progress);
	free(name);
	free(k.reads);
	xl_finish(&k, &a, &e);
	return xl_report(&k, it, &e);
}

void
crossload_run(struct crossload_plan *pl, struct sftp_conn *from, struct sftp_conn *to,
    uint64_t read_inflight, uint64_t write_inflight)
{
	pl->read_inflight = read_inflight;
	pl->write_inflight = write_inflight;
	for (size_t i = 0; i < pl->n; i++) {
		const struct xl_item *it = &pl->items[i];
		int st;

		if (it->kind == XL_DIRFIX) {
			st = xl_alive(sftp_setstat(to, it->dst, &it->a));
			if (st != SSH_FX_OK)
				log_error("remote setstat \"%s\": %s", it->dst,
				    sftp_status_text((uint32_t)st));
			continue;
		}
		if (xl_copy_file(pl, from, to, it) != 0 && it->in_tree)
			log_error("crossload \"%s\" to \"%s\" failed", it->src, it->dst);
	}
}
