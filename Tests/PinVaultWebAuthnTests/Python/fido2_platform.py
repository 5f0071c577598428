"""python-fido2 (Yubico's) as the platform, and its Fido2Server as the relying party,
against PinVault's authenticator over a pipe: each CTAPHID_CBOR message goes to stdout
as a 4-byte big-endian length and the bytes, each reply comes back on stdin so. The
Swift test (AuthenticatorInteropTests) hands them to the authenticator in process.
Exit status 0 when every step did what CTAP and WebAuthn say; a traceback otherwise."""
import struct
import sys

from fido2.ctap import CtapDevice, CtapError
from fido2.ctap2 import ClientPin, CredentialManagement, Ctap2
from fido2.hid import CAPABILITY, CTAPHID
from fido2.server import Fido2Server
from fido2.webauthn import (AttestationObject, AuthenticationResponse, AuthenticatorAssertionResponse,
                            AuthenticatorAttestationResponse, CollectedClientData, PublicKeyCredentialRpEntity,
                            PublicKeyCredentialUserEntity, RegistrationResponse, ResidentKeyRequirement,
                            UserVerificationRequirement)

PIN = "482915"
ORIGIN = "https://example.com"
out, inp = sys.stdout.buffer, sys.stdin.buffer


class PipeDevice(CtapDevice):
    @property
    def capabilities(self):
        return CAPABILITY.CBOR

    def call(self, cmd, data=b"", event=None, on_keepalive=None):
        assert cmd == CTAPHID.CBOR
        out.write(struct.pack(">I", len(data)) + data)
        out.flush()
        (length,) = struct.unpack(">I", inp.read(4))
        return inp.read(length)

    def close(self):
        pass

    @classmethod
    def list_devices(cls):
        return iter(())


def expect_error(code, call):
    try:
        call()
    except CtapError as error:
        assert error.code == code, f"{error.code!r}, not {code!r}"
        return
    raise AssertionError(f"no {code!r}")


ctap = Ctap2(PipeDevice())
assert ctap.info.versions == ["FIDO_2_0", "FIDO_2_1"], ctap.info.versions
assert ctap.info.options.get("clientPin") is False
client_pin = ClientPin(ctap)
client_pin.set_pin(PIN)
assert client_pin.get_pin_retries()[0] == 8
protocol = client_pin.protocol
permissions = ClientPin.PERMISSION.MAKE_CREDENTIAL | ClientPin.PERMISSION.GET_ASSERTION

# Registration, ES256 only, verified by Fido2Server.
server = Fido2Server(PublicKeyCredentialRpEntity(id="example.com", name="Example"))
server.allowed_algorithms = [p for p in server.allowed_algorithms if p.alg == -7]
options, state = server.register_begin(
    PublicKeyCredentialUserEntity(id=b"user-1", name="alice", display_name="Alice"),
    resident_key_requirement=ResidentKeyRequirement.REQUIRED, user_verification=UserVerificationRequirement.REQUIRED)
public_key = options.public_key
assert [p.alg for p in public_key.pub_key_cred_params] == [-7]
client_data = CollectedClientData.create("webauthn.create", public_key.challenge, ORIGIN)
token = client_pin.get_pin_token(PIN, permissions, "example.com")
made = ctap.make_credential(
    client_data.hash, {"id": "example.com", "name": "Example"},
    {"id": b"user-1", "name": "alice", "displayName": "Alice"},
    [{"type": "public-key", "alg": p.alg} for p in public_key.pub_key_cred_params],
    options={"rk": True}, pin_uv_param=protocol.authenticate(token, client_data.hash), pin_uv_protocol=protocol.VERSION)
assert made.fmt == "packed", made.fmt
attestation_object = AttestationObject.create(made.fmt, made.auth_data, made.att_stmt)
credential_id = made.auth_data.credential_data.credential_id
auth_data = server.register_complete(state, RegistrationResponse(
    raw_id=credential_id,
    response=AuthenticatorAttestationResponse(client_data=client_data, attestation_object=attestation_object)))
credential = auth_data.credential_data
assert credential.public_key[3] == -7

# A wrong PIN: PIN_INVALID, counted, shown by getPINRetries.
expect_error(CtapError.ERR.PIN_INVALID, lambda: client_pin.get_pin_token("000000", permissions))
assert client_pin.get_pin_retries()[0] == 7, client_pin.get_pin_retries()
print("retries after a wrong PIN: 7", file=sys.stderr)

# A discoverable sign-in (no allowList), verified by Fido2Server.
options, state = server.authenticate_begin(user_verification=UserVerificationRequirement.REQUIRED)
client_data = CollectedClientData.create("webauthn.get", options.public_key.challenge, ORIGIN)
token = client_pin.get_pin_token(PIN, permissions, "example.com")
assert client_pin.get_pin_retries()[0] == 8
assertion = ctap.get_assertion(
    "example.com", client_data.hash, None, pin_uv_param=protocol.authenticate(token, client_data.hash),
    pin_uv_protocol=protocol.VERSION)
assert assertion.user["id"] == b"user-1"
server.authenticate_complete(state, [credential], AuthenticationResponse(
    raw_id=assertion.credential["id"],
    response=AuthenticatorAssertionResponse(
        client_data=client_data, authenticator_data=assertion.auth_data, signature=assertion.signature,
        user_handle=assertion.user["id"])))

# Another rp id: no credential there (the token names example.com: a fresh one for it).
token = client_pin.get_pin_token(PIN, permissions)
expect_error(CtapError.ERR.NO_CREDENTIALS, lambda: ctap.get_assertion(
    "evil.example", client_data.hash, None, pin_uv_param=protocol.authenticate(token, client_data.hash),
    pin_uv_protocol=protocol.VERSION))
# CredentialManagement, as python-fido2 drives it: metadata, relying parties, their
# credentials, and a deletion, after which the relying party has no credential here.
management = CredentialManagement(ctap, protocol, client_pin.get_pin_token(PIN, ClientPin.PERMISSION.CREDENTIAL_MGMT))
assert management.get_metadata()[CredentialManagement.RESULT.EXISTING_CRED_COUNT] == 1
rps = management.enumerate_rps()
assert [rp[CredentialManagement.RESULT.RP]["id"] for rp in rps] == ["example.com"], rps
creds = management.enumerate_creds(rps[0][CredentialManagement.RESULT.RP_ID_HASH])
assert creds[0][CredentialManagement.RESULT.CREDENTIAL_ID]["id"] == credential_id
assert creds[0][CredentialManagement.RESULT.USER]["id"] == b"user-1"
management.delete_cred(creds[0][CredentialManagement.RESULT.CREDENTIAL_ID])
assert management.get_metadata()[CredentialManagement.RESULT.EXISTING_CRED_COUNT] == 0
print("ok", file=sys.stderr)
out.write(struct.pack(">I", 0))
out.flush()
