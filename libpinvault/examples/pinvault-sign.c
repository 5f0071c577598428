/*
 * pinvault-sign USER KEY_ID FILE: signs FILE (1 byte to 16 KiB) with a PinVault key,
 * the PIN read from standard input, never from the command line. The signature is
 * the key's algorithm's: 64 bytes of Ed25519, or a DER ECDSA signature for P-256.
 * The example of docs/LIBPINVAULT.md and libpinvault(3); PinVaultPKCS11Tests builds and runs it.
 *
 *     cc -o pinvault-sign pinvault-sign.c $(pkg-config --cflags --libs pinvault)
 *     pinvault-sign alice 0123456789abcdef0123456789abcdef challenge.bin < pin > signature
 */
#include <pinvault.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/*
 * Whether the process serving the socket may hear the PIN: root, the pinvault user
 * (the packaged daemon) or ourselves (a daemon of our own, $PINVAULT_SOCKET).
 */
static int trusted(pinvault_connection *vault)
{
    uid_t server;
    if (pinvault_server_uid(vault, &server) != PINVAULT_OK)
        return 0;
    const struct passwd *daemon_user = getpwnam("pinvault");
    return server == 0 || server == geteuid() || (daemon_user != NULL && server == daemon_user->pw_uid);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: pinvault-sign USER KEY_ID FILE < PIN\n");
        return 2;
    }
    static unsigned char data[PINVAULT_MESSAGE_MAX_BYTES + 1];
    FILE *file = fopen(argv[3], "rb");
    size_t length = file != NULL ? fread(data, 1, sizeof data, file) : 0;
    if (file != NULL)
        fclose(file);
    if (length == 0 || length > PINVAULT_MESSAGE_MAX_BYTES) {
        fprintf(stderr, "pinvault-sign: %s: 1 to %d bytes, please\n", argv[3], PINVAULT_MESSAGE_MAX_BYTES);
        return 2;
    }

    /* The PIN in locked memory, wiped when freed. */
    char *pin = pinvault_secret_alloc(PINVAULT_PIN_MAX_BYTES + 2);
    if (pin == NULL || fgets(pin, PINVAULT_PIN_MAX_BYTES + 2, stdin) == NULL) {
        fprintf(stderr, "pinvault-sign: no PIN on standard input\n");
        pinvault_secret_free(pin);
        return 2;
    }
    pin[strcspn(pin, "\n")] = '\0';

    pinvault_connection *vault;
    int status = pinvault_connect(NULL, 30000, &vault); /* $PINVAULT_SOCKET, else the default */
    if (status != PINVAULT_OK) {
        fprintf(stderr, "pinvault-sign: %s\n", pinvault_strerror(status));
        pinvault_secret_free(pin);
        return 1;
    }
    if (!trusted(vault)) { /* before the PIN goes out: who listens on the socket? */
        fprintf(stderr, "pinvault-sign: the socket is not served by pinvaultd's user; no PIN sent\n");
        pinvault_secret_free(pin);
        pinvault_close(vault);
        return 1;
    }
    /* Unlocked for as long as this connection lives: no other program can use the session after it. */
    struct pinvault_unlock_result unlocked;
    status = pinvault_unlock(vault, argv[1], argv[2], pin, strlen(pin), 60, PINVAULT_UNLOCK_BIND_TO_CONNECTION,
                             &unlocked);
    pinvault_secret_free(pin);
    struct pinvault_signature signature;
    if (status == PINVAULT_OK)
        status = pinvault_sign(vault, argv[2], data, length, &signature);
    if (status == PINVAULT_E_WRONG_PIN)
        fprintf(stderr, "pinvault-sign: wrong PIN (%lld attempts left)\n", (long long)pinvault_error_value(vault));
    else if (status != PINVAULT_OK)
        fprintf(stderr, "pinvault-sign: %s (%s)\n", pinvault_strerror(status), pinvault_error_name(vault));
    else if (unlocked.failed_attempts_cleared > 0)
        fprintf(stderr, "pinvault-sign: %lld wrong PIN(s) were tried since the last right one\n",
                (long long)unlocked.failed_attempts_cleared);
    pinvault_close(vault); /* ends the bound session */
    if (status != PINVAULT_OK)
        return 1;
    return fwrite(signature.bytes, 1, signature.length, stdout) == signature.length ? 0 : 1;
}
