import PinVaultCrypto

/// The vault's schema history. `PRAGMA user_version` holds the version a database is at;
/// step `n` (1-based) moves it from `n - 1` to `n`. Steps are only ever appended.
enum Schema {
    /// One migration step: SQL statements run in order inside one transaction.
    struct Step {
        var statements: [String]
    }

    static let steps: [Step] = [
        // v1: the credentials table. STRICT makes SQLite refuse a value of the wrong type;
        // the CHECKs refuse wrong sizes, so only damage from outside can yield a bad row.
        Step(statements: [
            """
            CREATE TABLE credentials (
                key_id TEXT NOT NULL PRIMARY KEY
                    CHECK (length(key_id) = 32 AND key_id NOT GLOB '*[^0-9a-f]*'),
                owner_uid INTEGER NOT NULL CHECK (owner_uid BETWEEN 0 AND 4294967295),
                user TEXT NOT NULL CHECK (length(CAST(user AS BLOB)) BETWEEN 1 AND 256),
                label TEXT NULL,
                public_key BLOB NOT NULL CHECK (length(public_key) = 32),
                format_version INTEGER NOT NULL CHECK (format_version BETWEEN 0 AND 255),
                kdf_opslimit INTEGER NOT NULL CHECK (kdf_opslimit >= 0),
                kdf_memlimit INTEGER NOT NULL CHECK (kdf_memlimit >= 0),
                salt BLOB NOT NULL CHECK (length(salt) = 16),
                nonce BLOB NOT NULL CHECK (length(nonce) = 24),
                sealed_seed BLOB NOT NULL CHECK (length(sealed_seed) = 48),
                created_at INTEGER NOT NULL,
                last_used_at INTEGER NULL,
                failed_attempts INTEGER NOT NULL DEFAULT 0 CHECK (failed_attempts >= 0),
                locked_until INTEGER NULL,
                unregister_token_hash BLOB NULL
                    CHECK (unregister_token_hash IS NULL OR length(unregister_token_hash) = 32),
                unregister_expires_at INTEGER NULL,
                CHECK ((unregister_token_hash IS NULL) = (unregister_expires_at IS NULL))
            ) STRICT
            """,
            "CREATE INDEX credentials_owner_user ON credentials (owner_uid, user)",
        ]),
        // v2: facts about the vault as a whole, one row each (docs/FORMAT.md §7). The
        // first is `pepper_check`, written by the first start under this schema.
        Step(statements: [
            """
            CREATE TABLE vault_metadata (
                name TEXT NOT NULL PRIMARY KEY,
                value BLOB NOT NULL
            ) STRICT
            """,
        ]),
        // v3: what each key is for (docs/FORMAT.md §7). Rows made before read `legacy`
        // (they are format version 1, which holds no purpose). The purpose is also sealed
        // into the header of every format-2 record; the trigger keeps the column from
        // ever changing, so a key is never given a purpose after the fact. Whether a
        // row's purpose and format agree is checked where rows decode (a row that does
        // not is listed as corrupt), not here: a row damaged from outside must not stop
        // the migration. The partial index counts the legacy keys at start in time
        // proportional to their number, not to the vault's.
        Step(statements: [
            """
            ALTER TABLE credentials ADD COLUMN purpose TEXT NOT NULL DEFAULT 'legacy'
                CHECK (purpose IN ('authenticate', 'ssh', 'login', 'legacy'))
            """,
            """
            CREATE TRIGGER credentials_purpose_is_immutable
            BEFORE UPDATE OF purpose ON credentials
            WHEN NEW.purpose IS NOT OLD.purpose
            BEGIN SELECT RAISE(ABORT, 'a credential''s purpose never changes'); END
            """,
            "CREATE INDEX credentials_legacy ON credentials (key_id) WHERE purpose = 'legacy'",
        ]),
        // v4: OpenSSH certificates an owner attached to an ssh credential (docs/FORMAT.md
        // §7): public data, offered by the agents beside the key. They go with their
        // credential, whatever deletes it.
        Step(statements: [
            """
            CREATE TABLE ssh_certificates (
                key_id TEXT NOT NULL CHECK (length(key_id) = 32 AND key_id NOT GLOB '*[^0-9a-f]*'),
                certificate BLOB NOT NULL CHECK (length(certificate) BETWEEN 1 AND 16384),
                added_at INTEGER NOT NULL,
                PRIMARY KEY (key_id, certificate)
            ) STRICT
            """,
            """
            CREATE TRIGGER credentials_take_their_certificates
            AFTER DELETE ON credentials
            BEGIN DELETE FROM ssh_certificates WHERE key_id = OLD.key_id; END
            """,
        ]),
        // v5: the wrong PINs since the owner's last success (docs/FORMAT.md §7), which an
        // admin's Unblock does not reset, so that Unblock cannot buy unlimited guesses.
        // An older row counted only consecutive wrong PINs; those are the ones it knows
        // were tried since its last success, so it starts from them.
        Step(statements: [
            """
            ALTER TABLE credentials ADD COLUMN wrong_pins_since_success INTEGER NOT NULL DEFAULT 0
                CHECK (wrong_pins_since_success >= 0)
            """,
            "UPDATE credentials SET wrong_pins_since_success = failed_attempts",
        ]),
        // v6: a key's algorithm (docs/FORMAT.md §7). Rows made before are Ed25519. The
        // public key's size is the algorithm's (`KeyAlgorithm`, checked where rows decode),
        // so the column's CHECK no longer names one size: SQLite cannot drop a CHECK, so
        // the table is rebuilt, with its indexes and triggers, in this one transaction.
        // The algorithm's values are not listed here either (a third algorithm needs no
        // rebuild); a trigger keeps it from changing, as the purpose's does.
        Step(statements: [
            "DROP TRIGGER credentials_take_their_certificates",
            """
            CREATE TABLE credentials_v6 (
                key_id TEXT NOT NULL PRIMARY KEY
                    CHECK (length(key_id) = 32 AND key_id NOT GLOB '*[^0-9a-f]*'),
                owner_uid INTEGER NOT NULL CHECK (owner_uid BETWEEN 0 AND 4294967295),
                user TEXT NOT NULL CHECK (length(CAST(user AS BLOB)) BETWEEN 1 AND 256),
                label TEXT NULL,
                public_key BLOB NOT NULL CHECK (length(public_key) BETWEEN 1 AND 256),
                format_version INTEGER NOT NULL CHECK (format_version BETWEEN 0 AND 255),
                kdf_opslimit INTEGER NOT NULL CHECK (kdf_opslimit >= 0),
                kdf_memlimit INTEGER NOT NULL CHECK (kdf_memlimit >= 0),
                salt BLOB NOT NULL CHECK (length(salt) = 16),
                nonce BLOB NOT NULL CHECK (length(nonce) = 24),
                sealed_seed BLOB NOT NULL CHECK (length(sealed_seed) = 48),
                created_at INTEGER NOT NULL,
                last_used_at INTEGER NULL,
                failed_attempts INTEGER NOT NULL DEFAULT 0 CHECK (failed_attempts >= 0),
                locked_until INTEGER NULL,
                unregister_token_hash BLOB NULL
                    CHECK (unregister_token_hash IS NULL OR length(unregister_token_hash) = 32),
                unregister_expires_at INTEGER NULL,
                purpose TEXT NOT NULL DEFAULT 'legacy'
                    CHECK (purpose IN ('authenticate', 'ssh', 'login', 'legacy')),
                wrong_pins_since_success INTEGER NOT NULL DEFAULT 0
                    CHECK (wrong_pins_since_success >= 0),
                algorithm TEXT NOT NULL DEFAULT 'ed25519' CHECK (length(algorithm) BETWEEN 1 AND 32),
                CHECK ((unregister_token_hash IS NULL) = (unregister_expires_at IS NULL))
            ) STRICT
            """,
            """
            INSERT INTO credentials_v6 (\(v5Columns), algorithm)
            SELECT \(v5Columns), 'ed25519' FROM credentials
            """,
            "DROP TABLE credentials",
            "ALTER TABLE credentials_v6 RENAME TO credentials",
            "CREATE INDEX credentials_owner_user ON credentials (owner_uid, user)",
            "CREATE INDEX credentials_legacy ON credentials (key_id) WHERE purpose = 'legacy'",
            """
            CREATE TRIGGER credentials_purpose_is_immutable
            BEFORE UPDATE OF purpose ON credentials
            WHEN NEW.purpose IS NOT OLD.purpose
            BEGIN SELECT RAISE(ABORT, 'a credential''s purpose never changes'); END
            """,
            """
            CREATE TRIGGER credentials_algorithm_is_immutable
            BEFORE UPDATE OF algorithm ON credentials
            WHEN NEW.algorithm IS NOT OLD.algorithm
            BEGIN SELECT RAISE(ABORT, 'a credential''s algorithm never changes'); END
            """,
            """
            CREATE TRIGGER credentials_take_their_certificates
            AFTER DELETE ON credentials
            BEGIN DELETE FROM ssh_certificates WHERE key_id = OLD.key_id; END
            """,
        ]),
        // v7: security keys (docs/FORMAT.md §7). The purpose `webauthn` (an authenticator
        // credential) joins the CHECK, which SQLite cannot alter: the table is rebuilt as
        // at v6, with its indexes and triggers, in this one transaction. `passkeys` holds
        // the discoverable credentials made with an authenticator credential: public
        // data only (the key is derived from the authenticator's sealed seed and the
        // credential id, never stored), deleted with their authenticator credential.
        Step(statements: [
            "DROP TRIGGER credentials_take_their_certificates",
            """
            CREATE TABLE credentials_v7 (
                key_id TEXT NOT NULL PRIMARY KEY
                    CHECK (length(key_id) = 32 AND key_id NOT GLOB '*[^0-9a-f]*'),
                owner_uid INTEGER NOT NULL CHECK (owner_uid BETWEEN 0 AND 4294967295),
                user TEXT NOT NULL CHECK (length(CAST(user AS BLOB)) BETWEEN 1 AND 256),
                label TEXT NULL,
                public_key BLOB NOT NULL CHECK (length(public_key) BETWEEN 1 AND 256),
                format_version INTEGER NOT NULL CHECK (format_version BETWEEN 0 AND 255),
                kdf_opslimit INTEGER NOT NULL CHECK (kdf_opslimit >= 0),
                kdf_memlimit INTEGER NOT NULL CHECK (kdf_memlimit >= 0),
                salt BLOB NOT NULL CHECK (length(salt) = 16),
                nonce BLOB NOT NULL CHECK (length(nonce) = 24),
                sealed_seed BLOB NOT NULL CHECK (length(sealed_seed) = 48),
                created_at INTEGER NOT NULL,
                last_used_at INTEGER NULL,
                failed_attempts INTEGER NOT NULL DEFAULT 0 CHECK (failed_attempts >= 0),
                locked_until INTEGER NULL,
                unregister_token_hash BLOB NULL
                    CHECK (unregister_token_hash IS NULL OR length(unregister_token_hash) = 32),
                unregister_expires_at INTEGER NULL,
                purpose TEXT NOT NULL DEFAULT 'legacy'
                    CHECK (purpose IN ('authenticate', 'ssh', 'login', 'legacy', 'webauthn')),
                wrong_pins_since_success INTEGER NOT NULL DEFAULT 0
                    CHECK (wrong_pins_since_success >= 0),
                algorithm TEXT NOT NULL DEFAULT 'ed25519' CHECK (length(algorithm) BETWEEN 1 AND 32),
                CHECK ((unregister_token_hash IS NULL) = (unregister_expires_at IS NULL))
            ) STRICT
            """,
            "INSERT INTO credentials_v7 (\(v6Columns)) SELECT \(v6Columns) FROM credentials",
            "DROP TABLE credentials",
            "ALTER TABLE credentials_v7 RENAME TO credentials",
            "CREATE INDEX credentials_owner_user ON credentials (owner_uid, user)",
            "CREATE INDEX credentials_legacy ON credentials (key_id) WHERE purpose = 'legacy'",
            """
            CREATE TRIGGER credentials_purpose_is_immutable
            BEFORE UPDATE OF purpose ON credentials
            WHEN NEW.purpose IS NOT OLD.purpose
            BEGIN SELECT RAISE(ABORT, 'a credential''s purpose never changes'); END
            """,
            """
            CREATE TRIGGER credentials_algorithm_is_immutable
            BEFORE UPDATE OF algorithm ON credentials
            WHEN NEW.algorithm IS NOT OLD.algorithm
            BEGIN SELECT RAISE(ABORT, 'a credential''s algorithm never changes'); END
            """,
            """
            CREATE TRIGGER credentials_take_their_certificates
            AFTER DELETE ON credentials
            BEGIN DELETE FROM ssh_certificates WHERE key_id = OLD.key_id; END
            """,
            """
            CREATE TABLE passkeys (
                credential_id BLOB NOT NULL PRIMARY KEY CHECK (length(credential_id) BETWEEN 16 AND 32),
                authenticator_key_id TEXT NOT NULL
                    CHECK (length(authenticator_key_id) = 32 AND authenticator_key_id NOT GLOB '*[^0-9a-f]*'),
                owner_uid INTEGER NOT NULL CHECK (owner_uid BETWEEN 0 AND 4294967295),
                rp_id TEXT NOT NULL CHECK (length(CAST(rp_id AS BLOB)) BETWEEN 1 AND 255),
                rp_id_hash BLOB NOT NULL CHECK (length(rp_id_hash) = 32),
                user_handle BLOB NOT NULL CHECK (length(user_handle) BETWEEN 1 AND 64),
                user_name TEXT NULL CHECK (user_name IS NULL OR length(CAST(user_name AS BLOB)) <= 64),
                display_name TEXT NULL CHECK (display_name IS NULL OR length(CAST(display_name AS BLOB)) <= 64),
                algorithm TEXT NOT NULL CHECK (length(algorithm) BETWEEN 1 AND 32),
                public_key BLOB NOT NULL CHECK (length(public_key) BETWEEN 1 AND 256),
                created_at INTEGER NOT NULL,
                UNIQUE (authenticator_key_id, rp_id_hash, user_handle)
            ) STRICT
            """,
            "CREATE INDEX passkeys_owner_rp ON passkeys (owner_uid, rp_id_hash)",
            """
            CREATE TRIGGER credentials_take_their_passkeys
            AFTER DELETE ON credentials
            BEGIN DELETE FROM passkeys WHERE authenticator_key_id = OLD.key_id; END
            """,
        ]),
        // v8: the purposes in a table of their own (docs/FORMAT.md §7), which a credential's
        // purpose references (the connection enforces foreign keys), in place of a CHECK
        // that named them: a new purpose is a row the store inserts at open (`addPurposes`),
        // not another rebuild. This one rebuilds the table a last time, as at v7, with its
        // indexes and triggers, in this one transaction; the rows it starts with are the
        // purposes v7's CHECK allowed, so that every credential copies across.
        Step(statements: [
            """
            CREATE TABLE purposes (
                name TEXT NOT NULL PRIMARY KEY
                    CHECK (length(name) BETWEEN 1 AND 32 AND name NOT GLOB '*[^a-z0-9]*')
            ) STRICT
            """,
            "INSERT INTO purposes (name) VALUES ('authenticate'), ('ssh'), ('login'), ('legacy'), ('webauthn')",
            "DROP TRIGGER credentials_take_their_certificates",
            "DROP TRIGGER credentials_take_their_passkeys",
            """
            CREATE TABLE credentials_v8 (
                key_id TEXT NOT NULL PRIMARY KEY
                    CHECK (length(key_id) = 32 AND key_id NOT GLOB '*[^0-9a-f]*'),
                owner_uid INTEGER NOT NULL CHECK (owner_uid BETWEEN 0 AND 4294967295),
                user TEXT NOT NULL CHECK (length(CAST(user AS BLOB)) BETWEEN 1 AND 256),
                label TEXT NULL,
                public_key BLOB NOT NULL CHECK (length(public_key) BETWEEN 1 AND 256),
                format_version INTEGER NOT NULL CHECK (format_version BETWEEN 0 AND 255),
                kdf_opslimit INTEGER NOT NULL CHECK (kdf_opslimit >= 0),
                kdf_memlimit INTEGER NOT NULL CHECK (kdf_memlimit >= 0),
                salt BLOB NOT NULL CHECK (length(salt) = 16),
                nonce BLOB NOT NULL CHECK (length(nonce) = 24),
                sealed_seed BLOB NOT NULL CHECK (length(sealed_seed) = 48),
                created_at INTEGER NOT NULL,
                last_used_at INTEGER NULL,
                failed_attempts INTEGER NOT NULL DEFAULT 0 CHECK (failed_attempts >= 0),
                locked_until INTEGER NULL,
                unregister_token_hash BLOB NULL
                    CHECK (unregister_token_hash IS NULL OR length(unregister_token_hash) = 32),
                unregister_expires_at INTEGER NULL,
                purpose TEXT NOT NULL DEFAULT 'legacy' REFERENCES purposes (name),
                wrong_pins_since_success INTEGER NOT NULL DEFAULT 0
                    CHECK (wrong_pins_since_success >= 0),
                algorithm TEXT NOT NULL DEFAULT 'ed25519' CHECK (length(algorithm) BETWEEN 1 AND 32),
                CHECK ((unregister_token_hash IS NULL) = (unregister_expires_at IS NULL))
            ) STRICT
            """,
            "INSERT INTO credentials_v8 (\(v6Columns)) SELECT \(v6Columns) FROM credentials",
            "DROP TABLE credentials",
            "ALTER TABLE credentials_v8 RENAME TO credentials",
            "CREATE INDEX credentials_owner_user ON credentials (owner_uid, user)",
            "CREATE INDEX credentials_legacy ON credentials (key_id) WHERE purpose = 'legacy'",
            """
            CREATE TRIGGER credentials_purpose_is_immutable
            BEFORE UPDATE OF purpose ON credentials
            WHEN NEW.purpose IS NOT OLD.purpose
            BEGIN SELECT RAISE(ABORT, 'a credential''s purpose never changes'); END
            """,
            """
            CREATE TRIGGER credentials_algorithm_is_immutable
            BEFORE UPDATE OF algorithm ON credentials
            WHEN NEW.algorithm IS NOT OLD.algorithm
            BEGIN SELECT RAISE(ABORT, 'a credential''s algorithm never changes'); END
            """,
            """
            CREATE TRIGGER credentials_take_their_certificates
            AFTER DELETE ON credentials
            BEGIN DELETE FROM ssh_certificates WHERE key_id = OLD.key_id; END
            """,
            """
            CREATE TRIGGER credentials_take_their_passkeys
            AFTER DELETE ON credentials
            BEGIN DELETE FROM passkeys WHERE authenticator_key_id = OLD.key_id; END
            """,
        ]),
    ]

    /// The columns of `credentials` at version 5, which step 6 copies.
    private static let v5Columns = """
        key_id, owner_uid, user, label, public_key, format_version, kdf_opslimit, kdf_memlimit, salt, nonce, \
        sealed_seed, created_at, last_used_at, failed_attempts, locked_until, unregister_token_hash, \
        unregister_expires_at, purpose, wrong_pins_since_success
        """

    /// The columns of `credentials` at version 6, which steps 7 and 8 copy.
    private static let v6Columns = v5Columns + ", algorithm"

    /// The version after every step has run.
    static var latestVersion: Int { steps.count }

    /// Brings the database to `latestVersion` (a test may stop at an earlier `target`,
    /// to make a vault as an older release wrote it), one transaction per step,
    /// re-reading the version inside each transaction so two processes never run the
    /// same step twice. Refuses a database newer than this code.
    static func migrate(_ connection: SQLiteConnection, to target: Int = latestVersion) throws(StoreError) {
        while true {
            try connection.execute("BEGIN IMMEDIATE")
            do throws(StoreError) {
                let version = try userVersion(connection)
                guard version <= latestVersion else { throw StoreError.futureSchema(version) }
                guard version < target else {
                    try connection.execute("COMMIT")
                    return
                }
                for statement in steps[version].statements {
                    try connection.execute(statement)
                }
                // PRAGMA takes no bound parameters; the value is a constant of this code.
                try connection.execute("PRAGMA user_version = \(version + 1)")
                try connection.execute("COMMIT")
            } catch {
                if (try? connection.isInTransaction()) == true {
                    try? connection.execute("ROLLBACK")
                }
                throw error
            }
        }
    }

    /// Inserts the purposes this code knows (`KeyPurpose`) that the `purposes` table does
    /// not hold yet, in one transaction; reads only, when it holds them all (every open
    /// but the first after a purpose was added). Never deletes one: a credential may
    /// still reference it. The database must be at version 8 or later.
    static func addPurposes(_ connection: SQLiteConnection) throws(StoreError) {
        let known = try purposeNames(connection)
        let missing = KeyPurpose.allCases.map(\.rawValue).filter { !known.contains($0) }
        guard !missing.isEmpty else { return }
        try connection.execute("BEGIN IMMEDIATE")
        do throws(StoreError) {
            for name in missing {
                try connection.execute("INSERT OR IGNORE INTO purposes (name) VALUES (?1)", [.text(name)])
            }
            try connection.execute("COMMIT")
        } catch {
            if (try? connection.isInTransaction()) == true {
                try? connection.execute("ROLLBACK")
            }
            throw error
        }
    }

    /// The names in the `purposes` table.
    static func purposeNames(_ connection: SQLiteConnection) throws(StoreError) -> Set<String> {
        let statement = try connection.prepare("SELECT name FROM purposes")
        var names: Set<String> = []
        while try statement.step() {
            guard case .text(let bytes) = statement.value(at: 0) else {
                throw StoreError.corruptDatabase("a purpose that is not text")
            }
            names.insert(String(decoding: bytes, as: UTF8.self))
        }
        return names
    }

    /// `PRAGMA user_version`.
    static func userVersion(_ connection: SQLiteConnection) throws(StoreError) -> Int {
        guard case .integer(let version)? = try connection.scalar("PRAGMA user_version"),
            let result = Int(exactly: version), result >= 0
        else { throw StoreError.corruptDatabase("unreadable user_version") }
        return result
    }
}
