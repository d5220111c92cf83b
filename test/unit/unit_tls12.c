/* test/unit/unit_tls12.c — the TLS 1.2 fallback (tls13/tls12.c) through
 * conn.h, against BearSSL's own TLS 1.2 *server* engine, in memory.
 *
 * The loopback moves ciphertext both ways in chunks of odd sizes (1, 7, 13,
 * 333, ... bytes, rotating), each fed to tls_conn_recv from an exact-size
 * heap copy so that ASan catches any read past a feed. Suites: ECDHE-ECDSA
 * (P-256 certificate) and ECDHE-RSA (RSA 2048) with AES-GCM and
 * ChaCha20-Poly1305, plus ECDHE-RSA AES-CBC and RSA key exchange (the
 * accept-any X.509 class must hand the engine the certificate's key for
 * both the ServerKeyExchange signature and the RSA premaster secret).
 *
 * The keys and self-signed certificates below were made for this test only:
 *   openssl ecparam -name prime256v1 -genkey -noout -outform DER -out ec.key.der
 *   openssl req -x509 -new -key ec.key.der -keyform DER -sha256 -days 36500 \
 *       -subj /CN=localhost -outform DER -out ec.crt.der
 *   openssl genrsa -out rsa.key.pem 2048
 *   openssl rsa -in rsa.key.pem -traditional -outform DER -out rsa.key.der
 *   openssl req -x509 -new -key rsa.key.pem -sha256 -days 36500 \
 *       -subj /CN=localhost -outform DER -out rsa.crt.der
 * (EC key: SEC1 DER; RSA key: PKCS#1 DER; both read with br_skey_decoder.) */
#include <bearssl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test/unit/t.h"
#include "tls13/conn.h"
#include "tls13/tls12.h"

/* ---- test keys and certificates ---- */

static const uint8_t EC_CERT[387] = {
    0x30, 0x82, 0x01, 0x7f, 0x30, 0x82, 0x01, 0x25, 0xa0, 0x03, 0x02, 0x01, 0x02, 0x02, 0x14, 0x19,
    0x92, 0xc3, 0x7b, 0x7d, 0xb7, 0xef, 0xd4, 0x04, 0x71, 0xcf, 0x18, 0x3b, 0xa1, 0xd1, 0x16, 0xea,
    0xd1, 0x1a, 0x96, 0x30, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02, 0x30,
    0x14, 0x31, 0x12, 0x30, 0x10, 0x06, 0x03, 0x55, 0x04, 0x03, 0x0c, 0x09, 0x6c, 0x6f, 0x63, 0x61,
    0x6c, 0x68, 0x6f, 0x73, 0x74, 0x30, 0x20, 0x17, 0x0d, 0x32, 0x36, 0x31, 0x31, 0x32, 0x39, 0x32,
    0x31, 0x30, 0x35, 0x32, 0x34, 0x5a, 0x18, 0x0f, 0x32, 0x31, 0x32, 0x36, 0x31, 0x31, 0x30, 0x35,
    0x32, 0x31, 0x30, 0x35, 0x32, 0x34, 0x5a, 0x30, 0x14, 0x31, 0x12, 0x30, 0x10, 0x06, 0x03, 0x55,
    0x04, 0x03, 0x0c, 0x09, 0x6c, 0x6f, 0x63, 0x61, 0x6c, 0x68, 0x6f, 0x73, 0x74, 0x30, 0x59, 0x30,
    0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce,
    0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00, 0x04, 0x32, 0x49, 0xe9, 0xce, 0x2d, 0x2d, 0x44, 0x7a,
    0x1b, 0x90, 0x90, 0xf7, 0x2a, 0xcc, 0x32, 0xea, 0x99, 0xab, 0x08, 0x83, 0x58, 0x9a, 0x5d, 0x53,
    0x58, 0xa1, 0x05, 0x13, 0xf0, 0x05, 0x70, 0xd9, 0x08, 0xdb, 0x9a, 0xbd, 0x9d, 0xed, 0x6a, 0x95,
    0xa2, 0x10, 0xc0, 0x40, 0xbb, 0x7b, 0xd9, 0x4c, 0xc2, 0xd4, 0x9f, 0x6b, 0x67, 0x00, 0xb5, 0xf1,
    0x9c, 0x1e, 0x24, 0x44, 0x9b, 0x7c, 0x0a, 0x22, 0xa3, 0x53, 0x30, 0x51, 0x30, 0x1d, 0x06, 0x03,
    0x55, 0x1d, 0x0e, 0x04, 0x16, 0x04, 0x14, 0x12, 0x66, 0x73, 0x4c, 0x6c, 0xb2, 0x88, 0x30, 0xb5,
    0x6a, 0x29, 0xaf, 0xf2, 0xb1, 0x29, 0x33, 0xdc, 0x05, 0x7e, 0x3d, 0x30, 0x1f, 0x06, 0x03, 0x55,
    0x1d, 0x23, 0x04, 0x18, 0x30, 0x16, 0x80, 0x14, 0x12, 0x66, 0x73, 0x4c, 0x6c, 0xb2, 0x88, 0x30,
    0xb5, 0x6a, 0x29, 0xaf, 0xf2, 0xb1, 0x29, 0x33, 0xdc, 0x05, 0x7e, 0x3d, 0x30, 0x0f, 0x06, 0x03,
    0x55, 0x1d, 0x13, 0x01, 0x01, 0xff, 0x04, 0x05, 0x30, 0x03, 0x01, 0x01, 0xff, 0x30, 0x0a, 0x06,
    0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02, 0x03, 0x48, 0x00, 0x30, 0x45, 0x02, 0x21,
    0x00, 0x81, 0x6b, 0x9b, 0x56, 0xdf, 0x8b, 0x40, 0x75, 0xc5, 0x67, 0x5b, 0xdc, 0x28, 0x9b, 0x87,
    0x91, 0x87, 0xdd, 0x8a, 0xfb, 0x74, 0xee, 0x55, 0x42, 0xd8, 0x49, 0x61, 0x56, 0xe0, 0x0f, 0xd3,
    0xae, 0x02, 0x20, 0x0c, 0xec, 0xaf, 0x4b, 0x04, 0x74, 0x24, 0xe4, 0xb6, 0x64, 0xd6, 0xcd, 0x9c,
    0x5a, 0xff, 0x23, 0x31, 0x81, 0xaf, 0xaf, 0x53, 0x50, 0xc8, 0x00, 0xcd, 0xed, 0x62, 0x7c, 0x78,
    0x0f, 0x9b, 0xaf,
};
static const uint8_t EC_KEY[121] = {
    0x30, 0x77, 0x02, 0x01, 0x01, 0x04, 0x20, 0xda, 0xbc, 0xd7, 0x18, 0x6d, 0xac, 0x48, 0x40, 0xdd,
    0x75, 0x8a, 0x3a, 0xd3, 0x0b, 0x3e, 0x40, 0xe0, 0x85, 0xaf, 0xdc, 0x2f, 0xd9, 0x4e, 0xaf, 0x12,
    0xa1, 0xe7, 0xc8, 0x03, 0x0c, 0x11, 0x43, 0xa0, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d,
    0x03, 0x01, 0x07, 0xa1, 0x44, 0x03, 0x42, 0x00, 0x04, 0x32, 0x49, 0xe9, 0xce, 0x2d, 0x2d, 0x44,
    0x7a, 0x1b, 0x90, 0x90, 0xf7, 0x2a, 0xcc, 0x32, 0xea, 0x99, 0xab, 0x08, 0x83, 0x58, 0x9a, 0x5d,
    0x53, 0x58, 0xa1, 0x05, 0x13, 0xf0, 0x05, 0x70, 0xd9, 0x08, 0xdb, 0x9a, 0xbd, 0x9d, 0xed, 0x6a,
    0x95, 0xa2, 0x10, 0xc0, 0x40, 0xbb, 0x7b, 0xd9, 0x4c, 0xc2, 0xd4, 0x9f, 0x6b, 0x67, 0x00, 0xb5,
    0xf1, 0x9c, 0x1e, 0x24, 0x44, 0x9b, 0x7c, 0x0a, 0x22,
};
static const uint8_t RSA_CERT[783] = {
    0x30, 0x82, 0x03, 0x0b, 0x30, 0x82, 0x01, 0xf3, 0xa0, 0x03, 0x02, 0x01, 0x02, 0x02, 0x14, 0x40,
    0xf7, 0x20, 0x70, 0x21, 0x9e, 0xef, 0x0e, 0xac, 0x74, 0xaa, 0x06, 0x59, 0xc7, 0xf7, 0x35, 0x44,
    0x61, 0x2d, 0x80, 0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b,
    0x05, 0x00, 0x30, 0x14, 0x31, 0x12, 0x30, 0x10, 0x06, 0x03, 0x55, 0x04, 0x03, 0x0c, 0x09, 0x6c,
    0x6f, 0x63, 0x61, 0x6c, 0x68, 0x6f, 0x73, 0x74, 0x30, 0x20, 0x17, 0x0d, 0x32, 0x36, 0x31, 0x31,
    0x32, 0x39, 0x32, 0x31, 0x30, 0x35, 0x32, 0x34, 0x5a, 0x18, 0x0f, 0x32, 0x31, 0x32, 0x36, 0x31,
    0x31, 0x30, 0x35, 0x32, 0x31, 0x30, 0x35, 0x32, 0x34, 0x5a, 0x30, 0x14, 0x31, 0x12, 0x30, 0x10,
    0x06, 0x03, 0x55, 0x04, 0x03, 0x0c, 0x09, 0x6c, 0x6f, 0x63, 0x61, 0x6c, 0x68, 0x6f, 0x73, 0x74,
    0x30, 0x82, 0x01, 0x22, 0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01,
    0x01, 0x05, 0x00, 0x03, 0x82, 0x01, 0x0f, 0x00, 0x30, 0x82, 0x01, 0x0a, 0x02, 0x82, 0x01, 0x01,
    0x00, 0xe5, 0x33, 0xe8, 0x0b, 0xb2, 0x55, 0xc8, 0xcf, 0x4a, 0x54, 0x64, 0x34, 0x7e, 0x81, 0xe7,
    0xa4, 0x02, 0x03, 0x95, 0x17, 0xad, 0x8e, 0x65, 0x51, 0x38, 0xe2, 0xdb, 0xec, 0x2e, 0xe9, 0xfd,
    0x56, 0x68, 0x37, 0xf2, 0xf3, 0xa3, 0x3e, 0x7d, 0x49, 0x0e, 0x16, 0x4e, 0xc5, 0xa4, 0x75, 0x89,
    0x81, 0xcd, 0x89, 0xa3, 0xa1, 0xb6, 0x81, 0x79, 0xd4, 0xe5, 0x6d, 0x22, 0xee, 0xa6, 0x9f, 0x2e,
    0x69, 0x22, 0xed, 0x3e, 0xdd, 0x43, 0x30, 0x6b, 0xf0, 0x73, 0x59, 0x05, 0xc7, 0x58, 0xdd, 0x2c,
    0xe2, 0xc4, 0xd6, 0xf6, 0x82, 0x17, 0xdf, 0x2d, 0xf9, 0x16, 0xa4, 0x30, 0xd8, 0x5c, 0xca, 0x99,
    0x22, 0x71, 0x8c, 0x8f, 0xca, 0xf9, 0x6c, 0xe4, 0x46, 0xed, 0x05, 0xd5, 0xe1, 0x39, 0x2a, 0xff,
    0x10, 0x69, 0x80, 0x33, 0x3f, 0x4f, 0x7c, 0x7f, 0x48, 0x8b, 0x56, 0xbf, 0x90, 0xd0, 0xa9, 0xee,
    0xd0, 0xab, 0x50, 0xfa, 0xf4, 0xc1, 0x67, 0xa1, 0x61, 0x9b, 0x5e, 0xc3, 0x18, 0xb9, 0x0e, 0x3a,
    0x2b, 0x7d, 0x40, 0xa7, 0x89, 0x1f, 0x52, 0xe7, 0x22, 0x75, 0xa1, 0x43, 0xcf, 0x42, 0x5b, 0x28,
    0xed, 0x71, 0x19, 0x6d, 0x25, 0xef, 0xb8, 0x56, 0xc9, 0x78, 0x6f, 0x0b, 0x39, 0x02, 0xf6, 0x79,
    0xf1, 0xd2, 0x9c, 0xe3, 0x67, 0x1f, 0xbf, 0x96, 0xd1, 0xca, 0xe2, 0x17, 0x42, 0xb5, 0x3e, 0xaa,
    0x0f, 0x04, 0x86, 0x1e, 0x0a, 0x60, 0x90, 0xdf, 0xd5, 0x4b, 0xea, 0x4e, 0xbb, 0x96, 0xc6, 0x47,
    0x1b, 0x3a, 0x4a, 0x96, 0x04, 0x5d, 0x7c, 0x56, 0xbe, 0x98, 0x41, 0x68, 0x9d, 0x43, 0xcf, 0x28,
    0x86, 0xc2, 0xba, 0x35, 0xbf, 0x85, 0x81, 0x01, 0x9e, 0xde, 0xd6, 0x4e, 0xa8, 0x4d, 0x7a, 0x96,
    0xbe, 0x22, 0x63, 0x22, 0xe3, 0xc1, 0x04, 0xc7, 0x01, 0x72, 0xa2, 0xef, 0xe7, 0x1d, 0x9d, 0xe7,
    0xff, 0x02, 0x03, 0x01, 0x00, 0x01, 0xa3, 0x53, 0x30, 0x51, 0x30, 0x1d, 0x06, 0x03, 0x55, 0x1d,
    0x0e, 0x04, 0x16, 0x04, 0x14, 0xdc, 0xce, 0x02, 0xae, 0x43, 0xf6, 0x80, 0x98, 0xec, 0x15, 0xcf,
    0x01, 0x9a, 0xc3, 0x94, 0xec, 0x53, 0x88, 0x9f, 0xcc, 0x30, 0x1f, 0x06, 0x03, 0x55, 0x1d, 0x23,
    0x04, 0x18, 0x30, 0x16, 0x80, 0x14, 0xdc, 0xce, 0x02, 0xae, 0x43, 0xf6, 0x80, 0x98, 0xec, 0x15,
    0xcf, 0x01, 0x9a, 0xc3, 0x94, 0xec, 0x53, 0x88, 0x9f, 0xcc, 0x30, 0x0f, 0x06, 0x03, 0x55, 0x1d,
    0x13, 0x01, 0x01, 0xff, 0x04, 0x05, 0x30, 0x03, 0x01, 0x01, 0xff, 0x30, 0x0d, 0x06, 0x09, 0x2a,
    0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b, 0x05, 0x00, 0x03, 0x82, 0x01, 0x01, 0x00, 0x25,
    0xa2, 0x09, 0xf2, 0x0d, 0x44, 0xf0, 0x28, 0x3f, 0x57, 0xb1, 0x58, 0xc9, 0x27, 0x9c, 0xc4, 0x00,
    0x9f, 0x75, 0xe3, 0xb3, 0x25, 0x21, 0x68, 0x7a, 0x50, 0xb3, 0x33, 0xd7, 0x92, 0x98, 0x1b, 0x41,
    0xee, 0x25, 0xc6, 0x32, 0xa0, 0x06, 0xf0, 0x97, 0x3d, 0xa1, 0xbe, 0x00, 0x86, 0x00, 0x2b, 0x6e,
    0xed, 0xec, 0x15, 0x31, 0xfa, 0x04, 0x4b, 0xf7, 0x8d, 0x91, 0xe5, 0x85, 0xef, 0x8b, 0x08, 0xd5,
    0x79, 0xae, 0xdf, 0xc9, 0x13, 0xd5, 0xbb, 0x98, 0x72, 0xbc, 0x9a, 0x5e, 0xa0, 0xa5, 0x6f, 0x69,
    0xed, 0x55, 0xb9, 0x1f, 0xd3, 0x5d, 0x86, 0x9b, 0x67, 0x48, 0x25, 0x86, 0xfa, 0x08, 0x07, 0x71,
    0x71, 0x1d, 0x12, 0x20, 0xdf, 0x1d, 0xff, 0x67, 0x93, 0xce, 0xe6, 0x03, 0xb4, 0x98, 0xe0, 0xc9,
    0x95, 0xd5, 0x8c, 0xa6, 0x21, 0x19, 0xa1, 0xed, 0xc4, 0x63, 0x99, 0x09, 0x27, 0x3a, 0xb2, 0x9a,
    0x54, 0x94, 0x0b, 0xb1, 0xe6, 0x9b, 0xfa, 0x7d, 0x10, 0x4e, 0x60, 0xb0, 0x59, 0xf7, 0xcf, 0x8b,
    0xed, 0x7e, 0xc3, 0x62, 0xbe, 0x58, 0x01, 0xaa, 0x61, 0x9f, 0xbb, 0x63, 0xfb, 0x78, 0xd8, 0x6c,
    0xb0, 0x9a, 0x5d, 0xec, 0xe0, 0x5d, 0xf5, 0x87, 0xee, 0x5d, 0xd7, 0xab, 0x7b, 0xdc, 0x55, 0xc0,
    0x2c, 0xb2, 0xdc, 0x51, 0x5c, 0xf9, 0x59, 0xd8, 0x57, 0xd1, 0xc2, 0x4c, 0x90, 0x3d, 0x95, 0xe4,
    0x47, 0x98, 0x96, 0x9d, 0xb7, 0xce, 0xea, 0xd5, 0x1d, 0xbd, 0x19, 0x70, 0xbe, 0x10, 0x1c, 0xb4,
    0xaa, 0x94, 0xde, 0x49, 0x17, 0xb1, 0x18, 0x0d, 0xfe, 0xc4, 0x70, 0x03, 0x6a, 0x9a, 0xea, 0x7b,
    0x95, 0x48, 0xc5, 0x78, 0x72, 0xce, 0x3e, 0x6b, 0xcb, 0xa2, 0x39, 0xf0, 0x81, 0xa8, 0xaf, 0x0e,
    0xe7, 0xc2, 0x7f, 0x0f, 0x29, 0x49, 0x25, 0xdc, 0xc0, 0x0d, 0x05, 0x62, 0x6b, 0xc4, 0xc8,
};
static const uint8_t RSA_KEY[1191] = {
    0x30, 0x82, 0x04, 0xa3, 0x02, 0x01, 0x00, 0x02, 0x82, 0x01, 0x01, 0x00, 0xe5, 0x33, 0xe8, 0x0b,
    0xb2, 0x55, 0xc8, 0xcf, 0x4a, 0x54, 0x64, 0x34, 0x7e, 0x81, 0xe7, 0xa4, 0x02, 0x03, 0x95, 0x17,
    0xad, 0x8e, 0x65, 0x51, 0x38, 0xe2, 0xdb, 0xec, 0x2e, 0xe9, 0xfd, 0x56, 0x68, 0x37, 0xf2, 0xf3,
    0xa3, 0x3e, 0x7d, 0x49, 0x0e, 0x16, 0x4e, 0xc5, 0xa4, 0x75, 0x89, 0x81, 0xcd, 0x89, 0xa3, 0xa1,
    0xb6, 0x81, 0x79, 0xd4, 0xe5, 0x6d, 0x22, 0xee, 0xa6, 0x9f, 0x2e, 0x69, 0x22, 0xed, 0x3e, 0xdd,
    0x43, 0x30, 0x6b, 0xf0, 0x73, 0x59, 0x05, 0xc7, 0x58, 0xdd, 0x2c, 0xe2, 0xc4, 0xd6, 0xf6, 0x82,
    0x17, 0xdf, 0x2d, 0xf9, 0x16, 0xa4, 0x30, 0xd8, 0x5c, 0xca, 0x99, 0x22, 0x71, 0x8c, 0x8f, 0xca,
    0xf9, 0x6c, 0xe4, 0x46, 0xed, 0x05, 0xd5, 0xe1, 0x39, 0x2a, 0xff, 0x10, 0x69, 0x80, 0x33, 0x3f,
    0x4f, 0x7c, 0x7f, 0x48, 0x8b, 0x56, 0xbf, 0x90, 0xd0, 0xa9, 0xee, 0xd0, 0xab, 0x50, 0xfa, 0xf4,
    0xc1, 0x67, 0xa1, 0x61, 0x9b, 0x5e, 0xc3, 0x18, 0xb9, 0x0e, 0x3a, 0x2b, 0x7d, 0x40, 0xa7, 0x89,
    0x1f, 0x52, 0xe7, 0x22, 0x75, 0xa1, 0x43, 0xcf, 0x42, 0x5b, 0x28, 0xed, 0x71, 0x19, 0x6d, 0x25,
    0xef, 0xb8, 0x56, 0xc9, 0x78, 0x6f, 0x0b, 0x39, 0x02, 0xf6, 0x79, 0xf1, 0xd2, 0x9c, 0xe3, 0x67,
    0x1f, 0xbf, 0x96, 0xd1, 0xca, 0xe2, 0x17, 0x42, 0xb5, 0x3e, 0xaa, 0x0f, 0x04, 0x86, 0x1e, 0x0a,
    0x60, 0x90, 0xdf, 0xd5, 0x4b, 0xea, 0x4e, 0xbb, 0x96, 0xc6, 0x47, 0x1b, 0x3a, 0x4a, 0x96, 0x04,
    0x5d, 0x7c, 0x56, 0xbe, 0x98, 0x41, 0x68, 0x9d, 0x43, 0xcf, 0x28, 0x86, 0xc2, 0xba, 0x35, 0xbf,
    0x85, 0x81, 0x01, 0x9e, 0xde, 0xd6, 0x4e, 0xa8, 0x4d, 0x7a, 0x96, 0xbe, 0x22, 0x63, 0x22, 0xe3,
    0xc1, 0x04, 0xc7, 0x01, 0x72, 0xa2, 0xef, 0xe7, 0x1d, 0x9d, 0xe7, 0xff, 0x02, 0x03, 0x01, 0x00,
    0x01, 0x02, 0x82, 0x01, 0x00, 0x21, 0x38, 0x19, 0x31, 0x1c, 0xcb, 0x3f, 0x1c, 0x00, 0x17, 0x64,
    0x20, 0x91, 0x97, 0x4d, 0x55, 0xe1, 0x6e, 0xd8, 0x7c, 0x82, 0x8c, 0x89, 0x55, 0xb0, 0xcb, 0x7c,
    0x79, 0x6a, 0x41, 0x42, 0x94, 0xf3, 0xec, 0xeb, 0xfa, 0xf0, 0xd5, 0x7d, 0x3e, 0x09, 0xdb, 0x24,
    0xd6, 0x93, 0x63, 0xef, 0xa6, 0x8e, 0xfe, 0x1c, 0x67, 0xb3, 0x36, 0x67, 0xcc, 0x79, 0xe6, 0x0b,
    0xf2, 0x8f, 0xd6, 0xb1, 0x58, 0xce, 0x95, 0x99, 0x0f, 0x63, 0x8e, 0x10, 0x8e, 0xdc, 0x80, 0xf2,
    0x0b, 0xf6, 0xee, 0xb3, 0x73, 0x38, 0x79, 0x39, 0x68, 0x18, 0x82, 0xa1, 0xbc, 0xa0, 0xd1, 0xf2,
    0x3c, 0x61, 0x92, 0x81, 0x88, 0x52, 0xf1, 0xbe, 0xe3, 0x79, 0xac, 0x15, 0x17, 0xcc, 0x81, 0x94,
    0x82, 0x9c, 0x91, 0x05, 0x3f, 0xc1, 0x32, 0xb1, 0xfa, 0xc2, 0x8f, 0xf6, 0x38, 0xb2, 0xed, 0x43,
    0x3d, 0x7f, 0x68, 0xa9, 0xb2, 0x71, 0x71, 0x2d, 0x38, 0x44, 0x1c, 0x9c, 0xb6, 0x0d, 0xce, 0x4d,
    0x18, 0x9c, 0xc0, 0x0e, 0x9e, 0x3c, 0x3e, 0x42, 0x7a, 0x0c, 0xc0, 0x95, 0x34, 0x00, 0x13, 0x02,
    0x85, 0xdc, 0xd9, 0x4d, 0x00, 0x61, 0x40, 0x22, 0x2d, 0xac, 0x13, 0xb1, 0x8f, 0xb8, 0x8a, 0x8d,
    0x0b, 0xa3, 0x9a, 0xdf, 0xb9, 0xe5, 0xa5, 0xfe, 0x51, 0xa9, 0x72, 0xd3, 0x3b, 0x8c, 0xe4, 0x64,
    0xf9, 0xb7, 0x26, 0x0d, 0x5b, 0x19, 0x30, 0xda, 0xcc, 0x67, 0x02, 0xa7, 0x5e, 0xcb, 0xbb, 0x98,
    0xb1, 0x32, 0xb4, 0x5f, 0xaf, 0x7e, 0xd3, 0xea, 0x86, 0x75, 0xad, 0x8b, 0x4e, 0x35, 0xdd, 0x85,
    0xfe, 0xaa, 0x70, 0x20, 0x46, 0xab, 0x0a, 0xcf, 0x4c, 0x67, 0x12, 0xe8, 0xb6, 0xa3, 0x4f, 0x6a,
    0x24, 0xf7, 0x84, 0x7a, 0x8e, 0x95, 0xe2, 0xb3, 0xab, 0x44, 0x72, 0xaf, 0x96, 0x43, 0xe0, 0x8e,
    0x46, 0x58, 0xfe, 0xfa, 0x21, 0x02, 0x81, 0x81, 0x00, 0xf5, 0x73, 0x81, 0x77, 0xee, 0x08, 0x9b,
    0xf6, 0x6b, 0x9b, 0x56, 0x43, 0x20, 0xb6, 0x92, 0xf3, 0x4a, 0x68, 0x0a, 0xaa, 0xdc, 0xe1, 0x30,
    0x77, 0xfb, 0x9b, 0xfb, 0x06, 0x06, 0x5a, 0x9a, 0x28, 0xbd, 0xf5, 0xd7, 0x3e, 0x98, 0x51, 0x47,
    0xe5, 0xa5, 0x66, 0x88, 0xe2, 0xbc, 0x80, 0xe3, 0x0f, 0x44, 0xfc, 0x94, 0xc5, 0xb5, 0xcf, 0x23,
    0x01, 0xf7, 0x6a, 0xd9, 0xcf, 0xac, 0x08, 0x79, 0x55, 0x7a, 0x2d, 0xd7, 0x5b, 0xb0, 0xca, 0xe4,
    0xc7, 0xf3, 0x1c, 0xb4, 0xaa, 0x38, 0xf4, 0x47, 0x29, 0xae, 0x04, 0xf7, 0xd0, 0xff, 0x87, 0x7e,
    0xb9, 0xb4, 0xce, 0xe9, 0x2b, 0x4c, 0x6e, 0xd5, 0xb7, 0x53, 0x6a, 0x46, 0xc2, 0xde, 0xc5, 0x11,
    0x60, 0x29, 0x18, 0xa0, 0x5a, 0x8e, 0xa3, 0x49, 0xf8, 0x69, 0xcb, 0x4a, 0x1f, 0x9c, 0x3f, 0x67,
    0xd2, 0x0b, 0x38, 0xd1, 0x52, 0x6e, 0x0c, 0x40, 0x5f, 0x02, 0x81, 0x81, 0x00, 0xef, 0x0d, 0xa1,
    0xfb, 0xe4, 0xc5, 0x90, 0x3a, 0x82, 0xf0, 0xa3, 0x9d, 0xa9, 0x3f, 0xfe, 0x43, 0xf0, 0x95, 0xf1,
    0x26, 0xac, 0x21, 0xa4, 0x37, 0x1d, 0xc0, 0x61, 0x3f, 0x83, 0xd9, 0xce, 0x27, 0x59, 0x71, 0x92,
    0x6e, 0xa1, 0xb6, 0x39, 0x8e, 0x81, 0x97, 0x71, 0xd9, 0xd9, 0x58, 0x67, 0xc4, 0x27, 0xb9, 0x9d,
    0x98, 0x37, 0x53, 0x10, 0x41, 0x81, 0x2f, 0x18, 0x17, 0x69, 0x1c, 0xa0, 0x68, 0x82, 0x53, 0xf6,
    0xd1, 0x59, 0xff, 0x90, 0xe7, 0x8e, 0xd4, 0x9f, 0xef, 0x73, 0x5d, 0xbf, 0x35, 0x92, 0xcf, 0x62,
    0x99, 0xb9, 0x4b, 0x9d, 0x72, 0x44, 0x5b, 0xe7, 0x15, 0x22, 0x1d, 0x19, 0xb1, 0x1e, 0x7f, 0x96,
    0x9b, 0x58, 0x8d, 0x73, 0xe0, 0x1b, 0xed, 0x36, 0x16, 0xd3, 0xc1, 0xc6, 0xea, 0x56, 0x1e, 0x1e,
    0x46, 0x77, 0x0e, 0x38, 0x9a, 0xf1, 0x20, 0xf1, 0x13, 0x59, 0xe4, 0xfc, 0x61, 0x02, 0x81, 0x80,
    0x26, 0x56, 0x10, 0x16, 0xa7, 0x3a, 0xf9, 0x01, 0x17, 0xf5, 0x7f, 0x17, 0xa4, 0xf8, 0x5f, 0x23,
    0x58, 0xaf, 0xbf, 0x5a, 0xc8, 0x7c, 0xf3, 0x91, 0x09, 0xdf, 0x66, 0xe9, 0x9d, 0xfc, 0x70, 0xaf,
    0x84, 0x5b, 0xed, 0x6e, 0x7d, 0x63, 0xd4, 0x92, 0xed, 0xae, 0x82, 0x1a, 0xc7, 0xce, 0x69, 0xa8,
    0x6c, 0xe1, 0xf6, 0x6a, 0x9a, 0xe6, 0xeb, 0x54, 0xd7, 0x4b, 0xfd, 0x11, 0x0e, 0x91, 0x94, 0x41,
    0xe1, 0x7f, 0x5f, 0x6f, 0x96, 0xc1, 0x59, 0xd2, 0x51, 0x0a, 0x5e, 0xbd, 0x67, 0x7f, 0xdf, 0xcd,
    0x86, 0xbc, 0x87, 0xe8, 0x40, 0xc0, 0xec, 0xee, 0x1c, 0x6b, 0x64, 0xc7, 0xba, 0x7c, 0x65, 0x2c,
    0xe8, 0xfe, 0x64, 0x66, 0xf3, 0x5c, 0x5c, 0x46, 0x64, 0xa4, 0xd0, 0x06, 0xd4, 0xd8, 0x74, 0x29,
    0x34, 0x7c, 0xe7, 0xea, 0xe0, 0x00, 0x97, 0x3a, 0x9b, 0x3e, 0x18, 0x93, 0x83, 0x54, 0xae, 0x89,
    0x02, 0x81, 0x81, 0x00, 0xe3, 0x9e, 0x35, 0x78, 0xa5, 0x92, 0x40, 0x0c, 0x96, 0x95, 0x0f, 0x15,
    0x96, 0x0c, 0x6a, 0xcc, 0xc2, 0x0d, 0xe3, 0x7a, 0x91, 0x37, 0xcf, 0x26, 0xf3, 0xdb, 0x34, 0x3d,
    0xc8, 0x0b, 0xe1, 0xb1, 0xb2, 0x06, 0xe4, 0x09, 0x17, 0x4d, 0x6d, 0x6c, 0x75, 0x94, 0x80, 0x41,
    0x90, 0x24, 0x0f, 0x59, 0xc5, 0x01, 0x86, 0x3f, 0x63, 0x9e, 0x61, 0xc2, 0x1d, 0x81, 0x7c, 0x0c,
    0xfe, 0x76, 0xd5, 0x7d, 0xed, 0x6a, 0x89, 0x7f, 0x39, 0x94, 0x90, 0xa3, 0x0b, 0x6b, 0x05, 0x86,
    0x78, 0x70, 0xf1, 0x19, 0xcf, 0xda, 0x4b, 0xe6, 0x57, 0x7a, 0xda, 0x45, 0xed, 0x35, 0x1c, 0xc9,
    0x10, 0x9c, 0x68, 0xd4, 0x2f, 0x58, 0x09, 0x4d, 0x8d, 0x79, 0xd2, 0xb5, 0xb7, 0xa1, 0x9c, 0x79,
    0x0b, 0xd4, 0x5c, 0xd4, 0xd0, 0x7f, 0x09, 0x10, 0xcb, 0x57, 0xed, 0x2a, 0x0b, 0x22, 0xf4, 0xa9,
    0x1a, 0x55, 0x60, 0xc1, 0x02, 0x81, 0x80, 0x10, 0x93, 0xba, 0x46, 0x71, 0xde, 0x18, 0x74, 0x86,
    0xb7, 0x4b, 0xdd, 0x40, 0xcc, 0x96, 0xe2, 0x7f, 0xf4, 0xc0, 0x91, 0xf0, 0x5d, 0xc2, 0xc0, 0xf4,
    0x1d, 0x31, 0x98, 0x05, 0x20, 0x09, 0x5b, 0x38, 0x1a, 0x50, 0x22, 0x7c, 0x03, 0x0f, 0x64, 0x5b,
    0x60, 0x3b, 0x2e, 0xc1, 0x1a, 0x4c, 0xaa, 0x46, 0x42, 0x34, 0x39, 0x17, 0xd3, 0xca, 0x7a, 0x81,
    0xa7, 0x55, 0x7f, 0x47, 0x3a, 0xcd, 0xde, 0xbe, 0x72, 0xdc, 0xab, 0x98, 0x5b, 0x8b, 0x5f, 0x07,
    0x0d, 0xd9, 0x66, 0x70, 0xdc, 0xdd, 0x79, 0x2e, 0xd5, 0x64, 0x28, 0xe5, 0x61, 0x40, 0x55, 0x81,
    0x01, 0x93, 0x72, 0xa4, 0xc6, 0x2b, 0x04, 0xd1, 0x22, 0xaf, 0x49, 0xe9, 0x72, 0xce, 0x10, 0xdd,
    0x42, 0xe5, 0x01, 0xc8, 0x6a, 0x22, 0xdf, 0xef, 0x89, 0x1c, 0x0e, 0x0c, 0x16, 0xa7, 0xbf, 0x45,
    0xb4, 0x93, 0xcc, 0xc4, 0x12, 0xec, 0x94,
};

/* ---- a BearSSL TLS 1.2 server ---- */

struct server {
    br_ssl_server_context sc;
    br_skey_decoder_context key;
    br_x509_certificate chain[1];
    unsigned char buf[BR_SSL_BUFSIZE_BIDI];
};

struct server_opts {
    bool rsa;                 /* RSA 2048 certificate (else EC P-256) */
    uint16_t suite;           /* the only suite the server accepts (0: all of init_full's) */
    const char **alpn;        /* the server's protocol names (NULL: no ALPN) */
    size_t alpn_n;
    uint32_t flags;           /* e.g. BR_OPT_FAIL_ON_ALPN_MISMATCH */
    unsigned vmax;            /* highest version (0: TLS 1.2) */
    br_ssl_session_cache_lru *cache; /* a session cache (session ids, RFC 5246 §7.3), or NULL */
};

static struct server *server_new(const struct server_opts *o)
{
    struct server *s = calloc(1, sizeof *s);
    br_skey_decoder_init(&s->key);
    if (o->rsa) {
        br_skey_decoder_push(&s->key, RSA_KEY, sizeof RSA_KEY);
        s->chain[0].data = (unsigned char *)(uintptr_t)RSA_CERT;
        s->chain[0].data_len = sizeof RSA_CERT;
        br_ssl_server_init_full_rsa(&s->sc, s->chain, 1, br_skey_decoder_get_rsa(&s->key));
    } else {
        br_skey_decoder_push(&s->key, EC_KEY, sizeof EC_KEY);
        s->chain[0].data = (unsigned char *)(uintptr_t)EC_CERT;
        s->chain[0].data_len = sizeof EC_CERT;
        br_ssl_server_init_full_ec(&s->sc, s->chain, 1, BR_KEYTYPE_EC, br_skey_decoder_get_ec(&s->key));
    }
    if (o->suite)
        br_ssl_engine_set_suites(&s->sc.eng, &o->suite, 1);
    if (o->alpn)
        br_ssl_engine_set_protocol_names(&s->sc.eng, o->alpn, o->alpn_n);
    if (o->vmax)
        br_ssl_engine_set_versions(&s->sc.eng, BR_TLS10, o->vmax);
    br_ssl_engine_add_flags(&s->sc.eng, o->flags);
    if (o->cache)
        br_ssl_server_set_cache(&s->sc, &o->cache->vtable);
    br_ssl_engine_set_buffer(&s->sc.eng, s->buf, sizeof s->buf, 1);
    static const char seed[] = "unit_tls12 server seed, not secret";
    br_ssl_engine_inject_entropy(&s->sc.eng, seed, sizeof seed);
    br_ssl_server_reset(&s->sc);
    return s;
}

static unsigned server_suite(struct server *s)
{
    br_ssl_session_parameters sp;
    br_ssl_engine_get_session_parameters(&s->sc.eng, &sp);
    return sp.cipher_suite;
}

/* ---- the client and the loopback ---- */

static const uint8_t ALPN_H2_H1[] = "\x02h2\x08http/1.1";

struct pair {
    struct tls_conn *c;
    void *mem;
    struct server *s;
    unsigned chunk_i;
    int done;                 /* TLS_HANDSHAKE_DONE results seen */
    int err;                  /* the first negative result */
    uint8_t *cgot;            /* application data the client received */
    size_t cgot_len;
    uint8_t *sgot;            /* ... and the server */
    size_t sgot_len;
    const uint8_t *csend;     /* still to send, client side */
    size_t csend_left;
    const uint8_t *ssend;     /* ... and server side */
    size_t ssend_left;
    const char *reply;        /* the client callback sends this once, from inside tls_conn_recv */
    bool corrupt_next;        /* flip a bit in the next server record the client gets */
    int cb_calls;             /* plaintext callbacks ... */
    int cb_ready;             /* ... that found the connection ready */
    char cb_alpn[16];         /* tls_conn_alpn as the first callback saw it */
};

#define GOT_CAP (256 * 1024)

static const size_t chunks[] = { 1, 7, 13, 333, 4093, 5, 16500, 2, 1021, 65536, 3, 777 };

static size_t next_chunk(struct pair *pr)
{
    return chunks[pr->chunk_i++ % (sizeof chunks / sizeof chunks[0])];
}

static struct tls_config client_cfg(const char *sni, const uint8_t *alpn, size_t alpn_len)
{
    struct tls_config cfg = { .server_name = sni, .alpn = alpn, .alpn_len = alpn_len };
    return cfg;
}

static void entropy_fill(uint8_t *e, uint8_t seed)
{
    for (size_t i = 0; i < TLS13_ENTROPY_LEN; i++)
        e[i] = (uint8_t)(seed + i * 7);
}

static void pair_init(struct pair *pr, const struct server_opts *so, const struct tls_config *cfg)
{
    memset(pr, 0, sizeof *pr);
    pr->mem = aligned_alloc(64, (tls_conn_size() + 63) & ~(size_t)63);
    uint8_t e[TLS13_ENTROPY_LEN];
    entropy_fill(e, 1);
    pr->c = tls_conn_init(pr->mem, cfg, e, true);
    pr->s = server_new(so);
    pr->cgot = malloc(GOT_CAP);
    pr->sgot = malloc(GOT_CAP);
}

/* pair_init, the client offering to resume sess (--tls-resume). */
static void pair_init_resume(struct pair *pr, const struct server_opts *so, const struct tls_config *cfg,
                             const br_ssl_session_parameters *sess, uint8_t seed)
{
    memset(pr, 0, sizeof *pr);
    pr->mem = aligned_alloc(64, (tls_conn_size() + 63) & ~(size_t)63);
    uint8_t e[TLS13_ENTROPY_LEN];
    entropy_fill(e, seed);
    pr->c = tls_conn_init_resume(pr->mem, cfg, e, true, NULL, sess);
    pr->s = server_new(so);
    pr->cgot = malloc(GOT_CAP);
    pr->sgot = malloc(GOT_CAP);
}

static void pair_free(struct pair *pr)
{
    free(pr->mem);
    free(pr->s);
    free(pr->cgot);
    free(pr->sgot);
}

static void on_plain(void *ctx, uint8_t *p, size_t n)
{
    struct pair *pr = ctx;
    if (pr->cb_calls++ == 0)
        snprintf(pr->cb_alpn, sizeof pr->cb_alpn, "%s", tls_conn_alpn(pr->c));
    pr->cb_ready += tls_conn_ready(pr->c);
    if (pr->cgot_len + n <= GOT_CAP)
        memcpy(pr->cgot + pr->cgot_len, p, n);
    pr->cgot_len += n;
    if (pr->reply) {
        size_t len = strlen(pr->reply);
        size_t w = tls_conn_send(pr->c, (const uint8_t *)pr->reply, len);
        if (w == len)
            pr->reply = NULL;
    }
}

/* Feeds n bytes to the client from an exact-size heap copy. */
static int client_feed(struct pair *pr, const uint8_t *p, size_t n)
{
    uint8_t *copy = malloc(n);
    memcpy(copy, p, n);
    int rc = tls_conn_recv(pr->c, copy, n, on_plain, pr);
    free(copy);
    if (rc == TLS_HANDSHAKE_DONE)
        pr->done++;
    else if (rc < 0 && pr->err == 0)
        pr->err = rc;
    return rc;
}

/* One step each way; returns whether anything moved. */
static bool step(struct pair *pr, bool client_out)
{
    br_ssl_engine_context *se = &pr->s->sc.eng;
    bool moved = false;
    size_t len, room;
    /* client application data in */
    if (pr->csend_left && tls_conn_ready(pr->c)) {
        size_t w = tls_conn_send(pr->c, pr->csend, pr->csend_left);
        pr->csend += w;
        pr->csend_left -= w;
        moved |= w > 0;
    }
    /* client ciphertext -> server */
    const uint8_t *out = tls_conn_out(pr->c, &len);
    unsigned char *in = br_ssl_engine_recvrec_buf(se, &room);
    if (client_out && len > 0 && in != NULL) {
        size_t k = next_chunk(pr);
        if (k > len)
            k = len;
        if (k > room)
            k = room;
        memcpy(in, out, k);
        tls_conn_out_ack(pr->c, k);
        br_ssl_engine_recvrec_ack(se, k);
        moved = true;
    }
    /* server application data out */
    unsigned char *app = br_ssl_engine_recvapp_buf(se, &len);
    if (app != NULL) {
        if (pr->sgot_len + len <= GOT_CAP)
            memcpy(pr->sgot + pr->sgot_len, app, len);
        pr->sgot_len += len;
        br_ssl_engine_recvapp_ack(se, len);
        moved = true;
    }
    if (pr->ssend_left) {
        unsigned char *b = br_ssl_engine_sendapp_buf(se, &room);
        if (b != NULL) {
            size_t k = pr->ssend_left < room ? pr->ssend_left : room;
            memcpy(b, pr->ssend, k);
            br_ssl_engine_sendapp_ack(se, k);
            pr->ssend += k;
            pr->ssend_left -= k;
            br_ssl_engine_flush(se, 0);
            moved = true;
        }
    }
    /* server ciphertext -> client */
    unsigned char *rec = br_ssl_engine_sendrec_buf(se, &len);
    if (rec != NULL) {
        size_t k = next_chunk(pr);
        if (k > len)
            k = len;
        if (pr->corrupt_next) {
            /* a byte inside the record, past its header */
            rec[len > 20 ? 20 : len - 1] ^= 0x01;
            pr->corrupt_next = false;
        }
        client_feed(pr, rec, k);
        br_ssl_engine_sendrec_ack(se, k);
        moved = true;
    }
    return moved;
}

/* Everything the client has queued, into the server, at once. */
static void to_server(struct pair *pr)
{
    br_ssl_engine_context *se = &pr->s->sc.eng;
    size_t len, room;
    const uint8_t *out;
    unsigned char *in;
    while ((out = tls_conn_out(pr->c, &len), len > 0) && (in = br_ssl_engine_recvrec_buf(se, &room)) != NULL) {
        size_t k = len < room ? len : room;
        memcpy(in, out, k);
        tls_conn_out_ack(pr->c, k);
        br_ssl_engine_recvrec_ack(se, k);
    }
}

static void run(struct pair *pr)
{
    for (int i = 0; i < 100000 && step(pr, true); i++) {
    }
}

static void fill_pattern(uint8_t *p, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (uint8_t)(seed >> 16);
    }
}

/* ---- ClientHello inspection (RFC 5246 §7.4.1.2) ---- */

struct hello {
    bool ok;
    unsigned record_version, client_version;
    bool has_supported_versions, has_alpn, has_sni;
    char sni[64];
    size_t len;
    uint16_t suites[64], groups[16]; /* cipher_suites; supported_groups (RFC 8422 §5.1.1) */
    size_t nsuites, ngroups;
};

/* Reads a list of 16-bit numbers, as many as fit. */
static size_t u16_list(const uint8_t *p, size_t len, uint16_t *out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i + 1 < len && n < cap; i += 2)
        out[n++] = (uint16_t)(p[i] << 8 | p[i + 1]);
    return n;
}

static struct hello parse_hello(const uint8_t *p, size_t n)
{
    struct hello h;
    memset(&h, 0, sizeof h);
    if (n < 5 + 4 + 2 + 32 + 1 || p[0] != 22 || p[5] != 1)
        return h;
    size_t rlen = (size_t)p[3] << 8 | p[4];
    if (5 + rlen > n)
        return h;
    h.len = 5 + rlen;
    h.record_version = (unsigned)p[1] << 8 | p[2];
    const uint8_t *q = p + 9, *end = p + 5 + rlen;
    h.client_version = (unsigned)q[0] << 8 | q[1];
    q += 2 + 32;
    q += 1 + q[0];                                 /* session id */
    if (q + 2 > end)
        return h;
    size_t slen = (size_t)q[0] << 8 | q[1];        /* cipher suites */
    if (q + 2 + slen > end)
        return h;
    h.nsuites = u16_list(q + 2, slen, h.suites, 64);
    q += 2 + slen;
    if (q + 1 > end)
        return h;
    q += 1 + q[0];                                 /* compression */
    if (q + 2 > end)
        return h;
    const uint8_t *ext_end = q + 2 + ((size_t)q[0] << 8 | q[1]);
    q += 2;
    if (ext_end > end)
        return h;
    while (q + 4 <= ext_end) {
        unsigned type = (unsigned)q[0] << 8 | q[1];
        size_t len = (size_t)q[2] << 8 | q[3];
        const uint8_t *body = q + 4;
        if (body + len > ext_end)
            return h;
        if (type == 43)
            h.has_supported_versions = true;
        if (type == 16)
            h.has_alpn = true;
        if (type == 10 && len >= 2)
            h.ngroups = u16_list(body + 2, len - 2, h.groups, 16);
        if (type == 0 && len >= 5) {
            size_t nl = (size_t)body[3] << 8 | body[4];
            h.has_sni = true;
            if (nl < sizeof h.sni && 5 + nl <= len)
                memcpy(h.sni, body + 5, nl);
        }
        q = body + len;
    }
    h.ok = q == ext_end;
    return h;
}

/* ---- tests ---- */

static void test_sizes(void)
{
    T_CHECK("size: tls_conn_size covers the 1.2 engine", tls_conn_size() >= sizeof(struct tls12_conn),
            "%zu < %zu", tls_conn_size(), sizeof(struct tls12_conn));
    printf("  (tls_conn_size %zu bytes, of which struct tls12_conn %zu)\n", tls_conn_size(),
           sizeof(struct tls12_conn));
}

static void test_client_hello(void)
{
    struct tls_config cfg = client_cfg("localhost", ALPN_H2_H1, sizeof ALPN_H2_H1 - 1);
    void *m1 = aligned_alloc(64, (tls_conn_size() + 63) & ~(size_t)63);
    void *m2 = aligned_alloc(64, (tls_conn_size() + 63) & ~(size_t)63);
    uint8_t e1[TLS13_ENTROPY_LEN], e2[TLS13_ENTROPY_LEN];
    entropy_fill(e1, 1);
    entropy_fill(e2, 1);

    struct tls_conn *a = tls_conn_init(m1, &cfg, e1, true);
    size_t alen, blen;
    const uint8_t *ao = tls_conn_out(a, &alen);
    struct hello h = parse_hello(ao, alen);
    T_CHECK("hello: one whole ClientHello record is queued", h.ok && h.len == alen, "ok=%d len=%zu out=%zu",
            h.ok, h.len, alen);
    T_CHECK("hello: client_version is TLS 1.2 (0x0303)", h.client_version == 0x0303, "0x%04x", h.client_version);
    T_CHECK("hello: no supported_versions extension (TLS 1.2 only)", !h.has_supported_versions, "present");
    T_CHECK("hello: SNI carries the server name", h.has_sni && strcmp(h.sni, "localhost") == 0, "sni=%s", h.sni);
    T_CHECK("hello: ALPN offered", h.has_alpn, "absent");
    T_CHECK("hello: not ready, no ALPN, no alert before the handshake",
            !tls_conn_ready(a) && strcmp(tls_conn_alpn(a), "") == 0 && tls_conn_alert(a) == 0,
            "ready=%d alpn=%s alert=%d", tls_conn_ready(a), tls_conn_alpn(a), tls_conn_alert(a));
    T_CHECK("hello: nothing can be sent before the handshake",
            tls_conn_send(a, (const uint8_t *)"x", 1) == 0 && tls_conn_send_room(a) == 0, "send accepted");

    /* The engine's randomness is the caller's bytes only: the same entropy
     * gives the same ClientHello, other entropy a different one. */
    uint8_t *copy = malloc(alen);
    memcpy(copy, ao, alen);
    struct tls_conn *b = tls_conn_init(m2, &cfg, e2, true);
    const uint8_t *bo = tls_conn_out(b, &blen);
    T_CHECK("hello: same entropy, same ClientHello (no OS randomness)", blen == alen && memcmp(bo, copy, alen) == 0,
            "differs");
    e2[0] ^= 1;
    b = tls_conn_init(m2, &cfg, e2, true);
    bo = tls_conn_out(b, &blen);
    T_CHECK("hello: other entropy, other client random", blen == alen && memcmp(bo + 11, copy + 11, 32) != 0,
            "same random");

    /* Partial acknowledgements move through the record. */
    memcpy(copy, bo, alen);
    tls_conn_out_ack(b, 3);
    const uint8_t *bo2 = tls_conn_out(b, &blen);
    T_CHECK("hello: a partial ack leaves the rest", blen == alen - 3 && memcmp(bo2, copy + 3, blen) == 0,
            "len=%zu", blen);
    tls_conn_out_ack(b, blen);
    tls_conn_out(b, &blen);
    T_CHECK("hello: a full ack empties the output", blen == 0, "len=%zu", blen);

    /* The same connection block still runs TLS 1.3 when asked. */
    struct tls_conn *c13 = tls_conn_init(m2, &cfg, e1, false);
    const uint8_t *o13 = tls_conn_out(c13, &blen);
    struct hello h13 = parse_hello(o13, blen);
    T_CHECK("hello: tls12=false still sends a TLS 1.3 ClientHello", h13.ok && h13.has_supported_versions,
            "ok=%d sv=%d", h13.ok, h13.has_supported_versions);

    /* An ALPN list that does not fit is a configuration error. */
    uint8_t bad[] = { 5, 'h', '2' };
    struct tls_config badcfg = client_cfg(NULL, bad, sizeof bad);
    struct tls_conn *d = tls_conn_init(m2, &badcfg, e1, true);
    uint8_t junk[1] = { 0 };
    int rc = tls_conn_recv(d, junk, 1, on_plain, NULL);
    T_CHECK("hello: a malformed ALPN list fails the handshake", rc == TLS_ERR_HANDSHAKE && tls_conn_alert(d) == 80,
            "rc=%d alert=%d", rc, tls_conn_alert(d));
    free(copy);
    free(m1);
    free(m2);
}

struct suite_case {
    const char *name;
    bool rsa;
    uint16_t suite;
    const char **server_alpn;
    size_t server_alpn_n;
    const char *want_alpn;
};

static const char *alpn_both[] = { "h2", "http/1.1" };
static const char *alpn_h1[] = { "http/1.1" };

static void test_suite(const struct suite_case *sc)
{
    char name[160];
    struct server_opts so = { .rsa = sc->rsa, .suite = sc->suite, .alpn = sc->server_alpn,
                              .alpn_n = sc->server_alpn_n };
    struct tls_config cfg = client_cfg("localhost", ALPN_H2_H1, sizeof ALPN_H2_H1 - 1);
    struct pair pr;
    pair_init(&pr, &so, &cfg);
    pr.chunk_i = sc->suite; /* a different rotation of chunk sizes per case */
    run(&pr);
    snprintf(name, sizeof name, "%s: handshake completes, TLS_HANDSHAKE_DONE once", sc->name);
    T_CHECK(name, pr.done == 1 && pr.err == 0 && tls_conn_ready(pr.c), "done=%d err=%d alert=%d", pr.done, pr.err,
            tls_conn_alert(pr.c));
    snprintf(name, sizeof name, "%s: the server negotiated suite 0x%04x", sc->name, sc->suite);
    T_CHECK(name, server_suite(pr.s) == sc->suite, "got 0x%04x", server_suite(pr.s));
    snprintf(name, sizeof name, "%s: ALPN \"%s\"", sc->name, sc->want_alpn);
    T_CHECK(name, strcmp(tls_conn_alpn(pr.c), sc->want_alpn) == 0, "got \"%s\"", tls_conn_alpn(pr.c));

    /* A request, answered with 100 KB; then 100 KB up. */
    static const char req[] = "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n";
    size_t big = 100 * 1024;
    uint8_t *down = malloc(big), *up = malloc(big);
    fill_pattern(down, big, 1);
    fill_pattern(up, big, 2);
    pr.csend = (const uint8_t *)req;
    pr.csend_left = sizeof req - 1;
    run(&pr);
    snprintf(name, sizeof name, "%s: request arrives intact", sc->name);
    T_CHECK(name, pr.sgot_len == sizeof req - 1 && memcmp(pr.sgot, req, sizeof req - 1) == 0, "got %zu bytes",
            pr.sgot_len);
    pr.ssend = down;
    pr.ssend_left = big;
    run(&pr);
    snprintf(name, sizeof name, "%s: 100 KB down, in odd-sized pieces, intact", sc->name);
    T_CHECK(name, pr.cgot_len == big && memcmp(pr.cgot, down, big) == 0, "got %zu bytes", pr.cgot_len);
    pr.sgot_len = 0;
    pr.csend = up;
    pr.csend_left = big;
    run(&pr);
    snprintf(name, sizeof name, "%s: 100 KB up intact", sc->name);
    T_CHECK(name, pr.sgot_len == big && memcmp(pr.sgot, up, big) == 0 && pr.csend_left == 0, "got %zu bytes",
            pr.sgot_len);
    snprintf(name, sizeof name, "%s: still ready, no error", sc->name);
    T_CHECK(name, tls_conn_ready(pr.c) && pr.err == 0 && pr.done == 1 && tls_conn_alert(pr.c) == 0, "err=%d",
            pr.err);
    free(down);
    free(up);
    pair_free(&pr);
}

static void test_suites(void)
{
    const struct suite_case cases[] = {
        { "ecdhe-ecdsa aes128-gcm", false, BR_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, alpn_both, 2, "h2" },
        { "ecdhe-ecdsa chacha20", false, BR_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, alpn_h1, 1, "http/1.1" },
        { "ecdhe-ecdsa aes256-gcm", false, BR_TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, alpn_both, 2, "h2" },
        { "ecdhe-rsa aes128-gcm", true, BR_TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, alpn_h1, 1, "http/1.1" },
        { "ecdhe-rsa aes256-gcm", true, BR_TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, alpn_both, 2, "h2" },
        { "ecdhe-rsa chacha20", true, BR_TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256, alpn_both, 2, "h2" },
        { "ecdhe-rsa aes128-cbc-sha256", true, BR_TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256, NULL, 0, "" },
        { "rsa-kx aes128-gcm", true, BR_TLS_RSA_WITH_AES_128_GCM_SHA256, alpn_h1, 1, "http/1.1" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        test_suite(&cases[i]);
}

/* The client's second flight (ClientKeyExchange, ChangeCipherSpec,
 * Finished) leaves as one piece of output. */
static void test_flight(void)
{
    struct server_opts so = { .suite = BR_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 };
    struct tls_config cfg = client_cfg(NULL, NULL, 0);
    struct pair pr;
    pair_init(&pr, &so, &cfg);
    br_ssl_engine_context *se = &pr.s->sc.eng;
    size_t len;
    to_server(&pr);
    const uint8_t *out = tls_conn_out(pr.c, &len);
    T_CHECK("flight: the server took the ClientHello", len == 0, "len=%zu", len);
    unsigned char *rec;
    while ((rec = br_ssl_engine_sendrec_buf(se, &len)) != NULL) {
        client_feed(&pr, rec, len);
        br_ssl_engine_sendrec_ack(se, len);
    }
    out = tls_conn_out(pr.c, &len);
    unsigned types[8], nrec = 0;
    size_t off = 0;
    while (off + 5 <= len && nrec < 8) {
        types[nrec++] = out[off];
        off += 5 + ((size_t)out[off + 3] << 8 | out[off + 4]);
    }
    T_CHECK("flight: ClientKeyExchange, ChangeCipherSpec and Finished in one output",
            off == len && nrec == 3 && types[0] == 22 && types[1] == 20 && types[2] == 22, "records=%u len=%zu",
            nrec, len);
    T_CHECK("flight: not ready before the server's Finished", !tls_conn_ready(pr.c) && pr.done == 0, "ready");
    run(&pr);
    T_CHECK("flight: then the handshake completes", pr.done == 1 && tls_conn_ready(pr.c) && pr.err == 0,
            "done=%d err=%d", pr.done, pr.err);
    T_CHECK("flight: no ALPN offered, none selected", strcmp(tls_conn_alpn(pr.c), "") == 0, "got %s",
            tls_conn_alpn(pr.c));
    pair_free(&pr);
}

/* The server's Finished and its first application data (an HTTP/2 server's
 * SETTINGS) in one read: the data is delivered after the handshake is
 * complete (ready, ALPN known), in the call that returns
 * TLS_HANDSHAKE_DONE. worker/tcp_tls.c starts the protocol from the callback then. */
static void test_same_read(void)
{
    struct server_opts so = { .rsa = true, .suite = BR_TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, .alpn = alpn_both,
                              .alpn_n = 2 };
    struct tls_config cfg = client_cfg("localhost", ALPN_H2_H1, sizeof ALPN_H2_H1 - 1);
    struct pair pr;
    pair_init(&pr, &so, &cfg);
    br_ssl_engine_context *se = &pr.s->sc.eng;
    size_t len;
    unsigned char *rec;
    to_server(&pr);
    while ((rec = br_ssl_engine_sendrec_buf(se, &len)) != NULL) {
        client_feed(&pr, rec, len);
        br_ssl_engine_sendrec_ack(se, len);
    }
    to_server(&pr); /* ClientKeyExchange, ChangeCipherSpec, Finished */
    uint8_t *all = malloc(4096);
    size_t all_len = 0;
    bool sent = false;
    for (;;) {
        rec = br_ssl_engine_sendrec_buf(se, &len);
        if (rec == NULL && !sent) {
            unsigned char *b = br_ssl_engine_sendapp_buf(se, &len);
            if (b == NULL)
                break;
            memcpy(b, "SETTINGS", 8);
            br_ssl_engine_sendapp_ack(se, 8);
            br_ssl_engine_flush(se, 0);
            sent = true;
            continue;
        }
        if (rec == NULL || all_len + len > 4096)
            break;
        memcpy(all + all_len, rec, len);
        all_len += len;
        br_ssl_engine_sendrec_ack(se, len);
    }
    int rc = client_feed(&pr, all, all_len);
    T_CHECK("same read: CCS, Finished and data in one call give TLS_HANDSHAKE_DONE", sent && rc == TLS_HANDSHAKE_DONE,
            "sent=%d rc=%d", sent, rc);
    T_CHECK("same read: the data is delivered in that call", pr.cgot_len == 8 && memcmp(pr.cgot, "SETTINGS", 8) == 0,
            "got %zu", pr.cgot_len);
    T_CHECK("same read: the callback already sees the connection ready, ALPN h2",
            pr.cb_calls == 1 && pr.cb_ready == 1 && strcmp(pr.cb_alpn, "h2") == 0, "calls=%d ready=%d alpn=%s",
            pr.cb_calls, pr.cb_ready, pr.cb_alpn);
    free(all);
    pair_free(&pr);
}

/* Output handed out stays put until acknowledged, whatever else happens
 * meanwhile; and the plaintext callback may send. */
static void test_output_rules(void)
{
    struct server_opts so = { .suite = BR_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256 };
    struct tls_config cfg = client_cfg("localhost", ALPN_H2_H1, sizeof ALPN_H2_H1 - 1);
    struct pair pr;
    pair_init(&pr, &so, &cfg);
    run(&pr);
    T_CHECK("output: handshake", pr.done == 1, "done=%d err=%d", pr.done, pr.err);
    size_t room = tls_conn_send_room(pr.c);
    T_CHECK("output: room for a whole record once ready", room >= 16384, "room=%zu", room);

    uint8_t msg[3000];
    fill_pattern(msg, sizeof msg, 3);
    size_t w = tls_conn_send(pr.c, msg, sizeof msg);
    size_t len, len2;
    const uint8_t *out = tls_conn_out(pr.c, &len);
    uint8_t *snap = malloc(len);
    memcpy(snap, out, len);
    T_CHECK("output: a record is pending", w == sizeof msg && len > sizeof msg && out[0] == 23, "w=%zu len=%zu", w,
            len);
    /* More plaintext waits: the engine holds one record at a time. */
    size_t w2 = tls_conn_send(pr.c, msg, 10);
    T_CHECK("output: nothing more is taken while the record waits", w2 == 0 && tls_conn_send_room(pr.c) == 0,
            "w2=%zu", w2);
    /* Data arrives meanwhile. */
    pr.ssend = (const uint8_t *)"ping";
    pr.ssend_left = 4;
    for (int i = 0; i < 50; i++)
        step(&pr, false);
    const uint8_t *out2 = tls_conn_out(pr.c, &len2);
    T_CHECK("output: the pending bytes stayed put", out2 == out && len2 == len && memcmp(out2, snap, len) == 0,
            "moved");
    T_CHECK("output: data came in meanwhile", pr.cgot_len == 4 && memcmp(pr.cgot, "ping", 4) == 0, "got %zu",
            pr.cgot_len);
    size_t before = pr.sgot_len;
    run(&pr);
    T_CHECK("output: then the record goes out intact", pr.sgot_len == before + sizeof msg &&
            memcmp(pr.sgot + before, msg, sizeof msg) == 0, "got %zu bytes", pr.sgot_len - before);
    /* The plaintext callback answers from inside tls_conn_recv. */
    pr.reply = "pong";
    pr.ssend = (const uint8_t *)"ping";
    pr.ssend_left = 4;
    before = pr.sgot_len;
    run(&pr);
    T_CHECK("output: a reply sent from the callback arrives",
            pr.reply == NULL && pr.sgot_len == before + 4 && memcmp(pr.sgot + before, "pong", 4) == 0,
            "reply %s, got %zu bytes", pr.reply ? "not sent" : "sent", pr.sgot_len - before);
    free(snap);
    pair_free(&pr);
}

static void test_close_notify(void)
{
    struct server_opts so = { .rsa = true, .suite = BR_TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 };
    struct tls_config cfg = client_cfg("localhost", ALPN_H2_H1, sizeof ALPN_H2_H1 - 1);
    struct pair pr;
    pair_init(&pr, &so, &cfg);
    run(&pr);
    pr.ssend = (const uint8_t *)"bye";
    pr.ssend_left = 3;
    run(&pr);
    br_ssl_engine_close(&pr.s->sc.eng);
    size_t len;
    unsigned char *rec;
    int rc = TLS_OK;
    while ((rec = br_ssl_engine_sendrec_buf(&pr.s->sc.eng, &len)) != NULL) {
        rc = client_feed(&pr, rec, len);
        br_ssl_engine_sendrec_ack(&pr.s->sc.eng, len);
    }
    T_CHECK("close: data before close_notify delivered", pr.cgot_len == 3 && memcmp(pr.cgot, "bye", 3) == 0,
            "got %zu", pr.cgot_len);
    T_CHECK("close: close_notify gives TLS_CLOSED", rc == TLS_CLOSED, "rc=%d", rc);
    uint8_t more[8] = { 23, 3, 3, 0, 3, 1, 2, 3 };
    T_CHECK("close: TLS_CLOSED is sticky", tls_conn_recv(pr.c, more, sizeof more, on_plain, &pr) == TLS_CLOSED,
            "not sticky");
    T_CHECK("close: no longer ready, no alert", !tls_conn_ready(pr.c) && tls_conn_alert(pr.c) == 0, "alert=%d",
            tls_conn_alert(pr.c));
    const uint8_t *out = tls_conn_out(pr.c, &len);
    T_CHECK("close: our close_notify is queued", len > 5 && out[0] == 21, "len=%zu type=%u", len,
            len ? out[0] : 0);
    T_CHECK("close: nothing can be sent", tls_conn_send(pr.c, (const uint8_t *)"x", 1) == 0, "sent");
    pair_free(&pr);
}

static void test_corrupt(void)
{
    struct server_opts so = { .suite = BR_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 };
    struct tls_config cfg = client_cfg("localhost", ALPN_H2_H1, sizeof ALPN_H2_H1 - 1);
    struct pair pr;
    pair_init(&pr, &so, &cfg);
    run(&pr);
    uint8_t data[500];
    fill_pattern(data, sizeof data, 4);
    pr.ssend = data;
    pr.ssend_left = sizeof data;
    pr.corrupt_next = true;
    run(&pr);
    T_CHECK("corrupt: a damaged record is an error", pr.err == TLS_ERR_RECORD && pr.cgot_len == 0, "err=%d got=%zu",
            pr.err, pr.cgot_len);
    uint8_t more[8] = { 23, 3, 3, 0, 3, 1, 2, 3 };
    T_CHECK("corrupt: the error is sticky",
            tls_conn_recv(pr.c, more, sizeof more, on_plain, &pr) == TLS_ERR_RECORD && !tls_conn_ready(pr.c),
            "not sticky");
    pair_free(&pr);

    /* During the handshake it is a handshake error. */
    pair_init(&pr, &so, &cfg);
    size_t len;
    to_server(&pr);
    unsigned char *rec = br_ssl_engine_sendrec_buf(&pr.s->sc.eng, &len);
    uint8_t *bad = malloc(len);
    memcpy(bad, rec, len);
    bad[5] = 99; /* not a ServerHello */
    int rc = tls_conn_recv(pr.c, bad, len, on_plain, &pr);
    T_CHECK("corrupt: a garbled ServerHello is a handshake error", rc == TLS_ERR_HANDSHAKE && !tls_conn_ready(pr.c),
            "rc=%d", rc);
    free(bad);
    pair_free(&pr);
}

/* Alerts the peer sends: during the handshake, TLS_ERR_HANDSHAKE with the
 * alert negated (what worker/tcp_tls.c keys its fallback and ALPN errors on). */
static void test_alerts(void)
{
    struct server_opts so = { .suite = BR_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 };
    struct tls_config cfg = client_cfg("localhost", ALPN_H2_H1, sizeof ALPN_H2_H1 - 1);
    const uint8_t descs[] = { 70, 40 };
    for (size_t i = 0; i < sizeof descs; i++) {
        struct pair pr;
        pair_init(&pr, &so, &cfg);
        uint8_t alert[7] = { 21, 3, 3, 0, 2, 2, descs[i] };
        /* in two pieces */
        int rc1 = client_feed(&pr, alert, 3);
        int rc2 = client_feed(&pr, alert + 3, 4);
        char name[96];
        snprintf(name, sizeof name, "alert: %s from the server ends the handshake", tls_alert_name(descs[i]));
        T_CHECK(name, rc1 == TLS_OK && rc2 == TLS_ERR_HANDSHAKE && tls_conn_alert(pr.c) == -(int)descs[i],
                "rc=%d/%d alert=%d", rc1, rc2, tls_conn_alert(pr.c));
        pair_free(&pr);
    }

    /* ALPN refused: the server answers no_application_protocol. */
    static const char *alpn_other[] = { "spdy/3" };
    struct server_opts so2 = { .suite = BR_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, .alpn = alpn_other, .alpn_n = 1,
                               .flags = BR_OPT_FAIL_ON_ALPN_MISMATCH };
    struct pair pr;
    pair_init(&pr, &so2, &cfg);
    run(&pr);
    T_CHECK("alert: ALPN refused gives no_application_protocol (-120)",
            pr.err == TLS_ERR_HANDSHAKE && tls_conn_alert(pr.c) == -120 && !tls_conn_ready(pr.c) && pr.done == 0,
            "err=%d alert=%d", pr.err, tls_conn_alert(pr.c));
    pair_free(&pr);

    /* A server that tops out at TLS 1.1: the handshake fails. */
    struct server_opts so3 = { .suite = BR_TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, .vmax = BR_TLS11 };
    pair_init(&pr, &so3, &cfg);
    run(&pr);
    T_CHECK("alert: a TLS 1.1 server is a handshake error", pr.err == TLS_ERR_HANDSHAKE && !tls_conn_ready(pr.c),
            "err=%d alert=%d", pr.err, tls_conn_alert(pr.c));
    pair_free(&pr);
}

/* The ClientHello of a TLS 1.2 connection with choice (tls13/choice.h). */
static struct hello chosen_hello(const struct tls_choice *choice)
{
    struct tls_config cfg = client_cfg("localhost", ALPN_H2_H1, sizeof ALPN_H2_H1 - 1);
    cfg.choice = choice;
    void *m = aligned_alloc(64, (tls_conn_size() + 63) & ~(size_t)63);
    uint8_t e[TLS13_ENTROPY_LEN];
    entropy_fill(e, 1);
    size_t len;
    struct tls_conn *c = tls_conn_init(m, &cfg, e, true);
    const uint8_t *out = tls_conn_out(c, &len);
    struct hello h = parse_hello(out, len);
    free(m);
    return h;
}

static bool same_list(const uint16_t *a, size_t na, const uint16_t *b, size_t nb)
{
    return na == nb && memcmp(a, b, na * sizeof *a) == 0;
}

/* --ciphers and --curves: the engine offers exactly those suites, in the
 * order given, and exactly those groups; and a handshake with a server
 * that has them settles on them. */
static void test_choice(void)
{
    char err[600];
    struct tls_choice ch;
    tls_choice_init(&ch);
    struct hello def = chosen_hello(&ch);
    T_CHECK("choice: no choice offers every suite and the default curves", def.ok && def.nsuites >= 20 &&
            def.ngroups >= 3, "ok=%d suites=%zu groups=%zu", def.ok, def.nsuites, def.ngroups);

    T_CHECK("choice: --ciphers parses", tls_choice_suites12(&ch, "ECDHE-RSA-CHACHA20-POLY1305:AES256-SHA:"
                                                            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", err, sizeof err) == 0,
            "%s", err);
    T_CHECK("choice: --curves parses", tls_choice_groups(&ch, "P-384:x25519", err, sizeof err) == 0, "%s", err);
    struct hello h = chosen_hello(&ch);
    const uint16_t want_suites[] = { 0xcca8, 0x0035, 0xc02b };
    T_CHECK("choice: exactly the chosen suites, in order", h.ok && same_list(h.suites, h.nsuites, want_suites, 3),
            "n=%zu first=0x%04x", h.nsuites, h.suites[0]);
    bool p384 = false, x25519 = false;
    for (size_t i = 0; i < h.ngroups; i++) {
        p384 |= h.groups[i] == 24;
        x25519 |= h.groups[i] == 29;
    }
    T_CHECK("choice: exactly the chosen curves in supported_groups", h.ngroups == 2 && p384 && x25519,
            "n=%zu: %u %u %u %u", h.ngroups, h.groups[0], h.groups[1], h.groups[2], h.groups[3]);

    /* Against a server that has the suite: it is the one negotiated. */
    struct tls_choice one;
    tls_choice_init(&one);
    tls_choice_suites12(&one, "ECDHE-ECDSA-CHACHA20-POLY1305", err, sizeof err);
    struct server_opts so = { .rsa = false, .suite = 0 };
    struct tls_config cfg = client_cfg("localhost", ALPN_H2_H1, sizeof ALPN_H2_H1 - 1);
    cfg.choice = &one;
    struct pair pr;
    pair_init(&pr, &so, &cfg);
    run(&pr);
    bool done = pr.done == 1 && pr.err == 0;
    struct tls_negotiated n = {0};
    if (done)
        tls_conn_negotiated(pr.c, &n);
    T_CHECK("choice: the handshake settles on the one suite offered", done && n.cipher == 0xcca9,
            "done=%d cipher=0x%04x", done, n.cipher);
    pair_free(&pr);
}

/* --tls-resume over TLS 1.2: BearSSL's server with a session cache resumes
 * the session of the first handshake by its id (RFC 5246 §7.3, the
 * abbreviated handshake); without a cache it does not know the id and
 * makes a new session. */
static void test_resume(void)
{
    static br_ssl_session_cache_lru cache;
    static unsigned char store[16 * 1024];
    br_ssl_session_cache_lru_init(&cache, store, sizeof store);
    struct server_opts so = { .cache = &cache };
    struct tls_config cfg = client_cfg("localhost", ALPN_H2_H1, sizeof ALPN_H2_H1 - 1);
    br_ssl_session_parameters sess, again;
    struct pair pr;

    pair_init_resume(&pr, &so, &cfg, NULL, 1);
    run(&pr);
    bool kept = tls_conn_session12(pr.c, &sess);
    T_CHECK("resume12: a full handshake, its session kept (an id, the master secret)",
            pr.done == 1 && pr.err == 0 && !tls_conn_resumed(pr.c) && kept && sess.session_id_len == 32,
            "done=%d err=%d kept=%d id_len=%u", pr.done, pr.err, kept, kept ? sess.session_id_len : 0);
    pair_free(&pr);

    pair_init_resume(&pr, &so, &cfg, &sess, 2);
    run(&pr);
    kept = tls_conn_session12(pr.c, &again);
    T_CHECK("resume12: the next connection offers it and resumes (the same id, the same master secret)",
            pr.done == 1 && pr.err == 0 && tls_conn_resumed(pr.c) && kept &&
                memcmp(again.session_id, sess.session_id, 32) == 0 &&
                memcmp(again.master_secret, sess.master_secret, 48) == 0,
            "done=%d err=%d resumed=%d", pr.done, pr.err, tls_conn_resumed(pr.c));
    static const char req[] = "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n";
    pr.csend = (const uint8_t *)req;
    pr.csend_left = sizeof req - 1;
    run(&pr);
    T_CHECK("resume12: data flows on the resumed connection", pr.sgot_len == sizeof req - 1 &&
            memcmp(pr.sgot, req, sizeof req - 1) == 0, "got %zu bytes", pr.sgot_len);
    pair_free(&pr);

    /* A server without a cache does not know the id: a full handshake. */
    struct server_opts nocache = { 0 };
    pair_init_resume(&pr, &nocache, &cfg, &sess, 3);
    run(&pr);
    kept = tls_conn_session12(pr.c, &again);
    T_CHECK("resume12: a server without a session cache: a full handshake, a new session",
            pr.done == 1 && pr.err == 0 && !tls_conn_resumed(pr.c) &&
                (!kept || memcmp(again.session_id, sess.session_id, 32) != 0),
            "done=%d err=%d resumed=%d kept=%d", pr.done, pr.err, tls_conn_resumed(pr.c), kept);
    pair_free(&pr);
}

int main(void)
{
    test_resume();
    test_sizes();
    test_client_hello();
    test_suites();
    test_flight();
    test_same_read();
    test_output_rules();
    test_close_notify();
    test_corrupt();
    test_alerts();
    test_choice();
    T_DONE();
}
