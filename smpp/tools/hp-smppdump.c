/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hp-smppdump: decode a file of SMPP PDUs (plain concatenated PDUs or
 * [correlation id | PDU | end marker] elements) with the batch decoder, or
 * a pcap/pcapng capture of SMPP over TCP (recognised by its magic number;
 * see smppdump_pcap.c), and print every PDU's fields, TLVs and errors as
 * one JSON object per line.  For people debugging links, and for tests.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smpp.h"
#include "tool_util.h"
#include "smppdump_pcap.h"
#ifdef HP_SMPP_GPU
#include "hp_cuda_smpp.h"
#endif

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: hp-smppdump [-e] [-c CORR_LEN] [-m MARKER_HEX] [-t THREADS]\n"
		"                   [-M cpu|auto|gpu|gpu-fused] [-s] [-L MAX_PDU] [-p PORT] FILE|-\n"
		"  -e  element framing [corr id | PDU | marker] (default: plain PDUs)\n"
		"  -s  strict TLV checks (TLVs not allowed for the PDU are errors)\n"
		"  -p  pcap input: only TCP flows with this port at one end\n"
		"  a pcap or pcapng file (SMPP over TCP) is recognised and reassembled\n");
}

static uint8_t *
read_all(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	size_t cap = 1 << 16, n = 0, r;
	uint8_t *buf = NULL, *nb;

	if (f == NULL)
		return NULL;
	buf = malloc(cap);
	while (buf != NULL && (r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			nb = realloc(buf, cap * 2);
			if (nb == NULL) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	if (f != stdin)
		fclose(f);
	*len = n;
	return buf;
}

int
main(int argc, char **argv)
{
	static const char *const modes[] = { "cpu", "auto", "gpu", "gpu-fused" };
	struct smpp_config cfg;
	struct smpp_ctx *ctx = NULL;
	struct smpp_batch b;
	enum smpp_mode mode = SMPP_MODE_CPU;
	uint8_t *in = NULL;
	size_t len = 0;
	int opt, rc = 1;
	long port = 0;

	smpp_config_default(&cfg);
	smpp_batch_init(&b);
	opterr = 0;
	while ((opt = getopt(argc, argv, ":ec:m:t:M:sL:p:h")) != -1) {
		double v;

		switch (opt) {
		case 'e':
			cfg.framing = SMPP_FRAME_ELEMENT;
			break;
		case 'c':
			if (tool_num("hp-smppdump", opt, optarg, 0, 255, &v) < 0)
				return 2;
			cfg.corr_len = (uint16_t)v;
			break;
		case 'm': {
			size_t l = strlen(optarg);
			if (l == 0 || l % 2 || l / 2 > SMPP_MARKER_MAX) {
				fprintf(stderr, "hp-smppdump: -m: expected 1..%d octets in hex\n",
					SMPP_MARKER_MAX);
				return 2;
			}
			for (size_t i = 0; i < l / 2; i++) {
				int hi = tool_hexval(optarg[2 * i]), lo = tool_hexval(optarg[2 * i + 1]);
				if (hi < 0 || lo < 0) {
					fprintf(stderr, "hp-smppdump: -m: expected 1..%d octets in hex\n",
						SMPP_MARKER_MAX);
					return 2;
				}
				cfg.marker[i] = (uint8_t)(hi << 4 | lo);
			}
			cfg.marker_len = (uint8_t)(l / 2);
			break;
		}
		case 't':
			if (tool_num("hp-smppdump", opt, optarg, 1, 256, &v) < 0)
				return 2;
			cfg.threads = (unsigned)v;
			break;
		case 'M': {
			unsigned i;
			for (i = 0; i < 4 && strcmp(optarg, modes[i]) != 0; i++)
				;
			if (i == 4) {
				fprintf(stderr, "hp-smppdump: -M: expected cpu, auto, gpu or gpu-fused\n");
				return 2;
			}
			mode = (enum smpp_mode)i;
			break;
		}
		case 's':
			cfg.flags |= SMPP_F_STRICT;
			break;
		case 'L':
			if (tool_num("hp-smppdump", opt, optarg, SMPP_HEADER_LEN, UINT32_MAX, &v) < 0)
				return 2;
			cfg.max_pdu_len = (uint32_t)v;
			break;
		case 'p': {
			char *e;

			port = strtol(optarg, &e, 10);
			if (*e != '\0' || port < 1 || port > 65535) {
				fprintf(stderr, "hp-smppdump: -p: expected a port 1..65535\n");
				return 2;
			}
			break;
		}
		case 'h':
			usage(stdout);
			return 0;
		default:
			return tool_bad_flag("hp-smppdump", opt, optopt);
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "hp-smppdump: %s (-h: usage)\n",
			optind == argc ? "no input FILE or -" : "one input FILE only");
		return 2;
	}
	in = read_all(argv[optind], &len);
	if (in == NULL) {
		fprintf(stderr, "hp-smppdump: %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	if (smppdump_is_pcap(in, len)) {
		struct smppdump_pcap_opts po = {
			.port = (uint16_t)port,
			.max_pdu = cfg.max_pdu_len < SMPP_HEADER_LEN ? SMPP_HEADER_LEN
								     : cfg.max_pdu_len,
			.flags = cfg.flags,
		};

		if (cfg.framing == SMPP_FRAME_ELEMENT || mode != SMPP_MODE_CPU) {
			fprintf(stderr, "hp-smppdump: -e, -c, -m and -M apply to batch files, "
				"not to pcap input\n");
			rc = 2;
			goto out;
		}
		rc = smppdump_pcap(argv[optind], in, len, &po, stdout) < 0 ? 1 : 0;
		goto out;
	}
	if (port != 0) {
		fprintf(stderr, "hp-smppdump: -p applies to pcap input only\n");
		rc = 2;
		goto out;
	}
	if ((rc = smpp_ctx_create(&cfg, &ctx)) < 0) {
		fprintf(stderr, "hp-smppdump: bad configuration: %s\n", strerror(-rc));
		rc = 2;
		goto out;
	}
#ifdef HP_SMPP_GPU
	if (mode != SMPP_MODE_CPU) {
		/* the GPU modes exist once GPU 0 (or, with HP_SMPP_GPU_EMUL=1,
		 * the host emulation of its kernels) is open; auto without one
		 * stays on the CPU */
		char msg[320];

		if (smpp_gpu_init(0, msg, sizeof(msg)) < 0) {
			if (mode != SMPP_MODE_AUTO) {
				fprintf(stderr, "hp-smppdump: mode %s: %s\n", modes[mode], msg);
				rc = 1;
				goto out;
			}
			fprintf(stderr, "hp-smppdump: mode auto stays on the CPU: %s\n", msg);
		} else {
			fprintf(stderr, "hp-smppdump: %s\n", msg);
		}
	}
#endif
	rc = smpp_decode_batch(ctx, in, len, mode, &b);
	if (rc < 0) {
		fprintf(stderr, "hp-smppdump: decode (mode %s): %s\n", modes[mode],
			rc == -ENOTSUP ? "mode not available in this build "
			"(built without nvcc: no GPU backend)" : strerror(-rc));
#ifdef HP_SMPP_GPU
		if (rc != -ENOTSUP && mode != SMPP_MODE_CPU && smpp_gpu_last_error()[0])
			fprintf(stderr, "hp-smppdump: GPU: %s\n", smpp_gpu_last_error());
#endif
		rc = 1;
		goto out;
	}
	for (size_t i = 0; i < b.n; i++)
		smpp_pdu_print_json(stdout, &b.pdus[i], in);
	fprintf(stderr, "hp-smppdump: %zu PDUs, %zu with errors\n", b.n, b.nerr);
	rc = 0;
out:
#ifdef HP_SMPP_GPU
	smpp_gpu_fini();
#endif
	smpp_batch_free(&b);
	smpp_ctx_free(ctx);
	free(in);
	return rc;
}
