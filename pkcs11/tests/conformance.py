#!/usr/bin/python3
"""The same PKCS#11 calls against one module, with what each returned, as JSON.

    conformance.py MODULE TOKEN_LABEL          (the PIN on stdin, one line)

Run by PinVaultPKCS11Tests against pinvault-pkcs11.so and against SoftHSM2 (the
reference module), so that the two can be compared where PKCS#11 3.0 says what a
module must answer. Each step's name maps to the CKR_ name it got (or a value).
Debian's python3-pykcs11; the PIN never goes on argv.
"""
import json
import sys

import PyKCS11
from PyKCS11 import LowLevel

results = {}


def ckr(rv):
    return PyKCS11.CKR.get(rv, hex(rv))


def step(name, rv):
    results[name] = ckr(rv)
    return rv


def call(name, function, *arguments):
    """Runs a PyKCS11 call, records CKR_OK or the error it raised, and returns its result (None on error)."""
    try:
        result = function(*arguments)
        results[name] = "CKR_OK"
        return result
    except PyKCS11.PyKCS11Error as error:
        results[name] = ckr(error.value)
        return None


def main():
    module, label = sys.argv[1], sys.argv[2]
    pin = sys.stdin.readline().rstrip("\n")
    pkcs11 = PyKCS11.PyKCS11Lib()
    pkcs11.load(module)  # C_GetFunctionList, C_Initialize
    low = pkcs11.lib
    step("C_Initialize again", low.C_Initialize())
    call("C_GetInfo", pkcs11.getInfo)

    slot = None
    for candidate in pkcs11.getSlotList(tokenPresent=True):
        token = pkcs11.getTokenInfo(candidate)
        if token.label.strip() == label:
            slot = candidate
            results["token flags"] = {
                "login required": bool(token.flags & PyKCS11.CKF_LOGIN_REQUIRED),
                "user PIN initialized": bool(token.flags & PyKCS11.CKF_USER_PIN_INITIALIZED),
                "token initialized": bool(token.flags & PyKCS11.CKF_TOKEN_INITIALIZED),
            }
    if slot is None:
        print(json.dumps({"error": "no token " + label}))
        return 1
    call("C_GetTokenInfo of no slot", pkcs11.getTokenInfo, 0x7FFF0000)
    mechanisms = call("C_GetMechanismList", pkcs11.getMechanismList, slot) or []
    results["CKM_EDDSA listed"] = "CKM_EDDSA" in mechanisms

    step("C_OpenSession without CKF_SERIAL_SESSION", low.C_OpenSession(slot, 0, LowLevel.CK_SESSION_HANDLE()))
    session = call("C_OpenSession", pkcs11.openSession, slot, PyKCS11.CKF_SERIAL_SESSION)
    results["private keys before login"] = len(session.findObjects([(PyKCS11.CKA_CLASS, PyKCS11.CKO_PRIVATE_KEY)]))
    public = session.findObjects([(PyKCS11.CKA_CLASS, PyKCS11.CKO_PUBLIC_KEY)])
    results["public keys before login"] = len(public)

    call("C_Login with a wrong PIN", session.login, "000000")
    call("C_Login", session.login, pin)
    call("C_Login again", session.login, pin)
    private = session.findObjects([(PyKCS11.CKA_CLASS, PyKCS11.CKO_PRIVATE_KEY)])
    results["private keys after login"] = len(private)
    key = private[0]

    values = call("C_GetAttributeValue", session.getAttributeValue, key,
                  [PyKCS11.CKA_KEY_TYPE, PyKCS11.CKA_SIGN, PyKCS11.CKA_SENSITIVE, PyKCS11.CKA_EXTRACTABLE,
                   PyKCS11.CKA_PRIVATE])
    if values is not None:
        results["private key"] = {
            "CKA_KEY_TYPE": PyKCS11.CKK.get(values[0]),
            "CKA_SIGN": bool(values[1]),
            "CKA_SENSITIVE": bool(values[2]),
            "CKA_EXTRACTABLE": bool(values[3]),
            "CKA_PRIVATE": bool(values[4]),
        }
    for name, attribute in [("CKA_VALUE", PyKCS11.CKA_VALUE), ("CKA_MODULUS", PyKCS11.CKA_MODULUS)]:
        template = LowLevel.ckattrlist(1)
        template[0].SetType(attribute)
        step("C_GetAttributeValue " + name + " of the private key", low.C_GetAttributeValue(session.session, key, template))
    ec_point = bytes(session.getAttributeValue(public[0], [PyKCS11.CKA_EC_POINT])[0])
    public_key = ec_point[2:] if len(ec_point) == 34 and ec_point[:2] == b"\x04\x20" else ec_point

    mechanism = PyKCS11.Mechanism(PyKCS11.CKM_EDDSA, None).to_native()
    data = PyKCS11.ckbytelist(b"conformance: the same calls to every module")
    step("C_Sign without C_SignInit", low.C_Sign(session.session, data, PyKCS11.ckbytelist()))
    step("C_SignInit with the public key", low.C_SignInit(session.session, mechanism, public[0]))
    step("C_SignInit", low.C_SignInit(session.session, mechanism, key))
    step("C_SignInit while signing", low.C_SignInit(session.session, mechanism, key))
    step("C_SignUpdate", low.C_SignUpdate(session.session, data))
    step("C_Sign after a failed C_SignUpdate", low.C_Sign(session.session, data, PyKCS11.ckbytelist()))
    signature = call("C_Sign", session.sign, key, bytes(data), PyKCS11.Mechanism(PyKCS11.CKM_EDDSA, None))
    results["signature"] = bytes(signature).hex() if signature is not None else ""
    results["public key"] = public_key.hex()
    step("C_Sign after the signature", low.C_Sign(session.session, data, PyKCS11.ckbytelist()))

    call("C_Logout", session.logout)
    call("C_Logout again", session.logout)
    results["private keys after logout"] = len(session.findObjects([(PyKCS11.CKA_CLASS, PyKCS11.CKO_PRIVATE_KEY)]))
    step("C_SignInit after logout", low.C_SignInit(session.session, mechanism, key))
    call("C_GenerateRandom", session.generateRandom, 8)
    call("C_CloseSession", session.closeSession)
    step("C_CloseSession again", low.C_CloseSession(session.session))
    step("C_Finalize", low.C_Finalize())
    step("C_GetInfo after C_Finalize", low.C_GetInfo(LowLevel.CK_INFO()))
    print(json.dumps(results, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
