"""Yubico's python-fido2 as the browser (its Fido2Client over a CtapHidDevice on
pinvaultd's CTAPHID socket) and its Fido2Server as the relying party. The Swift test
(PasskeyEndToEndTests) starts the daemon, runs this with the socket's path, and reads the
daemon's List afterwards; UHIDBridgeTests runs it with "uhid-kernel:PATH" instead, to go
through pinvault-uhid's virtual device (ctaphid_socket.py). Exit status 0 when every step
did what CTAP and WebAuthn say; a traceback otherwise. The last step leaves one wrong PIN
counted."""
import sys

from fido2.client import ClientError, DefaultClientDataCollector, Fido2Client, UserInteraction
from fido2.ctap import CtapError
from fido2.ctap2 import ClientPin, Ctap2
from fido2.server import Fido2Server
from fido2.webauthn import (PublicKeyCredentialRpEntity, PublicKeyCredentialUserEntity, ResidentKeyRequirement,
                            UserVerificationRequirement)

from ctaphid_socket import open_device

PIN = "482915"


class PinInteraction(UserInteraction):
    """The user, as a browser asks them: presence is given, the PIN typed."""

    def prompt_up(self):
        pass

    def request_pin(self, permissions, rp_id):
        return PIN

    def request_uv(self, permissions, rp_id):
        return True


def expect_error(code, call):
    try:
        call()
    except CtapError as error:
        assert error.code == code, f"{error.code!r}, not {code!r}"
        return
    except ClientError as error:
        assert isinstance(error.cause, CtapError) and error.cause.code == code, f"{error!r} ({error.cause!r}), not {code!r}"
        return
    raise AssertionError(f"no {code!r}")


path = sys.argv[1]
device = open_device(path)
ctap = Ctap2(device)
client_pin = ClientPin(ctap)
client_pin.set_pin(PIN)
retries = client_pin.get_pin_retries()[0]
assert retries > 1, retries
client = Fido2Client(device, DefaultClientDataCollector("https://example.com"), PinInteraction())

# Registration with ES256-only options, verified by Fido2Server.
server = Fido2Server(PublicKeyCredentialRpEntity(id="example.com", name="Example"))
server.allowed_algorithms = [p for p in server.allowed_algorithms if p.alg == -7]
options, state = server.register_begin(
    PublicKeyCredentialUserEntity(id=b"user-1", name="alice", display_name="Alice"),
    resident_key_requirement=ResidentKeyRequirement.REQUIRED, user_verification=UserVerificationRequirement.REQUIRED)
assert [p.alg for p in options.public_key.pub_key_cred_params] == [-7]
registration = client.make_credential(options.public_key)
auth_data = server.register_complete(state, registration)
credential = auth_data.credential_data
assert credential.public_key[3] == -7, credential.public_key
assert auth_data.is_user_verified()
print("registered", file=sys.stderr)

# A discoverable sign-in (no allowList), verified by Fido2Server.
options, state = server.authenticate_begin(user_verification=UserVerificationRequirement.REQUIRED)
assert not options.public_key.allow_credentials
selection = client.get_assertion(options.public_key)
response = selection.get_response(0)
assert response.response.user_handle == b"user-1", response.response.user_handle
server.authenticate_complete(state, [credential], response)
print("signed in", file=sys.stderr)

# Another rp id: the same browser on another origin finds no credential there.
other = Fido2Client(device, DefaultClientDataCollector("https://evil.example"), PinInteraction())
other_server = Fido2Server(PublicKeyCredentialRpEntity(id="evil.example", name="Evil"))
options, state = other_server.authenticate_begin(user_verification=UserVerificationRequirement.REQUIRED)
expect_error(CtapError.ERR.NO_CREDENTIALS, lambda: other.get_assertion(options.public_key))
print("another rp id refused", file=sys.stderr)

# A wrong PIN: PIN_INVALID, counted, shown by getPINRetries (and by List, read after).
expect_error(CtapError.ERR.PIN_INVALID, lambda: client_pin.get_pin_token(
    "000000", ClientPin.PERMISSION.GET_ASSERTION, "example.com"))
assert client_pin.get_pin_retries()[0] == retries - 1, (retries, client_pin.get_pin_retries())
print(retries - 1, flush=True)
device.close()
print("ok", file=sys.stderr)
