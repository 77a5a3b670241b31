/* SPDX-License-Identifier: BSD-3-Clause
 * Device kinds that live in plugins, loaded on first use (hp_device.c):
 * one line each, so that a spec naming one finds its library, or says
 * what to do when it cannot load.
 */
#include "hp_device.h"

HP_DEVICE_PLUGIN(cuda, "libhp_cuda.so",
		 "build with nvcc on PATH (scripts/setup.sh --with-cuda-compiler) or set HP_PLUGIN_DIR")
