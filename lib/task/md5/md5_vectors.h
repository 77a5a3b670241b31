/* SPDX-License-Identifier: BSD-3-Clause
 * Known answers for the md5 task's transform, for its tests: the seven
 * messages of RFC 1321 Appendix A.5 and their digests (hex).
 */
#ifndef MD5_VECTORS_H
#define MD5_VECTORS_H

#define RFC1321_N 7

static const char *const rfc1321_msg[RFC1321_N] = {
	"", "a", "abc", "message digest", "abcdefghijklmnopqrstuvwxyz",
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
	"12345678901234567890123456789012345678901234567890123456789012345678901234567890",
};

static const char *const rfc1321_md5[RFC1321_N] = {
	"d41d8cd98f00b204e9800998ecf8427e", "0cc175b9c0f1b6a831c399e269772661",
	"900150983cd24fb0d6963f7d28e17f72", "f96b697d7cb7938d525a2f31aaf161d0",
	"c3fcd3d76192e4007dfb496cca67e13b", "d174ab98d277d9f5a5611c2c9f419d9f",
	"57edf4a22be3c955ac49da2e2107b67a",
};

#endif /* MD5_VECTORS_H */
