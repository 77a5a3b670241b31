/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hp-smppd: the stats socket: JSON counters per session and system_id to
 * clients on a UNIX socket, and the -q client.
 */
#include "smppd_srv.h"
/* ---- stats socket ------------------------------------------------------- */

static const char *
state_name(const struct session *s)
{
	static const char *const n[] = { "unbound", "tx", "rx", "trx" };

	return s->binding ? "binding" : n[s->st];
}

static void
stats_json(struct server *sv, FILE *f)
{
	int first = 1;

	fprintf(f, "{\"uptime_s\":%.1f,\"sessions\":{\"bound\":%u,\"unbound\":%u,"
		"\"max\":%u,\"max_unbound\":%u},\"connections\":{\"accepted\":%llu,"
		"\"unbound_evicted\":%llu,\"accept_errors\":%llu,\"accept_pauses\":%llu,"
		"\"bind_timeouts\":%llu,\"pdu_timeouts\":%llu,\"idle_unbinds\":%llu,"
		"\"close_timeouts\":%llu,\"auth_pending\":%u},",
		sv->now - sv->t_start, sv->nbound, sv->nunbound, sv->max_sessions,
		sv->max_unbound, (unsigned long long)sv->accepted,
		(unsigned long long)sv->evicted, (unsigned long long)sv->accept_errors,
		(unsigned long long)sv->accept_pauses, (unsigned long long)sv->to_bind,
		(unsigned long long)sv->to_pdu, (unsigned long long)sv->to_idle,
		(unsigned long long)sv->to_close, smppd_auth_pending());
	fprintf(f, "\"store\":{\"messages\":%u,\"cap\":%u,\"pending\":%u,\"evicted\":%llu,"
		"\"refused_full\":%llu,\"receipts_dropped\":%llu},\"system_ids\":{",
		sv->store.n, sv->store.cap, sv->store.nheap,
		(unsigned long long)sv->store.evicted, (unsigned long long)sv->store.full,
		(unsigned long long)sv->store.dlr_dropped);
	for (unsigned u = 0; u < sv->nusers; u++) {
		fprintf(f, "%s", u ? "," : "");
		smppd_json_str(f, sv->users[u].id);
		fprintf(f, ":{\"bound\":%u,\"max_binds\":%u,\"receipts_waiting\":%u,",
			sv->ur[u].bound, sv->ur[u].limit, smppd_store_dlr_len(&sv->store, u));
		smppd_counters_json(f, &sv->ur[u].c);
		fputc('}', f);
	}
	fputs("},\"session_list\":[", f);
	for (unsigned i = 0; i < sv->nslots; i++) {
		struct session *s = &sv->s[i];

		if (s->fd < 0)
			continue;
		fprintf(f, "%s{\"slot\":%u,\"peer\":\"%s\",\"tls\":%s,\"state\":\"%s\","
			"\"system_id\":", first ? "" : ",", i, s->peer,
			s->ssl ? "true" : "false", state_name(s));
		if (s->user >= 0)
			smppd_json_str(f, sv->users[s->user].id);
		else
			fputs("null", f);
		fprintf(f, ",\"age_s\":%.1f,\"window\":{\"in_use\":%u,\"limit\":%u},"
			"\"deliver_window\":{\"in_use\":%u,\"limit\":%u},\"out_bytes\":%zu,",
			sv->now - s->t_open, s->inflight, (unsigned)kv(K_WINDOW), s->ndout,
			(unsigned)kv(K_DLR_WINDOW), s->out_len);
		smppd_counters_json(f, &s->c);
		fputc('}', f);
		first = 0;
	}
	fputs("]}\n", f);
}

void
srv_stats_close(struct server *sv, struct stats_cli *c)
{
	epoll_ctl(sv->ep, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	free(c->buf);
	c->fd = -1;
	c->buf = NULL;
}

void
srv_stats_write(struct server *sv, struct stats_cli *c)
{
	while (c->off < c->len) {
		ssize_t w = send(c->fd, c->buf + c->off, c->len - c->off, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (w <= 0)
			break;
		c->off += (size_t)w;
	}
	srv_stats_close(sv, c);
}

/* A connection to the stats socket gets one JSON object, then the end. */
void
srv_stats_accept(struct server *sv)
{
	int fd;

	while ((fd = accept4(sv->stats_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		struct epoll_event ev = { .events = EPOLLOUT };
		struct stats_cli *c = NULL;
		FILE *f;

		for (unsigned i = 0; i < NSTATS_CLI; i++)
			if (sv->sc[i].fd < 0) {
				c = &sv->sc[i];
				ev.data.u32 = TAG_SCLI + i;
			}
		if (c == NULL) {
			close(fd);      /* four readers at once is plenty */
			continue;
		}
		c->fd = fd;
		c->off = 0;
		f = open_memstream(&c->buf, &c->len);
		if (f == NULL) {
			close(fd);
			c->fd = -1;
			continue;
		}
		stats_json(sv, f);
		fclose(f);
		epoll_ctl(sv->ep, EPOLL_CTL_ADD, fd, &ev);
		srv_stats_write(sv, c);
	}
}

/* hp-smppd -q PATH: print a running server's counters. */
int
srv_stats_query(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[65536];
	ssize_t n;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, P ": -q: path longer than %zu characters\n",
			sizeof(sa.sun_path) - 1);
		return 2;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		/* no server behind PATH: the argument is wrong, as for a bad file */
		fprintf(stderr, P ": -q %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 2;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	close(fd);
	return n < 0 ? 1 : 0;
}

