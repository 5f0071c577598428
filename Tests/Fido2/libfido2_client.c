/*
 * Yubico's libfido2 as a client of pinvaultd's CTAPHID socket: every step goes
 * through libfido2's own code (its CTAPHID framing, CBOR, PIN protocol and
 * signature checks), only its I/O is the socket (ctaphid_socket_io.c).
 *
 *   libfido2-client SOCKET run     INIT, GetInfo, touch, setPIN and changePIN, three
 *                                  resident passkeys (ES256, EdDSA), sign-ins with
 *                                  the PIN, credential management, a wrong PIN
 *                                  (left counted), a Reset after the power-up window
 *   libfido2-client SOCKET reset   a Reset on a device just opened, then GetInfo
 *
 * It judges nothing: it prints one line per step, "step result [values...]", the
 * result being libfido2's name for its return code (fido_strerr), and the test
 * (PinVaultIntegrationTests.LibFIDO2Tests) asserts each. Exit status 0 when it
 * ran to the end, 1 when a step it depends on failed, 2 on a usage error.
 * A test program: its PINs are the test's.
 */
#include <fido.h>
#include <fido/credman.h>
#include <fido/eddsa.h>
#include <fido/es256.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctaphid_socket_io.h"

#define PIN          "258046"   /* DaemonTestCase.pin, which the tools test types */
#define NEW_PIN      "370591"
#define WEAK_PIN     "123456"
#define TIMEOUT_MS   60000
/* CTAP allows authenticatorReset within ten seconds of power-up; a second more. */
#define RESET_WAIT_S 11

struct passkey {
	const char *name;    /* the step's name, and the user's */
	int cose;            /* COSE_ES256 or COSE_EDDSA */
	const char *rp;
	fido_cred_t *cred;
};

static void
say(const char *step, int r)
{
	printf("%s %s\n", step, fido_strerr(r));
}

static void
hex(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
}

static double
seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

/* Client data hashes and user handles: any bytes will do. */
static void
random_bytes(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)rand();
}

static fido_dev_t *
open_device(const char *path)
{
	fido_dev_t *dev;
	int r;

	if ((dev = fido_dev_new()) == NULL)
		return NULL;
	say("io", fido_dev_set_io_functions(dev, &ctaphid_socket_io));
	fido_dev_set_timeout(dev, TIMEOUT_MS);
	say("open", r = fido_dev_open(dev, path));
	if (r != FIDO_OK) {
		fido_dev_free(&dev);
		return NULL;
	}
	return dev;
}

/* GetInfo as libfido2 reads it: "info R", then one line per field. */
static void
print_info(fido_dev_t *dev, const char *step)
{
	fido_cbor_info_t *info = fido_cbor_info_new();
	char name[64];
	char * const *strings;
	const bool *values;
	int r;

	if (info == NULL)
		exit(1);
	say(step, r = fido_dev_get_cbor_info(dev, info));
	if (r != FIDO_OK) {
		fido_cbor_info_free(&info);
		return;
	}
	printf("%s.versions", step);
	strings = fido_cbor_info_versions_ptr(info);
	for (size_t i = 0; i < fido_cbor_info_versions_len(info); i++)
		printf(" %s", strings[i]);
	printf("\n%s.options", step);
	strings = fido_cbor_info_options_name_ptr(info);
	values = fido_cbor_info_options_value_ptr(info);
	for (size_t i = 0; i < fido_cbor_info_options_len(info); i++)
		printf(" %s=%s", strings[i], values[i] ? "true" : "false");
	printf("\n%s.protocols", step);
	for (size_t i = 0; i < fido_cbor_info_protocols_len(info); i++)
		printf(" %u", fido_cbor_info_protocols_ptr(info)[i]);
	printf("\n%s.algorithms", step);
	for (size_t i = 0; i < fido_cbor_info_algorithm_count(info); i++)
		printf(" %d", fido_cbor_info_algorithm_cose(info, i));
	printf("\n%s.aaguid ", step);
	hex(fido_cbor_info_aaguid_ptr(info), fido_cbor_info_aaguid_len(info));
	printf("\n%s.maxmsgsiz %llu\n", step, (unsigned long long)fido_cbor_info_maxmsgsiz(info));
	snprintf(name, sizeof(name), "%s.extensions", step);
	fputs(name, stdout);
	strings = fido_cbor_info_extensions_ptr(info);
	for (size_t i = 0; i < fido_cbor_info_extensions_len(info); i++)
		printf(" %s", strings[i]);
	putchar('\n');
	fido_cbor_info_free(&info);
}

/*
 * libfido2's "touch" (what a client does to let the user pick one of several keys): a
 * MakeCredential with an empty pinUvAuthParam, whose answer counts as the touch.
 */
static void
print_touch(fido_dev_t *dev, const char *step)
{
	int touched = -1;
	int r = fido_dev_get_touch_begin(dev);

	if (r == FIDO_OK)
		r = fido_dev_get_touch_status(dev, &touched, TIMEOUT_MS);
	printf("%s %s %d\n", step, fido_strerr(r), touched);
}

static void
print_retries(fido_dev_t *dev, const char *step)
{
	int retries = -1;
	int r = fido_dev_get_retry_count(dev, &retries);

	printf("%s %s %d\n", step, fido_strerr(r), retries);
}

/* A resident passkey made with the PIN, its attestation checked by libfido2. */
static int
make_passkey(fido_dev_t *dev, struct passkey *key, const char *pin)
{
	unsigned char hash[32], user_id[16];
	char step[64];
	int r;

	random_bytes(hash, sizeof(hash));
	random_bytes(user_id, sizeof(user_id));
	if ((key->cred = fido_cred_new()) == NULL ||
	    fido_cred_set_type(key->cred, key->cose) != FIDO_OK ||
	    fido_cred_set_clientdata_hash(key->cred, hash, sizeof(hash)) != FIDO_OK ||
	    fido_cred_set_rp(key->cred, key->rp, "PinVault test") != FIDO_OK ||
	    fido_cred_set_user(key->cred, user_id, sizeof(user_id), key->name, key->name, NULL) != FIDO_OK ||
	    fido_cred_set_rk(key->cred, FIDO_OPT_TRUE) != FIDO_OK)
		return -1;
	snprintf(step, sizeof(step), "make_cred.%s", key->name);
	say(step, r = fido_dev_make_cred(dev, key->cred, pin));
	if (r != FIDO_OK)
		return -1;
	printf("%s.type %d\n", step, fido_cred_type(key->cred));
	printf("%s.fmt %s\n", step, fido_cred_fmt(key->cred) ? fido_cred_fmt(key->cred) : "(none)");
	printf("%s.flags 0x%02x\n", step, fido_cred_flags(key->cred));
	printf("%s.sigcount %u\n", step, fido_cred_sigcount(key->cred));
	printf("%s.aaguid ", step);
	hex(fido_cred_aaguid_ptr(key->cred), fido_cred_aaguid_len(key->cred));
	putchar('\n');
	printf("%s.id ", step);
	hex(fido_cred_id_ptr(key->cred), fido_cred_id_len(key->cred));
	putchar('\n');
	/* Self attestation: signed by the passkey itself, no certificate. */
	snprintf(step, sizeof(step), "cred_verify.%s", key->name);
	say(step, fido_cred_verify(key->cred));
	snprintf(step, sizeof(step), "cred_verify_self.%s", key->name);
	say(step, fido_cred_verify_self(key->cred));
	return 0;
}

/* fido_assert_verify of assertion i against a passkey's public key. */
static int
verify_with(const fido_assert_t *assert, size_t i, const struct passkey *key)
{
	const unsigned char *ptr = fido_cred_pubkey_ptr(key->cred);
	size_t len = fido_cred_pubkey_len(key->cred);
	int r = FIDO_ERR_INTERNAL;

	if (key->cose == COSE_ES256) {
		es256_pk_t *pk = es256_pk_new();
		if (pk != NULL && es256_pk_from_ptr(pk, ptr, len) == FIDO_OK)
			r = fido_assert_verify(assert, i, COSE_ES256, pk);
		es256_pk_free(&pk);
	} else {
		eddsa_pk_t *pk = eddsa_pk_new();
		if (pk != NULL && eddsa_pk_from_ptr(pk, ptr, len) == FIDO_OK)
			r = fido_assert_verify(assert, i, COSE_EDDSA, pk);
		eddsa_pk_free(&pk);
	}
	return r;
}

static const struct passkey *
passkey_with_id(const struct passkey *keys, size_t n, const unsigned char *id, size_t len)
{
	for (size_t k = 0; k < n; k++)
		if (fido_cred_id_len(keys[k].cred) == len && memcmp(fido_cred_id_ptr(keys[k].cred), id, len) == 0)
			return &keys[k];
	return NULL;
}

/*
 * GetAssertion (and GetNextAssertion) at rp with the PIN, allowing `allow` (after
 * `decoys` unknown ids) only when not NULL: "step R count", then per assertion the passkey it names and
 * libfido2's verdict on its signature.
 */
static int
sign_in(fido_dev_t *dev, const char *step, const char *rp, const struct passkey *allow, size_t decoys,
    const char *pin, const struct passkey *keys, size_t n)
{
	unsigned char hash[32], decoy[32];
	fido_assert_t *assert;
	int r;

	random_bytes(hash, sizeof(hash));
	if ((assert = fido_assert_new()) == NULL ||
	    fido_assert_set_rp(assert, rp) != FIDO_OK ||
	    fido_assert_set_clientdata_hash(assert, hash, sizeof(hash)) != FIDO_OK)
		exit(1);
	/* Credential ids of no passkey here ahead of the allowed one: a long message. */
	for (size_t i = 0; i < decoys; i++) {
		random_bytes(decoy, sizeof(decoy));
		if (fido_assert_allow_cred(assert, decoy, sizeof(decoy)) != FIDO_OK)
			exit(1);
	}
	if (allow != NULL && fido_assert_allow_cred(assert, fido_cred_id_ptr(allow->cred),
	    fido_cred_id_len(allow->cred)) != FIDO_OK)
		exit(1);
	r = fido_dev_get_assert(dev, assert, pin);
	printf("%s %s %zu\n", step, fido_strerr(r), r == FIDO_OK ? fido_assert_count(assert) : 0);
	for (size_t i = 0; r == FIDO_OK && i < fido_assert_count(assert); i++) {
		const struct passkey *key = passkey_with_id(keys, n, fido_assert_id_ptr(assert, i),
		    fido_assert_id_len(assert, i));
		const char *user = fido_assert_user_name(assert, i);
		printf("%s.%zu.flags 0x%02x\n", step, i, fido_assert_flags(assert, i));
		printf("%s.%zu.user %s\n", step, i, user != NULL ? user : "(none)");
		if (key == NULL) {
			printf("%s.%zu.passkey (unknown)\n", step, i);
			continue;
		}
		printf("%s.%zu.passkey %s\n", step, i, key->name);
		printf("%s.%zu.verify %s\n", step, i, fido_strerr(verify_with(assert, i, key)));
		/* The same signature against another passkey's key: libfido2 must refuse it. */
		for (size_t k = 0; k < n; k++)
			if (&keys[k] != key && keys[k].cose == key->cose) {
				printf("%s.%zu.verify_other %s\n", step, i,
				    fido_strerr(verify_with(assert, i, &keys[k])));
				break;
			}
	}
	fido_assert_free(&assert);
	return r;
}

static void
print_metadata(fido_dev_t *dev, const char *step, const char *pin)
{
	fido_credman_metadata_t *metadata = fido_credman_metadata_new();
	int r;

	if (metadata == NULL)
		exit(1);
	r = fido_credman_get_dev_metadata(dev, metadata, pin);
	printf("%s %s %llu %llu\n", step, fido_strerr(r),
	    (unsigned long long)fido_credman_rk_existing(metadata),
	    (unsigned long long)fido_credman_rk_remaining(metadata));
	fido_credman_metadata_free(&metadata);
}

/* Credential management: the relying parties, then example.org's passkeys. */
static void
print_credman(fido_dev_t *dev, const char *pin, const struct passkey *keys, size_t n)
{
	fido_credman_rp_t *rp = fido_credman_rp_new();
	fido_credman_rk_t *rk = fido_credman_rk_new();
	int r;

	if (rp == NULL || rk == NULL)
		exit(1);
	r = fido_credman_get_dev_rp(dev, rp, pin);
	printf("credman.rp %s", fido_strerr(r));
	for (size_t i = 0; r == FIDO_OK && i < fido_credman_rp_count(rp); i++)
		printf(" %s", fido_credman_rp_id(rp, i));
	putchar('\n');
	r = fido_credman_get_dev_rk(dev, "example.org", rk, pin);
	printf("credman.rk %s", fido_strerr(r));
	for (size_t i = 0; r == FIDO_OK && i < fido_credman_rk_count(rk); i++) {
		const fido_cred_t *cred = fido_credman_rk(rk, i);
		const struct passkey *key = passkey_with_id(keys, n, fido_cred_id_ptr(cred), fido_cred_id_len(cred));
		bool same_key = key != NULL && fido_cred_pubkey_len(cred) == fido_cred_pubkey_len(key->cred) &&
		    memcmp(fido_cred_pubkey_ptr(cred), fido_cred_pubkey_ptr(key->cred), fido_cred_pubkey_len(cred)) == 0;
		/* user name / the passkey its id and public key are / its type */
		printf(" %s/%s/%d", fido_cred_user_name(cred) ? fido_cred_user_name(cred) : "(none)",
		    same_key ? key->name : "(unknown)", fido_cred_type(cred));
	}
	putchar('\n');
	fido_credman_rp_free(&rp);
	fido_credman_rk_free(&rk);
}

static int
run(const char *path)
{
	struct passkey keys[] = {
		{ "alice", COSE_ES256, "example.org", NULL },
		{ "bob", COSE_EDDSA, "example.org", NULL },
		{ "carol", COSE_ES256, "example.net", NULL },
	};
	const size_t n = sizeof(keys) / sizeof(keys[0]);
	struct timespec opened;
	fido_dev_t *dev;
	double waited;
	int r, status = 1;

	if ((dev = open_device(path)) == NULL)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &opened);   /* after the INIT reply: the device is up */
	printf("device.fido2 %s\n", fido_dev_is_fido2(dev) ? "true" : "false");
	printf("device.protocol %u\n", fido_dev_protocol(dev));
	printf("device.capabilities wink=%d cbor=%d nmsg=%d\n", !!(fido_dev_flags(dev) & FIDO_CAP_WINK),
	    !!(fido_dev_flags(dev) & FIDO_CAP_CBOR), !!(fido_dev_flags(dev) & FIDO_CAP_NMSG));
	printf("device.has_pin %s\n", fido_dev_has_pin(dev) ? "true" : "false");
	printf("device.supports_credman %s\n", fido_dev_supports_credman(dev) ? "true" : "false");
	print_info(dev, "info");

	print_retries(dev, "retries.unset");
	print_touch(dev, "touch.unset");
	say("set_pin.weak", fido_dev_set_pin(dev, WEAK_PIN, NULL));
	say("set_pin", r = fido_dev_set_pin(dev, PIN, NULL));
	if (r != FIDO_OK)
		goto out;
	print_retries(dev, "retries.set");
	print_touch(dev, "touch.set");
	print_retries(dev, "retries.after_touch");
	say("change_pin.wrong_old", fido_dev_set_pin(dev, PIN, NEW_PIN));
	print_retries(dev, "retries.after_wrong_old");
	say("change_pin", r = fido_dev_set_pin(dev, NEW_PIN, PIN));
	if (r != FIDO_OK)
		goto out;
	print_retries(dev, "retries.changed");
	print_info(dev, "info.pin");

	for (size_t k = 0; k < n; k++)
		if (make_passkey(dev, &keys[k], NEW_PIN) != 0)
			goto out;

	sign_in(dev, "assert.discoverable", "example.org", NULL, 0, NEW_PIN, keys, n);
	sign_in(dev, "assert.allow", "example.org", &keys[1], 0, NEW_PIN, keys, n);
	sign_in(dev, "assert.long_allow", "example.org", &keys[0], 100, NEW_PIN, keys, n);
	sign_in(dev, "assert.other_rp", "example.com", NULL, 0, NEW_PIN, keys, n);
	sign_in(dev, "assert.wrong_rp", "example.net", &keys[0], 0, NEW_PIN, keys, n);

	print_metadata(dev, "credman.metadata", NEW_PIN);
	print_credman(dev, NEW_PIN, keys, n);
	say("credman.del", fido_credman_del_dev_rk(dev, fido_cred_id_ptr(keys[2].cred),
	    fido_cred_id_len(keys[2].cred), NEW_PIN));
	print_metadata(dev, "credman.metadata.after_del", NEW_PIN);
	sign_in(dev, "assert.deleted", "example.net", NULL, 0, NEW_PIN, keys, n);

	/* The old PIN, now wrong: counted. */
	print_retries(dev, "retries.before_wrong");
	sign_in(dev, "assert.wrong_pin", "example.org", NULL, 0, PIN, keys, n);
	print_retries(dev, "retries.after_wrong");

	/* Reset once the device has been up longer than CTAP's ten seconds. */
	if ((waited = seconds_since(&opened)) < RESET_WAIT_S)
		sleep((unsigned)(RESET_WAIT_S - waited) + 1);
	say("reset.late", fido_dev_reset(dev));
	/* Without the PIN from here on: the wrong one stays counted for the test's List. */
	print_info(dev, "info.after_reset_refused");
	print_retries(dev, "retries.after_reset_refused");
	status = 0;
out:
	for (size_t k = 0; k < n; k++)
		fido_cred_free(&keys[k].cred);
	fido_dev_close(dev);
	fido_dev_free(&dev);
	return status;
}

/* A Reset at once on a device just opened (its power-up), then what GetInfo says. */
static int
reset(const char *path)
{
	fido_dev_t *dev;

	if ((dev = open_device(path)) == NULL)
		return 1;
	say("reset", fido_dev_reset(dev));
	print_info(dev, "info.reset");
	print_retries(dev, "retries.reset");
	fido_dev_close(dev);
	fido_dev_free(&dev);
	return 0;
}

int
main(int argc, char **argv)
{
	int status;

	if (argc != 3 || (strcmp(argv[2], "run") != 0 && strcmp(argv[2], "reset") != 0)) {
		fprintf(stderr, "usage: libfido2-client SOCKET run|reset\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	srand((unsigned)time(NULL) ^ (unsigned)getpid());
	fido_init(getenv("FIDO_DEBUG") != NULL ? FIDO_DEBUG : 0);
	status = strcmp(argv[2], "run") == 0 ? run(argv[1]) : reset(argv[1]);
	printf("end %d\n", status);
	return status;
}
