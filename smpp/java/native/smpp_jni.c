/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * JNI binding of the SMPP batch decoder for org.heteroplane.smpp.Native.
 *
 * One call per batch crosses the boundary (Weerasinghe 2017, 5.2 future
 * work 1): Java hands a direct ByteBuffer over, the C batch decoder fills
 * its array of 64-octet compact records (struct smpp_rec), and Java reads
 * that array in place through a direct ByteBuffer view of it (field offsets
 * come from layout()).  No Java object is created per PDU or per field on
 * the native side, and nothing is copied: decoded fields stay (offset,
 * length) views into the input buffer.
 */
#include <errno.h>
#include <jni.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "smpp.h"

/* One decoder handle per Java SmppDecoder; used by one thread at a time
 * (SmppDecoder.decode is synchronized), as struct smpp_ctx requires. */
struct jdec {
	struct smpp_ctx *ctx;
	struct smpp_rbatch b;
	const void *view_base;    /* b.recs when the Java view was made */
	size_t view_cap;
};

/* Indexes of layout(); Native.java reads them by the same order. */
enum {
	L_SIZE, L_PDU_OFF, L_LEN, L_CMD_ID, L_CMD_STATUS, L_SEQ, L_ERROR_OFF,
	L_ERROR, L_CORR_LEN, L_ELEM_BACK, L_NTLV, L_TLV_AREA_OFF, L_LIST_LEN,
	L_NUL_MASK, L_FLEN, L_NFIELDS, L_LIST_IDX, L_MAX_FIELDS, L_COUNT
};

static void
throw_errno(JNIEnv *env, int err, const char *what)
{
	const char *cls = "java/lang/IllegalStateException";
	jclass c;

	if (err == EINVAL)
		cls = "java/lang/IllegalArgumentException";
	else if (err == ENOMEM)
		cls = "java/lang/OutOfMemoryError";
	else if (err == ENOTSUP)
		cls = "java/lang/UnsupportedOperationException";
	c = (*env)->FindClass(env, cls);
	if (c != NULL)
		(*env)->ThrowNew(env, c, what);
}

static jintArray
int_array(JNIEnv *env, const jint *v, jsize n)
{
	jintArray a = (*env)->NewIntArray(env, n);

	if (a != NULL)
		(*env)->SetIntArrayRegion(env, a, 0, n, v);
	return a;
}

JNIEXPORT jintArray JNICALL
Java_org_heteroplane_smpp_Native_layout(JNIEnv *env, jclass cls)
{
	jint v[L_COUNT] = {
		[L_SIZE] = sizeof(struct smpp_rec),
		[L_PDU_OFF] = offsetof(struct smpp_rec, pdu_off),
		[L_LEN] = offsetof(struct smpp_rec, len),
		[L_CMD_ID] = offsetof(struct smpp_rec, command_id),
		[L_CMD_STATUS] = offsetof(struct smpp_rec, command_status),
		[L_SEQ] = offsetof(struct smpp_rec, sequence_number),
		[L_ERROR_OFF] = offsetof(struct smpp_rec, error_off),
		[L_ERROR] = offsetof(struct smpp_rec, error),
		[L_CORR_LEN] = offsetof(struct smpp_rec, corr_len),
		[L_ELEM_BACK] = offsetof(struct smpp_rec, elem_back),
		[L_NTLV] = offsetof(struct smpp_rec, ntlv),
		[L_TLV_AREA_OFF] = offsetof(struct smpp_rec, tlv_area_off),
		[L_LIST_LEN] = offsetof(struct smpp_rec, list_len),
		[L_NUL_MASK] = offsetof(struct smpp_rec, nul_mask),
		[L_FLEN] = offsetof(struct smpp_rec, flen),
		[L_NFIELDS] = offsetof(struct smpp_rec, nfields),
		[L_LIST_IDX] = offsetof(struct smpp_rec, list_idx),
		[L_MAX_FIELDS] = SMPP_MAX_FIELDS,
	};
	return int_array(env, v, L_COUNT);
}

/* Every command id of the table, probed over the v3.4 id space (the table
 * has no iterator, and the ids are sparse but small). */
JNIEXPORT jintArray JNICALL
Java_org_heteroplane_smpp_Native_commandIds(JNIEnv *env, jclass cls)
{
	jint ids[64];
	jsize n = 0;

	for (uint32_t lo = 0; lo < 0x200 && n < 64; lo++) {
		if (smpp_pdu_desc_find(lo) != NULL)
			ids[n++] = (jint)lo;
		if (smpp_pdu_desc_find(lo | SMPP_RESP_BIT) != NULL && n < 64)
			ids[n++] = (jint)(lo | SMPP_RESP_BIT);
	}
	return int_array(env, ids, n);
}

JNIEXPORT jstring JNICALL
Java_org_heteroplane_smpp_Native_pduName(JNIEnv *env, jclass cls, jint id)
{
	const struct smpp_pdu_desc *d = smpp_pdu_desc_find((uint32_t)id);

	return d == NULL ? NULL : (*env)->NewStringUTF(env, d->name);
}

JNIEXPORT jobjectArray JNICALL
Java_org_heteroplane_smpp_Native_fieldNames(JNIEnv *env, jclass cls, jint id)
{
	const struct smpp_pdu_desc *d = smpp_pdu_desc_find((uint32_t)id);
	jclass sc = (*env)->FindClass(env, "java/lang/String");
	jobjectArray a;

	if (d == NULL || sc == NULL)
		return NULL;
	a = (*env)->NewObjectArray(env, d->nfields, sc, NULL);
	for (unsigned i = 0; a != NULL && i < d->nfields; i++) {
		jstring s = (*env)->NewStringUTF(env, d->fields[i].name);

		if (s == NULL)
			return NULL;
		(*env)->SetObjectArrayElement(env, a, (jsize)i, s);
		(*env)->DeleteLocalRef(env, s);
	}
	return a;
}

JNIEXPORT jbyteArray JNICALL
Java_org_heteroplane_smpp_Native_fieldTypes(JNIEnv *env, jclass cls, jint id)
{
	const struct smpp_pdu_desc *d = smpp_pdu_desc_find((uint32_t)id);
	jbyte t[SMPP_MAX_FIELDS];
	jbyteArray a;

	if (d == NULL)
		return NULL;
	for (unsigned i = 0; i < d->nfields; i++)
		t[i] = (jbyte)d->fields[i].type;
	a = (*env)->NewByteArray(env, d->nfields);
	if (a != NULL)
		(*env)->SetByteArrayRegion(env, a, 0, d->nfields, t);
	return a;
}

JNIEXPORT jintArray JNICALL
Java_org_heteroplane_smpp_Native_tlvTags(JNIEnv *env, jclass cls)
{
	jint tags[64];
	unsigned n = smpp_tlv_desc_count();

	for (unsigned i = 0; i < n && i < 64; i++)
		tags[i] = smpp_tlv_desc_at(i)->tag;
	return int_array(env, tags, (jsize)(n < 64 ? n : 64));
}

JNIEXPORT jstring JNICALL
Java_org_heteroplane_smpp_Native_tlvName(JNIEnv *env, jclass cls, jint tag)
{
	const struct smpp_tlv_desc *d = smpp_tlv_desc_find((uint16_t)tag);

	return d == NULL ? NULL : (*env)->NewStringUTF(env, d->name);
}

JNIEXPORT jstring JNICALL
Java_org_heteroplane_smpp_Native_statusName(JNIEnv *env, jclass cls, jint st)
{
	return (*env)->NewStringUTF(env, smpp_status_name((uint32_t)st));
}

JNIEXPORT jlong JNICALL
Java_org_heteroplane_smpp_Native_create(JNIEnv *env, jclass cls, jint threads,
					jint max_pdu, jint framing, jint corr_len,
					jbyteArray marker, jint flags,
					jint min_parallel, jint gpu_threshold)
{
	struct smpp_config cfg;
	struct jdec *d;
	jsize ml = marker == NULL ? 0 : (*env)->GetArrayLength(env, marker);
	int rc;

	smpp_config_default(&cfg);
	if (threads < 1 || max_pdu < (jint)SMPP_HEADER_LEN || corr_len < 0 ||
	    corr_len > UINT16_MAX || (framing != SMPP_FRAME_PLAIN &&
	    framing != SMPP_FRAME_ELEMENT) || ml > SMPP_MARKER_MAX ||
	    min_parallel < 0 || gpu_threshold < 0) {
		throw_errno(env, EINVAL, "bad SmppConfig value");
		return 0;
	}
	cfg.threads = (unsigned)threads;
	cfg.max_pdu_len = (uint32_t)max_pdu;
	cfg.framing = (enum smpp_framing)framing;
	cfg.corr_len = (uint16_t)corr_len;
	if (marker != NULL) {
		/* an empty marker is refused for element framing by
		 * smpp_ctx_create */
		(*env)->GetByteArrayRegion(env, marker, 0, ml, (jbyte *)cfg.marker);
		cfg.marker_len = (uint8_t)ml;
	}
	cfg.flags = (unsigned)flags;
	cfg.min_parallel = (uint32_t)min_parallel;
	cfg.gpu_threshold = (uint32_t)gpu_threshold;
	d = calloc(1, sizeof(*d));
	if (d == NULL) {
		throw_errno(env, ENOMEM, "smpp decoder handle");
		return 0;
	}
	rc = smpp_ctx_create(&cfg, &d->ctx);
	if (rc < 0) {
		free(d);
		throw_errno(env, -rc, rc == -EINVAL ? "SmppConfig refused by "
			    "smpp_ctx_create" : "smpp_ctx_create");
		return 0;
	}
	smpp_rbatch_init(&d->b);
	return (jlong)(uintptr_t)d;
}

JNIEXPORT void JNICALL
Java_org_heteroplane_smpp_Native_free(JNIEnv *env, jclass cls, jlong h)
{
	struct jdec *d = (struct jdec *)(uintptr_t)h;

	if (d == NULL)
		return;
	smpp_rbatch_free(&d->b);
	smpp_ctx_free(d->ctx);
	free(d);
}

/* [off, off + len) of a direct buffer, or NULL with an exception pending. */
static uint8_t *
direct_range(JNIEnv *env, jobject buf, jint off, jint len)
{
	uint8_t *p;
	jlong cap;

	if (buf == NULL) {
		throw_errno(env, EINVAL, "null buffer");
		return NULL;
	}
	p = (*env)->GetDirectBufferAddress(env, buf);
	cap = (*env)->GetDirectBufferCapacity(env, buf);
	if (p == NULL || cap < 0) {
		throw_errno(env, EINVAL, "not a direct ByteBuffer");
		return NULL;
	}
	if (off < 0 || len < 0 || (jlong)off + len > cap) {
		throw_errno(env, EINVAL, "range outside the buffer");
		return NULL;
	}
	return p + off;
}

/*
 * After smpp_decode_batch_rec: stats gets { n, nerr, mode_used } (record
 * offsets are relative to the decoded range's start); returns a direct
 * ByteBuffer over the record array when the array moved or grew since the
 * last call, else NULL (Java keeps its view): one JNI call and at most one
 * Java object per batch.
 */
static jobject
decoded(JNIEnv *env, struct jdec *d, int rc, jlongArray stats)
{
	jlong st[3];

	if (rc < 0) {
		throw_errno(env, -rc, rc == -ENOTSUP ? "decode mode not available "
			    "in this build (no GPU backend registered)" :
			    "smpp_decode_batch_rec");
		return NULL;
	}
	st[0] = (jlong)d->b.n;
	st[1] = (jlong)d->b.nerr;
	st[2] = (jlong)d->b.mode_used;
	(*env)->SetLongArrayRegion(env, stats, 0, 3, st);
	if (d->b.recs == d->view_base && d->b.cap == d->view_cap)
		return NULL;
	d->view_base = d->b.recs;
	d->view_cap = d->b.cap;
	return (*env)->NewDirectByteBuffer(env, d->b.recs,
					   (jlong)(d->b.cap * sizeof(struct smpp_rec)));
}

static int
args_ok(JNIEnv *env, struct jdec *d, jint mode, jlongArray stats)
{
	if (d == NULL || stats == NULL || (*env)->GetArrayLength(env, stats) < 3 ||
	    mode < 0 || mode >= SMPP_MODE_COUNT) {
		throw_errno(env, EINVAL, "bad decode arguments");
		return 0;
	}
	return 1;
}

/* Decode the direct buffer's [off, off + len). */
JNIEXPORT jobject JNICALL
Java_org_heteroplane_smpp_Native_decode(JNIEnv *env, jclass cls, jlong h,
					jobject buf, jint off, jint len,
					jint mode, jlongArray stats)
{
	struct jdec *d = (struct jdec *)(uintptr_t)h;
	const uint8_t *in;

	if (!args_ok(env, d, mode, stats))
		return NULL;
	in = direct_range(env, buf, off, len);
	if (in == NULL)
		return NULL;
	return decoded(env, d, smpp_decode_batch_rec(d->ctx, in, (size_t)len,
						     (enum smpp_mode)mode, &d->b), stats);
}

/*
 * Decode a byte[]'s [off, off + len) in place: the array is pinned for the
 * call (GetPrimitiveArrayCritical: no copy on HotSpot; the GC waits for the
 * decode, a few ms per 100k PDUs) and released without copy-back.  For
 * bytes that arrive in a heap array, this saves copying them into a direct
 * buffer first.  No JNI call is made inside the critical region.
 */
JNIEXPORT jobject JNICALL
Java_org_heteroplane_smpp_Native_decodeArray(JNIEnv *env, jclass cls, jlong h,
					     jbyteArray a, jint off, jint len,
					     jint mode, jlongArray stats)
{
	struct jdec *d = (struct jdec *)(uintptr_t)h;
	uint8_t *p;
	int rc;

	if (!args_ok(env, d, mode, stats))
		return NULL;
	if (a == NULL || off < 0 || len < 0 ||
	    (jlong)off + len > (*env)->GetArrayLength(env, a)) {
		throw_errno(env, EINVAL, a == NULL ? "null array" : "range outside the array");
		return NULL;
	}
	p = (*env)->GetPrimitiveArrayCritical(env, a, NULL);
	if (p == NULL)
		return NULL;   /* OutOfMemoryError pending */
	rc = smpp_decode_batch_rec(d->ctx, p + off, (size_t)len, (enum smpp_mode)mode, &d->b);
	(*env)->ReleasePrimitiveArrayCritical(env, a, p, JNI_ABORT);
	return decoded(env, d, rc, stats);
}

/* The workload generator (thesis 4.1 mix) into out[off...]: returns the
 * stream length.  Lets Java benches and tests use the very PDUs the C
 * bench decodes. */
JNIEXPORT jint JNICALL
Java_org_heteroplane_smpp_Native_simStream(JNIEnv *env, jclass cls, jobject buf,
					   jint off, jint cap, jint first, jint n,
					   jint msg_len, jint ntlv, jint cmd,
					   jint framing, jint corr_len,
					   jbyteArray marker)
{
	struct smpp_sim_config sc;
	struct smpp_config fr;
	jsize ml = marker == NULL ? 0 : (*env)->GetArrayLength(env, marker);
	uint8_t *out = direct_range(env, buf, off, cap);
	int rc;

	if (out == NULL)
		return -1;
	if (first < 0 || n < 0 || msg_len < 0 || ntlv < 0 || corr_len < 0 ||
	    corr_len > UINT16_MAX || ml > SMPP_MARKER_MAX ||
	    (framing != SMPP_FRAME_PLAIN && framing != SMPP_FRAME_ELEMENT)) {
		throw_errno(env, EINVAL, "bad simulator arguments");
		return -1;
	}
	smpp_sim_config_default(&sc);
	sc.msg_len = (unsigned)msg_len;
	sc.ntlv = (unsigned)ntlv;
	sc.command_id = (uint32_t)cmd;
	smpp_config_default(&fr);
	fr.framing = (enum smpp_framing)framing;
	fr.corr_len = (uint16_t)corr_len;
	if (ml > 0) {
		(*env)->GetByteArrayRegion(env, marker, 0, ml, (jbyte *)fr.marker);
		fr.marker_len = (uint8_t)ml;
	}
	rc = smpp_sim_stream(&sc, &fr, (uint32_t)first, (uint32_t)n, out, (size_t)cap);
	if (rc < 0) {
		throw_errno(env, rc == -ENOSPC ? EINVAL : -rc, rc == -ENOSPC ?
			    "simulator output does not fit the buffer" :
			    "smpp_sim_stream");
		return -1;
	}
	return rc;
}

/*
 * Slab form for objects that outlive the call (the lazy Cloudhopper PDUs of
 * org.heteroplane.smpp.cloudhopper.LazyPduDecoder): decode a[off, off +
 * len) and write each record as SLAB_STRIDE ints into the caller's int[],
 * with offsets made absolute indexes into a.  Both arrays are pinned for
 * the call and nothing else crosses: one JNI call per batch, and the Java
 * objects read their fields from the slab and a, never through JNI.
 * Returns the PDUs written, or -1 with an exception pending (slab too
 * small included: the caller frames the batch and knows its count).
 * Cost, measured: 29-33 ns a thesis-mix PDU for the whole call, decode
 * included (ObjectsBench's "slab" path, 1k-64k PDUs, loaded 2-vCPU EPYC
 * VM); the loop below adds 16 stores a PDU over a record still in cache.
 */
enum {
	S_OFF, S_LEN, S_ID, S_STATUS, S_SEQ, S_ERR_NTLV, S_TLV, S_NFIELDS,
	S_FLEN, S_STRIDE = 16
};
_Static_assert(S_FLEN + (SMPP_MAX_FIELDS + 3) / 4 <= S_STRIDE, "slab stride");

JNIEXPORT jint JNICALL
Java_org_heteroplane_smpp_Native_decodeSlab(JNIEnv *env, jclass cls, jlong h,
					    jbyteArray a, jint off, jint len,
					    jintArray slab)
{
	struct jdec *d = (struct jdec *)(uintptr_t)h;
	jsize cap;
	uint8_t *p;
	jint *s;
	int rc;

	if (d == NULL || a == NULL || slab == NULL || off < 0 || len < 0 ||
	    (jlong)off + len > (*env)->GetArrayLength(env, a)) {
		throw_errno(env, EINVAL, "bad decodeSlab arguments");
		return -1;
	}
	cap = (*env)->GetArrayLength(env, slab) / S_STRIDE;
	p = (*env)->GetPrimitiveArrayCritical(env, a, NULL);
	if (p == NULL)
		return -1;
	rc = smpp_decode_batch_rec(d->ctx, p + off, (size_t)len, SMPP_MODE_CPU, &d->b);
	if (rc < 0 || d->b.n > (size_t)cap) {
		(*env)->ReleasePrimitiveArrayCritical(env, a, p, JNI_ABORT);
		throw_errno(env, rc < 0 ? -rc : EINVAL, rc < 0 ? "smpp_decode_batch_rec" :
			    "decodeSlab: slab too small for the batch");
		return -1;
	}
	s = (*env)->GetPrimitiveArrayCritical(env, slab, NULL);
	if (s == NULL) {
		(*env)->ReleasePrimitiveArrayCritical(env, a, p, JNI_ABORT);
		return -1;
	}
	for (size_t i = 0; i < d->b.n; i++) {
		const struct smpp_rec *r = &d->b.recs[i];
		jint *o = s + i * S_STRIDE;
		uint32_t fl[(SMPP_MAX_FIELDS + 3) / 4] = { 0 };

		o[S_OFF] = (jint)(r->pdu_off + (uint32_t)off);
		o[S_LEN] = (jint)r->len;
		o[S_ID] = (jint)r->command_id;
		o[S_STATUS] = (jint)r->command_status;
		o[S_SEQ] = (jint)r->sequence_number;
		o[S_ERR_NTLV] = (jint)(r->error | (uint32_t)r->ntlv << 16);
		o[S_TLV] = r->tlv_area_off == 0 ? 0 :
			(jint)(r->pdu_off + (uint32_t)off + r->tlv_area_off);
		o[S_NFIELDS] = r->nfields;
		/* four lengths an int, field k in bits 8 * (k % 4) */
		for (unsigned k = 0; k < r->nfields && k < SMPP_MAX_FIELDS; k++)
			fl[k / 4] |= (uint32_t)r->flen[k] << (8 * (k % 4));
		memcpy(&o[S_FLEN], fl, sizeof(fl));
	}
	(*env)->ReleasePrimitiveArrayCritical(env, slab, s, 0);
	(*env)->ReleasePrimitiveArrayCritical(env, a, p, JNI_ABORT);
	return (jint)d->b.n;
}
