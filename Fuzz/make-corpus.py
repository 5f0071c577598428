#!/usr/bin/env python3
"""Writes Fuzz/corpus: seed inputs for pinvault-fuzz, one file per scenario.

Each file is a stream of NUL-ended Varlink calls from one peer. An empty frame (two
NULs in a row) is not a Varlink call: the harness's connection closes, and the calls
after it come from the next peer (user 1000, then admin uid 0, then user 1001).
What follows the marker AGENT (NUL, "ssh-agent", NUL) goes to the ssh-agent door
instead, as user 1000's byte stream of length-prefixed messages.
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
    "agent": call("Register", user="gina", pin=PIN)
    + call("Unlock", user="gina", pin=PIN, ttlSeconds=60)
    + AGENT
    + agent(11)
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

if __name__ == "__main__":
    directory = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    os.makedirs(directory, exist_ok=True)
    for name, data in SCENARIOS.items():
        with open(os.path.join(directory, name), "wb") as file:
            file.write(data)
