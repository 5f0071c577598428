#!/usr/bin/python3
"""Two processes on one token: what a login shared by the uid means (docs/PKCS11.md).

    two_processes.py MODULE TOKEN_LABEL        (the PIN on stdin, one line)

The first process logs in and signs; it starts a second process (this script with
--second), which logs in to the same token, signs, and finalizes (C_Finalize locks
the key for the uid); the first then signs again, is told CKR_USER_NOT_LOGGED_IN,
logs in again and signs. Prints one JSON object with what each step got and the
signatures (hex) with the data they sign, for the test to verify.
"""
import json
import subprocess
import sys

import PyKCS11


def open_token(module, label):
    pkcs11 = PyKCS11.PyKCS11Lib()
    pkcs11.load(module)
    for slot in pkcs11.getSlotList(tokenPresent=True):
        if pkcs11.getTokenInfo(slot).label.strip() == label:
            return pkcs11, pkcs11.openSession(slot, PyKCS11.CKF_SERIAL_SESSION)
    raise SystemExit("no token " + label)


def sign(session, data):
    key = session.findObjects([(PyKCS11.CKA_CLASS, PyKCS11.CKO_PRIVATE_KEY)])
    if not key:
        return "no private key", None
    try:
        return "CKR_OK", bytes(session.sign(key[0], data, PyKCS11.Mechanism(PyKCS11.CKM_EDDSA, None))).hex()
    except PyKCS11.PyKCS11Error as error:
        return PyKCS11.CKR.get(error.value, hex(error.value)), None


def main():
    second = sys.argv[1] == "--second"
    module, label = sys.argv[-2], sys.argv[-1]
    pin = sys.stdin.readline().rstrip("\n")
    pkcs11, session = open_token(module, label)
    out = {}
    session.login(pin)
    if second:
        out["second sign"], out["second signature"] = sign(session, b"second process")
        pkcs11.lib.C_Finalize()
        print(json.dumps(out))
        return 0
    out["first sign"], out["first signature"] = sign(session, b"first process")
    child = subprocess.run([sys.executable, __file__, "--second", module, label], input=pin + "\n",
                           capture_output=True, text=True, timeout=60)
    out["second"] = json.loads(child.stdout) if child.returncode == 0 else {"failed": child.stderr}
    out["first sign after the second finalized"], _ = sign(session, b"first process again")
    try:
        session.login(pin)
        out["first login again"] = "CKR_OK"
    except PyKCS11.PyKCS11Error as error:
        out["first login again"] = PyKCS11.CKR.get(error.value, hex(error.value))
    out["first sign again"], out["first signature again"] = sign(session, b"first process again")
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
