#!/usr/bin/python3
"""A fork after C_Initialize (PKCS#11 3.0 §6.7.6): the child must initialize again.

    fork.py MODULE TOKEN_LABEL        (the PIN on stdin, one line)

The parent logs in; the child's first call answers CKR_CRYPTOKI_NOT_INITIALIZED,
its C_Initialize succeeds and it sees the token on a connection of its own, and its
C_Finalize does not log the parent out: the parent signs after the child exited.
"""
import json
import os
import sys

import PyKCS11
from PyKCS11 import LowLevel


def main():
    module, label = sys.argv[1], sys.argv[2]
    pin = sys.stdin.readline().rstrip("\n")
    pkcs11 = PyKCS11.PyKCS11Lib()
    pkcs11.load(module)
    slot = next(s for s in pkcs11.getSlotList(tokenPresent=True) if pkcs11.getTokenInfo(s).label.strip() == label)
    session = pkcs11.openSession(slot, PyKCS11.CKF_SERIAL_SESSION)
    session.login(pin)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        child = {}
        slots = LowLevel.ckintlist()
        child["C_GetSlotList before C_Initialize"] = PyKCS11.CKR.get(pkcs11.lib.C_GetSlotList(1, slots))
        child["C_Initialize"] = PyKCS11.CKR.get(pkcs11.lib.C_Initialize())
        slots = LowLevel.ckintlist()
        child["C_GetSlotList"] = PyKCS11.CKR.get(pkcs11.lib.C_GetSlotList(1, slots))
        child["tokens"] = len(slots)
        child["C_Finalize"] = PyKCS11.CKR.get(pkcs11.lib.C_Finalize())
        os.write(write, json.dumps(child).encode())
        os._exit(0)
    os.close(write)
    child = json.loads(os.read(read, 65536).decode())
    os.waitpid(pid, 0)
    key = session.findObjects([(PyKCS11.CKA_CLASS, PyKCS11.CKO_PRIVATE_KEY)])
    try:
        signature = bytes(session.sign(key[0], b"after the fork", PyKCS11.Mechanism(PyKCS11.CKM_EDDSA, None))).hex()
        parent = "CKR_OK"
    except (PyKCS11.PyKCS11Error, IndexError) as error:
        signature, parent = "", str(error)
    print(json.dumps({"child": child, "parent sign after the child": parent, "signature": signature}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
