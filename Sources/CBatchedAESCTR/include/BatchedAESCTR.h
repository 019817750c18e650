#ifndef PIPE_BATCHED_AES_CTR_H
#define PIPE_BATCHED_AES_CTR_H

/// AES-CTR for libssh2, with its keystream made 4 KiB at a time.
///
/// libssh2 1.10 encrypts and decrypts a packet one cipher block (16 bytes) per `EVP_Cipher` call, and OpenSSL 3's
/// AES-CTR costs about 36 ns a call whatever its length: on these machines that caps one SSH channel at about
/// 200 MB/s. CTR's keystream does not depend on the data, so this cipher makes 256 blocks of it at once (AES-ECB of
/// the next 256 counter values, one call, with AES-NI where the CPU has it) and each 16-byte call only XORs. The bytes
/// are AES-CTR's (big-endian 128-bit counter, as RFC 4344 and OpenSSL count), checked against OpenSSL's `enc` in the
/// tests; an SSH peer would refuse any other byte (the packet MAC).
///
/// It is offered through OpenSSL's ENGINE interface, the one way to replace the cipher behind `EVP_aes_128_ctr()`
/// that libssh2 asks for, as the default for aes-128/192/256-ctr in this process. Nothing else in Pipe uses AES-CTR
/// (TLS uses AEAD ciphers).

/// Installs the cipher as this process's default AES-CTR. Thread-safe; only the first call acts. Returns 1 when
/// installed, 0 when OpenSSL refused it or was built without engines (libssh2 then uses OpenSSL's own AES-CTR).
int pipe_batched_aes_ctr_install(void);

/// 1 once `pipe_batched_aes_ctr_install` succeeded.
int pipe_batched_aes_ctr_installed(void);

#endif
