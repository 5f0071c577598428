"""One ClientPIN step of python-fido2 (protocol two) on pinvaultd's CTAPHID socket, for
the crash tests (PasskeyCrashTests): `set-pin`, `wrong-pin` (a
getPinUvAuthTokenUsingPinWithPermissions with a wrong PIN, which must be answered
PIN_INVALID — or not at all, when the daemon is killed under it) and `retries`, which
prints getPINRetries' count. Usage: fido2_pin.py SOCKET STEP."""
import sys

from fido2.ctap import CtapError
from fido2.ctap2 import ClientPin, Ctap2

from ctaphid_socket import open_device

PIN, WRONG_PIN = "482915", "000000"
path, step = sys.argv[1], sys.argv[2]
client_pin = ClientPin(Ctap2(open_device(path)))
if step == "set-pin":
    client_pin.set_pin(PIN)
elif step == "wrong-pin":
    try:
        client_pin.get_pin_token(WRONG_PIN, ClientPin.PERMISSION.GET_ASSERTION, "example.com")
    except CtapError as error:
        assert error.code == CtapError.ERR.PIN_INVALID, error
        print("PIN_INVALID")
    except OSError:
        print("no answer")
    else:
        raise AssertionError("a wrong PIN gave a token")
elif step == "retries":
    print(client_pin.get_pin_retries()[0])
else:
    raise SystemExit(f"unknown step {step}")
