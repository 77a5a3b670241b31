/* SPDX-License-Identifier: BSD-3-Clause
 * libFuzzer target over the core's parsers of outside input: frames
 * (hp_parse: Ethernet/VLAN/IPv4/UDP/TCP headers of every received packet),
 * packet-type tables (--types FILE) and rate traces (--trace FILE). The
 * first input byte picks the parser; a frame must parse or give a drop
 * reason, a file must load or give -errno with a one-line reason, and
 * nothing may read or write out of bounds (ASan, UBSan).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hp_gen.h"
#include "hp_pkt.h"

static int
load_file(const uint8_t *data, size_t size, int which)
{
	char path[] = "/tmp/hp_fuzz_XXXXXX", err[256] = "";
	struct hp_type_table tt;
	struct hp_profile prof;
	int fd = mkstemp(path), ret;

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		unlink(path);
		return 0;
	}
	close(fd);
	if (which == 0)
		ret = hp_type_table_load(&tt, path, err, sizeof(err));
	else
		ret = hp_profile_load(&prof, path, 1e6, err, sizeof(err));
	unlink(path);
	if (ret > 0 || (ret < 0 && (err[0] == '\0' || strchr(err, '\n') != NULL)))
		abort(); /* an error is a -errno with exactly one line saying why */
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hp_flow_key key;
	uint16_t off = 0, len = 0;
	uint8_t *frame;

	if (size < 1)
		return 0;
	switch (data[0] % 3) {
	case 0:
		/* an exact-size copy, so ASan sees any read past the frame */
		frame = malloc(size - 1 ? size - 1 : 1);
		if (frame == NULL)
			return 0;
		memcpy(frame, data + 1, size - 1);
		if (hp_parse(frame, (uint32_t)(size - 1), &key, &off, &len) == HP_DROP_NONE &&
		    (uint32_t)off + len > size - 1)
			abort(); /* the payload it reports lies inside the frame */
		free(frame);
		return 0;
	case 1:
		return load_file(data + 1, size - 1, 0);
	default:
		return load_file(data + 1, size - 1, 1);
	}
}
