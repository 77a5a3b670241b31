/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The corpus walk of the fuzz targets' standalone main() (built without
 * libFuzzer): each argument is a file, or a directory whose entries (dot
 * files left out) are replayed one by one.
 */
#ifndef SMPP_FUZZ_REPLAY_H
#define SMPP_FUZZ_REPLAY_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>

/* Replays one input: path to open, name its file name (for an expected-
 * results table); returns 0, or 1 when it failed. */
typedef int (*fuzz_replay_fn)(const char *path, const char *name, void *arg);

/* fn over paths[0..n); returns the failures, *files the inputs replayed. */
static inline int
fuzz_replay_paths(char **paths, int n, fuzz_replay_fn fn, void *arg, int *files)
{
	int fails = 0;

	*files = 0;
	for (int i = 0; i < n; i++) {
		DIR *d = opendir(paths[i]);
		struct dirent *de;

		if (d == NULL) {
			const char *base = strrchr(paths[i], '/');

			fails += fn(paths[i], base ? base + 1 : paths[i], arg);
			(*files)++;
			continue;
		}
		while ((de = readdir(d)) != NULL) {
			char path[4096];

			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", paths[i], de->d_name);
			fails += fn(path, de->d_name, arg);
			(*files)++;
		}
		closedir(d);
	}
	return fails;
}

#endif
