#ifndef PEERSCAN_CCRYPTO_SHIM_H
#define PEERSCAN_CCRYPTO_SHIM_H
// OpenSSL's libcrypto (Debian's libssl-dev; at run time libssl3, which libmosquitto loads too): the EVP digest
// interface and the error queue that explains a failed call.
#include <openssl/evp.h>
#include <openssl/err.h>
#endif
