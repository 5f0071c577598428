"""pinvaultd's CTAPHID socket as python-fido2 sees a HID security key: a CtapHidConnection
carrying 64-byte reports each way over the Unix socket, and a CtapHidDevice on it.

A path "uhid-kernel:PATH" is instead the kernel's end of pinvault-uhid's virtual device,
as its tests play it (pinvault-uhid --test-uhid-socket PATH): a SOCK_SEQPACKET socket
listening at PATH, the device's first event UHID_CREATE2, each report written as a
UHID_OUTPUT event (report number 0, then the 64 bytes, as hidraw hands over a write) and
read as a UHID_INPUT2 event (linux/uhid.h)."""
import os
import socket
import struct

from fido2.hid import CtapHidDevice
from fido2.hid.base import CtapHidConnection, HidDescriptor

UHID_KERNEL = "uhid-kernel:"
UHID_OUTPUT, UHID_CREATE2, UHID_INPUT2 = 6, 11, 12
UHID_OUTPUT_REPORT = 1
UHID_EVENT_SIZE = 4380  # sizeof(struct uhid_event)
UHID_DATA_MAX = 4096


class UnixSocketConnection(CtapHidConnection):
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(60)
        self.sock.connect(path)

    def write_packet(self, data):
        assert len(data) == 64, len(data)
        self.sock.sendall(data)

    def read_packet(self):
        data = b""
        while len(data) < 64:
            chunk = self.sock.recv(64 - len(data))
            if not chunk:
                raise OSError("the daemon closed the connection")
            data += chunk
        return data

    def close(self):
        self.sock.close()


class UhidKernelConnection(CtapHidConnection):
    def __init__(self, path):
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        listener.settimeout(60)
        listener.bind(path)
        listener.listen(1)
        self.sock, _ = listener.accept()
        listener.close()
        os.unlink(path)
        self.sock.settimeout(60)
        (kind,) = struct.unpack_from("<I", self.sock.recv(UHID_EVENT_SIZE))
        assert kind == UHID_CREATE2, kind

    def write_packet(self, data):
        assert len(data) == 64, len(data)
        self.sock.send(struct.pack("<I", UHID_OUTPUT) + (b"\0" + data).ljust(UHID_DATA_MAX, b"\0")
                       + struct.pack("<HB", 65, UHID_OUTPUT_REPORT))

    def read_packet(self):
        while True:
            event = self.sock.recv(UHID_EVENT_SIZE)
            if not event:
                raise OSError("pinvault-uhid closed the device")
            (kind,) = struct.unpack_from("<I", event)
            if kind == UHID_INPUT2:
                (size,) = struct.unpack_from("<H", event, 4)
                assert size == 64, size
                return event[6:70]

    def close(self):
        self.sock.close()


def open_device(path):
    if path.startswith(UHID_KERNEL):
        connection = UhidKernelConnection(path[len(UHID_KERNEL):])
    else:
        connection = UnixSocketConnection(path)
    return CtapHidDevice(HidDescriptor(path, 0, 0, 64, 64, "PinVault", None), connection)
