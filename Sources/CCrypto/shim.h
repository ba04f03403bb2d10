#ifndef REACH_CCRYPTO_SHIM_H
#define REACH_CCRYPTO_SHIM_H

// OpenSSL's libcrypto (Debian's libssl3), for SHA-256 only: its EVP digest interface.
#include <openssl/evp.h>

#endif
