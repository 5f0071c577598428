/*
 * pv_uhid: the virtual FIDO device and its relay (pv_uhid.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "pv_uhid.h"

/* A write to the daemon that cannot finish within this long ends the connection
 * (the report is dropped): a daemon that stops reading never stops the relay. */
#define DAEMON_WRITE_TIMEOUT_SECONDS 2

/* Malformed events logged per device, so that a writer in a loop cannot fill the journal. */
#define MALFORMED_LOGGED 5

const uint8_t pv_uhid_report_descriptor[] = {
    0x06, 0xD0, 0xF1, /* Usage Page (FIDO Alliance, 0xF1D0) */
    0x09, 0x01,       /* Usage (CTAPHID authenticator) */
    0xA1, 0x01,       /* Collection (Application) */
    0x09, 0x20,       /*   Usage (Input Report Data) */
    0x15, 0x00,       /*   Logical Minimum (0) */
    0x26, 0xFF, 0x00, /*   Logical Maximum (255) */
    0x75, 0x08,       /*   Report Size (8 bits) */
    0x95, 0x40,       /*   Report Count (64) */
    0x81, 0x02,       /*   Input (Data, Variable, Absolute) */
    0x09, 0x21,       /*   Usage (Output Report Data) */
    0x15, 0x00,       /*   Logical Minimum (0) */
    0x26, 0xFF, 0x00, /*   Logical Maximum (255) */
    0x75, 0x08,       /*   Report Size (8 bits) */
    0x95, 0x40,       /*   Report Count (64) */
    0x91, 0x02,       /*   Output (Data, Variable, Absolute) */
    0xC0,             /* End Collection */
};
const size_t pv_uhid_report_descriptor_size = sizeof pv_uhid_report_descriptor;

/* The bytes of an event up to and including its request of type T. */
#define EVENT_SIZE(member) (offsetof(struct uhid_event, u) + sizeof(((struct uhid_event *)0)->u.member))

void pv_uhid_log(const char *format, ...)
{
    char line[512];
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(line, sizeof line, format, arguments);
    va_end(arguments);
    fprintf(stderr, "pinvault-uhid[%ld]: %s\n", (long)getpid(), line);
}

size_t pv_uhid_create_event(struct uhid_event *event)
{
    memset(event, 0, sizeof *event);
    event->type = UHID_CREATE2;
    struct uhid_create2_req *create = &event->u.create2;
    snprintf((char *)create->name, sizeof create->name, "PinVault security key");
    snprintf((char *)create->phys, sizeof create->phys, "pinvault-uhid");
    create->rd_size = (uint16_t)pv_uhid_report_descriptor_size;
    /* USB, as a security key plugged in: some browsers list only USB and Bluetooth HID
     * devices as FIDO candidates. No vendor or product id is claimed. */
    create->bus = 0x03; /* BUS_USB */
    memcpy(create->rd_data, pv_uhid_report_descriptor, pv_uhid_report_descriptor_size);
    return offsetof(struct uhid_event, u) + offsetof(struct uhid_create2_req, rd_data) + pv_uhid_report_descriptor_size;
}

size_t pv_uhid_input_event(struct uhid_event *event, const uint8_t report[PV_UHID_REPORT_SIZE])
{
    memset(event, 0, offsetof(struct uhid_event, u) + offsetof(struct uhid_input2_req, data) + PV_UHID_REPORT_SIZE);
    event->type = UHID_INPUT2;
    event->u.input2.size = PV_UHID_REPORT_SIZE;
    memcpy(event->u.input2.data, report, PV_UHID_REPORT_SIZE);
    return offsetof(struct uhid_event, u) + offsetof(struct uhid_input2_req, data) + PV_UHID_REPORT_SIZE;
}

enum pv_uhid_verdict pv_uhid_judge(const struct uhid_event *event, size_t length, const uint8_t **report,
                                   struct uhid_event *answer, size_t *answer_length)
{
    if (length < sizeof event->type)
        return PV_UHID_MALFORMED;
    switch (event->type) {
    case UHID_START:
    case UHID_STOP:
    case UHID_OPEN:
    case UHID_CLOSE:
    case UHID_OUTPUT_EV:
        return PV_UHID_SKIP;
    case UHID_OUTPUT: {
        if (length < EVENT_SIZE(output) || event->u.output.rtype != UHID_OUTPUT_REPORT)
            return PV_UHID_MALFORMED;
        uint16_t size = event->u.output.size;
        if (size == PV_UHID_REPORT_SIZE + 1 && event->u.output.data[0] == 0) {
            *report = event->u.output.data + 1;
            return PV_UHID_REPORT;
        }
        if (size == PV_UHID_REPORT_SIZE) {
            *report = event->u.output.data;
            return PV_UHID_REPORT;
        }
        return PV_UHID_MALFORMED;
    }
    case UHID_GET_REPORT:
        if (length < EVENT_SIZE(get_report))
            return PV_UHID_MALFORMED;
        memset(answer, 0, EVENT_SIZE(get_report_reply));
        answer->type = UHID_GET_REPORT_REPLY;
        answer->u.get_report_reply.id = event->u.get_report.id;
        answer->u.get_report_reply.err = EIO;
        *answer_length = offsetof(struct uhid_event, u) + offsetof(struct uhid_get_report_reply_req, data);
        return PV_UHID_ANSWER;
    case UHID_SET_REPORT:
        if (length < offsetof(struct uhid_event, u) + offsetof(struct uhid_set_report_req, size))
            return PV_UHID_MALFORMED;
        memset(answer, 0, EVENT_SIZE(set_report_reply));
        answer->type = UHID_SET_REPORT_REPLY;
        answer->u.set_report_reply.id = event->u.set_report.id;
        answer->u.set_report_reply.err = EIO;
        *answer_length = EVENT_SIZE(set_report_reply);
        return PV_UHID_ANSWER;
    default:
        return PV_UHID_MALFORMED;
    }
}

/* One relay: the device, and the daemon's connection while there is one. */
struct relay {
    int device;
    const char *socket_path;
    int daemon;                            /* -1: not connected */
    uint8_t reply[PV_UHID_REPORT_SIZE];    /* the daemon's report being read */
    size_t reply_length;
    int unreachable_logged;                /* a failed connect is logged once per streak */
    unsigned malformed;
};

static void disconnect(struct relay *relay)
{
    if (relay->daemon >= 0)
        close(relay->daemon);
    relay->daemon = -1;
    relay->reply_length = 0;
    explicit_bzero(relay->reply, sizeof relay->reply);
}

static int connect_daemon(struct relay *relay)
{
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    size_t length = strlen(relay->socket_path);
    if (length >= sizeof address.sun_path)
        return -1;
    memcpy(address.sun_path, relay->socket_path, length);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct timeval timeout = {.tv_sec = DAEMON_WRITE_TIMEOUT_SECONDS};
    if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout) != 0 ||
        connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        int saved = errno;
        close(fd);
        if (!relay->unreachable_logged)
            pv_uhid_log("cannot reach %s: %s; reports are dropped until it answers", relay->socket_path, strerror(saved));
        relay->unreachable_logged = 1;
        return -1;
    }
    if (relay->unreachable_logged)
        pv_uhid_log("connected to %s again", relay->socket_path);
    relay->unreachable_logged = 0;
    relay->daemon = fd;
    return 0;
}

/* One output report to the daemon: whole, or the connection ends (a stream cut
 * mid-report would shift every report after it). */
static void send_report(struct relay *relay, const uint8_t *report)
{
    if (relay->daemon < 0 && connect_daemon(relay) != 0)
        return;
    ssize_t sent;
    do {
        sent = send(relay->daemon, report, PV_UHID_REPORT_SIZE, MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
    if (sent != PV_UHID_REPORT_SIZE) {
        pv_uhid_log("the daemon took no report (%s); connection closed", sent < 0 ? strerror(errno) : "short write");
        disconnect(relay);
    }
}

static int write_device(int device, const struct uhid_event *event, size_t length)
{
    ssize_t written;
    do {
        written = write(device, event, length);
    } while (written < 0 && errno == EINTR);
    return written == (ssize_t)length ? 0 : -1;
}

/* The device is readable: one event. Returns 1 when the device is gone, -1 on its error. */
static int from_device(struct relay *relay, struct uhid_event *event, struct uhid_event *answer)
{
    ssize_t length = read(relay->device, event, sizeof *event);
    if (length == 0)
        return 1;
    if (length < 0)
        return errno == EINTR || errno == EAGAIN ? 0 : -1;
    const uint8_t *report = NULL;
    size_t answer_length = 0;
    switch (pv_uhid_judge(event, (size_t)length, &report, answer, &answer_length)) {
    case PV_UHID_REPORT:
        send_report(relay, report);
        break;
    case PV_UHID_ANSWER:
        if (write_device(relay->device, answer, answer_length) != 0)
            return -1;
        break;
    case PV_UHID_MALFORMED:
        if (relay->malformed++ < MALFORMED_LOGGED)
            pv_uhid_log("skipped a malformed uhid event (%zd bytes)", length);
        break;
    case PV_UHID_SKIP:
        break;
    }
    explicit_bzero(event, (size_t)length);
    return 0;
}

/* The daemon's connection is readable (or closed): the rest of a report. Returns -1 on
 * an error of the device. */
static int from_daemon(struct relay *relay, struct uhid_event *event)
{
    ssize_t length = recv(relay->daemon, relay->reply + relay->reply_length, sizeof relay->reply - relay->reply_length,
                          MSG_DONTWAIT);
    if (length < 0 && (errno == EINTR || errno == EAGAIN))
        return 0;
    if (length <= 0) {
        pv_uhid_log("the daemon closed the connection");
        disconnect(relay);
        return 0;
    }
    relay->reply_length += (size_t)length;
    if (relay->reply_length < sizeof relay->reply)
        return 0;
    size_t event_length = pv_uhid_input_event(event, relay->reply);
    relay->reply_length = 0;
    explicit_bzero(relay->reply, sizeof relay->reply);
    int status = write_device(relay->device, event, event_length);
    explicit_bzero(event, event_length);
    return status;
}

int pv_uhid_relay(int device, const char *socket_path)
{
    struct relay relay = {.device = device, .socket_path = socket_path, .daemon = -1};
    /* static: 4 KiB each, and a process runs one relay. */
    static struct uhid_event event, answer;

    size_t length = pv_uhid_create_event(&event);
    if (write_device(device, &event, length) != 0) {
        pv_uhid_log("cannot create the device: %s", strerror(errno));
        return -1;
    }
    int status = 0;
    while (status == 0) {
        struct pollfd fds[2] = {
            {.fd = device, .events = POLLIN},
            {.fd = relay.daemon, .events = POLLIN},
        };
        int ready = poll(fds, relay.daemon >= 0 ? 2 : 1, -1);
        if (ready < 0) {
            if (errno == EINTR)
                continue;
            status = -1;
            break;
        }
        if (relay.daemon >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)))
            status = from_daemon(&relay, &event);
        if (status == 0 && (fds[0].revents & POLLIN))
            status = from_device(&relay, &event, &answer);
        else if (status == 0 && (fds[0].revents & (POLLHUP | POLLERR | POLLNVAL)))
            status = 1;
    }
    disconnect(&relay);
    if (status < 0)
        pv_uhid_log("device error: %s", strerror(errno));
    return status < 0 ? -1 : 0;
}
