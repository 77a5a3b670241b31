/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hp-smppd: an SMPP v3.4 server (SMSC side) and SMSC simulator, one epoll
 * loop.  Sessions: binds checked against a users file (PBKDF2 hashes,
 * checked off the loop), limits on bound sessions (server and per
 * system_id: a bind_resp with ESME_RBINDFAIL / ESME_RTHROTTLED before the
 * close), unbound connections in a small separate pool whose oldest goes
 * first, bind / inactivity (enquire_link, then unbind) / half-PDU
 * timeouts, a read budget per connection per turn so no session starves
 * another, a window of submits in flight, accept pausing on EMFILE, TLS on
 * a second listener, IPv6.  Messages: submit_sm are decoded in batches by
 * the library's batch decoder; submit_sm, submit_multi and data_sm go to a
 * bounded store (ids unique across restarts) that answers query_sm,
 * cancel_sm and replace_sm and sends delivery receipts to the same
 * system_id's receivers.  Counters per session and system_id as JSON on a
 * UNIX socket.  Usage: -h, and docs/smpp.md.
 */
#include "smppd_srv.h"

struct knob srv_knobs[NKNOBS] = {
	[K_BACKLOG]      = { "backlog", 1, 65535, 1024, 1 },
	[K_MAX_UNBOUND]  = { "max_unbound", 1, 65536, 64, 1 },
	[K_BINDS_PER_ID] = { "binds_per_id", 0, 65536, 0, 1 },
	[K_BIND_TIMEOUT] = { "bind_timeout", 0.05, 3600, 10, 0 },
	[K_IDLE_TIMEOUT] = { "idle_timeout", 0.05, 86400, 30, 0 },
	[K_RESP_TIMEOUT] = { "resp_timeout", 0.05, 3600, 10, 0 },
	[K_PDU_TIMEOUT]  = { "pdu_timeout", 0.05, 3600, 5, 0 },
	[K_READ_BUDGET]  = { "read_budget", 512, 1 << 20, 16384, 1 },
	[K_WINDOW]       = { "window", 1, 65535, 256, 1 },
	[K_DLR_WINDOW]   = { "dlr_window", 1, 1024, 32, 1 },
	[K_STORE]        = { "store", 16, 1e7, 100000, 1 },
	[K_DLR_DELAY]    = { "dlr_delay", 0, 86400, 0, 0 },
	[K_DLR_ERR]      = { "dlr_err", 0, 255, 0, 1 },
	[K_HASH_ITER]    = { "hash_iter", SMPPD_ITER_MIN, SMPPD_ITER_MAX, 100000, 1 },
	[K_AUTH_QUEUE]   = { "auth_queue", 1, 4096, 32, 1 },
};

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* ---- setup ----------------------------------------------------------------- */

static int
set_knob(const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *e;
	double v;

	if (eq == NULL || eq == arg) {
		fprintf(stderr, P ": -o: expected KEY=VALUE, got '%s'\n", arg);
		return -1;
	}
	for (int k = 0; k < NKNOBS; k++) {
		if (strlen(srv_knobs[k].key) != (size_t)(eq - arg) ||
		    memcmp(srv_knobs[k].key, arg, (size_t)(eq - arg)) != 0)
			continue;
		errno = 0;
		v = strtod(eq + 1, &e);
		if (errno != 0 || e == eq + 1 || *e != '\0' || !(v >= srv_knobs[k].lo) ||
		    !(v <= srv_knobs[k].hi) || (srv_knobs[k].integer && v != floor(v))) {
			fprintf(stderr, P ": -o %s: expected %s %g..%g\n", srv_knobs[k].key,
				srv_knobs[k].integer ? "an integer" : "a number", srv_knobs[k].lo,
				srv_knobs[k].hi);
			return -1;
		}
		srv_knobs[k].v = v;
		return 0;
	}
	fprintf(stderr, P ": -o: unknown key '%.*s' (see -h)\n", (int)(eq - arg), arg);
	return -1;
}

static int
load_users(struct server *sv, const char *path)
{
	char err[160];
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t len = 0, cap = 0, r;
	int rc;

	if (f == NULL) {
		fprintf(stderr, P ": -c %s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (tool_reserve((uint8_t **)&text, &cap, len, 65536) < 0 || len > (16u << 20)) {
			fprintf(stderr, P ": -c %s: larger than 16 MiB\n", path);
			fclose(f);
			free(text);
			return -1;
		}
		r = fread(text + len, 1, 65536, f);
		len += r;
	} while (r > 0);
	rc = ferror(f) ? -EIO : 0;
	fclose(f);
	if (rc == 0)
		rc = smppd_users_parse(text, len, sv->users, SMPPD_MAX_USERS, &sv->nusers,
				       err, sizeof(err));
	else
		snprintf(err, sizeof(err), "%s", strerror(EIO));
	if (text != NULL)
		OPENSSL_cleanse(text, cap);
	free(text);
	if (rc < 0) {
		fprintf(stderr, P ": -c %s: %s\n", path, err);
		return -1;
	}
	for (unsigned u = 0; u < sv->nusers; u++)
		if (!sv->users[u].hashed)
			smppd_log(SMPPD_WARN, "%s: %s has a plain-text password; "
				  "hp-smppd -H %s makes a hashed line", path, sv->users[u].id,
				  sv->users[u].id);
	return 0;
}

static const char *
ssl_err(void)
{
	unsigned long e = ERR_peek_last_error();
	const char *r = e ? ERR_reason_error_string(e) : NULL;

	return r ? r : "unknown error";
}

static int
tls_setup(struct server *sv, const char *cert, const char *key)
{
	EVP_PKEY *pkey;
	FILE *f;
	int rc;

	/* readable at all: a plain errno says more than OpenSSL's PEM error */
	if ((f = fopen(cert, "r")) == NULL) {
		fprintf(stderr, P ": -C %s: %s\n", cert, strerror(errno));
		return -1;
	}
	fclose(f);
	sv->tls = SSL_CTX_new(TLS_server_method());
	if (sv->tls == NULL) {
		fprintf(stderr, P ": TLS: %s\n", ssl_err());
		return -1;
	}
	SSL_CTX_set_min_proto_version(sv->tls, TLS1_2_VERSION);
	SSL_CTX_set_mode(sv->tls, SSL_MODE_ENABLE_PARTIAL_WRITE |
			 SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	ERR_clear_error();
	if (SSL_CTX_use_certificate_chain_file(sv->tls, cert) != 1) {
		fprintf(stderr, P ": -C %s: not a PEM certificate chain (%s)\n", cert, ssl_err());
		return -1;
	}
	/* Read apart from the use: OpenSSL 3's SSL_CTX_use_PrivateKey_file
	 * also compares the key with the certificate, so one error would say
	 * both "not a key" and "not this certificate's key". */
	ERR_clear_error();
	if ((f = fopen(key, "r")) == NULL) {
		fprintf(stderr, P ": -K %s: %s\n", key, strerror(errno));
		return -1;
	}
	pkey = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	if (pkey == NULL) {
		fprintf(stderr, P ": -K %s: not a PEM private key (%s)\n", key, ssl_err());
		return -1;
	}
	ERR_clear_error();
	rc = SSL_CTX_use_PrivateKey(sv->tls, pkey) == 1 &&
	     SSL_CTX_check_private_key(sv->tls) == 1;
	EVP_PKEY_free(pkey);
	if (!rc) {
		fprintf(stderr, P ": -K %s: does not match the certificate of -C %s (%s)\n",
			key, cert, ssl_err());
		return -1;
	}
	return 0;
}

/* ADDR: IPv4 or IPv6 (brackets allowed); 0 or -1. */
static int
parse_addr(const char *addr, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	char a[INET6_ADDRSTRLEN + 2];
	size_t n = strlen(addr);

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		*len = sizeof(*s4);
		return 0;
	}
	if (n >= 2 && n < sizeof(a) && addr[0] == '[' && addr[n - 1] == ']') {
		memcpy(a, addr + 1, n - 2);
		a[n - 2] = '\0';
	} else if (n < sizeof(a)) {
		memcpy(a, addr, n + 1);
	} else {
		return -1;
	}
	if (inet_pton(AF_INET6, a, &s6->sin6_addr) != 1)
		return -1;
	s6->sin6_family = AF_INET6;
	*len = sizeof(*s6);
	return 0;
}

static int
listen_on(struct server *sv, struct listener *l, const struct sockaddr_storage *ss0,
	  socklen_t sl, unsigned port, int tls)
{
	struct sockaddr_storage ss = *ss0;
	char h[INET6_ADDRSTRLEN];
	int one = 1;

	if (ss.ss_family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)port);
	else
		((struct sockaddr_in6 *)&ss)->sin6_port = htons((uint16_t)port);
	l->tls = tls;
	l->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (l->fd < 0)
		return -errno;
	setsockopt(l->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(l->fd, (struct sockaddr *)&ss, sl) < 0 ||
	    listen(l->fd, (int)kv(K_BACKLOG)) < 0 ||
	    getsockname(l->fd, (struct sockaddr *)&ss, &sl) < 0)
		return -errno;
	if (ss.ss_family == AF_INET) {
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, h, sizeof(h));
		snprintf(l->name, sizeof(l->name), "%s:%u", h,
			 ntohs(((struct sockaddr_in *)&ss)->sin_port));
	} else {
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, h, sizeof(h));
		snprintf(l->name, sizeof(l->name), "[%s]:%u", h,
			 ntohs(((struct sockaddr_in6 *)&ss)->sin6_port));
	}
	(void)sv;
	return 0;
}

static int
stats_listen(struct server *sv, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, P ": -s: path longer than %zu characters\n",
			sizeof(sa.sun_path) - 1);
		return -1;
	}
	strcpy(sa.sun_path, path);
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			fprintf(stderr, P ": -s %s: exists and is not a socket\n", path);
			return -1;
		}
		unlink(path);     /* a stale socket of an earlier run */
	}
	sv->stats_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (sv->stats_fd < 0 || bind(sv->stats_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    chmod(path, 0600) < 0 || listen(sv->stats_fd, 8) < 0) {
		fprintf(stderr, P ": -s %s: %s\n", path, strerror(errno));
		return -1;
	}
	sv->stats_path = path;
	return 0;
}

/* hp-smppd -H SYSTEM_ID: a users-file line from a password on stdin. */
static int
make_hash(const char *id)
{
	char pw[64], out[256];
	size_t n;

	if (strlen(id) == 0 || strlen(id) > 15 || strpbrk(id, " \t#") != NULL) {
		fprintf(stderr, P ": -H: system_id of 1-15 characters without blanks expected\n");
		return 2;
	}
	if (fgets(pw, sizeof(pw), stdin) == NULL) {
		fprintf(stderr, P ": -H: no password on stdin\n");
		return 2;
	}
	n = strcspn(pw, "\r\n");
	pw[n] = '\0';
	if (n == 0 || n > 8) {
		fprintf(stderr, P ": -H: the password must have 1-8 characters (v3.4 4.1.1)\n");
		OPENSSL_cleanse(pw, sizeof(pw));
		return 2;
	}
	if (smppd_auth_hash(pw, (uint32_t)kv(K_HASH_ITER), out, sizeof(out)) < 0) {
		fprintf(stderr, P ": -H: %s\n", ssl_err());
		return 1;
	}
	OPENSSL_cleanse(pw, sizeof(pw));
	printf("user %s %s\n", id, out);
	return 0;
}

static void
usage(void)
{
	printf("usage: hp-smppd -c USERS [-a ADDR] [-p PORT] [-S TLS_PORT -C CERT -K KEY]\n"
	       "                [-b BATCH=64] [-T FLUSH_MS=5] [-m MAX_SESSIONS=64] [-L MAX_PDU=4096]\n"
	       "                [-t THREADS=1] [-s STATS_SOCKET] [-v error|warn|info|debug]\n"
	       "                [-o KEY=VALUE]...\n"
	       "       hp-smppd -H SYSTEM_ID [-o hash_iter=N] < password   (a users-file line)\n"
	       "       hp-smppd -q STATS_SOCKET                            (a server's counters)\n"
	       "USERS: lines 'user SYSTEM_ID SECRET [binds=N]', SECRET from -H (PBKDF2-SHA256).\n"
	       "ADDR: IPv4 or IPv6. -o keys (defaults):");
	for (int k = 0; k < NKNOBS; k++)
		printf("%s %s=%g", k % 5 ? "" : "\n ", srv_knobs[k].key, srv_knobs[k].v);
	printf("\n  final=DELIVRD (or EXPIRED, DELETED, UNDELIV, ACCEPTD, UNKNOWN, REJECTD)\n");
}

static void
serve_lists(struct server *sv)
{
	/* sessions whose budget ran out, after this turn's events */
	unsigned n = sv->nready;

	for (unsigned i = 0; i < n; i++) {
		struct session *s = &sv->s[sv->ready[i]];

		/* the flag means "on the list": each slot is there once */
		s->ready = 0;
		if (s->fd >= 0 && srv_can_read(s))
			srv_sess_read(sv, s);
	}
	/* those marked again during this pass stay for the next one */
	memmove(sv->ready, sv->ready + n, (sv->nready - n) * sizeof(*sv->ready));
	sv->nready -= n;
}

static void
flush_dirty(struct server *sv)
{
	for (unsigned i = 0; i < sv->ndirty; i++) {
		struct session *s = &sv->s[sv->dirty[i]];

		s->dirty = 0;
		if (s->fd >= 0)
			srv_sess_flush(sv, s);
	}
	sv->ndirty = 0;
}

static int
loop_timeout(struct server *sv)
{
	double t = sv->next_sweep - sv->now;
	int64_t due = smppd_store_next_due(&sv->store);

	if (sv->nready > 0)
		return 0;
	if (sv->bcount && sv->bfirst + sv->flush_ms / 1000.0 - sv->now < t)
		t = sv->bfirst + sv->flush_ms / 1000.0 - sv->now;
	if (due != INT64_MAX && (double)(due - wall_ms()) / 1000.0 < t)
		t = (double)(due - wall_ms()) / 1000.0;
	for (unsigned i = 0; i < sv->nlst; i++)
		if (sv->lst[i].paused_until && sv->lst[i].paused_until - sv->now < t)
			t = sv->lst[i].paused_until - sv->now;
	return t <= 0 ? 0 : (int)ceil(t * 1000);
}

static void
run(struct server *sv)
{
	while (!stop) {
		struct epoll_event evs[64];
		int n = epoll_wait(sv->ep, evs, 64, loop_timeout(sv));

		sv->now = tool_now();
		for (int i = 0; i < n; i++) {
			uint32_t k = evs[i].data.u32;
			struct session *s;

			if (k >= TAG_LST && k < TAG_LST + sv->nlst) {
				srv_do_accept(sv, &sv->lst[k - TAG_LST]);
				continue;
			}
			if (k == TAG_AUTH) {
				srv_auth_results(sv);
				continue;
			}
			if (k == TAG_STATS) {
				srv_stats_accept(sv);
				continue;
			}
			if (k >= TAG_SCLI && k < TAG_SCLI + NSTATS_CLI) {
				srv_stats_write(sv, &sv->sc[k - TAG_SCLI]);
				continue;
			}
			s = &sv->s[k];
			if (s->fd < 0)
				continue;
			if ((evs[i].events & EPOLLOUT) && s->ssl != NULL && !s->hs_done)
				srv_sess_read(sv, s);        /* the handshake wanted to write */
			else if (evs[i].events & EPOLLOUT)
				srv_sess_flush(sv, s);
			if (s->fd >= 0 && (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) {
				if (srv_can_read(s) || (s->ssl != NULL && !s->hs_done))
					srv_sess_read(sv, s);
				else if (evs[i].events & (EPOLLHUP | EPOLLERR))
					srv_sess_close(sv, s);
			}
		}
		serve_lists(sv);
		if (sv->bcount && (sv->now - sv->bfirst) * 1000.0 >= sv->flush_ms)
			srv_flush_batch(sv);
		if (smppd_store_next_due(&sv->store) != INT64_MAX) {
			int64_t slot;
			unsigned budget = 4096;

			sv->now_ms = wall_ms();
			while (budget-- > 0 && (slot = smppd_store_pop_due(&sv->store, sv->now_ms)) >= 0)
				srv_became_final(sv, (uint32_t)slot);
		}
		srv_deliver_receipts(sv);
		if (sv->now >= sv->next_sweep) {
			srv_sweep(sv);
			sv->next_sweep = sv->now + TICK;
		}
		srv_resume_accept(sv);
		flush_dirty(sv);
	}
}

int
main(int argc, char **argv)
{
	static struct server sv;
	const char *addr = "127.0.0.1", *users = NULL, *cert = NULL, *key = NULL;
	const char *stats = NULL, *hash_id = NULL, *query = NULL;
	struct sockaddr_storage ss;
	socklen_t sl;
	struct epoll_event ev;
	unsigned port = 2775, tls_port = 0;
	int opt, rc = 1, have_tls = 0, r;

	smpp_config_default(&sv.cfg);
	sv.cfg.framing = SMPP_FRAME_ELEMENT;
	sv.cfg.corr_len = CORR_LEN;
	sv.bmax = 64;
	sv.flush_ms = 5;
	sv.max_sessions = 64;
	sv.max_pdu = 4096;
	sv.final_state = SMPP_STATE_DELIVERED;
	sv.next_seq = 1;
	sv.ep = sv.auth_fd = sv.stats_fd = -1;
	opterr = 0;
	while ((opt = getopt(argc, argv, ":c:a:p:b:T:m:L:t:S:C:K:s:v:o:H:q:h")) != -1) {
		double v = 0;
		int bad = 0;

		switch (opt) {
		case 'c': users = optarg; break;
		case 'a': addr = optarg; break;
		case 'p': bad = tool_num(P, opt, optarg, 0, 65535, &v); port = (unsigned)v; break;
		case 'S': bad = tool_num(P, opt, optarg, 0, 65535, &v); tls_port = (unsigned)v;
			have_tls = 1; break;
		case 'C': cert = optarg; break;
		case 'K': key = optarg; break;
		case 's': stats = optarg; break;
		case 'b': bad = tool_num(P, opt, optarg, 1, 1 << 20, &v); sv.bmax = (unsigned)v; break;
		case 'T': bad = tool_num(P, opt, optarg, 0, 60000, &v); sv.flush_ms = (unsigned)v; break;
		case 'm': bad = tool_num(P, opt, optarg, 1, 65536, &v);
			sv.max_sessions = (unsigned)v; break;
		case 'L': bad = tool_num(P, opt, optarg, SMPP_HEADER_LEN, 65536, &v);
			sv.max_pdu = (uint32_t)v; break;
		case 't': bad = tool_num(P, opt, optarg, 1, 256, &v); sv.cfg.threads = (unsigned)v; break;
		case 'v':
			smppd_log_level = smppd_level_parse(optarg);
			if (smppd_log_level < 0) {
				fprintf(stderr, P ": -v: expected error, warn, info or debug\n");
				return 2;
			}
			break;
		case 'o':
			if (strncmp(optarg, "final=", 6) == 0) {
				sv.final_state = smppd_state_parse(optarg + 6);
				if (sv.final_state < 0) {
					fprintf(stderr, P ": -o final: expected DELIVRD, EXPIRED, "
						"DELETED, UNDELIV, ACCEPTD, UNKNOWN or REJECTD\n");
					return 2;
				}
				break;
			}
			bad = set_knob(optarg);
			break;
		case 'H': hash_id = optarg; break;
		case 'q': query = optarg; break;
		case 'h': usage(); return 0;
		default:
			return tool_bad_flag(P, opt, optopt);
		}
		if (bad)
			return 2;
	}
	if (optind != argc) {
		fprintf(stderr, P ": unexpected argument '%s' (-h: usage)\n", argv[optind]);
		return 2;
	}
	if (hash_id != NULL)
		return make_hash(hash_id);
	if (query != NULL)
		return srv_stats_query(query);
	if (parse_addr(addr, &ss, &sl) < 0) {
		fprintf(stderr, P ": -a: not an IPv4 or IPv6 address: %s\n", addr);
		return 2;
	}
	if ((cert != NULL || key != NULL) && !have_tls) {
		fprintf(stderr, P ": -C and -K go with -S TLS_PORT\n");
		return 2;
	}
	if (have_tls && (cert == NULL || key == NULL)) {
		fprintf(stderr, P ": -S needs -C CERT_PEM and -K KEY_PEM\n");
		return 2;
	}
	if (users == NULL) {
		fprintf(stderr, P ": need -c USERS_FILE (-h: usage)\n");
		return 2;
	}
	if (load_users(&sv, users) < 0)
		return 2;
	if (have_tls && tls_setup(&sv, cert, key) < 0) {
		rc = 2;
		goto out;
	}
	if (stats != NULL && stats_listen(&sv, stats) < 0) {
		rc = 2;
		goto out;
	}
	sv.max_unbound = (unsigned)kv(K_MAX_UNBOUND);
	sv.nslots = sv.max_sessions + sv.max_unbound;
	sv.cfg.max_pdu_len = sv.max_pdu;
	sv.rxcap = (size_t)sv.max_pdu + (size_t)kv(K_READ_BUDGET);
	if (smpp_ctx_create(&sv.cfg, &sv.ctx) < 0)
		goto out;
	smpp_batch_init(&sv.batch);
	sv.bcap = (size_t)sv.bmax * (sv.max_pdu + CORR_LEN + sv.cfg.marker_len);
	sv.bbuf = malloc(sv.bcap);
	sv.s = calloc(sv.nslots, sizeof(*sv.s));
	sv.free_slots = calloc(sv.nslots, sizeof(*sv.free_slots));
	sv.ready = calloc(sv.nslots, sizeof(*sv.ready));
	sv.dirty = calloc(sv.nslots, sizeof(*sv.dirty));
	if (sv.bbuf == NULL || sv.s == NULL || sv.free_slots == NULL || sv.ready == NULL ||
	    sv.dirty == NULL || smppd_store_init(&sv.store, (uint32_t)kv(K_STORE)) < 0 ||
	    smppd_auth_key(sv.tag_key) < 0) {
		fprintf(stderr, P ": out of memory\n");
		goto out;
	}
	for (unsigned i = 0; i < sv.nslots; i++) {
		sv.s[i].fd = -1;
		sv.free_slots[i] = sv.nslots - 1 - i;   /* slot 0 first */
		sv.s[i].dout = calloc((size_t)kv(K_DLR_WINDOW), sizeof(*sv.s[i].dout));
		if (sv.s[i].dout == NULL)
			goto out;
	}
	sv.nfree = sv.nslots;
	for (unsigned u = 0; u < sv.nusers; u++) {
		unsigned lim = sv.users[u].max_binds ? sv.users[u].max_binds :
			       (unsigned)kv(K_BINDS_PER_ID);

		sv.ur[u].limit = lim;
		sv.ur[u].rx = calloc(sv.max_sessions, sizeof(*sv.ur[u].rx));
		if (sv.ur[u].rx == NULL)
			goto out;
	}
	{
		const struct smpp_pdu_desc *d = smpp_pdu_desc_find(SMPP_SUBMIT_SM);

		sv.sm = (struct sm_fields){
			smpp_field_index(d, "service_type"), smpp_field_index(d, "source_addr_ton"),
			smpp_field_index(d, "source_addr_npi"), smpp_field_index(d, "source_addr"),
			smpp_field_index(d, "dest_addr_ton"), smpp_field_index(d, "dest_addr_npi"),
			smpp_field_index(d, "destination_addr"),
			smpp_field_index(d, "schedule_delivery_time"),
			smpp_field_index(d, "validity_period"),
			smpp_field_index(d, "registered_delivery"),
			smpp_field_index(d, "short_message"),
		};
	}
	if ((r = listen_on(&sv, &sv.lst[0], &ss, sl, port, 0)) < 0) {
		fprintf(stderr, P ": listen %s:%u: %s\n", addr, port, strerror(-r));
		goto out;
	}
	sv.nlst = 1;
	if (have_tls) {
		if ((r = listen_on(&sv, &sv.lst[1], &ss, sl, tls_port, 1)) < 0) {
			fprintf(stderr, P ": listen %s:%u (TLS): %s\n", addr, tls_port, strerror(-r));
			goto out;
		}
		sv.nlst = 2;
	}
	sv.ep = epoll_create1(EPOLL_CLOEXEC);
	sv.auth_fd = smppd_auth_start(sv.users, (unsigned)kv(K_AUTH_QUEUE));
	if (sv.ep < 0 || sv.auth_fd < 0) {
		fprintf(stderr, P ": %s\n", strerror(errno));
		goto out;
	}
	ev.events = EPOLLIN;
	for (unsigned i = 0; i < sv.nlst; i++) {
		ev.data.u32 = TAG_LST + i;
		epoll_ctl(sv.ep, EPOLL_CTL_ADD, sv.lst[i].fd, &ev);
	}
	ev.data.u32 = TAG_AUTH;
	epoll_ctl(sv.ep, EPOLL_CTL_ADD, sv.auth_fd, &ev);
	for (unsigned i = 0; i < NSTATS_CLI; i++)
		sv.sc[i].fd = -1;
	if (sv.stats_fd >= 0) {
		ev.data.u32 = TAG_STATS;
		epoll_ctl(sv.ep, EPOLL_CTL_ADD, sv.stats_fd, &ev);
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	printf("hp-smppd: listening on %s\n", sv.lst[0].name);
	if (have_tls)
		printf("hp-smppd: TLS listening on %s\n", sv.lst[1].name);
	fflush(stdout);
	sv.now = sv.t_start = tool_now();
	sv.next_sweep = sv.now + TICK;
	run(&sv);
	rc = 0;
out:
	smppd_auth_stop();
	for (unsigned i = 0; sv.s != NULL && i < sv.nslots; i++) {
		srv_sess_close(&sv, &sv.s[i]);
		free(sv.s[i].rx);
		free(sv.s[i].out);
		free(sv.s[i].dout);
	}
	for (unsigned i = 0; i < NSTATS_CLI; i++)
		if (sv.sc[i].fd >= 0)
			srv_stats_close(&sv, &sv.sc[i]);
	for (unsigned i = 0; i < sv.nlst; i++)
		close(sv.lst[i].fd);
	for (unsigned u = 0; u < sv.nusers; u++)
		free(sv.ur[u].rx);
	if (sv.stats_fd >= 0) {
		close(sv.stats_fd);
		if (sv.stats_path != NULL)
			unlink(sv.stats_path);
	}
	if (sv.ep >= 0)
		close(sv.ep);
	OPENSSL_cleanse(sv.users, sizeof(sv.users));
	SSL_CTX_free(sv.tls);
	free(sv.s);
	free(sv.free_slots);
	free(sv.ready);
	free(sv.dirty);
	free(sv.bbuf);
	smppd_store_free(&sv.store);
	smpp_batch_free(&sv.batch);
	smpp_ctx_free(sv.ctx);
	return rc;
}
