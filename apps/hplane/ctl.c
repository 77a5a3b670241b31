/* SPDX-License-Identifier: BSD-3-Clause
 * hplane ctl: commands to a running hplane through its DPDK telemetry
 * socket (<runtime dir>/dpdk_telemetry.v2, SOCK_SEQPACKET, JSON replies;
 * DPDK 22.11). `ctl goal [NAME[:ARG]]` reads or sets the goal of a run
 * under --goal (/heteroplane/goal, lib/sched/sched_pythia.c). The run is
 * found by --file-prefix P (its EAL prefix), --pid N (hplane's default
 * prefix hplaneN), or is the only hplane runtime directory there is.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <jansson.h>

#include "hp_common.h"
#include "stop.h"

#define CTL_USAGE "usage: hplane ctl goal [NAME[:ARG]] [--file-prefix P | --pid N]"

/* DPDK's runtime base: /var/run for root, else XDG_RUNTIME_DIR or /tmp. */
static void
rt_base(char *buf, size_t len)
{
	const char *x = getenv("XDG_RUNTIME_DIR");

	if (getuid() == 0)
		snprintf(buf, len, "/var/run/dpdk");
	else
		snprintf(buf, len, "%s/dpdk", x != NULL ? x : "/tmp");
}

/* The socket of prefix, or of the only hplane* directory with one. */
static int
find_sock(const char *prefix, char *path, size_t len)
{
	char base[200], cand[512], q[80];
	struct dirent *e;
	unsigned int n = 0;
	DIR *d;

	rt_base(base, sizeof(base));
	if (prefix != NULL) {
		snprintf(path, len, "%s/%s/dpdk_telemetry.v2", base, prefix);
		if (access(path, F_OK) == 0)
			return 0;
		fprintf(stderr, "hplane ctl: no running instance with prefix %s (%s)\n",
			hp_quote(q, sizeof(q), prefix, 60), path);
		return -ENOENT;
	}
	d = opendir(base);
	while (d != NULL && (e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "hplane", 6) != 0)
			continue;
		snprintf(cand, sizeof(cand), "%s/%s/dpdk_telemetry.v2", base, e->d_name);
		if (access(cand, F_OK) == 0 && n++ == 0)
			snprintf(path, len, "%s", cand);
	}
	if (d != NULL)
		closedir(d);
	if (n == 1)
		return 0;
	fprintf(stderr, "hplane ctl: %s under %s; name it with --file-prefix P or --pid N\n",
		n == 0 ? "no running hplane" : "several running hplanes", base);
	return -ENOENT;
}

/* Sends cmd and prints the reply; EXIT_USAGE when the run refused it. */
static int
tel_call(const char *sock, const char *cmd)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char buf[16384];
	json_error_t jerr;
	json_t *j, *v;
	ssize_t n;
	int fd, rc = 0;

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", sock);
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		fprintf(stderr, "hplane ctl: cannot connect to %s: %s\n", sock, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	/* the first message is the socket's banner (version, pid) */
	if (read(fd, buf, sizeof(buf) - 1) < 0 || write(fd, cmd, strlen(cmd)) < 0 ||
	    (n = read(fd, buf, sizeof(buf) - 1)) <= 0) {
		fprintf(stderr, "hplane ctl: %s: no reply\n", sock);
		close(fd);
		return 1;
	}
	close(fd);
	buf[n] = '\0';
	j = json_loads(buf, 0, &jerr);
	v = j != NULL ? json_object_get(j, "/heteroplane/goal") : NULL;
	if (json_is_object(v) && json_is_string(json_object_get(v, "error"))) {
		fprintf(stderr, "hplane ctl: %s\n", json_string_value(json_object_get(v, "error")));
		rc = 2;
	} else if (v == NULL) {
		fprintf(stderr, "hplane ctl: unexpected reply: %.200s\n", buf);
		rc = 1;
	} else {
		printf("%s\n", buf);
	}
	json_decref(j);
	return rc;
}

int
hp_cmd_ctl(int argc, char **argv)
{
	const char *prefix = NULL, *arg = NULL;
	char pfx[64], sock[600], cmd[300], q[80];
	int i;

	if (argc < 2 || strcmp(argv[1], "goal") != 0) {
		fprintf(stderr, "hplane ctl: %s\n", CTL_USAGE);
		return 2;
	}
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--file-prefix") && i + 1 < argc) {
			prefix = argv[++i];
		} else if (!strcmp(argv[i], "--pid") && i + 1 < argc) {
			char *end;
			long pid = strtol(argv[++i], &end, 10);

			if (*end != '\0' || pid <= 0) {
				fprintf(stderr, "hplane ctl: --pid %s: expected a process id\n",
					hp_quote(q, sizeof(q), argv[i], 40));
				return 2;
			}
			snprintf(pfx, sizeof(pfx), "hplane%ld", pid);
			prefix = pfx;
		} else if (argv[i][0] != '-' && arg == NULL) {
			arg = argv[i];
		} else {
			fprintf(stderr, "hplane ctl: %s: %s\n", hp_quote(q, sizeof(q), argv[i], 40),
				CTL_USAGE);
			return 2;
		}
	}
	if (prefix != NULL && (strchr(prefix, '/') != NULL || strlen(prefix) > 60)) {
		fprintf(stderr, "hplane ctl: --file-prefix %s: expected an EAL prefix\n",
			hp_quote(q, sizeof(q), prefix, 40));
		return 2;
	}
	/* the telemetry parameter ends at the first comma: a goal has none */
	if (arg != NULL && (strlen(arg) > 200 || strchr(arg, ',') != NULL)) {
		fprintf(stderr, "hplane ctl: goal %s: expected NAME[:ARG]\n",
			hp_quote(q, sizeof(q), arg, 40));
		return 2;
	}
	if (find_sock(prefix, sock, sizeof(sock)) < 0)
		return 2;
	snprintf(cmd, sizeof(cmd), "/heteroplane/goal%s%s", arg ? "," : "", arg ? arg : "");
	return tel_call(sock, cmd);
}
