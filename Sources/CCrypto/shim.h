#ifndef PIPE_CCRYPTO_SHIM_H
#define PIPE_CCRYPTO_SHIM_H
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/crypto.h>
#endif
