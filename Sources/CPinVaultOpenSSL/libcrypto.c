/* See libcrypto.h. */
#define CPINVAULTOPENSSL_LOADER
#include "libcrypto.h"

#include <dlfcn.h>
#include <pthread.h>

struct CPinVaultOpenSSL_functions CPinVaultOpenSSL_crypto;

/* libcrypto's secure heap: 128 KiB, in blocks of at least 16 bytes. A P-256 key's
 * private BIGNUM takes 64 (six 64-bit words, rounded up to a power of two): the 1,024
 * sessions the engine holds at most take half of it, the nonces of signatures being
 * made the rest. Its pages are locked where RLIMIT_MEMLOCK allows. */
static const size_t secure_heap_bytes = 128 * 1024;
static const size_t secure_heap_minimum_block = 16;

static int loaded;
static int secure_heap;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void)
{
    /* Never closed: libcrypto keeps state (its heaps, the group, the providers) for
     * the life of the process. */
    void *library = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL)
        return;
    int all = 1;
#define CPINVAULTOPENSSL_LOAD(name) \
    all &= (CPinVaultOpenSSL_crypto.name = (__typeof__(name) *)dlsym(library, #name)) != NULL;
    CPINVAULTOPENSSL_FUNCTIONS(CPINVAULTOPENSSL_LOAD)
#undef CPINVAULTOPENSSL_LOAD
    if (!all || CPinVaultOpenSSL_crypto.OpenSSL_version_num() < 0x30000000UL)
        return;
    /* Before anything else in libcrypto: setting the secure heap up is not safe
     * against a secure allocation in another thread, and every caller waits here. */
    secure_heap = CPinVaultOpenSSL_crypto.CRYPTO_secure_malloc_init(secure_heap_bytes, secure_heap_minimum_block) != 0
        && CPinVaultOpenSSL_crypto.CRYPTO_secure_malloc_initialized() == 1;
    loaded = 1;
}

int CPinVaultOpenSSL_libcrypto(void)
{
    pthread_once(&load_once, load);
    return loaded;
}

int CPinVaultOpenSSL_secure_heap(void)
{
    return CPinVaultOpenSSL_libcrypto() && secure_heap;
}
