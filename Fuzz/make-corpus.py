#!/usr/bin/env python3
"""Writes Fuzz/corpus, Fuzz/corpus-transport, Fuzz/corpus-ssh-data, Fuzz/corpus-cbor and Fuzz/corpus-ctap: seed inputs
for pinvault-fuzz's three targets, one file per scenario.

Each file is a stream of NUL-ended Varlink calls from one peer. An empty frame (two
NULs in a row) is not a Varlink call: the harness's connection closes, and the calls
after it come from the next peer (user 1000, then admin uid 0, then user 1001).
What follows the marker AGENT (NUL, "ssh-agent", NUL) goes to the ssh-agent door
instead, as user 1000's byte stream of length-prefixed messages.

Fuzz/corpus-ssh-data holds what an agent is asked to sign (SignedDataCheck.swift): SSH
userauth requests, SSHSIG preimages, and near misses of both.

Fuzz/corpus-transport holds scripts for the transport target (TransportScript.swift
gives the operations): connections opened as a peer, writes split and interleaved
with turns of the event loop, half-closes, closes and reads.
Run it again after changing a scenario: python3 Fuzz/make-corpus.py
"""
import base64
import json
import os
import struct

V = "io.pinvault.Vault."
USER = "alice@example.com"
PIN, NEW_PIN = "258046", "370591"
TOKEN = base64.urlsafe_b64encode(bytes(range(32))).decode().rstrip("=")
KEY_ID = "00112233445566778899aabbccddeeff"
CHALLENGE = base64.b64encode(b"challenge bytes").decode()


def call(method, oneway=False, **parameters):
    message = {"method": method if "." in method else V + method}
    if parameters:
        message["parameters"] = parameters
    if oneway:
        message["oneway"] = True
    return json.dumps(message).encode() + b"\0"


NEXT_PEER = b"\0"
AGENT = b"\0ssh-agent\0"


def ssh_string(data):
    return struct.pack(">I", len(data)) + data


def agent(kind, body=b""):
    message = bytes([kind]) + body
    return struct.pack(">I", len(message)) + message


ED25519_BLOB = ssh_string(b"ssh-ed25519") + ssh_string(bytes(range(32)))


def userauth(key_blob=ED25519_BLOB, user=b"alice", method=b"publickey", host_key=None,
             session=bytes(range(100, 132)), service=b"ssh-connection", sig_follows=1, algorithm=b"ssh-ed25519"):
    """What ssh asks an agent to sign to log in (RFC 4252 section 7)."""
    data = (ssh_string(session) + bytes([50]) + ssh_string(user) + ssh_string(service) + ssh_string(method)
            + bytes([sig_follows]) + ssh_string(algorithm) + ssh_string(key_blob))
    return data + (ssh_string(host_key) if host_key is not None else b"")


def sshsig(namespace=b"git", algorithm=b"sha512", digest=bytes(64)):
    """What ssh-keygen -Y sign asks an agent to sign (PROTOCOL.sshsig)."""
    return b"SSHSIG" + ssh_string(namespace) + ssh_string(b"") + ssh_string(algorithm) + ssh_string(digest)


HOSTBOUND = b"publickey-hostbound-v00@openssh.com"
HOST_KEY = ssh_string(b"ssh-ed25519") + ssh_string(bytes(range(64, 96)))

SCENARIOS = {
    "policy": call("GetPolicy"),
    "check-pin": call("CheckPin", pin=PIN) + call("CheckPin", pin="123456") + call("CheckPin", pin="12a"),
    "service": call("org.varlink.service.GetInfo")
    + call("org.varlink.service.GetInterfaceDescription", interface="io.pinvault.Vault")
    + call("org.varlink.service.GetInterfaceDescription", interface="org.varlink.service"),
    "register-authenticate": call("Register", user=USER, pin=PIN, label="mail")
    + call("Authenticate", user=USER, pin=PIN, challenge=CHALLENGE)
    + call("List", user=USER)
    + call("ChangePin", user=USER, currentPin=PIN, newPin=NEW_PIN)
    + call("Authenticate", user=USER, keyId=KEY_ID, pin=NEW_PIN, challenge=CHALLENGE),
    "unregister": call("Register", user="bob", pin=PIN)
    + call("BeginUnregister", user="bob", pin=PIN)
    + call("CommitUnregister", keyId=KEY_ID, token=TOKEN)
    + call("AbortUnregister", keyId=KEY_ID, token=TOKEN),
    "lockout-then-admin": call("Register", user="carol", pin=PIN)
    + b"".join(call("Authenticate", user="carol", pin=NEW_PIN, challenge=CHALLENGE) for _ in range(6))
    + NEXT_PEER
    + call("List", ownerUid=1000)
    + call("Unblock", ownerUid=1000, user="carol", keyId=KEY_ID)
    + call("BeginUnregister", user="carol")
    + call("Wipe", user="carol", ownerUid=1000)
    + call("GetStats"),
    "wipe-and-reset": call("Register", user="dave", pin=PIN)
    + call("Register", user="dave", pin=NEW_PIN, label="second")
    + call("Authenticate", user="dave", pin=PIN, challenge=CHALLENGE)
    + call("Wipe", user="dave", pin=PIN)
    + NEXT_PEER
    + call("Reset", confirm="RESET"),
    "oneway-and-flags": call("Register", oneway=True, user="erin", pin=PIN)
    + b'{"method":"io.pinvault.Vault.GetPolicy","more":true}\0'
    + b'{"method":"io.pinvault.Vault.GetPolicy","upgrade":true}\0'
    + b'{"method":"io.pinvault.Vault.GetPolicy","oneway":1}\0',
    "escapes": b'{"method":"io.pinvault.Vault.CheckPin","parameters":{"pin":"\\u0032\\u00355\\u0038046"}}\0'
    + b'{"method":"io.pinvault.Vault.Register","parameters":{"user":"\\ud83d\\ude00 \\"x\\"\\\\","pin":"258046"}}\0',
    "malformed-parameters": call("Authenticate", user=USER, pin=PIN, challenge="not base64!")
    + call("Authenticate", user=USER, pin=PIN, challenge="")
    + b'{"method":"io.pinvault.Vault.List","parameters":{"ownerUid":1e3}}\0'
    + b'{"method":"io.pinvault.Vault.List","parameters":{"ownerUid":-1}}\0'
    + b'{"method":"io.pinvault.Vault.List","parameters":{"ownerUid":99999999999999999999}}\0'
    + call("Reset", confirm="reset")
    + call("NoSuchMethod")
    + call("org.example.Other.Method")
    + call("Register", user=USER, pin=PIN, extra=[1, {"a": None}]),
    "not-a-call": b'[1,2,[3,[4]]]\0{"method":7}\0"text"\0{}\0',
    "deep-nesting": b'{"method":"io.pinvault.Vault.GetPolicy","parameters":' + b'[' * 40 + b']' * 40 + b'}\0',
    "sessions": call("Register", user="frank", pin=PIN, label="ssh")
    + call("Unlock", user="frank", pin=PIN, ttlSeconds=60)
    + call("Unlock", user="frank", pin=NEW_PIN, ttlSeconds=60, bindToConnection=True)
    + call("Sign", keyId=KEY_ID, challenge=CHALLENGE)
    + call("List", user="frank")
    + call("Lock", keyId=KEY_ID)
    + call("Lock")
    + call("Unlock", user="frank", pin=PIN, ttlSeconds=0),
    "purposes": call("Register", user="hana", pin=PIN, purpose="ssh")
    + call("Register", user="hana", pin=PIN, purpose="login", label="login")
    + call("Register", user="hana", pin=PIN, purpose="authenticate", label="app")
    + call("Register", user="hana", pin=PIN, purpose="legacy")
    + call("Register", user="hana", pin=PIN, purpose="")
    + call("Authenticate", user="hana", pin=PIN, challenge=CHALLENGE)
    + call("Authenticate", user="hana", keyId=KEY_ID, pin=PIN, challenge=base64.b64encode(userauth()).decode())
    + call("Authenticate", user="hana", pin=PIN, challenge=base64.b64encode(sshsig()).decode())
    + call("Authenticate", user="hana", pin=PIN, challenge=base64.b64encode(b"pam_pinvault v1\0login\0hana\0" + bytes(32)).decode())
    + call("Unlock", user="hana", pin=PIN, ttlSeconds=60)
    + call("Sign", keyId=KEY_ID, challenge=base64.b64encode(sshsig()).decode())
    + call("List", user="hana"),
    "agent": call("Register", user="gina", pin=PIN, purpose="ssh")
    + call("Unlock", user="gina", pin=PIN, ttlSeconds=60)
    + AGENT
    + agent(11)
    + agent(13, ssh_string(ED25519_BLOB) + ssh_string(userauth()) + struct.pack(">I", 0))
    + agent(13, ssh_string(ED25519_BLOB) + ssh_string(sshsig()) + struct.pack(">I", 2))
    + agent(13, ssh_string(ED25519_BLOB) + ssh_string(b"data to sign") + struct.pack(">I", 0))
    + agent(13, ssh_string(ED25519_BLOB) + ssh_string(b"") + struct.pack(">I", 4))
    + agent(13, ssh_string(b"ssh-rsa") + ssh_string(b"x"))
    + agent(18, ssh_string(ED25519_BLOB))
    + agent(27, ssh_string(b"query"))
    + agent(27, ssh_string(b"session-bind@openssh.com") + ssh_string(ED25519_BLOB) + ssh_string(b"id") + ssh_string(b"sig") + b"\0")
    + agent(17, ssh_string(b"ssh-ed25519"))
    + agent(22, ssh_string(b"passphrase"))
    + agent(23, ssh_string(b"passphrase"))
    + agent(99)
    + agent(13, b"\xff\xff\xff\xff")
    + agent(19)
    + agent(11)
    + struct.pack(">I", 256 * 1024 + 1),
}


# The transport target's operations (Fuzz/pinvault-fuzz/TransportScript.swift).
USER_PEER, ADMIN_PEER, OTHER_PEER = 0, 1, 2


def op(kind, slot=0, argument=0):
    return bytes([kind | (slot << 3) | (argument << 5)])


def open_(slot, peer=USER_PEER, small_buffers=False):
    return op(0, slot, peer + (4 if small_buffers else 0))


def write(slot, data):
    """Sends of 256 bytes at most, so that any length fits the encoding."""
    out = b""
    while data:
        piece, data = data[:256], data[256:]
        out += op(1, slot, 0) + bytes([len(piece) - 1]) + piece
    return out


def write_long(slot, data):
    """One send of up to 2048 bytes."""
    assert 1 <= len(data) <= 2048
    argument = (len(data) - 1) // 256
    return op(1, slot, argument) + bytes([len(data) - 1 - 256 * argument]) + data


def turn(count=1):
    return op(2, 0, count - 1)


SETTLE = op(3)


def shut(slot):
    return op(4, slot)


def close(slot):
    return op(5, slot)


def read(slot):
    return op(6, slot)


def clock(seconds):
    return op(7, 0, seconds - 1)


def trickle(slot, data, every=1):
    """`data` in pieces of `every` bytes, a turn of the loop after each."""
    return b"".join(write(slot, data[i:i + every]) + turn() for i in range(0, len(data), every))


POLICY = call("GetPolicy")
REGISTER = call("Register", user=USER, pin=PIN)
AUTHENTICATE = call("Authenticate", user=USER, pin=PIN, challenge=CHALLENGE)
WRONG = call("Authenticate", user=USER, pin=NEW_PIN, challenge=CHALLENGE)
DESCRIPTION = call("org.varlink.service.GetInterfaceDescription", interface="io.pinvault.Vault")

TRANSPORT_SCENARIOS = {
    "one-call": open_(0) + write(0, POLICY) + SETTLE + read(0),
    "pipelined": open_(0) + write(0, POLICY + REGISTER + AUTHENTICATE + call("List") + POLICY) + SETTLE + read(0),
    "trickled": open_(0) + trickle(0, REGISTER + AUTHENTICATE, every=3) + SETTLE + read(0),
    "split-across-frames": open_(0) + write(0, POLICY[:-5]) + turn() + write(0, POLICY[-5:] + REGISTER[:9])
    + turn(2) + write(0, REGISTER[9:] + AUTHENTICATE) + SETTLE + read(0),
    "half-close-with-calls-in-flight": open_(0) + write(0, REGISTER + AUTHENTICATE + WRONG + POLICY) + shut(0)
    + turn(3) + SETTLE + read(0),
    "half-close-mid-frame": open_(0) + write(0, POLICY + AUTHENTICATE[:20]) + shut(0) + SETTLE + read(0),
    "close-with-call-in-flight": open_(0) + write(0, REGISTER + AUTHENTICATE) + turn() + close(0)
    + open_(1) + write(1, AUTHENTICATE) + SETTLE + read(1),
    "close-with-oneway-pending": open_(0) + write(0, call("Register", oneway=True, user="oneway", pin=PIN)
    + call("CheckPin", oneway=True, pin=PIN)) + close(0) + open_(0) + write(0, call("List", user="oneway")) + SETTLE,
    "two-peers-interleaved": open_(0) + open_(1, OTHER_PEER) + write(0, REGISTER[:30]) + write(1, REGISTER[:30])
    + turn() + write(1, REGISTER[30:]) + write(0, REGISTER[30:]) + turn() + write(0, AUTHENTICATE)
    + write(1, WRONG) + SETTLE + read(0) + read(1),
    "admin-and-users": open_(0) + write(0, call("Register", user="carol", pin=PIN)
    + b"".join(call("Authenticate", user="carol", pin=NEW_PIN, challenge=CHALLENGE) for _ in range(6))) + SETTLE
    + open_(1, ADMIN_PEER) + write(1, call("List", ownerUid=1000) + call("Unblock", ownerUid=1000, user="carol", keyId=KEY_ID)
    + call("Wipe", user="carol", ownerUid=1000) + call("GetStats")) + clock(8) + SETTLE + read(1) + read(0),
    "large-reply-small-buffers": open_(0, small_buffers=True) + write(0, DESCRIPTION + DESCRIPTION + POLICY)
    + turn(4) + read(0) + turn(4) + SETTLE + read(0),
    "large-reply-unread-then-close": open_(0, small_buffers=True) + write(0, DESCRIPTION) + turn(2) + close(0)
    + open_(0) + write(0, POLICY) + SETTLE,
    "not-a-call-after-calls": open_(0) + write(0, POLICY + REGISTER + b"[1,2]\0" + POLICY) + SETTLE + read(0),
    # The transport target's limit is 6000 bytes (TransportHarness.maxMessageBytes).
    "oversized": open_(0) + write(0, POLICY) + b"".join(write_long(0, b" " * 2048) + turn() for _ in range(4))
    + SETTLE + read(0),
    "grown-buffer": open_(0) + write_long(0, call("Register", user=USER, pin=PIN, label="x" * 1500)[:-1])
    + turn() + write_long(0, b" " * 2000) + turn() + write_long(0, b" " * 2000 + b"\0") + turn()
    + write_long(0, b" " * 1500 + POLICY) + SETTLE + read(0),
    "unregister": open_(0) + write(0, call("Register", user="bob", pin=PIN)
    + call("BeginUnregister", user="bob", pin=PIN)) + SETTLE + read(0)
    + write(0, call("CommitUnregister", keyId=KEY_ID, token=TOKEN)) + SETTLE + read(0),
    "service-and-errors": open_(0) + write(0, call("org.varlink.service.GetInfo") + DESCRIPTION
    + call("NoSuchMethod") + call("org.example.Other.Method") + b'{"method":"io.pinvault.Vault.GetPolicy","oneway":1}\0'
    + call("Register", user=USER, pin=PIN, extra=1)) + SETTLE + read(0),
    "all-slots": b"".join(open_(s, s % 3) for s in range(4)) + b"".join(write(s, POLICY + REGISTER) for s in range(4))
    + turn(2) + shut(2) + close(3) + SETTLE + b"".join(read(s) for s in range(3)),
}


SSH_DATA_SCENARIOS = {
    "userauth": userauth(),
    "userauth-hostbound": userauth(method=HOSTBOUND, host_key=HOST_KEY),
    "userauth-hostbound-without-host-key": userauth(method=HOSTBOUND),
    "userauth-host-key-without-hostbound": userauth(host_key=HOST_KEY),
    "userauth-no-signature": userauth(sig_follows=0),
    "userauth-other-service": userauth(service=b"ssh-userauth"),
    "userauth-nul-in-user": userauth(user=b"ali\0ce"),
    "userauth-empty-session": userauth(session=b""),
    "userauth-certificate": userauth(algorithm=b"ssh-ed25519-cert-v01@openssh.com",
                                     key_blob=ssh_string(b"ssh-ed25519-cert-v01@openssh.com") + ssh_string(bytes(32))),
    "userauth-trailing-byte": userauth() + b"\0",
    "userauth-cut": userauth()[:-7],
    "sshsig-sha512": sshsig(),
    "sshsig-sha256": sshsig(algorithm=b"sha256", digest=bytes(32)),
    "sshsig-wrong-hash-size": sshsig(algorithm=b"sha256", digest=bytes(64)),
    "sshsig-empty-namespace": sshsig(namespace=b""),
    "sshsig-trailing-byte": sshsig() + b"\0",
    "certificate-to-sign": ssh_string(b"ssh-ed25519-cert-v01@openssh.com") + ssh_string(bytes(32)) + bytes(40),
    "raw-challenge": bytes(range(32)),
    "pam-challenge": b"pam_pinvault v1\0login\0alice\0" + bytes(32),
}


# CTAP's CBOR (CBORCheck.swift): requests as python-fido2 and libfido2 send them, and
# the near misses the decoder refuses (indefinite lengths, tags, floats, duplicate keys,
# keys of other types, nesting past the limit, lengths past the end, invalid UTF-8).
CLIENT_DATA_HASH = bytes(range(32))
CBOR_SCENARIOS = {
    "get-info-empty-map": bytes([0xa0]),
    "make-credential": bytes.fromhex(
        "a4" "01" "5820") + CLIENT_DATA_HASH + bytes.fromhex(
        "02" "a2" "62" "6964" "6b" "6578616d706c652e636f6d" "64" "6e616d65" "6b" "6578616d706c652e636f6d"
        "03" "a2" "62" "6964" "44" "01020304" "64" "6e616d65" "65" "616c696365"
        "04" "81" "a2" "63" "616c67" "26" "64" "74797065" "6a" "7075626c69632d6b6579"),
    "get-assertion-allow-list": bytes.fromhex(
        "a3" "01" "6b" "6578616d706c652e636f6d" "02" "5820") + CLIENT_DATA_HASH + bytes.fromhex(
        "03" "81" "a2" "62" "6964" "50") + bytes(16) + bytes.fromhex("64" "74797065" "6a" "7075626c69632d6b6579"),
    "client-pin-key-agreement": bytes.fromhex(
        "a3" "01" "02" "02" "02" "03" "a5" "01" "02" "03" "38" "18" "20" "01" "21" "5820") + bytes(32) + bytes.fromhex("22" "5820") + bytes(32),
    "integers-every-width": bytes.fromhex("88" "17" "1818" "190100" "1a00010000" "1b0000000100000000" "37" "3818" "3bffffffffffffffff"),
    "simple-values": bytes.fromhex("83" "f4" "f5" "f6"),
    "non-minimal-integer": bytes.fromhex("a1" "1801" "00"),
    "keys-out-of-order": bytes.fromhex("a2" "02" "00" "01" "00"),
    "indefinite-array": bytes.fromhex("9f" "01" "ff"),
    "indefinite-bytes": bytes.fromhex("5f" "41" "00" "ff"),
    "tag": bytes.fromhex("c2" "41" "01"),
    "float": bytes.fromhex("f9" "3c00"),
    "undefined": bytes.fromhex("f7"),
    "duplicate-key": bytes.fromhex("a2" "01" "00" "01" "01"),
    "bytes-key": bytes.fromhex("a1" "41" "00" "00"),
    "deep-nesting": bytes.fromhex("81" * 9 + "00"),
    "deepest-allowed": bytes.fromhex("81" * 8 + "00"),
    "length-past-end": bytes.fromhex("5a" "ffffffff" "00"),
    "count-past-end": bytes.fromhex("9b" "ffffffffffffffff"),
    "invalid-utf8": bytes.fromhex("62" "c328"),
    "trailing-byte": bytes.fromhex("a0" "00"),
    "truncated-head": bytes.fromhex("19" "01"),
    "reserved-info": bytes.fromhex("1c"),
}


# CTAP2 commands through the security key (CTAPCommandCheck.swift): each step an opcode
# byte (low 4 bits the step, high bits the channel: 0 and 1 of uid 1000, 2 of uid 1001)
# and its operands. The harness's platform encrypts PINs and proves tokens itself.
def ctap(op, channel=0, *operands):
    return bytes([channel << 4 | op]) + bytes(operands)


def ctap_set_pin(pin=0, channel=0):
    return ctap(2, channel, pin)


def ctap_token(pin=0, permissions=0x03, channel=0, legacy=False, rp=0):
    choice = pin | (4 if legacy else 0) | rp << 3
    return ctap(3, channel, choice) if legacy else ctap(3, channel, choice, permissions)


def ctap_make(rp=0, user=b"\x07", algorithms=(0, 1), proof=0, exclude=False, channel=0):
    choice = rp | (8 if exclude else 0) | proof << 4
    return ctap(6, channel, choice) + CLIENT_DATA_HASH + bytes([len(user)]) + user + bytes(algorithms)


def ctap_sign_in(rp=0, allow=0, presence=None, proof=0, channel=0):
    choice = rp | allow << 2 | proof << 6
    if presence is not None:
        choice |= 0x10 | (0x20 if presence else 0)
    return ctap(7, channel, choice) + CLIENT_DATA_HASH


CTAP_SIGN_IN = ctap_set_pin() + ctap_token() + ctap_make() + ctap_sign_in(presence=False)
CTAP_SCENARIOS = {
    "get-info": ctap(10),
    "selection": ctap(10, 0, 1),
    "retries-no-pin": ctap(5),
    "set-pin-sign-in": CTAP_SIGN_IN,
    "sign-in-allow-list": CTAP_SIGN_IN + ctap_sign_in(allow=1, presence=False) + ctap_sign_in(allow=2, presence=False),
    "sign-in-presence-again": CTAP_SIGN_IN + ctap_sign_in(presence=True) + ctap_sign_in(),
    "sign-in-wrong-proof": CTAP_SIGN_IN + ctap_sign_in(proof=1, presence=False) + ctap_sign_in(proof=2),
    "two-passkeys-next": ctap_set_pin() + ctap_token() + ctap_make() + ctap_token() + ctap_make(user=b"\x08", algorithms=(1, 0))
    + ctap_token() + ctap_sign_in(presence=False) + ctap(8) + ctap(8),
    "exclude-list": CTAP_SIGN_IN + ctap_token() + ctap_make(exclude=True),
    "other-rp": CTAP_SIGN_IN + ctap_sign_in(rp=2, presence=False),
    "token-bound-rp": ctap_set_pin() + ctap_token(rp=1) + ctap_make(rp=0) + ctap_make(rp=1),
    "protocol-one": ctap(1, 0, 1) + CTAP_SIGN_IN,
    "get-pin-token": ctap_set_pin() + ctap_token(legacy=True) + ctap_make() + ctap_sign_in(presence=False),
    "wrong-pins-block": ctap_set_pin() + ctap_token(pin=1) * 6 + ctap(5) + ctap(13, 0, 5) + ctap_token(),
    "policy-short-pin": ctap_set_pin(pin=2) + ctap(5),
    "set-pin-twice": ctap_set_pin() + ctap_set_pin(pin=1),
    "change-pin": ctap_set_pin() + ctap(4, 0, 0 | 1 << 2) + ctap_token(pin=0) + ctap_token(pin=1),
    "change-pin-wrong": ctap_set_pin() + ctap(4, 0, 1 | 0 << 2) + ctap(5),
    "permissions-none": ctap_set_pin() + ctap_token(permissions=0) + ctap_token(permissions=8) + ctap_token(permissions=2) + ctap_make(),
    "cred-mgmt": ctap_set_pin() + ctap_token(permissions=0x07) + ctap_make() + ctap_token(permissions=0x04)
    + ctap(9, 0, 0) + ctap(9, 0, 1) + ctap(9, 0, 2) + ctap(9, 0, 3) + ctap(9, 0, 4) + ctap(9, 0, 5) + ctap(9, 0, 1),
    "cred-mgmt-wrong-proof": ctap_set_pin() + ctap_token(permissions=0x04) + ctap(9, 0, 0x40) + ctap(9, 0, 0x80 | 5 | 0x20),
    "other-uid": CTAP_SIGN_IN + ctap_set_pin(channel=2) + ctap_token(channel=2) + ctap_sign_in(allow=1, presence=False, channel=2),
    "other-channel-token": CTAP_SIGN_IN + ctap_sign_in(presence=False, channel=1),
    "channel-closed": CTAP_SIGN_IN + ctap(12) + ctap_sign_in(presence=False),
    "reset": CTAP_SIGN_IN + ctap(11) + ctap(5) + ctap_sign_in(presence=False),
    "raw-garbage": ctap(0, 0, 0x01, 3, 0xa1, 0x01, 0x5a) + ctap(0, 0, 0x42, 0) + ctap(0, 0, 0x06, 1, 0xa0),
    "fuzzed-map-sign-in": CTAP_SIGN_IN + ctap(14, 0, 1, 12) + bytes.fromhex("a2" "01" "6b") + b"example.com" + bytes.fromhex("02" "5820")
    + CLIENT_DATA_HASH + bytes(3),
}


def write_corpus(name, scenarios):
    directory = os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
    os.makedirs(directory, exist_ok=True)
    for scenario, data in scenarios.items():
        with open(os.path.join(directory, scenario), "wb") as file:
            file.write(data)


if __name__ == "__main__":
    write_corpus("corpus", SCENARIOS)
    write_corpus("corpus-transport", TRANSPORT_SCENARIOS)
    write_corpus("corpus-ssh-data", SSH_DATA_SCENARIOS)
    write_corpus("corpus-cbor", CBOR_SCENARIOS)
    write_corpus("corpus-ctap", CTAP_SCENARIOS)
