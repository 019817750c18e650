// The ENGINE and EVP_CIPHER_meth interfaces are deprecated in OpenSSL 3 but present (Debian builds them); they are
// the only way to stand in for the cipher libssh2 fetches by its legacy object.
#define OPENSSL_SUPPRESS_DEPRECATED 1

#include "BatchedAESCTR.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#ifndef OPENSSL_NO_ENGINE
#include <openssl/engine.h>

enum {
    kBlock = 16,
    // 256 blocks: one ECB call amortises OpenSSL's per-call cost; 4 KiB stays in L1 beside the packet.
    kBatchBlocks = 256,
    kBatchBytes = kBatchBlocks * kBlock,
};

typedef struct {
    EVP_CIPHER_CTX *ecb;
    /// The counter block of the first keystream block not made yet.
    unsigned char counter[kBlock];
    unsigned char keystream[kBatchBytes];
    /// Bytes of `keystream` already used; `kBatchBytes` means none is left.
    size_t used;
} BatchedCTR;

static uint64_t load_big_endian(const unsigned char *bytes) {
    uint64_t value;
    memcpy(&value, bytes, sizeof value);
    return __builtin_bswap64(value);
}

static void store_big_endian(unsigned char *bytes, uint64_t value) {
    value = __builtin_bswap64(value);
    memcpy(bytes, &value, sizeof value);
}

/// Writes the next 256 counter values into `keystream` and encrypts them in place.
static int make_keystream(BatchedCTR *state) {
    uint64_t high = load_big_endian(state->counter);
    uint64_t low = load_big_endian(state->counter + 8);
    for (size_t block = 0; block < kBatchBlocks; block++) {
        store_big_endian(state->keystream + block * kBlock, high);
        store_big_endian(state->keystream + block * kBlock + 8, low);
        if (++low == 0) high++;
    }
    store_big_endian(state->counter, high);
    store_big_endian(state->counter + 8, low);
    int written = 0;
    if (EVP_EncryptUpdate(state->ecb, state->keystream, &written, state->keystream, kBatchBytes) != 1
        || written != kBatchBytes) {
        return 0;
    }
    state->used = 0;
    return 1;
}

static const EVP_CIPHER *ecb_cipher(int key_length) {
    switch (key_length) {
    case 16: return EVP_aes_128_ecb();
    case 24: return EVP_aes_192_ecb();
    case 32: return EVP_aes_256_ecb();
    default: return NULL;
    }
}

static int batched_init(EVP_CIPHER_CTX *context, const unsigned char *key, const unsigned char *iv, int encrypt) {
    (void)encrypt;  // CTR encrypts and decrypts alike
    BatchedCTR *state = EVP_CIPHER_CTX_get_cipher_data(context);
    // Zeroed by OpenSSL: no keystream made yet, the counter all zeros until an IV comes.
    int fresh = state->ecb == NULL;
    if (key != NULL) {
        const EVP_CIPHER *ecb = ecb_cipher(EVP_CIPHER_CTX_get_key_length(context));
        if (ecb == NULL) return 0;
        if (state->ecb == NULL && (state->ecb = EVP_CIPHER_CTX_new()) == NULL) return 0;
        if (EVP_EncryptInit_ex(state->ecb, ecb, NULL, key, NULL) != 1) return 0;
        EVP_CIPHER_CTX_set_padding(state->ecb, 0);
    }
    if (key == NULL && iv == NULL) return 1;
    if (iv != NULL) {
        memcpy(state->counter, iv, kBlock);
    } else if (!fresh) {
        // A new key goes on from the block after the last one used (a block used in part is dropped, as OpenSSL's
        // own CTR does): `counter` is past the whole batch, so the blocks not used go back.
        uint64_t high = load_big_endian(state->counter);
        uint64_t low = load_big_endian(state->counter + 8);
        uint64_t unused = (kBatchBytes - state->used) / kBlock;
        if (low < unused) high--;
        low -= unused;
        store_big_endian(state->counter, high);
        store_big_endian(state->counter + 8, low);
    }
    // The rest of the old keystream goes.
    OPENSSL_cleanse(state->keystream, kBatchBytes);
    state->used = kBatchBytes;
    return 1;
}

static int batched_cipher(EVP_CIPHER_CTX *context, unsigned char *out, const unsigned char *in, size_t length) {
    BatchedCTR *state = EVP_CIPHER_CTX_get_cipher_data(context);
    if (state->ecb == NULL) return 0;
    // libssh2's call: one block, word by word.
    if (length == kBlock && state->used + kBlock <= kBatchBytes) {
        const unsigned char *stream = state->keystream + state->used;
        uint64_t data[2], key[2];
        memcpy(data, in, kBlock);
        memcpy(key, stream, kBlock);
        data[0] ^= key[0];
        data[1] ^= key[1];
        memcpy(out, data, kBlock);
        state->used += kBlock;
        return 1;
    }
    while (length > 0) {
        if (state->used == kBatchBytes && !make_keystream(state)) return 0;
        size_t count = kBatchBytes - state->used;
        if (count > length) count = length;
        const unsigned char *stream = state->keystream + state->used;
        for (size_t index = 0; index < count; index++) out[index] = in[index] ^ stream[index];
        state->used += count;
        out += count;
        in += count;
        length -= count;
    }
    return 1;
}

static int batched_cleanup(EVP_CIPHER_CTX *context) {
    BatchedCTR *state = EVP_CIPHER_CTX_get_cipher_data(context);
    if (state == NULL) return 1;
    EVP_CIPHER_CTX_free(state->ecb);
    state->ecb = NULL;
    OPENSSL_cleanse(state, sizeof *state);  // the keystream is as secret as the key
    return 1;
}

static const int cipher_nids[3] = {NID_aes_128_ctr, NID_aes_192_ctr, NID_aes_256_ctr};
static EVP_CIPHER *cipher_methods[3];

static int engine_ciphers(ENGINE *engine, const EVP_CIPHER **cipher, const int **nids, int nid) {
    (void)engine;
    if (cipher == NULL) {
        *nids = cipher_nids;
        return 3;
    }
    for (int index = 0; index < 3; index++) {
        if (cipher_nids[index] == nid) {
            *cipher = cipher_methods[index];
            return 1;
        }
    }
    *cipher = NULL;
    return 0;
}

static atomic_int installed;

static void install_once(void) {
    static const int key_lengths[3] = {16, 24, 32};
    for (int index = 0; index < 3; index++) {
        EVP_CIPHER *method = EVP_CIPHER_meth_new(cipher_nids[index], 1, key_lengths[index]);
        if (method == NULL || !EVP_CIPHER_meth_set_iv_length(method, kBlock)
            // Always called: OpenSSL calls a cipher's init without a key only with this flag, and a new counter
            // alone must reach it.
            || !EVP_CIPHER_meth_set_flags(method, EVP_CIPH_CTR_MODE | EVP_CIPH_ALWAYS_CALL_INIT)
            || !EVP_CIPHER_meth_set_init(method, batched_init)
            || !EVP_CIPHER_meth_set_do_cipher(method, batched_cipher)
            || !EVP_CIPHER_meth_set_cleanup(method, batched_cleanup)
            || !EVP_CIPHER_meth_set_impl_ctx_size(method, sizeof(BatchedCTR))) {
            EVP_CIPHER_meth_free(method);
            return;
        }
        cipher_methods[index] = method;
    }
    ENGINE *engine = ENGINE_new();
    if (engine == NULL) return;
    if (!ENGINE_set_id(engine, "pipe-batched-aes-ctr")
        || !ENGINE_set_name(engine, "Pipe: AES-CTR with its keystream made 4 KiB at a time")
        || !ENGINE_set_ciphers(engine, engine_ciphers) || !ENGINE_init(engine)) {
        ENGINE_free(engine);
        return;
    }
    // The process keeps the engine (and its functional reference) for good.
    atomic_store(&installed, ENGINE_set_default_ciphers(engine) == 1);
}

int pipe_batched_aes_ctr_install(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install_once);
    return atomic_load(&installed);
}

int pipe_batched_aes_ctr_installed(void) { return atomic_load(&installed); }

#else

int pipe_batched_aes_ctr_install(void) { return 0; }
int pipe_batched_aes_ctr_installed(void) { return 0; }

#endif
