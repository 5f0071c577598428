#!/usr/bin/python3
"""The daemon restarts under a logged-in program (docs/PKCS11.md, "Limits").

    reconnect.py MODULE TOKEN_LABEL DIRECTORY        (the PIN on stdin, one line)

Logs in and signs; creates DIRECTORY/paused and waits for DIRECTORY/resume, while
the test restarts pinvaultd, which closes the module's connection and so ends the
login (an unlock bound to it). Then: C_GetTokenInfo answers on a new connection
(no CKR_DEVICE_ERROR for a connection the daemon closed), C_Sign says
CKR_USER_NOT_LOGGED_IN, a new login signs. Prints one JSON object.
"""
import json
import os
import sys
import time

import PyKCS11


def sign(session, key, data):
    try:
        return "CKR_OK", bytes(session.sign(key, data, PyKCS11.Mechanism(PyKCS11.CKM_EDDSA, None))).hex()
    except PyKCS11.PyKCS11Error as error:
        return PyKCS11.CKR.get(error.value, hex(error.value)), ""


def step(out, name, call):
    try:
        call()
        out[name] = "CKR_OK"
    except PyKCS11.PyKCS11Error as error:
        out[name] = PyKCS11.CKR.get(error.value, hex(error.value))


def main():
    module, label, directory = sys.argv[1], sys.argv[2], sys.argv[3]
    pin = sys.stdin.readline().rstrip("\n")
    pkcs11 = PyKCS11.PyKCS11Lib()
    pkcs11.load(module)
    slot = next(s for s in pkcs11.getSlotList(tokenPresent=True) if pkcs11.getTokenInfo(s).label.strip() == label)
    session = pkcs11.openSession(slot, PyKCS11.CKF_SERIAL_SESSION)
    out = {}
    step(out, "login", lambda: session.login(pin))
    keys = session.findObjects([(PyKCS11.CKA_CLASS, PyKCS11.CKO_PRIVATE_KEY)])
    if not keys:
        raise SystemExit("no private key after the login")
    key = keys[0]  # the handle found while logged in, used after the login ended
    out["sign"], out["signature"] = sign(session, key, b"before the restart")

    open(os.path.join(directory, "paused"), "w").close()
    deadline = time.monotonic() + 300
    while not os.path.exists(os.path.join(directory, "resume")):
        if time.monotonic() > deadline:
            raise SystemExit("the test never resumed")
        time.sleep(0.05)

    step(out, "token info after the restart", lambda: pkcs11.getTokenInfo(slot))
    out["sign after the restart"], _ = sign(session, key, b"after the restart")
    step(out, "login again", lambda: session.login(pin))
    out["sign again"], out["signature again"] = sign(session, key, b"after the restart")
    step(out, "logout", session.logout)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
