#ifndef PIPE_CCRYPTO_SHIM_H
#define PIPE_CCRYPTO_SHIM_H
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/crypto.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#endif
