"""pinvaultd's CTAPHID socket as python-fido2 sees a HID security key: a CtapHidConnection
carrying 64-byte reports each way over the Unix socket, and a CtapHidDevice on it."""
import socket

from fido2.hid import CtapHidDevice
from fido2.hid.base import CtapHidConnection, HidDescriptor


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


def open_device(path):
    return CtapHidDevice(HidDescriptor(path, 0, 0, 64, 64, "PinVault", None), UnixSocketConnection(path))
