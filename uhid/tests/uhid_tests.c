/*
 * The relay of pinvault-uhid (uhid/pv_uhid.c) under AddressSanitizer and UBSan
 * (`make uhid-test`): the device it describes, the verdict on every kind of uhid event,
 * and the relay itself in a child process, between this test playing the kernel (a
 * SOCK_SEQPACKET socketpair keeps each event one message, as /dev/uhid does) and
 * playing the daemon (a Unix stream socket that echoes): reports both ways, a reply
 * split across writes, thousands of malformed events, a daemon that closes, one that
 * stops reading and one that is gone, and the end of the device ending the relay cleanly.
 * UHIDBridgeTests does the same with the real program and a real pinvaultd.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "pv_uhid.h"

/* A guard against a hang, never a measurement: a step that waits this long has failed. */
#define WAIT_MS 30000

#define HEADER offsetof(struct uhid_event, u)

static struct uhid_event output_event(uint16_t size, uint8_t first, uint8_t fill)
{
    struct uhid_event event;
    memset(&event, 0, sizeof event);
    event.type = UHID_OUTPUT;
    event.u.output.rtype = UHID_OUTPUT_REPORT;
    event.u.output.size = size;
    memset(event.u.output.data, fill, sizeof event.u.output.data);
    event.u.output.data[0] = first;
    return event;
}

static void test_descriptor_and_create(void)
{
    static const uint8_t fido_usage[] = {0x06, 0xD0, 0xF1, 0x09, 0x01, 0xA1, 0x01};
    CHECK(pv_uhid_report_descriptor_size == 34);
    CHECK(memcmp(pv_uhid_report_descriptor, fido_usage, sizeof fido_usage) == 0);
    CHECK(pv_uhid_report_descriptor[pv_uhid_report_descriptor_size - 1] == 0xC0);

    struct uhid_event event;
    memset(&event, 0xAA, sizeof event);
    size_t length = pv_uhid_create_event(&event);
    CHECK(event.type == UHID_CREATE2);
    CHECK(event.u.create2.rd_size == pv_uhid_report_descriptor_size);
    CHECK(memcmp(event.u.create2.rd_data, pv_uhid_report_descriptor, pv_uhid_report_descriptor_size) == 0);
    CHECK(length == HEADER + offsetof(struct uhid_create2_req, rd_data) + pv_uhid_report_descriptor_size);
    CHECK(strcmp((const char *)event.u.create2.name, "PinVault security key") == 0);
    CHECK(event.u.create2.uniq[0] == 0 && event.u.create2.vendor == 0 && event.u.create2.product == 0);

    uint8_t report[PV_UHID_REPORT_SIZE];
    for (size_t i = 0; i < sizeof report; i++)
        report[i] = (uint8_t)(i * 7);
    length = pv_uhid_input_event(&event, report);
    CHECK(event.type == UHID_INPUT2 && event.u.input2.size == PV_UHID_REPORT_SIZE);
    CHECK(memcmp(event.u.input2.data, report, sizeof report) == 0);
    CHECK(length == HEADER + offsetof(struct uhid_input2_req, data) + PV_UHID_REPORT_SIZE);
}

static enum pv_uhid_verdict judge(const struct uhid_event *event, size_t length, const uint8_t **report,
                                  struct uhid_event *answer, size_t *answer_length)
{
    *report = NULL;
    *answer_length = 0;
    return pv_uhid_judge(event, length, report, answer, answer_length);
}

static void test_verdicts(void)
{
    const uint8_t *report;
    struct uhid_event answer;
    size_t answer_length;
    const size_t full = sizeof(struct uhid_event);

    /* hidraw's write of a device without report ids: report number 0, then 64 bytes. */
    struct uhid_event event = output_event(65, 0, 0x5A);
    CHECK(judge(&event, full, &report, &answer, &answer_length) == PV_UHID_REPORT);
    CHECK(report == event.u.output.data + 1);
    event = output_event(64, 0x11, 0x5A);
    CHECK(judge(&event, full, &report, &answer, &answer_length) == PV_UHID_REPORT);
    CHECK(report == event.u.output.data);
    /* Report number 1 (there is none), and every other size. */
    event = output_event(65, 1, 0);
    CHECK(judge(&event, full, &report, &answer, &answer_length) == PV_UHID_MALFORMED);
    static const uint16_t sizes[] = {0, 1, 63, 66, 128, 4096, 4097, 65535};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        event = output_event(sizes[i], 0, 0);
        CHECK(judge(&event, full, &report, &answer, &answer_length) == PV_UHID_MALFORMED);
    }
    /* A feature report, and an event cut short before its size or its type. */
    event = output_event(65, 0, 0);
    event.u.output.rtype = UHID_FEATURE_REPORT;
    CHECK(judge(&event, full, &report, &answer, &answer_length) == PV_UHID_MALFORMED);
    event = output_event(65, 0, 0);
    CHECK(judge(&event, HEADER + 100, &report, &answer, &answer_length) == PV_UHID_MALFORMED);
    CHECK(judge(&event, 3, &report, &answer, &answer_length) == PV_UHID_MALFORMED);
    CHECK(judge(&event, 0, &report, &answer, &answer_length) == PV_UHID_MALFORMED);
    CHECK(report == NULL);

    /* GET_REPORT and SET_REPORT: answered at once, EIO, the request's id echoed. */
    memset(&event, 0, sizeof event);
    event.type = UHID_GET_REPORT;
    event.u.get_report.id = 0xC0FFEE;
    CHECK(judge(&event, full, &report, &answer, &answer_length) == PV_UHID_ANSWER);
    CHECK(answer.type == UHID_GET_REPORT_REPLY && answer.u.get_report_reply.id == 0xC0FFEE);
    CHECK(answer.u.get_report_reply.err == EIO && answer.u.get_report_reply.size == 0);
    CHECK(answer_length == HEADER + offsetof(struct uhid_get_report_reply_req, data));
    CHECK(judge(&event, HEADER + 2, &report, &answer, &answer_length) == PV_UHID_MALFORMED);
    memset(&event, 0, sizeof event);
    event.type = UHID_SET_REPORT;
    event.u.set_report.id = 77;
    CHECK(judge(&event, full, &report, &answer, &answer_length) == PV_UHID_ANSWER);
    CHECK(answer.type == UHID_SET_REPORT_REPLY && answer.u.set_report_reply.id == 77 &&
          answer.u.set_report_reply.err == EIO);
    CHECK(answer_length == HEADER + sizeof(struct uhid_set_report_reply_req));

    /* The device's life: nothing to do. Events only a writer sends, or unknown: malformed. */
    static const uint32_t skipped[] = {UHID_START, UHID_STOP, UHID_OPEN, UHID_CLOSE, UHID_OUTPUT_EV};
    for (size_t i = 0; i < sizeof skipped / sizeof skipped[0]; i++) {
        event.type = skipped[i];
        CHECK(judge(&event, sizeof event.type, &report, &answer, &answer_length) == PV_UHID_SKIP);
    }
    static const uint32_t refused[] = {UHID_CREATE, UHID_CREATE2, UHID_DESTROY, UHID_INPUT, UHID_INPUT2,
                                       UHID_GET_REPORT_REPLY, UHID_SET_REPORT_REPLY, 99, 0xFFFFFFFF};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        event.type = refused[i];
        CHECK(judge(&event, full, &report, &answer, &answer_length) == PV_UHID_MALFORMED);
    }
}

/* --- The relay in a child, between this test's kernel and daemon. --- */

struct rig {
    int kernel;   /* this end of the device */
    int listener; /* the daemon's socket */
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    char directory[64];
    pid_t relay;
};

static int wait_readable(int fd)
{
    struct pollfd poll_fd = {.fd = fd, .events = POLLIN};
    return poll(&poll_fd, 1, WAIT_MS) == 1;
}

/* The next event the relay writes to its device; its length, or -1. */
static ssize_t next_event(struct rig *rig, struct uhid_event *event)
{
    if (!wait_readable(rig->kernel))
        return -1;
    return read(rig->kernel, event, sizeof *event);
}

/* The next event of `type`, past the GET_REPORT and SET_REPORT answers still queued
 * from the malformed events (the relay answers them when it gets to them). */
static ssize_t next_event_of(struct rig *rig, uint32_t type, struct uhid_event *event)
{
    ssize_t length;
    do
        length = next_event(rig, event);
    while (length > 0 && event->type != type &&
           (event->type == UHID_GET_REPORT_REPLY || event->type == UHID_SET_REPORT_REPLY));
    return length > 0 && event->type == type ? length : -1;
}

static int accept_daemon_connection(struct rig *rig)
{
    if (!wait_readable(rig->listener))
        return -1;
    return accept4(rig->listener, NULL, NULL, SOCK_CLOEXEC);
}

static int read_report(int fd, uint8_t report[PV_UHID_REPORT_SIZE])
{
    size_t have = 0;
    while (have < PV_UHID_REPORT_SIZE) {
        if (!wait_readable(fd))
            return -1;
        ssize_t got = read(fd, report + have, PV_UHID_REPORT_SIZE - have);
        if (got <= 0)
            return -1;
        have += (size_t)got;
    }
    return 0;
}

/* One output report written to the relay's device; 0 if it took it. */
static int send_output(struct rig *rig, uint8_t fill)
{
    struct uhid_event event = output_event(65, 0, fill);
    int taken = write(rig->kernel, &event, sizeof event) == (ssize_t)sizeof event;
    CHECK(taken);
    return taken ? 0 : -1;
}

/* One report out to the daemon on `daemon`, one back split in two writes; 1 if both arrived whole. */
static int round_trip(struct rig *rig, int daemon, uint8_t fill)
{
    send_output(rig, fill);
    uint8_t report[PV_UHID_REPORT_SIZE], expected[PV_UHID_REPORT_SIZE];
    memset(expected, fill, sizeof expected);
    if (read_report(daemon, report) != 0 || memcmp(report, expected, sizeof report) != 0)
        return 0;
    report[0] ^= 0xFF;
    if (write(daemon, report, 10) != 10 || write(daemon, report + 10, sizeof report - 10) != (ssize_t)sizeof report - 10)
        return 0;
    struct uhid_event event;
    ssize_t length = next_event_of(rig, UHID_INPUT2, &event);
    return length == (ssize_t)(HEADER + offsetof(struct uhid_input2_req, data) + PV_UHID_REPORT_SIZE) && event.u.input2.size == PV_UHID_REPORT_SIZE &&
           memcmp(event.u.input2.data, report, sizeof report) == 0;
}

static int start_rig(struct rig *rig)
{
    memset(rig, 0, sizeof *rig);
    strcpy(rig->directory, "/tmp/pinvault-uhid-test-XXXXXX");
    if (mkdtemp(rig->directory) == NULL)
        return -1;
    snprintf(rig->path, sizeof rig->path, "%s/ctaphid.sock", rig->directory);
    rig->listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    memcpy(address.sun_path, rig->path, strlen(rig->path));
    if (rig->listener < 0 || bind(rig->listener, (struct sockaddr *)&address, sizeof address) != 0 ||
        listen(rig->listener, 4) != 0)
        return -1;
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0)
        return -1;
    rig->relay = fork();
    if (rig->relay < 0)
        return -1;
    if (rig->relay == 0) {
        close(pair[0]);
        close(rig->listener);
        signal(SIGPIPE, SIG_IGN);
        _exit(pv_uhid_relay(pair[1], rig->path) == 0 ? 0 : 1);
    }
    close(pair[1]);
    rig->kernel = pair[0];
    /* A relay that stops reading fails the test's writes instead of hanging them. */
    struct timeval timeout = {.tv_sec = WAIT_MS / 1000};
    return setsockopt(rig->kernel, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
}

static void test_relay(void)
{
    struct rig rig;
    if (start_rig(&rig) != 0) {
        CHECK(!"the rig starts");
        return;
    }
    struct uhid_event event;
    ssize_t length = next_event(&rig, &event);
    CHECK(length > 0 && event.type == UHID_CREATE2);
    CHECK(event.u.create2.rd_size == pv_uhid_report_descriptor_size &&
          memcmp(event.u.create2.rd_data, pv_uhid_report_descriptor, pv_uhid_report_descriptor_size) == 0);

    /* The first report connects; reports go both ways on that one connection. */
    send_output(&rig, 0x21);
    int daemon = accept_daemon_connection(&rig);
    CHECK(daemon >= 0);
    uint8_t report[PV_UHID_REPORT_SIZE];
    CHECK(read_report(daemon, report) == 0 && report[0] == 0x21 && report[63] == 0x21);
    CHECK(round_trip(&rig, daemon, 0x22));

    /* GET_REPORT is answered by the relay itself, the daemon never sees it. */
    memset(&event, 0, sizeof event);
    event.type = UHID_GET_REPORT;
    event.u.get_report.id = 4242;
    CHECK(write(rig.kernel, &event, sizeof event) == (ssize_t)sizeof event);
    length = next_event(&rig, &event);
    CHECK(length > 0 && event.type == UHID_GET_REPORT_REPLY && event.u.get_report_reply.id == 4242);

    /* Malformed events of every length and type, deterministically: skipped, none relayed. */
    unsigned seed = 12345;
    for (int i = 0; i < 3000; i++) {
        uint8_t garbage[sizeof(struct uhid_event)];
        seed = seed * 1103515245u + 12345u;
        size_t size = 1 + (seed >> 8) % sizeof garbage;
        for (size_t j = 0; j < size; j++) {
            seed = seed * 1103515245u + 12345u;
            garbage[j] = (uint8_t)(seed >> 16);
        }
        uint32_t types[] = {UHID_OUTPUT, UHID_OUTPUT, UHID_GET_REPORT, UHID_SET_REPORT, seed % 20, seed};
        uint32_t type = types[i % 6];
        if (size >= sizeof type)
            memcpy(garbage, &type, sizeof type);
        if (i % 6 < 2 && size >= HEADER + sizeof(struct uhid_output_req)) {
            /* An output report of a size not 64 or 65, or a report number not 0. */
            struct uhid_event *output = (struct uhid_event *)garbage;
            output->u.output.rtype = UHID_OUTPUT_REPORT;
            if (output->u.output.size == 64 || (output->u.output.size == 65 && output->u.output.data[0] == 0))
                output->u.output.size = 66;
        }
        CHECK(write(rig.kernel, garbage, size) == (ssize_t)size);
        /* The GET_REPORT and SET_REPORT whole enough get their answer: read them off. */
        struct pollfd poll_fd = {.fd = rig.kernel, .events = POLLIN};
        while (poll(&poll_fd, 1, 0) == 1) {
            length = read(rig.kernel, &event, sizeof event);
            CHECK(length > 0 && (event.type == UHID_GET_REPORT_REPLY || event.type == UHID_SET_REPORT_REPLY));
        }
    }
    CHECK(round_trip(&rig, daemon, 0x23));

    /* The daemon closes: the next report connects again. */
    close(daemon);
    send_output(&rig, 0x24); /* the relay reads the close before the report: poll hands it the daemon first */
    daemon = accept_daemon_connection(&rig);
    CHECK(daemon >= 0);
    CHECK(read_report(daemon, report) == 0 && report[0] == 0x24);
    CHECK(round_trip(&rig, daemon, 0x25));

    /* A daemon that stops reading: once its socket is full, a report waits at most the
     * write timeout, the connection ends, and the relay still answers its device. */
    for (int i = 0; i < 1000 && send_output(&rig, 0x30) == 0; i++) {
    }
    memset(&event, 0, sizeof event);
    event.type = UHID_GET_REPORT;
    event.u.get_report.id = 31337;
    CHECK(write(rig.kernel, &event, sizeof event) == (ssize_t)sizeof event);
    do
        length = next_event_of(&rig, UHID_GET_REPORT_REPLY, &event);
    while (length > 0 && event.u.get_report_reply.id != 31337);
    CHECK(length > 0 && event.u.get_report_reply.id == 31337);

    /* The daemon is gone altogether: reports are dropped, the relay keeps serving its device. */
    close(daemon);
    close(rig.listener);
    unlink(rig.path);
    for (int i = 0; i < 50 && send_output(&rig, 0x26) == 0; i++) {
    }
    memset(&event, 0, sizeof event);
    event.type = UHID_SET_REPORT;
    event.u.set_report.id = 99;
    CHECK(write(rig.kernel, &event, sizeof event) == (ssize_t)sizeof event);
    do
        length = next_event_of(&rig, UHID_SET_REPORT_REPLY, &event);
    while (length > 0 && event.u.set_report_reply.id != 99);
    CHECK(length > 0 && event.u.set_report_reply.id == 99);

    /* The device goes away: the relay ends, cleanly. */
    close(rig.kernel);
    if (failed)
        kill(rig.relay, SIGKILL); /* a relay stuck by the failure must not hang the test */
    int status = -1;
    CHECK(waitpid(rig.relay, &status, 0) == rig.relay);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    rmdir(rig.directory);
}

int main(void)
{
    test_descriptor_and_create();
    test_verdicts();
    test_relay();
    printf("uhid-tests: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
