/*
 * pv_uhid: one virtual FIDO security key on /dev/uhid, relayed to pinvaultd's CTAPHID
 * socket (uhid/pinvault-uhid.c runs one per active seat user, in a process of that
 * user's uid).
 *
 * The relay reads nothing of a report but its length: a UHID_OUTPUT of 64 bytes (or 65
 * whose first byte is the report number 0, as hidraw hands over a write to a device
 * without report ids) goes whole to the socket; every 64 bytes the socket sends come
 * back as one UHID_INPUT2. GET_REPORT and SET_REPORT (the device has no feature
 * reports) are answered EIO at once, so that no caller waits for the kernel's timeout.
 * Every other event, or one shorter than its type's structure, is skipped.
 */
#ifndef PV_UHID_H
#define PV_UHID_H

#include <linux/uhid.h>
#include <stddef.h>
#include <stdint.h>

/* A CTAPHID report, each way: the FIDO HID report size, without a report id. */
#define PV_UHID_REPORT_SIZE 64

/* The report descriptor: usage page 0xF1D0 (FIDO Alliance), usage 0x01 (CTAPHID
 * authenticator), one 64-byte input report (usage 0x20) and one 64-byte output
 * report (usage 0x21), no report ids. */
extern const uint8_t pv_uhid_report_descriptor[];
extern const size_t pv_uhid_report_descriptor_size;

/* The UHID_CREATE2 event of the device; returns the bytes to write. */
size_t pv_uhid_create_event(struct uhid_event *event);

/* The UHID_INPUT2 event carrying one report; returns the bytes to write. */
size_t pv_uhid_input_event(struct uhid_event *event, const uint8_t report[PV_UHID_REPORT_SIZE]);

enum pv_uhid_verdict {
    PV_UHID_SKIP,      /* nothing to do (START, STOP, OPEN, CLOSE, OUTPUT_EV) */
    PV_UHID_REPORT,    /* *report: the 64 bytes for the socket */
    PV_UHID_ANSWER,    /* *answer (answer_length bytes): write it back to the device */
    PV_UHID_MALFORMED, /* too short, an unknown type, an output report of another size */
};

/* What to do with the event of `length` bytes read from the device. */
enum pv_uhid_verdict pv_uhid_judge(const struct uhid_event *event, size_t length, const uint8_t **report,
                                   struct uhid_event *answer, size_t *answer_length);

/*
 * Creates the device on `device` and relays until the device is gone: reports to the
 * socket at `socket_path` (connected at the first report, and again at the next one
 * after the daemon closed it or went away; the report that found no daemon is dropped),
 * the socket's reports back as input. Returns 0 when the device closed (end of file),
 * -1 on an error of the device itself. Never blocks on the daemon for more than a
 * write timeout.
 */
int pv_uhid_relay(int device, const char *socket_path);

/* One line on standard error (the journal), prefixed "pinvault-uhid[pid]: ". Never a
 * report's bytes. */
void pv_uhid_log(const char *format, ...) __attribute__((format(printf, 1, 2)));

#endif
