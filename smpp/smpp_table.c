/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SMPP v3.4 tables: every PDU's mandatory parameters, the optional parameter
 * (TLV) definitions and which TLVs each PDU allows, and the command_status
 * names.  These tables are the single description the decoder, encoder and
 * printer all walk.
 *
 * Source: "Short Message Peer to Peer Protocol Specification v3.4",
 * SMPP Developers Forum, 12 Oct 1999, issue 1.2: chapter 4 (PDU definitions,
 * field sizes incl. the NUL of C-Octet Strings), section 5.1.3 (status codes)
 * and section 5.3.2 (TLV tags, lengths and types).
 */
#include <errno.h>
#include <string.h>

#include "smpp.h"
#include "smpp_priv.h"

/* ---- TLVs: v3.4 table 5-10 / 5.3.2.x; index order defines mask bits ---- */

enum tlv_idx {
	T_DEST_ADDR_SUBUNIT, T_DEST_NETWORK_TYPE, T_DEST_BEARER_TYPE,
	T_DEST_TELEMATICS_ID, T_SOURCE_ADDR_SUBUNIT, T_SOURCE_NETWORK_TYPE,
	T_SOURCE_BEARER_TYPE, T_SOURCE_TELEMATICS_ID, T_QOS_TIME_TO_LIVE,
	T_PAYLOAD_TYPE, T_ADDITIONAL_STATUS_INFO_TEXT, T_RECEIPTED_MESSAGE_ID,
	T_MS_MSG_WAIT_FACILITIES, T_PRIVACY_INDICATOR, T_SOURCE_SUBADDRESS,
	T_DEST_SUBADDRESS, T_USER_MESSAGE_REFERENCE, T_USER_RESPONSE_CODE,
	T_SOURCE_PORT, T_DESTINATION_PORT, T_SAR_MSG_REF_NUM,
	T_LANGUAGE_INDICATOR, T_SAR_TOTAL_SEGMENTS, T_SAR_SEGMENT_SEQNUM,
	T_SC_INTERFACE_VERSION, T_CALLBACK_NUM_PRES_IND, T_CALLBACK_NUM_ATAG,
	T_NUMBER_OF_MESSAGES, T_CALLBACK_NUM, T_DPF_RESULT, T_SET_DPF,
	T_MS_AVAILABILITY_STATUS, T_NETWORK_ERROR_CODE, T_MESSAGE_PAYLOAD,
	T_DELIVERY_FAILURE_REASON, T_MORE_MESSAGES_TO_SEND, T_MESSAGE_STATE,
	T_USSD_SERVICE_OP, T_DISPLAY_TIME, T_SMS_SIGNAL, T_MS_VALIDITY,
	T_ALERT_ON_MESSAGE_DELIVERY, T_ITS_REPLY_TYPE, T_ITS_SESSION_INFO,
	T_COUNT
};

#define TI(tag, type, mn, mx, nm) { tag, SMPP_TT_##type, mn, mx, nm }
const struct smpp_tlv_desc smpp_tlv_tab[T_COUNT] = {
	[T_DEST_ADDR_SUBUNIT] = TI(0x0005, INT, 1, 1, "dest_addr_subunit"),
	[T_DEST_NETWORK_TYPE] = TI(0x0006, INT, 1, 1, "dest_network_type"),
	[T_DEST_BEARER_TYPE] = TI(0x0007, INT, 1, 1, "dest_bearer_type"),
	[T_DEST_TELEMATICS_ID] = TI(0x0008, INT, 2, 2, "dest_telematics_id"),
	[T_SOURCE_ADDR_SUBUNIT] = TI(0x000D, INT, 1, 1, "source_addr_subunit"),
	[T_SOURCE_NETWORK_TYPE] = TI(0x000E, INT, 1, 1, "source_network_type"),
	[T_SOURCE_BEARER_TYPE] = TI(0x000F, INT, 1, 1, "source_bearer_type"),
	[T_SOURCE_TELEMATICS_ID] = TI(0x0010, INT, 1, 1, "source_telematics_id"),
	[T_QOS_TIME_TO_LIVE] = TI(0x0017, INT, 4, 4, "qos_time_to_live"),
	[T_PAYLOAD_TYPE] = TI(0x0019, INT, 1, 1, "payload_type"),
	[T_ADDITIONAL_STATUS_INFO_TEXT] = TI(0x001D, CSTR, 1, 256, "additional_status_info_text"),
	[T_RECEIPTED_MESSAGE_ID] = TI(0x001E, CSTR, 1, 65, "receipted_message_id"),
	[T_MS_MSG_WAIT_FACILITIES] = TI(0x0030, INT, 1, 1, "ms_msg_wait_facilities"),
	[T_PRIVACY_INDICATOR] = TI(0x0201, INT, 1, 1, "privacy_indicator"),
	[T_SOURCE_SUBADDRESS] = TI(0x0202, OSTR, 2, 23, "source_subaddress"),
	[T_DEST_SUBADDRESS] = TI(0x0203, OSTR, 2, 23, "dest_subaddress"),
	[T_USER_MESSAGE_REFERENCE] = TI(0x0204, INT, 2, 2, "user_message_reference"),
	[T_USER_RESPONSE_CODE] = TI(0x0205, INT, 1, 1, "user_response_code"),
	[T_SOURCE_PORT] = TI(0x020A, INT, 2, 2, "source_port"),
	[T_DESTINATION_PORT] = TI(0x020B, INT, 2, 2, "destination_port"),
	[T_SAR_MSG_REF_NUM] = TI(0x020C, INT, 2, 2, "sar_msg_ref_num"),
	[T_LANGUAGE_INDICATOR] = TI(0x020D, INT, 1, 1, "language_indicator"),
	[T_SAR_TOTAL_SEGMENTS] = TI(0x020E, INT, 1, 1, "sar_total_segments"),
	[T_SAR_SEGMENT_SEQNUM] = TI(0x020F, INT, 1, 1, "sar_segment_seqnum"),
	[T_SC_INTERFACE_VERSION] = TI(0x0210, INT, 1, 1, "sc_interface_version"),
	[T_CALLBACK_NUM_PRES_IND] = TI(0x0302, INT, 1, 1, "callback_num_pres_ind"),
	[T_CALLBACK_NUM_ATAG] = TI(0x0303, OSTR, 0, 65, "callback_num_atag"),
	[T_NUMBER_OF_MESSAGES] = TI(0x0304, INT, 1, 1, "number_of_messages"),
	[T_CALLBACK_NUM] = TI(0x0381, OSTR, 4, 19, "callback_num"),
	[T_DPF_RESULT] = TI(0x0420, INT, 1, 1, "dpf_result"),
	[T_SET_DPF] = TI(0x0421, INT, 1, 1, "set_dpf"),
	[T_MS_AVAILABILITY_STATUS] = TI(0x0422, INT, 1, 1, "ms_availability_status"),
	[T_NETWORK_ERROR_CODE] = TI(0x0423, OSTR, 3, 3, "network_error_code"),
	[T_MESSAGE_PAYLOAD] = TI(0x0424, OSTR, 0, 65535, "message_payload"),
	[T_DELIVERY_FAILURE_REASON] = TI(0x0425, INT, 1, 1, "delivery_failure_reason"),
	[T_MORE_MESSAGES_TO_SEND] = TI(0x0426, INT, 1, 1, "more_messages_to_send"),
	[T_MESSAGE_STATE] = TI(0x0427, INT, 1, 1, "message_state"),
	[T_USSD_SERVICE_OP] = TI(0x0501, INT, 1, 1, "ussd_service_op"),
	[T_DISPLAY_TIME] = TI(0x1201, INT, 1, 1, "display_time"),
	[T_SMS_SIGNAL] = TI(0x1203, INT, 2, 2, "sms_signal"),
	[T_MS_VALIDITY] = TI(0x1204, INT, 1, 1, "ms_validity"),
	[T_ALERT_ON_MESSAGE_DELIVERY] = TI(0x130C, EMPTY, 0, 0, "alert_on_message_delivery"),
	[T_ITS_REPLY_TYPE] = TI(0x1380, INT, 1, 1, "its_reply_type"),
	[T_ITS_SESSION_INFO] = TI(0x1383, INT, 2, 2, "its_session_info"),
};

#define B(x) (UINT64_C(1) << T_##x)

/* Allowed TLVs per PDU, v3.4 sections 4.4.1 (submit_sm), 4.5.1
 * (submit_multi), 4.6.1 (deliver_sm), 4.7.1 / 4.7.2 (data_sm / resp),
 * 4.1.2 (bind resp), 4.12.1 (alert_notification). */
static const uint64_t allow_submit_sm =
	B(USER_MESSAGE_REFERENCE) | B(SOURCE_PORT) | B(SOURCE_ADDR_SUBUNIT) |
	B(DESTINATION_PORT) | B(DEST_ADDR_SUBUNIT) | B(SAR_MSG_REF_NUM) |
	B(SAR_TOTAL_SEGMENTS) | B(SAR_SEGMENT_SEQNUM) | B(MORE_MESSAGES_TO_SEND) |
	B(PAYLOAD_TYPE) | B(MESSAGE_PAYLOAD) | B(PRIVACY_INDICATOR) |
	B(CALLBACK_NUM) | B(CALLBACK_NUM_PRES_IND) | B(CALLBACK_NUM_ATAG) |
	B(SOURCE_SUBADDRESS) | B(DEST_SUBADDRESS) | B(USER_RESPONSE_CODE) |
	B(DISPLAY_TIME) | B(SMS_SIGNAL) | B(MS_VALIDITY) |
	B(MS_MSG_WAIT_FACILITIES) | B(NUMBER_OF_MESSAGES) |
	B(ALERT_ON_MESSAGE_DELIVERY) | B(LANGUAGE_INDICATOR) |
	B(ITS_REPLY_TYPE) | B(ITS_SESSION_INFO) | B(USSD_SERVICE_OP);
static const uint64_t allow_submit_multi =
	B(USER_MESSAGE_REFERENCE) | B(SOURCE_PORT) | B(SOURCE_ADDR_SUBUNIT) |
	B(DESTINATION_PORT) | B(DEST_ADDR_SUBUNIT) | B(SAR_MSG_REF_NUM) |
	B(SAR_TOTAL_SEGMENTS) | B(SAR_SEGMENT_SEQNUM) | B(PAYLOAD_TYPE) |
	B(MESSAGE_PAYLOAD) | B(PRIVACY_INDICATOR) | B(CALLBACK_NUM) |
	B(CALLBACK_NUM_PRES_IND) | B(CALLBACK_NUM_ATAG) | B(SOURCE_SUBADDRESS) |
	B(DEST_SUBADDRESS) | B(DISPLAY_TIME) | B(SMS_SIGNAL) | B(MS_VALIDITY) |
	B(MS_MSG_WAIT_FACILITIES) | B(ALERT_ON_MESSAGE_DELIVERY) |
	B(LANGUAGE_INDICATOR);
static const uint64_t allow_deliver_sm =
	B(USER_MESSAGE_REFERENCE) | B(SOURCE_PORT) | B(DESTINATION_PORT) |
	B(SAR_MSG_REF_NUM) | B(SAR_TOTAL_SEGMENTS) | B(SAR_SEGMENT_SEQNUM) |
	B(USER_RESPONSE_CODE) | B(PRIVACY_INDICATOR) | B(PAYLOAD_TYPE) |
	B(MESSAGE_PAYLOAD) | B(CALLBACK_NUM) | B(SOURCE_SUBADDRESS) |
	B(DEST_SUBADDRESS) | B(LANGUAGE_INDICATOR) | B(ITS_SESSION_INFO) |
	B(NETWORK_ERROR_CODE) | B(MESSAGE_STATE) | B(RECEIPTED_MESSAGE_ID);
static const uint64_t allow_data_sm =
	B(SOURCE_PORT) | B(SOURCE_ADDR_SUBUNIT) | B(SOURCE_NETWORK_TYPE) |
	B(SOURCE_BEARER_TYPE) | B(SOURCE_TELEMATICS_ID) | B(DESTINATION_PORT) |
	B(DEST_ADDR_SUBUNIT) | B(DEST_NETWORK_TYPE) | B(DEST_BEARER_TYPE) |
	B(DEST_TELEMATICS_ID) | B(SAR_MSG_REF_NUM) | B(SAR_TOTAL_SEGMENTS) |
	B(SAR_SEGMENT_SEQNUM) | B(MORE_MESSAGES_TO_SEND) | B(QOS_TIME_TO_LIVE) |
	B(PAYLOAD_TYPE) | B(MESSAGE_PAYLOAD) | B(SET_DPF) |
	B(RECEIPTED_MESSAGE_ID) | B(MESSAGE_STATE) | B(NETWORK_ERROR_CODE) |
	B(USER_MESSAGE_REFERENCE) | B(PRIVACY_INDICATOR) | B(CALLBACK_NUM) |
	B(CALLBACK_NUM_PRES_IND) | B(CALLBACK_NUM_ATAG) | B(SOURCE_SUBADDRESS) |
	B(DEST_SUBADDRESS) | B(USER_RESPONSE_CODE) | B(DISPLAY_TIME) |
	B(SMS_SIGNAL) | B(MS_VALIDITY) | B(MS_MSG_WAIT_FACILITIES) |
	B(NUMBER_OF_MESSAGES) | B(ALERT_ON_MESSAGE_DELIVERY) |
	B(LANGUAGE_INDICATOR) | B(ITS_REPLY_TYPE) | B(ITS_SESSION_INFO);
static const uint64_t allow_data_sm_resp =
	B(DELIVERY_FAILURE_REASON) | B(NETWORK_ERROR_CODE) |
	B(ADDITIONAL_STATUS_INFO_TEXT) | B(DPF_RESULT);
static const uint64_t allow_bind_resp = B(SC_INTERFACE_VERSION);
static const uint64_t allow_alert = B(MS_AVAILABILITY_STATUS);

/* ---- mandatory parameters: v3.4 chapter 4 ------------------------------ */

#define U8(n, e)     { n, SMPP_FT_U8, 1, e }
#define CS(n, m, e)  { n, SMPP_FT_CSTR, m, e }
#define TM(n, e)     { n, SMPP_FT_TIME, 17, e }

/* 4.1.1 bind_transmitter / 4.1.3 bind_receiver / 4.1.5 bind_transceiver */
static const struct smpp_field_desc f_bind[] = {
	CS("system_id", 16, ESME_RINVSYSID),
	CS("password", 9, ESME_RINVPASWD),
	CS("system_type", 13, ESME_RINVSYSTYP),
	U8("interface_version", ESME_RINVCMDLEN),
	U8("addr_ton", ESME_RINVCMDLEN),
	U8("addr_npi", ESME_RINVCMDLEN),
	CS("address_range", 41, ESME_RINVCMDLEN),
};
/* 4.1.2 bind_*_resp */
static const struct smpp_field_desc f_bind_resp[] = {
	CS("system_id", 16, ESME_RINVSYSID),
};
/* 4.1.7 outbind */
static const struct smpp_field_desc f_outbind[] = {
	CS("system_id", 16, ESME_RINVSYSID),
	CS("password", 9, ESME_RINVPASWD),
};
/* 4.4.1 submit_sm, 4.6.1 deliver_sm (same layout) */
static const struct smpp_field_desc f_submit_sm[] = {
	CS("service_type", 6, ESME_RINVSERTYP),
	U8("source_addr_ton", ESME_RINVCMDLEN),
	U8("source_addr_npi", ESME_RINVCMDLEN),
	CS("source_addr", 21, ESME_RINVSRCADR),
	U8("dest_addr_ton", ESME_RINVCMDLEN),
	U8("dest_addr_npi", ESME_RINVCMDLEN),
	CS("destination_addr", 21, ESME_RINVDSTADR),
	U8("esm_class", ESME_RINVCMDLEN),
	U8("protocol_id", ESME_RINVCMDLEN),
	U8("priority_flag", ESME_RINVCMDLEN),
	TM("schedule_delivery_time", ESME_RINVSCHED),
	TM("validity_period", ESME_RINVEXPIRY),
	U8("registered_delivery", ESME_RINVCMDLEN),
	U8("replace_if_present_flag", ESME_RINVCMDLEN),
	U8("data_coding", ESME_RINVCMDLEN),
	U8("sm_default_msg_id", ESME_RINVCMDLEN),
	{ "sm_length", SMPP_FT_SMLEN, 1, ESME_RINVMSGLEN },
	{ "short_message", SMPP_FT_OSTR, 254, ESME_RINVMSGLEN },
};
/* 4.4.2 submit_sm_resp, 4.6.2 deliver_sm_resp, 4.7.2 data_sm_resp */
static const struct smpp_field_desc f_message_id[] = {
	CS("message_id", 65, ESME_RINVMSGID),
};
/* 4.5.1 submit_multi */
static const struct smpp_field_desc f_submit_multi[] = {
	CS("service_type", 6, ESME_RINVSERTYP),
	U8("source_addr_ton", ESME_RINVCMDLEN),
	U8("source_addr_npi", ESME_RINVCMDLEN),
	CS("source_addr", 21, ESME_RINVSRCADR),
	U8("number_of_dests", ESME_RINVNUMDESTS),
	{ "dest_address", SMPP_FT_DESTS, 254, ESME_RINVDESTFLAG },
	U8("esm_class", ESME_RINVCMDLEN),
	U8("protocol_id", ESME_RINVCMDLEN),
	U8("priority_flag", ESME_RINVCMDLEN),
	TM("schedule_delivery_time", ESME_RINVSCHED),
	TM("validity_period", ESME_RINVEXPIRY),
	U8("registered_delivery", ESME_RINVCMDLEN),
	U8("replace_if_present_flag", ESME_RINVCMDLEN),
	U8("data_coding", ESME_RINVCMDLEN),
	U8("sm_default_msg_id", ESME_RINVCMDLEN),
	{ "sm_length", SMPP_FT_SMLEN, 1, ESME_RINVMSGLEN },
	{ "short_message", SMPP_FT_OSTR, 254, ESME_RINVMSGLEN },
};
/* 4.5.2 submit_multi_resp */
static const struct smpp_field_desc f_submit_multi_resp[] = {
	CS("message_id", 65, ESME_RINVMSGID),
	U8("no_unsuccess", ESME_RINVCMDLEN),
	{ "unsuccess_sme", SMPP_FT_UNSUCC, 254, ESME_RINVCMDLEN },
};
/* 4.7.1 data_sm (addresses are 65 octets here) */
static const struct smpp_field_desc f_data_sm[] = {
	CS("service_type", 6, ESME_RINVSERTYP),
	U8("source_addr_ton", ESME_RINVCMDLEN),
	U8("source_addr_npi", ESME_RINVCMDLEN),
	CS("source_addr", 65, ESME_RINVSRCADR),
	U8("dest_addr_ton", ESME_RINVCMDLEN),
	U8("dest_addr_npi", ESME_RINVCMDLEN),
	CS("destination_addr", 65, ESME_RINVDSTADR),
	U8("esm_class", ESME_RINVCMDLEN),
	U8("registered_delivery", ESME_RINVCMDLEN),
	U8("data_coding", ESME_RINVCMDLEN),
};
/* 4.8.1 query_sm */
static const struct smpp_field_desc f_query_sm[] = {
	CS("message_id", 65, ESME_RINVMSGID),
	U8("source_addr_ton", ESME_RINVCMDLEN),
	U8("source_addr_npi", ESME_RINVCMDLEN),
	CS("source_addr", 21, ESME_RINVSRCADR),
};
/* 4.8.2 query_sm_resp */
static const struct smpp_field_desc f_query_sm_resp[] = {
	CS("message_id", 65, ESME_RINVMSGID),
	TM("final_date", ESME_RINVCMDLEN),
	U8("message_state", ESME_RINVCMDLEN),
	U8("error_code", ESME_RINVCMDLEN),
};
/* 4.9.1 cancel_sm */
static const struct smpp_field_desc f_cancel_sm[] = {
	CS("service_type", 6, ESME_RINVSERTYP),
	CS("message_id", 65, ESME_RINVMSGID),
	U8("source_addr_ton", ESME_RINVCMDLEN),
	U8("source_addr_npi", ESME_RINVCMDLEN),
	CS("source_addr", 21, ESME_RINVSRCADR),
	U8("dest_addr_ton", ESME_RINVCMDLEN),
	U8("dest_addr_npi", ESME_RINVCMDLEN),
	CS("destination_addr", 21, ESME_RINVDSTADR),
};
/* 4.10.1 replace_sm */
static const struct smpp_field_desc f_replace_sm[] = {
	CS("message_id", 65, ESME_RINVMSGID),
	U8("source_addr_ton", ESME_RINVCMDLEN),
	U8("source_addr_npi", ESME_RINVCMDLEN),
	CS("source_addr", 21, ESME_RINVSRCADR),
	TM("schedule_delivery_time", ESME_RINVSCHED),
	TM("validity_period", ESME_RINVEXPIRY),
	U8("registered_delivery", ESME_RINVCMDLEN),
	U8("sm_default_msg_id", ESME_RINVCMDLEN),
	{ "sm_length", SMPP_FT_SMLEN, 1, ESME_RINVMSGLEN },
	{ "short_message", SMPP_FT_OSTR, 254, ESME_RINVMSGLEN },
};
/* 4.12.1 alert_notification */
static const struct smpp_field_desc f_alert[] = {
	U8("source_addr_ton", ESME_RINVCMDLEN),
	U8("source_addr_npi", ESME_RINVCMDLEN),
	CS("source_addr", 65, ESME_RINVSRCADR),
	U8("esme_addr_ton", ESME_RINVCMDLEN),
	U8("esme_addr_npi", ESME_RINVCMDLEN),
	CS("esme_addr", 65, ESME_RINVCMDLEN),
};

#define NF(a) (uint8_t)(sizeof(a) / sizeof((a)[0])), 0
#define NFR(a) (uint8_t)(sizeof(a) / sizeof((a)[0])), 1
#define NONE 0, 0

/* Every PDU once: X(ID, name, field count and whether a response may come
 * without body, TLVs allowed, fields); the table and its index by
 * SMPP_PDU_KEY are both made from this list. */
#define PDU_LIST(X) \
	X(GENERIC_NACK, "generic_nack", NONE, 0, NULL) \
	X(BIND_RECEIVER, "bind_receiver", NF(f_bind), 0, f_bind) \
	X(BIND_RECEIVER_RESP, "bind_receiver_resp", NFR(f_bind_resp), allow_bind_resp, f_bind_resp) \
	X(BIND_TRANSMITTER, "bind_transmitter", NF(f_bind), 0, f_bind) \
	X(BIND_TRANSMITTER_RESP, "bind_transmitter_resp", NFR(f_bind_resp), allow_bind_resp, f_bind_resp) \
	X(QUERY_SM, "query_sm", NF(f_query_sm), 0, f_query_sm) \
	X(QUERY_SM_RESP, "query_sm_resp", NFR(f_query_sm_resp), 0, f_query_sm_resp) \
	X(SUBMIT_SM, "submit_sm", NF(f_submit_sm), allow_submit_sm, f_submit_sm) \
	X(SUBMIT_SM_RESP, "submit_sm_resp", NFR(f_message_id), 0, f_message_id) \
	X(DELIVER_SM, "deliver_sm", NF(f_submit_sm), allow_deliver_sm, f_submit_sm) \
	X(DELIVER_SM_RESP, "deliver_sm_resp", NFR(f_message_id), 0, f_message_id) \
	X(UNBIND, "unbind", NONE, 0, NULL) \
	X(UNBIND_RESP, "unbind_resp", NONE, 0, NULL) \
	X(REPLACE_SM, "replace_sm", NF(f_replace_sm), 0, f_replace_sm) \
	X(REPLACE_SM_RESP, "replace_sm_resp", NONE, 0, NULL) \
	X(CANCEL_SM, "cancel_sm", NF(f_cancel_sm), 0, f_cancel_sm) \
	X(CANCEL_SM_RESP, "cancel_sm_resp", NONE, 0, NULL) \
	X(BIND_TRANSCEIVER, "bind_transceiver", NF(f_bind), 0, f_bind) \
	X(BIND_TRANSCEIVER_RESP, "bind_transceiver_resp", NFR(f_bind_resp), allow_bind_resp, f_bind_resp) \
	X(OUTBIND, "outbind", NF(f_outbind), 0, f_outbind) \
	X(ENQUIRE_LINK, "enquire_link", NONE, 0, NULL) \
	X(ENQUIRE_LINK_RESP, "enquire_link_resp", NONE, 0, NULL) \
	X(SUBMIT_MULTI, "submit_multi", NF(f_submit_multi), allow_submit_multi, f_submit_multi) \
	X(SUBMIT_MULTI_RESP, "submit_multi_resp", NFR(f_submit_multi_resp), 0, f_submit_multi_resp) \
	X(ALERT_NOTIFICATION, "alert_notification", NF(f_alert), allow_alert, f_alert) \
	X(DATA_SM, "data_sm", NF(f_data_sm), allow_data_sm, f_data_sm) \
	X(DATA_SM_RESP, "data_sm_resp", NFR(f_message_id), allow_data_sm_resp, f_message_id)

#define P_ENUM(id, ...) P_##id,
enum pdu_idx { PDU_LIST(P_ENUM) N_PDU };
#undef P_ENUM

#define P_DESC(id, nm, nf, allow, f) [P_##id] = { SMPP_##id, nm, nf, allow, f },
const struct smpp_pdu_desc smpp_pdu_tab[N_PDU] = { PDU_LIST(P_DESC) };
#undef P_DESC

_Static_assert(N_PDU < 256, "1 + a PDU's index fits smpp_pdu_idx");
#define P_KEY(id, ...) [SMPP_PDU_KEY(SMPP_##id)] = 1 + P_##id,
const uint8_t smpp_pdu_idx[SMPP_PDU_KEYS] = { PDU_LIST(P_KEY) };
#undef P_KEY

const unsigned smpp_pdu_count = N_PDU;

const struct smpp_pdu_desc *
smpp_pdu_desc_find(uint32_t id)
{
	unsigned k = smpp_dec_pdu_index(&smpp_host_tab, id);

	return k == 0 ? NULL : &smpp_pdu_tab[k - 1];
}

const struct smpp_pdu_desc *
smpp_pdu_desc_by_name(const char *name)
{
	for (unsigned i = 0; i < N_PDU; i++)
		if (strcmp(smpp_pdu_tab[i].name, name) == 0)
			return &smpp_pdu_tab[i];
	return NULL;
}

/* tag -> 1 + index into smpp_tlv_tab; all v3.4 tags are below 0x1400 (the
 * vendor range starts there), so one 5 KiB table answers in one load,
 * which the decoder's per-TLV lookup measurably needs. */
#define X(t) [SMPP_TLV_##t] = 1 + T_##t
const uint8_t smpp_tlv_idx[SMPP_TLV_IDX_SIZE] = {
	X(DEST_ADDR_SUBUNIT), X(DEST_NETWORK_TYPE), X(DEST_BEARER_TYPE),
	X(DEST_TELEMATICS_ID), X(SOURCE_ADDR_SUBUNIT), X(SOURCE_NETWORK_TYPE),
	X(SOURCE_BEARER_TYPE), X(SOURCE_TELEMATICS_ID), X(QOS_TIME_TO_LIVE),
	X(PAYLOAD_TYPE), X(ADDITIONAL_STATUS_INFO_TEXT), X(RECEIPTED_MESSAGE_ID),
	X(MS_MSG_WAIT_FACILITIES), X(PRIVACY_INDICATOR), X(SOURCE_SUBADDRESS),
	X(DEST_SUBADDRESS), X(USER_MESSAGE_REFERENCE), X(USER_RESPONSE_CODE),
	X(SOURCE_PORT), X(DESTINATION_PORT), X(SAR_MSG_REF_NUM),
	X(LANGUAGE_INDICATOR), X(SAR_TOTAL_SEGMENTS), X(SAR_SEGMENT_SEQNUM),
	X(SC_INTERFACE_VERSION), X(CALLBACK_NUM_PRES_IND), X(CALLBACK_NUM_ATAG),
	X(NUMBER_OF_MESSAGES), X(CALLBACK_NUM), X(DPF_RESULT), X(SET_DPF),
	X(MS_AVAILABILITY_STATUS), X(NETWORK_ERROR_CODE), X(MESSAGE_PAYLOAD),
	X(DELIVERY_FAILURE_REASON), X(MORE_MESSAGES_TO_SEND), X(MESSAGE_STATE),
	X(USSD_SERVICE_OP), X(DISPLAY_TIME), X(SMS_SIGNAL), X(MS_VALIDITY),
	X(ALERT_ON_MESSAGE_DELIVERY), X(ITS_REPLY_TYPE), X(ITS_SESSION_INFO),
};
#undef X

const struct smpp_tlv_desc *
smpp_tlv_desc_find(uint16_t tag)
{
	unsigned k = smpp_dec_tlv_index(&smpp_host_tab, tag);

	return k == 0 ? NULL : &smpp_tlv_tab[k - 1];
}

const struct smpp_tlv_desc *
smpp_tlv_desc_by_name(const char *name)
{
	for (unsigned i = 0; i < T_COUNT; i++)
		if (strcmp(smpp_tlv_tab[i].name, name) == 0)
			return &smpp_tlv_tab[i];
	return NULL;
}

const struct smpp_tlv_desc *
smpp_tlv_desc_at(unsigned idx)
{
	return idx < T_COUNT ? &smpp_tlv_tab[idx] : NULL;
}

unsigned
smpp_tlv_desc_count(void)
{
	return T_COUNT;
}

int
smpp_field_index(const struct smpp_pdu_desc *d, const char *name)
{
	for (unsigned i = 0; d != NULL && i < d->nfields; i++)
		if (strcmp(d->fields[i].name, name) == 0)
			return (int)i;
	return -ENOENT;
}

/* v3.4 table 5-2, the values the codec and the server produce or meet. */
const char *
smpp_status_name(uint32_t st)
{
	switch (st) {
	case ESME_ROK: return "ESME_ROK";
	case ESME_RINVMSGLEN: return "ESME_RINVMSGLEN";
	case ESME_RINVCMDLEN: return "ESME_RINVCMDLEN";
	case ESME_RINVCMDID: return "ESME_RINVCMDID";
	case ESME_RINVBNDSTS: return "ESME_RINVBNDSTS";
	case ESME_RALYBND: return "ESME_RALYBND";
	case ESME_RSYSERR: return "ESME_RSYSERR";
	case ESME_RINVSRCADR: return "ESME_RINVSRCADR";
	case ESME_RINVDSTADR: return "ESME_RINVDSTADR";
	case ESME_RINVMSGID: return "ESME_RINVMSGID";
	case ESME_RBINDFAIL: return "ESME_RBINDFAIL";
	case ESME_RINVPASWD: return "ESME_RINVPASWD";
	case ESME_RINVSYSID: return "ESME_RINVSYSID";
	case ESME_RCANCELFAIL: return "ESME_RCANCELFAIL";
	case ESME_RREPLACEFAIL: return "ESME_RREPLACEFAIL";
	case ESME_RMSGQFUL: return "ESME_RMSGQFUL";
	case ESME_RINVSERTYP: return "ESME_RINVSERTYP";
	case ESME_RINVNUMDESTS: return "ESME_RINVNUMDESTS";
	case ESME_RINVDLNAME: return "ESME_RINVDLNAME";
	case ESME_RINVDESTFLAG: return "ESME_RINVDESTFLAG";
	case ESME_RINVSYSTYP: return "ESME_RINVSYSTYP";
	case ESME_RTHROTTLED: return "ESME_RTHROTTLED";
	case ESME_RINVSCHED: return "ESME_RINVSCHED";
	case ESME_RINVEXPIRY: return "ESME_RINVEXPIRY";
	case ESME_RQUERYFAIL: return "ESME_RQUERYFAIL";
	case ESME_RINVOPTPARSTREAM: return "ESME_RINVOPTPARSTREAM";
	case ESME_ROPTPARNOTALLWD: return "ESME_ROPTPARNOTALLWD";
	case ESME_RINVPARLEN: return "ESME_RINVPARLEN";
	case ESME_RMISSINGOPTPARAM: return "ESME_RMISSINGOPTPARAM";
	case ESME_RINVOPTPARAMVAL: return "ESME_RINVOPTPARAMVAL";
	case ESME_RUNKNOWNERR: return "ESME_RUNKNOWNERR";
	default: return "ESME_R?";
	}
}
