/* SPDX-License-Identifier: BSD-3-Clause
 * Traffic generator: real Ethernet/IPv4/UDP|TCP frames, with valid IPv4,
 * UDP and TCP checksums, of an IMIX
 * (Johansson & Pap §4.11: 243/486/1458 B, shares 2:1:2), the five packet
 * types expressed in headers (TCP = needs order, DSCP EF = latency
 * sensitive), a per-flow sequence and an integrity tag in the hp header,
 * following a rate profile defined as fractions of a measured capacity.
 */
#ifndef HP_GEN_H
#define HP_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "hp_pkt.h"

#define HP_IMIX_MAX 8
/* Frame sizes are without the FCS (as DPDK and pcap count them): 60 is
 * Ethernet's minimum, the wire's 64-byte frame. A TCP frame below 70 bytes
 * (Eth + IPv4 + TCP + hp header) carries no hp header. */
#define HP_GEN_MIN_FRAME 60
#define HP_GEN_MAX_FRAME 2000
#define HP_DSCP_EF 46

struct hp_imix {
	unsigned int n;
	uint32_t size[HP_IMIX_MAX];
	double share[HP_IMIX_MAX]; /* normalised to sum 1 */
};

/* "243,486,1458" and "2,1,2" -> imix; 0 or -EINVAL with a reason. */
int hp_imix_parse(struct hp_imix *mx, const char *sizes, const char *shares,
		  char *err, size_t errlen);

struct hp_gen_flow {
	uint32_t seq;
	uint8_t type; /* 1-based */
	struct hp_flow_key key;
};

/* Optional body hook (hp_gen_set_body): writes the body (the bytes after
 * the hp header) of a generated frame instead of the random bytes the
 * generator uses by default. gen_id: the packet index (its low 32 bits go
 * into hp_app_hdr.gen_id); size: the frame size drawn from the IMIX;
 * hdr_len: header bytes in front of the body; room: bytes available for
 * the body. Returns the body length written (0..room): the frame is
 * hdr_len + that long, so a hook may make frames longer or shorter than
 * size. The generator computes the CRC32C tag over what it wrote. A frame
 * too short for the hp header (TCP below 70 bytes) is not given to it. */
typedef uint32_t (*hp_gen_body_fn)(void *arg, uint64_t gen_id, uint32_t size,
				   uint32_t hdr_len, uint8_t *body,
				   uint32_t room);

struct hp_gen {
	struct hp_imix imix;
	const struct hp_type_table *types;
	uint64_t rng;
	uint64_t gen_id;
	unsigned int flows_per_type;
	unsigned int n_flows;
	struct hp_gen_flow *flows;
	/* per IMIX size: the types whose size range holds it */
	uint8_t size_types[HP_IMIX_MAX][HP_MAX_TYPES];
	uint8_t size_ntypes[HP_IMIX_MAX];
	uint8_t *pool; /* random bytes the bodies are cut from */
	size_t pool_len;
	hp_gen_body_fn body_fn; /* NULL: bodies from the pool */
	void *body_arg;
	unsigned int body_flow; /* the flow of the frame the hook writes */
	bool no_tag; /* leave hp_app_hdr.tag 0 (hp_gen_set_tag) */
};

int hp_gen_init(struct hp_gen *g, const struct hp_imix *mx,
		const struct hp_type_table *types, unsigned int flows_per_type,
		uint64_t seed, char *err, size_t errlen);
void hp_gen_free(struct hp_gen *g);

/* Sets (fn != NULL) or clears the body hook; call after hp_gen_init. */
void hp_gen_set_body(struct hp_gen *g, hp_gen_body_fn fn, void *arg);

/* With on == false the body's CRC32C tag is not computed (the tag is 0):
 * for runs whose sink verifies nothing. CRC32C is the generator's largest
 * cost (~0.4 cycles/byte, ~300 cycles per IMIX frame), which on a small
 * machine the scheduler sharing the generator's CPU pays. */
void hp_gen_set_tag(struct hp_gen *g, bool on);

/* Picks size, type and flow for the next packet (exposed for tests). */
void hp_gen_pick(struct hp_gen *g, uint32_t *size, unsigned int *flow);

/* Builds the next packet into m (single segment). 0 or -errno. */
int hp_gen_build(struct hp_gen *g, struct rte_mbuf *m);

/* Writes one frame for flow/size into buf (at least HP_GEN_MAX_FRAME
 * bytes when a body hook is set, else at least size); used by
 * hp_gen_build and by `hplane gen` to write pcap files. Returns the frame
 * length: size, or what the body hook made of it. */
uint32_t hp_gen_frame(struct hp_gen *g, unsigned int flow, uint32_t size,
		      uint8_t *buf);

/* CRC32C as in RFC 3720 (init ~0, final xor ~0). */
uint32_t hp_crc32c(const void *data, uint32_t len);

/* ---- rate profiles ---- */
#define HP_PROFILE_MAX 4096
/* Bounds of a rate profile's numbers: seconds up to an hour (the longest
 * run), rates up to 1 Gpps (above 400 GbE's line rate of 64 B frames,
 * 595 Mpps), fractions of capacity up to 1000x. */
#define HP_PROFILE_T_MAX 3600.0
#define HP_RATE_MAX 1e9
#define HP_RATE_X_MAX 1000.0

struct hp_rate_step {
	double t;    /* seconds from start */
	double rate; /* packets per second (absolute) */
};

struct hp_profile {
	char name[32];
	unsigned int n;
	struct hp_rate_step s[HP_PROFILE_MAX];
};

/* Builds the named scenario (low, medium, stress, standard, random) for a
 * capacity in pps and a duration. -EINVAL for an unknown name. */
int hp_profile_scenario(struct hp_profile *p, const char *name,
			double capacity_pps, double duration_s, uint64_t seed);
/* Loads "time_s rate" lines; rate is pps (suffix k/M allowed) or a fraction
 * of capacity with suffix x ("0.5x"). */
int hp_profile_load(struct hp_profile *p, const char *path,
		    double capacity_pps, char *err, size_t errlen);
double hp_profile_rate(const struct hp_profile *p, double t);

#endif /* HP_GEN_H */
