#!/usr/bin/env python3
"""Recover a PinVault seed from a database row, the pepper and the PIN.

An independent reading of docs/FORMAT.md: it uses no PinVault code, only the standard
library's hashlib.blake2b and PyNaCl's Argon2id (nacl.pwhash.argon2id.kdf) and
XSalsa20-Poly1305 (nacl.secret.SecretBox).

    pip install pynacl

    # the worked example of docs/FORMAT.md, checked value by value:
    python3 docs/recover_seed.py --example

    # a real row (run as the vault's owner; prints the 32-byte seed as hex, and for a
    # p256 key the private scalar derived from it, FORMAT.md section 6):
    python3 docs/recover_seed.py --database /var/lib/pinvault/vault.sqlite \\
        --key-id 7849ac3049680be1ef762efe0d36e017 --pepper /var/lib/pinvault/pepper

The PIN is read from the terminal without echo, or as one line from standard input
with --pin-stdin. The recovered seed is a secret: it is the credential's private key.
"""

import argparse
import getpass
import hashlib
import hmac
import sqlite3
import struct
import sys

import nacl.exceptions
import nacl.pwhash
import nacl.secret

FORMAT_VERSIONS = (1, 2, 3)
# The purpose byte of formats 2 and 3 (FORMAT.md section 3); a format-1 record is legacy
# and has none.
PURPOSE_BYTES = {"authenticate": 1, "ssh": 2, "login": 3}
# Format 3's algorithm byte; formats 1 and 2 hold none and are ed25519.
ALGORITHM_BYTES = {"ed25519": 1, "p256": 2}
PUBLIC_KEY_SIZES = {"ed25519": 32, "p256": 65}
# The P-256 group order, and the label of the scalar's derivation (FORMAT.md section 6).
P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
P256_LABEL = b"PinVault P-256 scalar v1"
TAG = b"pinvault"
ALG_ARGON2ID13 = 2
SALT_SIZE = 16
NONCE_SIZE = 24
SEALED_SEED_SIZE = 48
PEPPER_SIZE = 32
PIN_KEY_SIZE = 32


def key_id_of(public_key: bytes) -> str:
    """keyId: the first 16 bytes of unkeyed BLAKE2b-256 of the public key, as hex."""
    return hashlib.blake2b(public_key, digest_size=32).digest()[:16].hex()


def header_encoding(row: dict) -> bytes:
    """The canonical header: every field the box key authenticates."""
    user = row["user"].encode("utf-8")
    if len(user) > 0xFFFF:
        raise ValueError("user longer than its 2-byte length field")
    purpose = b"" if row["format_version"] == 1 else bytes([PURPOSE_BYTES[row["purpose"]]])
    algorithm = bytes([ALGORITHM_BYTES[row["algorithm"]]]) if row["format_version"] == 3 else b""
    return (
        TAG
        + bytes([row["format_version"]])
        + purpose
        + algorithm
        + struct.pack(">IH", row["owner_uid"], len(user))
        + user
        + bytes.fromhex(row["key_id"])
        + struct.pack(">BQQ", ALG_ARGON2ID13, row["kdf_opslimit"], row["kdf_memlimit"])
        + row["salt"]
    )


def pin_key(pin: bytes, row: dict) -> bytes:
    """Argon2id v1.3, one lane, 32 bytes, with the row's own salt and costs."""
    return nacl.pwhash.argon2id.kdf(
        PIN_KEY_SIZE, pin, row["salt"],
        opslimit=row["kdf_opslimit"], memlimit=row["kdf_memlimit"],
    )


def box_key(pin_key_bytes: bytes, pepper: bytes, header: bytes) -> bytes:
    """Keyed BLAKE2b-256: key = pepper, message = PIN key || header."""
    return hashlib.blake2b(pin_key_bytes + header, key=pepper, digest_size=32).digest()


def check_row(row: dict) -> None:
    if row["format_version"] not in FORMAT_VERSIONS:
        raise ValueError(f"unknown format_version {row['format_version']}")
    # Format 1 holds the legacy keys only, format 2 every other purpose.
    if (row["format_version"] == 1) != (row.get("purpose", "legacy") == "legacy"):
        raise ValueError(f"format_version {row['format_version']} cannot hold purpose {row.get('purpose')}")
    if row["format_version"] >= 2 and row["purpose"] not in PURPOSE_BYTES:
        raise ValueError(f"unknown purpose {row['purpose']}")
    if row["algorithm"] not in ALGORITHM_BYTES:
        raise ValueError(f"unknown algorithm {row['algorithm']}")
    # Formats 1 and 2 hold no algorithm byte: their keys are ed25519.
    if row["format_version"] < 3 and row["algorithm"] != "ed25519":
        raise ValueError(f"format_version {row['format_version']} cannot hold algorithm {row['algorithm']}")
    for column, size in (("salt", SALT_SIZE), ("nonce", NONCE_SIZE), ("sealed_seed", SEALED_SEED_SIZE),
                         ("public_key", PUBLIC_KEY_SIZES[row["algorithm"]])):
        if len(row[column]) != size:
            raise ValueError(f"{column} has {len(row[column])} bytes, not {size}")
    if key_id_of(row["public_key"]) != row["key_id"]:
        raise ValueError("key_id is not the BLAKE2b-256 prefix of public_key")


def recover(row: dict, pepper: bytes, pin: bytes) -> bytes:
    """The 32-byte seed; raises nacl.exceptions.CryptoError when the row does not open."""
    if len(pepper) != PEPPER_SIZE:
        raise ValueError(f"the pepper has {len(pepper)} bytes, not {PEPPER_SIZE}")
    check_row(row)
    key = box_key(pin_key(pin, row), pepper, header_encoding(row))
    return nacl.secret.SecretBox(key).decrypt(row["sealed_seed"], row["nonce"])


def p256_scalar(seed: bytes) -> int:
    """FORMAT.md section 6: the first BLAKE2b-256(key = seed, label || counter) in [1, n)."""
    for counter in range(256):
        candidate = hashlib.blake2b(P256_LABEL + bytes([counter]), key=seed, digest_size=32).digest()
        scalar = int.from_bytes(candidate, "big")
        if 1 <= scalar < P256_ORDER:
            return scalar
    raise ValueError("no scalar below the order in 256 candidates")


PEPPER_CHECK_CONTEXT = b"PinVault pepper check v1"


def pepper_check(pepper: bytes) -> bytes:
    """FORMAT.md section 9: keyed BLAKE2b-256, key = pepper, message = the fixed context."""
    return hashlib.blake2b(PEPPER_CHECK_CONTEXT, key=pepper, digest_size=32).digest()


def recorded_pepper_check(database: str):
    """The check value the database recorded (schema version 2), or None."""
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        found = connection.execute("SELECT value FROM vault_metadata WHERE name = 'pepper_check'").fetchone()
    except sqlite3.OperationalError:  # version 1: no such table
        found = None
    finally:
        connection.close()
    return bytes(found[0]) if found else None


def read_row(database: str, key_id: str) -> dict:
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    connection.row_factory = sqlite3.Row
    try:
        found = connection.execute(
            "SELECT * FROM credentials WHERE key_id = ?", (key_id,),
        ).fetchone()
    finally:
        connection.close()
    if found is None:
        raise SystemExit(f"no credential with key_id {key_id}")
    row = {name: (bytes(found[name]) if isinstance(found[name], (bytes, memoryview)) else found[name])
           for name in found.keys()}
    row.setdefault("purpose", "legacy")  # schema versions 1 and 2 have no purpose column
    row.setdefault("algorithm", "ed25519")  # schema versions before 6 have no algorithm column
    return row


# The worked example of docs/FORMAT.md: a row sealed by PinVaultCrypto at the default
# parameters, with the pepper 00 01 .. 1f and the PIN "493027".
EXAMPLE_ROW = {
    "key_id": "7849ac3049680be1ef762efe0d36e017",
    "owner_uid": 1000,
    "user": "alice@example.com",
    "public_key": bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"),
    "format_version": 1,
    "purpose": "legacy",
    "algorithm": "ed25519",
    "kdf_opslimit": 3,
    "kdf_memlimit": 67108864,
    "salt": bytes.fromhex("f2899c1065b2187c7e31676860ad5518"),
    "nonce": bytes.fromhex("5f31dd2b47dba05bdf2a59b0e26f9e63bf5d8904b5a1bec6"),
    "sealed_seed": bytes.fromhex(
        "cc9af491aae3f537755c1903d269c7bd038b1d3fa8730289ba2e9531ee742323"
        "823519323ef7975d4f46121673dd3afb"),
}
EXAMPLE_PEPPER = bytes(range(32))
EXAMPLE_PIN = b"493027"
EXAMPLE_EXPECTED = {
    "header": "70696e7661756c7401000003e80011616c696365406578616d706c652e636f6d"
              "7849ac3049680be1ef762efe0d36e017020000000000000003000000000400"
              "0000f2899c1065b2187c7e31676860ad5518",
    "pin_key": "92411ba46a53e1858f62698fd67858500bc2426cf5f07ad8228f6b0955836dee",
    "box_key": "15de2b909d15b00f1b24eda196af073e7a3055442c8f23c032a0547f6e6c5146",
    "seed": "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
}


# The format-2 example (FORMAT.md section 11.2): the same seed, PIN, salt and nonce, for
# purpose ssh. Only the header, and so the box key and the sealed seed, differ.
EXAMPLE_ROW_V2 = dict(
    EXAMPLE_ROW, format_version=2, purpose="ssh",
    sealed_seed=bytes.fromhex("ff9b5592e9e02745ab24315f9f9f58c61ad5591500cb738fbf3af23c4c55e641"
                              "2c5a6548447b1aa1c5dca2a629517580"),
)
EXAMPLE_EXPECTED_V2 = dict(
    EXAMPLE_EXPECTED,
    header="70696e7661756c740202000003e80011616c696365406578616d706c652e636f6d"
           "7849ac3049680be1ef762efe0d36e0170200000000000000030000000004000000"
           "f2899c1065b2187c7e31676860ad5518",
    box_key="256144ff243854dbb926d7b6a82cce566ff8668efbbc47ca7fb633709c308ca6",
)


# The format-3 example (FORMAT.md section 11.3): the same seed, PIN, salt and nonce, for a
# p256 key of purpose ssh. Its public key and key id are the P-256 key's of the seed.
EXAMPLE_ROW_V3 = dict(
    EXAMPLE_ROW, format_version=3, purpose="ssh", algorithm="p256",
    key_id="867a38dc18f2a9be75689a51d66e3605",
    public_key=bytes.fromhex("04860ec9ccdf002dbdcd5824b13767f7bedd3caf3da4a0487ed9c263004e2123b9"
                             "60e3b4426ec52ab9fd07a70ed9fea3c142a381c6dfe1dc00e55e50f424fbfa09"),
    sealed_seed=bytes.fromhex("2c5190481038b74a408b7b4df982bc494385bb7c407f2b8277d54ba9fc1e03fe"
                              "050fbae746488283bec02ef5f9e5fe5b"),
)
EXAMPLE_EXPECTED_V3 = dict(
    EXAMPLE_EXPECTED,
    header="70696e7661756c74030202000003e80011616c696365406578616d706c652e636f6d"
           "867a38dc18f2a9be75689a51d66e36050200000000000000030000000004000000"
           "f2899c1065b2187c7e31676860ad5518",
    box_key="ea0d606b87da2d0570177e5c8e610b03c82393ba2995605c8e3608d08013810c",
)
EXAMPLE_SCALAR_V3 = "9817c1226f1668925d656f30a777dbbae74a64133e8026dc0411aa5396d2dca2"


def check_example(title: str, row: dict, expected_values: dict) -> int:
    failures = 0
    print(title)
    header = header_encoding(row)
    derived = pin_key(EXAMPLE_PIN, row)
    computed = {
        "header": header.hex(),
        "pin_key": derived.hex(),
        "box_key": box_key(derived, EXAMPLE_PEPPER, header).hex(),
        "seed": recover(row, EXAMPLE_PEPPER, EXAMPLE_PIN).hex(),
    }
    for name, expected in expected_values.items():
        verdict = "ok" if computed[name] == expected else "MISMATCH"
        failures += verdict != "ok"
        print(f"{name:8} {verdict:8} {computed[name]}")
    try:
        recover(row, EXAMPLE_PEPPER, b"493028")
        print("wrong PIN MISMATCH: opened")
        failures += 1
    except nacl.exceptions.CryptoError:
        print("wrong PIN ok       does not open")
    return failures


def run_example() -> int:
    failures = check_example("format 1 (legacy):", EXAMPLE_ROW, EXAMPLE_EXPECTED)
    failures += check_example("format 2 (purpose ssh):", EXAMPLE_ROW_V2, EXAMPLE_EXPECTED_V2)
    try:
        recover(dict(EXAMPLE_ROW_V2, purpose="authenticate"), EXAMPLE_PEPPER, EXAMPLE_PIN)
        print("another purpose MISMATCH: opened")
        failures += 1
    except nacl.exceptions.CryptoError:
        print("another purpose ok  does not open")
    failures += check_example("format 3 (purpose ssh, algorithm p256):", EXAMPLE_ROW_V3, EXAMPLE_EXPECTED_V3)
    scalar = f"{p256_scalar(recover(EXAMPLE_ROW_V3, EXAMPLE_PEPPER, EXAMPLE_PIN)):064x}"
    verdict = "ok" if scalar == EXAMPLE_SCALAR_V3 else "MISMATCH"
    failures += verdict != "ok"
    print(f"{'scalar':8} {verdict:8} {scalar}")
    try:
        recover(dict(EXAMPLE_ROW_V3, algorithm="ed25519", public_key=EXAMPLE_ROW["public_key"]), EXAMPLE_PEPPER, EXAMPLE_PIN)
        print("another algorithm MISMATCH: opened")
        failures += 1
    except (nacl.exceptions.CryptoError, ValueError):
        print("another algorithm ok  does not open")
    return 1 if failures else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--example", action="store_true", help="recover the worked example of FORMAT.md")
    parser.add_argument("--database", help="path of vault.sqlite")
    parser.add_argument("--key-id", help="32 lowercase hex digits")
    parser.add_argument("--pepper", help="path of the 32-byte pepper file")
    parser.add_argument("--pin-stdin", action="store_true", help="read the PIN as one line from stdin")
    arguments = parser.parse_args()
    if arguments.example:
        return run_example()
    if not (arguments.database and arguments.key_id and arguments.pepper):
        parser.error("--database, --key-id and --pepper are required (or --example)")
    row = read_row(arguments.database, arguments.key_id)
    with open(arguments.pepper, "rb") as file:
        pepper = file.read()
    recorded = recorded_pepper_check(arguments.database)
    if recorded is not None and len(pepper) == PEPPER_SIZE and not hmac.compare_digest(recorded, pepper_check(pepper)):
        print("this is not the pepper the database was sealed with (its check value differs)", file=sys.stderr)
        return 1
    if arguments.pin_stdin:
        pin = sys.stdin.readline().rstrip("\r\n").encode("utf-8")
    else:
        pin = getpass.getpass("PIN: ").encode("utf-8")
    try:
        seed = recover(row, pepper, pin)
    except nacl.exceptions.CryptoError:
        print("the row does not open: wrong PIN, wrong pepper, or an edited row", file=sys.stderr)
        return 1
    print(seed.hex())
    if row["algorithm"] == "p256":
        print(f"{p256_scalar(seed):064x}  (the P-256 private scalar)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
