/* SPDX-License-Identifier: BSD-3-Clause */
/* Configure-time probe: does clang link a libFuzzer + ASan/UBSan binary here? */
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return size > 0 && data[0] == 0;
}
