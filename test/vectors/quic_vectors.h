/* test/vectors/quic_vectors.h — RFC 9001 Appendix A (../shared/rfc/rfc9001.txt),
 * the QUIC v1 packet protection samples, as hex strings, shared by
 * test/unit/unit_tls13_crypto.c (key derivation, payload AEAD) and
 * test/unit/unit_quic_packet.c (whole packets: header protection, Retry).
 * Copied from the RFC text byte for byte; a protected packet is its
 * protected header (Q_*_HDR_PROT) followed by the protected payload
 * (Q_A2_CIPHER, Q_A3_CIPHER, Q_A5_OUT). */
#ifndef SHB_TEST_QUIC_VECTORS_H
#define SHB_TEST_QUIC_VECTORS_H

/* ---- A.1 Keys (client DCID 0x8394c8f03e515708) ---- */
static const char Q_SALT[] = "38762cf7f55934b34d179ae6a4c80cadccbb7f0a";
static const char Q_DCID[] = "8394c8f03e515708";
static const char Q_INITIAL[] = "7db5df06e7a69e432496adedb00851923595221596ae2ae9fb8115c1e9ed0a44";
static const char Q_CLIENT_IN[] = "c00cf151ca5be075ed0ebfb5c80323c42d6b7db67881289af4008f1f6c357aea";
static const char Q_C_KEY[] = "1f369613dd76d5467730efcbe3b1a22d";
static const char Q_C_IV[] = "fa044b2f42a3fd3b46fb255c";
static const char Q_C_HP[] = "9f50449e04a0e810283a1e9933adedd2";
static const char Q_SERVER_IN[] = "3c199828fd139efd216c155ad844cc81fb82fa8d7446fa7d78be803acdda951b";
static const char Q_S_KEY[] = "cf3a5331653c364c88f0f379b6067e37";
static const char Q_S_IV[] = "0ac1493ca1905853b0bba03e";
static const char Q_S_HP[] = "c206b8d9b9f0f37644430b490eeaa314";

/* ---- A.2 Client Initial ---- */
/* A.2: header (packet number 2) is the AAD; payload padded to 1162 bytes. */
static const char Q_A2_HDR[] = "c300000001088394c8f03e5157080000449e00000002";
/* The CRYPTO frame; PADDING (zeros) brings the payload to 1162 bytes. */
static const char Q_A2_PLAIN[] =
    "060040f1010000ed0303ebf8fa56f12939b9584a3896472ec40bb863cfd3e868"
    "04fe3a47f06a2b69484c00000413011302010000c000000010000e00000b6578"
    "616d706c652e636f6dff01000100000a00080006001d00170018001000070005"
    "04616c706e000500050100000000003300260024001d00209370b2c9caa47fba"
    "baf4559fedba753de171fa71f50f1ce15d43e994ec74d748002b000302030400"
    "0d0010000e0403050306030203080408050806002d00020101001c0002400100"
    "3900320408ffffffffffffffff05048000ffff07048000ffff08011001048000"
    "75300901100f088394c8f03e51570806048000ffff";
/* The protected payload and tag: 1162 + 16 bytes (the packet after its
 * 22-byte header). */
static const char Q_A2_CIPHER[] =
    "d1b1c98dd7689fb8ec11d242b123dc9bd8bab936b47d92ec356c0bab7df5976d"
    "27cd449f63300099f3991c260ec4c60d17b31f8429157bb35a1282a643a8d226"
    "2cad67500cadb8e7378c8eb7539ec4d4905fed1bee1fc8aafba17c750e2c7ace"
    "01e6005f80fcb7df621230c83711b39343fa028cea7f7fb5ff89eac2308249a0"
    "2252155e2347b63d58c5457afd84d05dfffdb20392844ae812154682e9cf012f"
    "9021a6f0be17ddd0c2084dce25ff9b06cde535d0f920a2db1bf362c23e596d11"
    "a4f5a6cf3948838a3aec4e15daf8500a6ef69ec4e3feb6b1d98e610ac8b7ec3f"
    "af6ad760b7bad1db4ba3485e8a94dc250ae3fdb41ed15fb6a8e5eba0fc3dd60b"
    "c8e30c5c4287e53805db059ae0648db2f64264ed5e39be2e20d82df566da8dd5"
    "998ccabdae053060ae6c7b4378e846d29f37ed7b4ea9ec5d82e7961b7f25a932"
    "3851f681d582363aa5f89937f5a67258bf63ad6f1a0b1d96dbd4faddfcefc526"
    "6ba6611722395c906556be52afe3f565636ad1b17d508b73d8743eeb524be22b"
    "3dcbc2c7468d54119c7468449a13d8e3b95811a198f3491de3e7fe942b330407"
    "abf82a4ed7c1b311663ac69890f4157015853d91e923037c227a33cdd5ec281c"
    "a3f79c44546b9d90ca00f064c99e3dd97911d39fe9c5d0b23a229a234cb36186"
    "c4819e8b9c5927726632291d6a418211cc2962e20fe47feb3edf330f2c603a9d"
    "48c0fcb5699dbfe5896425c5bac4aee82e57a85aaf4e2513e4f05796b07ba2ee"
    "47d80506f8d2c25e50fd14de71e6c418559302f939b0e1abd576f279c4b2e0fe"
    "b85c1f28ff18f58891ffef132eef2fa09346aee33c28eb130ff28f5b76695333"
    "4113211996d20011a198e3fc433f9f2541010ae17c1bf202580f6047472fb368"
    "57fe843b19f5984009ddc324044e847a4f4a0ab34f719595de37252d6235365e"
    "9b84392b061085349d73203a4a13e96f5432ec0fd4a1ee65accdd5e3904df54c"
    "1da510b0ff20dcc0c77fcb2c0e0eb605cb0504db87632cf3d8b4dae6e705769d"
    "1de354270123cb11450efc60ac47683d7b8d0f811365565fd98c4c8eb936bcab"
    "8d069fc33bd801b03adea2e1fbc5aa463d08ca19896d2bf59a071b851e6c2390"
    "52172f296bfb5e72404790a2181014f3b94a4e97d117b438130368cc39dbb2d1"
    "98065ae3986547926cd2162f40a29f0c3c8745c0f50fba3852e566d44575c29d"
    "39a03f0cda721984b6f440591f355e12d439ff150aab7613499dbd49adabc867"
    "6eef023b15b65bfc5ca06948109f23f350db82123535eb8a7433bdabcb909271"
    "a6ecbcb58b936a88cd4e8f2e6ff5800175f113253d8fa9ca8885c2f552e657dc"
    "603f252e1a8e308f76f0be79e2fb8f5d5fbbe2e30ecadd220723c8c0aea8078c"
    "dfcb3868263ff8f0940054da48781893a7e49ad5aff4af300cd804a6b6279ab3"
    "ff3afb64491c85194aab760d58a606654f9f4400e8b38591356fbf6425aca26d"
    "c85244259ff2b19c41b9f96f3ca9ec1dde434da7d2d392b905ddf3d1f9af93d1"
    "af5950bd493f5aa731b4056df31bd267b6b90a079831aaf579be0a39013137aa"
    "c6d404f518cfd46840647e78bfe706ca4cf5e9c5453e9f7cfd2b8b4c8d169a44"
    "e55c88d4a9a7f9474241e221af44860018ab0856972e194cd934";
static const char Q_A2_SAMPLE[] = "d1b1c98dd7689fb8ec11d242b123dc9b";
static const char Q_A2_MASK[] = "437b9aec36";
static const char Q_A2_HDR_PROT[] = "c000000001088394c8f03e5157080000449e7b9aec34";

/* ---- A.3 Server Initial (server SCID 0xf067a5502a4262b5) ---- */
/* A.3: header (packet number 1), 99-byte payload, protected payload. */
static const char Q_A3_HDR[] = "c1000000010008f067a5502a4262b50040750001";
static const char Q_A3_PLAIN[] =
    "02000000000600405a020000560303eefce7f7b37ba1d1632e96677825ddf739"
    "88cfc79825df566dc5430b9a045a1200130100002e00330024001d00209d3c94"
    "0d89690b84d08a60993c144eca684d1081287c834d5311bcf32bb9da1a002b00"
    "020304";
static const char Q_A3_CIPHER[] =
    "5a482cd0991cd25b0aac406a5816b6394100f37a1c69797554780bb38cc5a99f"
    "5ede4cf73c3ec2493a1839b3dbcba3f6ea46c5b7684df3548e7ddeb9c3bf9c73"
    "cc3f3bded74b562bfb19fb84022f8ef4cdd93795d77d06edbb7aaf2f58891850"
    "abbdca3d20398c276456cbc42158407dd074ee";
static const char Q_A3_SCID[] = "f067a5502a4262b5";
static const char Q_A3_SAMPLE[] = "2cd0991cd25b0aac406a5816b6394100";
static const char Q_A3_MASK[] = "2ec0d8356a";
static const char Q_A3_HDR_PROT[] = "cf000000010008f067a5502a4262b5004075c0d9";

/* ---- A.4 Retry (answering A.2's Initial: ODCID is Q_DCID; token "token") ---- */
static const char Q_A4_RETRY[] =
    "ff000000010008f067a5502a4262b5746f6b656e04a265ba2eff4d829058fb3f"
    "0f2496ba";

/* ---- A.5 ChaCha20-Poly1305 short header ---- */
/* A.5: ChaCha20-Poly1305, packet number 654360564. */
static const char Q_A5_SECRET[] = "9ac312a7f877468ebe69422748ad00a15443f18203a07d6060f688f30f21632b";
static const char Q_A5_KEY[] = "c6d98ff3441c3fe1b2182094f69caa2ed4b716b65488960a7a984979fb23e1c8";
static const char Q_A5_IV[] = "e0459b3474bdd0e44a41c144";
static const char Q_A5_HP[] = "25a282b9e82f06f21f488917a4fc8f1b73573685608597d0efcb076b0ab7a7a4";
static const char Q_A5_KU[] = "1223504755036d556342ee9361d253421a826c9ecdf3c7148684b36b714881f9";
static const char Q_A5_HDR[] = "4200bff4";
static const char Q_A5_OUT[] = "655e5cd55c41f69080575d7999c25a5bfb"; /* ciphertext 01 -> 65, then tag */
static const char Q_A5_SAMPLE[] = "5e5cd55c41f69080575d7999c25a5bfb";
static const char Q_A5_MASK[] = "aefefe7d03";
static const char Q_A5_HDR_PROT[] = "4cfe4189";
static const char Q_A5_PACKET[] = "4cfe4189655e5cd55c41f69080575d7999c25a5bfb";

#endif
