#ifndef ELIMAGE_CCRYPTO_SHIM_H
#define ELIMAGE_CCRYPTO_SHIM_H
/* OpenSSL's libcrypto: its message digests (EVP_Digest*), for the SHA-256 of model files. */
#include <openssl/evp.h>
#include <openssl/err.h>
#endif
