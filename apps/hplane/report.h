/* SPDX-License-Identifier: BSD-3-Clause
 * hplane's run report: OUT/report.html, one self-contained page (inline
 * SVG plots, embedded PNGs, no script, no network) built from the files a
 * finished run left in its folder (summary.json, trace.csv, and ramp.csv
 * or a compare's run folders where present), so it reads only what the
 * run recorded and can be rebuilt later (`hplane report OUT`).
 */
#ifndef HP_REPORT_H
#define HP_REPORT_H

#include <stddef.h>

/* Writes dir/report.html (through a temporary name, then renamed) and
 * puts its path in path. dir is a run's folder (summary.json and
 * trace.csv, and ramp.csv after a ramp) or a compare's (run folders
 * holding those). 0; -ENOENT, -ENOTDIR or -EINVAL when the folder or its
 * files are missing or unreadable as a run's (err: one line, the file and
 * what is wrong); another -errno when the report cannot be written. */
int hp_report_build(const char *dir, char *path, size_t pathlen, char *err,
		    size_t errlen);

#endif /* HP_REPORT_H */
