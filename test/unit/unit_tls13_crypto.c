/* test/unit/unit_tls13_crypto.c — the TLS 1.3 crypto layer: key schedule,
 * transcript, AEAD and record protection (tls13/keysched.c, aead.c,
 * record.c).
 *
 * Known answers, all as hex strings:
 *  - S3_* / S5_*: /work/shared/rfc/tls13-traces.txt (draft-ietf-tls-tls13-
 *    vectors style), §3 "Simple 1-RTT Handshake" and §5 "HelloRetryRequest",
 *    copied byte for byte. Its values differ from the published RFC 8448.
 *    None of its protected records carries padding (every record is
 *    5 + content + 1 + 16 bytes), so seal must reproduce each one exactly;
 *    padded records are exercised with hand-made inner plaintexts instead.
 *  - Q_*: RFC 9001 Appendix A (A.1 Initial secrets, A.2/A.3 AES-128-GCM
 *    Initial packet payloads, A.5 ChaCha20-Poly1305 secrets and packet),
 *    in test/vectors/quic_vectors.h, which test/unit/unit_quic_packet.c shares.
 *  - GCM_*: the GCM specification's test cases 4, 13, 14 and 16 (McGrew &
 *    Viega), and CC_8439: RFC 8439 §2.8.2. Those two sets are not in
 *    /work/shared/rfc; they were written from the specifications and
 *    cross-checked against OpenSSL (Python `cryptography`) before going in.
 *
 * Cross-implementation checks: the AEAD's implementation pointers live in
 * the public struct tls13_aead, so the tests re-point an initialised
 * struct at BearSSL's portable code (ct64 AES + ctmul64 GHASH; ct ChaCha20
 * + ctmul Poly1305) and at a third set (big AES + ctmul GHASH; ctmul32
 * Poly1305) and require identical output; AES-GCM is also checked against
 * BearSSL's own br_gcm_* code, HKDF-Expand-Label against br_hkdf, and
 * the schedule's SHA-256 (SHA-NI where the CPU has it) against br_sha256,
 * tls13/x25519.h against RFC 7748 §5.2 and §6.1 (cross-checked against
 * OpenSSL through Python `cryptography` before going in) and against
 * BearSSL's c25519_m31 on random and edge-case inputs. No test hook is
 * compiled into the library. */
#include <stdint.h>
#include <stdlib.h>

#include "test/unit/t.h"
#include "test/vectors/quic_vectors.h"
#include "test/vectors/tls13_traces.h"
#include "tls13/aead.h"
#include "tls13/keysched.h"
#include "tls13/record.h"
#include "tls13/x25519.h"

/* ---- helpers ---- */

/* Deterministic filler. */
static void fill(uint8_t *p, size_t n, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = (uint8_t)x;
    }
}


/* ---- tls13-traces.txt, copied byte for byte ---- */

/* 201 octets */
static const char S3_CH_REC[] =
    "16030100c4010000c003036660261ff947cea49cce6cfad687f457cf1b14531b"
    "a14131a0e8f309a1d0b9c4000006130113031302010000910000000b00090000"
    "06736572766572ff01000100000a00140012001d001700180019010001010102"
    "0103010400230000003300260024001d00204cfdfcd178b784bf328cae793b13"
    "6f2aedce005ff183d7bb1495207236647037002b0003020304000d0020001e04"
    "0305030603020308040805080604010501060102010402050206020202002d00"
    "020101001c00024001";
/* 95 octets */
static const char S3_SH_REC[] =
    "160303005a0200005603031274991495cf425857262dde2299342c315afba9b6"
    "4a87d552515614e01b045d00130100002e00330024001d0020c7bb6bdfc26350"
    "b929a08a41a76ddac210b096868d960c4845987dc3a7fa650a002b00020304";
/* 54 octets */
static const char S3_INFO_C_HS[] =
    "002012746c73313320632068732074726166666963203d35f3eba0aabf5d9661"
    "236e3b5bb938fdc32f409cc27c55499e1f0baa3abd8f";
/* 32 octets */
static const char S3_RESUMPTION[] =
    "cae5ce63ca4b2a7333a7cef44351eea4b6a0b6dabfe52e8fa8828c57602b807c";
/* 185 octets */
static const char S5_CH1_REC[] =
    "16030100b4010000b00303c05333f1e168f732427e91815a093c990115f16113"
    "0c68e9be3e563610ee9487000006130113031302010000810000000b00090000"
    "06736572766572ff01000100000a00080006001d00170018003300260024001d"
    "0020f7dead1d79f3fd2379002489bbe689b3b16bbc419c812fa617a6fb0a99a1"
    "7117002b0003020304000d0020001e0403050306030203080408050806040105"
    "01060102010402050206020202002d00020101001c00024001";
/* 517 octets */
static const char S5_CH2_REC[] =
    "1603030200010001fc0303c05333f1e168f732427e91815a093c990115f16113"
    "0c68e9be3e563610ee9487000006130113031302010001cd0000000b00090000"
    "06736572766572ff01000100000a00080006001d001700180033004700450017"
    "004104a8d6b4fc93bfb595d867814c45689f74708a33714a9340fe795d7958ef"
    "47fd56039baa382032f78d4c4bca4f24f65560b53b1c076be41bcc0998567585"
    "45a898002b0003020304000d0020001e04030503060302030804080508060401"
    "0501060102010402050206020202002c00740072c8a457e4f6d9b8f485a6fbb2"
    "000000000944e8ada9c6414d2412d66659d64678003023f9de457f1f09e31dd3"
    "22cfe0dc9147b7dc3ec0c577b010a0b0a8f28784226e0f061797aa37e95da2c0"
    "06d12af13e0745b0d04918d14d429a0d50808857736687baff6d07c4682a007c"
    "62c3cb4afcb3002d00020101001c00024001001500af00000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000"
    "0000000000";
/* 32 octets */
static const char S3_EARLY[] =
    "33ad0a1c607ec03b09e6cd9893680ce210adf300aa1f2660e1b22e10f170f92a";
/* 32 octets */
static const char S3_DERIVED_HS[] =
    "6f2615a108c702c5678f54fc9dbab69716c076189c48250cebeac3576c3611ba";
/* 32 octets */
static const char S3_DHE[] =
    "1bea3fdfd25f94033804b68997a55d1931dc51124ad7f6e28959bb4672e3bd13";
/* 32 octets */
static const char S3_HS_SECRET[] =
    "f2c66e28ed535dfb8721b7145ca51c8bc058514f79aa881d0d32cbe1341a2e45";
/* 32 octets */
static const char S3_THASH_SH[] =
    "3d35f3eba0aabf5d9661236e3b5bb938fdc32f409cc27c55499e1f0baa3abd8f";
/* 32 octets */
static const char S3_DERIVED_MS[] =
    "6aac276f77177e737a1fe91dcf0d2ec9cb4fcead8690703a15348b5e5220cafa";
/* 32 octets */
static const char S3_MASTER[] =
    "a12970d9b27a3d59b6ecc1530d284073bd745ddc68d994e7a6ee70881b3d6da6";
/* 16 octets */
static const char S3_S_HS_KEY[] =
    "4d15c00e47317fe99c714f8ebd92c4d1";
/* 12 octets */
static const char S3_S_HS_IV[] =
    "18223084735f2f2d8588caaa";
/* 40 octets */
static const char S3_EE[] =
    "080000240022000a00140012001d00170018001901000101010201030104001c"
    "0002400100000000";
/* 445 octets */
static const char S3_CERT[] =
    "0b0001b9000001b50001b0308201ac30820115a003020102020102300d06092a"
    "864886f70d01010b0500300e310c300a06035504031303727361301e170d3136"
    "303733303031323335395a170d3236303733303031323335395a300e310c300a"
    "0603550403130372736130819f300d06092a864886f70d010101050003818d00"
    "30818902818100b4bb498f8279303d980836399b36c6988c0c68de55e1bdb826"
    "d3901a2461eafd2de49a91d015abbc9a95137ace6c1af19eaa6af98c7ced4312"
    "0998e187a80ee0ccb0524b1b018c3e0b63264d449a6d38e22a5fda4308467480"
    "30530ef0461c8ca9d9efbfae8ea6d1d03e2bd193eff0ab9a8002c47428a6d35a"
    "8d88d79f7f1e3f0203010001a31a301830090603551d1304023000300b060355"
    "1d0f0404030205a0300d06092a864886f70d01010b05000381810085aad2a0e5"
    "b9276b908c65f73a7267170618a54c5f8a7b337d2df7a594365417f2eae8f8a5"
    "8c8f8172f9319cf36b7fd6c55b80f21a03015156726096fd335e5e67f2dbf102"
    "702e608ccae6bec1fc63a42a99be5c3eb7107c3c54e9b9eb2bd5203b1c3b84e0"
    "a8b2f759409ba3eac9d91d402dcc0cc8f8961229ac9187b42b4de10000";
/* 136 octets */
static const char S3_CV[] =
    "0f00008408040080ace0af8e87d7c63cc9dbe7dcc12ff83bd55df0ccda9bf4e5"
    "a0f70100d9bc4d25aa684fd9d347642c942222526e163e3b0fba312b10e9b67e"
    "b0ac9c2be5fef490f81d7827e3bc12fa027ab439e71cc8459c14b94a8f3506ec"
    "44547d6c23e19cc7f9d5e0d1f595108fc240f5b0842c485a321487c4950377a5"
    "2e917294715567cd";
/* 32 octets */
static const char S3_S_FIN_KEY[] =
    "2456e4d4c3cc526cad20c011327277e2b8834df514fa50db921101293cc627a8";
/* 32 octets */
static const char S3_S_FIN[] =
    "4c92b1b256d861a1830167827d3e288d1a76f03484e9ec886d4ff66149cbec2f";
/* 36 octets */
static const char S3_S_FINISHED_MSG[] =
    "140000204c92b1b256d861a1830167827d3e288d1a76f03484e9ec886d4ff661"
    "49cbec2f";
/* 679 octets */
static const char S3_S_FLIGHT_REC[] =
    "17030302a2d86231e399eee4544f58e5c9ff1d0def3baa470ae2ed0b127c5dd4"
    "71715673cef74b51fecac0d9d347ce9f43efe772ad20efddfa5b9a3911760311"
    "279599832e856ceba25bdc8071f97228277985b96f4e2b520f48b129bd3f9bb8"
    "e0ba5ad5cb2513b7d9157fab22fbd5862a8631a194b4ece8e31dade9e6d019d5"
    "714833de181192b427a10fe4e929f637d55c3ecf0182191dee94df0cdeed15dc"
    "c6f114c5abdcc0626356cfe4dcf011022c0e6a2431d688bbc829fa495bcb0e74"
    "56636b153c9c79a4f8cb083164c5f555ac78b8844a25d8c7b3f40d7226f53e6b"
    "6f0976989c70a327b6e7bf5316a20b8de99e25ab7d5e2faba2f53ef8f3713995"
    "023e678859cde121cf548625d61fe840f0c5749fc65c984c543a139a3185091a"
    "eb9eaca24d269a31501cc506bdf9b620994c8dc4bdc977afd9e971fad42eb1c9"
    "d05545fc37164a123233e370bb6afef2cbf7df710c95a4e20982cca1ebfc67a6"
    "ebb82e8ee5910a69ec085598ab497365c408aca90d13feea1d773af9899f9e37"
    "b74189f711ea08a960810c449c141ab4ee2d4958021050e1bc4347fbfddb90e9"
    "24752f1df76ed1ce7c0038ce1193b0e72e056c3e330914cbe656b80bbebf0359"
    "bf301e06901974baad55765f186c7b1c1304e1101181629351682a0a96e2a844"
    "2cd65234d55f4dcdc585c3a729aab205590a53a9ce9e4b0e1218f0952cc2806b"
    "5f46c59d88a172dac37c9f37afb91cea61665324b06d3ce79d7465d323ca9cb4"
    "ccd8d8adf21eefde6a24f36fe7e022139285de95dd6283e106773d11d07d9bf2"
    "7ca9e9953a0c23730b159ff8aa0086d74e0ba5557257c2f308a55ff54c9c4854"
    "7886f979fa841b8c2d6cd7a14ef642dda832badba34a3554fcd4092d8de04e43"
    "2ccbdaa4eac28f922a29bd00a7d26f5072a3fa2da1a228394a26a805dee09042"
    "2794fb1476cff0";
/* 32 octets */
static const char S3_THASH_SF[] =
    "b285e2e2beb28adf85ce08112f7c4804cb52347a258edfa9c1bf31f7f808e8ce";
/* 32 octets */
static const char S3_EXP_MASTER[] =
    "319b2e433f189fc5a1d81ea369e3af838cbecb0db8fffd5b9ab205afcdb999d9";
/* 16 octets */
static const char S3_S_AP_KEY[] =
    "bbe6b3fc9c068c6fb331eca8aa919bfd";
/* 12 octets */
static const char S3_S_AP_IV[] =
    "8057dc46846821a1bea306e0";
/* 16 octets */
static const char S3_C_HS_KEY[] =
    "947fe41b60fa1bcf942d456268476e8d";
/* 12 octets */
static const char S3_C_HS_IV[] =
    "962df1fc720f9574f7d22248";
/* 32 octets */
static const char S3_C_FIN_KEY[] =
    "34e8b781a8643a166bc10ec40c6c239f5d76005b35c6f35ff7f01075c36aaa66";
/* 32 octets */
static const char S3_C_FIN[] =
    "80a2c0d6cbc21078dba30affbf091929278edc832db4bfa1c811c9e8c67da9bb";
/* 58 octets */
static const char S3_C_FIN_REC[] =
    "1703030035ed2b5675d3a8b0d0cedd0519d5e7573c4aa061f42daeecca1c5498"
    "e1f063a9c6c5f594e3859f568a0bc5ee9ee49db23a0999f0aede";
/* 16 octets */
static const char S3_C_AP_KEY[] =
    "d92b3e9a88ea7fe2ed69aa9c8b629e91";
/* 12 octets */
static const char S3_C_AP_IV[] =
    "37a828161ead2b6813ad0b13";
/* 32 octets */
static const char S3_THASH_CF[] =
    "31a6e1ceae1e798050f53cac68662eededafcf279cab1c1838b935ffcebf4275";
/* 32 octets */
static const char S3_RES_MASTER[] =
    "a34be53b07ab35b8503d7626a7cad4966873ebdea135c4b2e4cd28e4b812ac54";
/* 227 octets */
static const char S3_NST_REC[] =
    "17030300dec047d7b25ebbc316ebeef66485649f1a3a6c1918b035c183ebde6b"
    "d30c2b97f4935e329714bb08af9c6d96da3c604443c0dbbeab8beecd90af0c3d"
    "bc53ea1c49deeb688f45f0f9e8cceec68ebbadd3a4425938acd99dca9ead9b6f"
    "6a297a9aa0d9ab910745f6732527817fd4134ac5e99cd6255e2388c89f83646e"
    "0e5fbe4044aa5a55a3530ca98ff56eb6b1dc685e5660a75a822efae533daed34"
    "745608aa9829ba84de3e7c4acfc8094e39d2af817421e55c3aa5d0e1de43c408"
    "bac9322599ef4e57dfd08a7af0d1186c96e6ac299bd07f5ee5b056831964cb80"
    "768ce5";
/* 50 octets */
static const char S3_APPDATA[] =
    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
    "202122232425262728292a2b2c2d2e2f3031";
/* 72 octets */
static const char S3_C_APP_REC[] =
    "17030300436f75483d5af74e8419fadfd21404a9b5eba36b5170c504366f2da8"
    "ddc2bd7bfcaf3cbee33d8c0172f0f8485a1fa52d1364257cf5c509eaf35c3918"
    "9b5278b5861b019f";
/* 72 octets */
static const char S3_S_APP_REC[] =
    "1703030043cc8a45078c6c81b7461ff5624f6312aa44c3c101eb700e6248042f"
    "40baca0d988fefd11e945d27c7c364b5068580571908646e59a85e12690df143"
    "671095b3c93d705c";
/* 24 octets */
static const char S3_C_ALERT_REC[] =
    "170303001391e43d71d625149c7e221ca954b6a8958f12c0";
/* 24 octets */
static const char S3_S_ALERT_REC[] =
    "1703030013487b8fbbf30c49dd4817e394fa6c6f95816846";
/* 32 octets */
static const char S5_DHE[] =
    "3188db87f5fedb1a049be816be7d60a83315246fbb7c3f5eafbe534a5ccd32b9";
/* 32 octets */
static const char S5_HS_SECRET[] =
    "65fa34a281a47f54a9852cdfdaa044483bdc56e73eb8910d9480b5299d25beef";
/* 32 octets */
static const char S5_THASH_SH[] =
    "ca8a72ef2b55549535845527ff145a0a5d97795b238051f55068a5d769a59925";
/* 32 octets */
static const char S5_MASTER[] =
    "2af46f9030daf87dcff54ba58f97bdccc873efbe22768a540991438c191702bf";
/* 16 octets */
static const char S5_S_HS_KEY[] =
    "2e676386f371e132ee7e38e66d527f6a";
/* 12 octets */
static const char S5_S_HS_IV[] =
    "97e6e0f9c7ac739b57fbbc48";
/* 667 octets */
static const char S5_S_FLIGHT_REC[] =
    "1703030296600da4860f2ee137f0fd4d12412b33e57c44be81466e6a3424008d"
    "14be7a3386403bfef354a92f19d986dd4d49c068f923f2b0738b7ede774b71fe"
    "fcf840355d805cde32cd1146190af359f6a2d4e5b38da486f6af1221ab395d86"
    "c8f9053f6eb014f871ae46857d7afbccc0facc4e203c908c2677834fc2ae0700"
    "2a3c6d2de7f9d3690796c0c6ea43e2d6f2e95e503ca6f08ee42cbb4e0d3511bd"
    "dc68d6a6f4322e4b767295c4f77c3c22788554504a0b32c43a31ee643b786f5e"
    "abb0d29b613ade67063b7736fc93a97df8910dc7a29f9e33043c69ef7b6510e2"
    "6a77655d34c0776d9459dcdd3d7e958fe1fc5793f1a2b5a1ba7e5328192bbd5b"
    "b3a50b3aef2cc632e6c5fdf4a6700da221505b00e6a9ad269590fae29ac067cc"
    "375789cef3b291bca710fbdd954c8cd7ef81c20942f16bd0eb1a7ecff9c81bee"
    "122ec40b6399e70c929bed3f474f4a0fa0bbf27d384d1caf6df93576a60064ef"
    "4446291f65ffb1806f72197de7775aca9dce57b7f629d0799722717f199e01bf"
    "717deb8cfeeb555090ddcf37542ada0f7a92727b04c0c9f98f9846ec42a61bc5"
    "226954cec4a6d86c73d9d75c31f4549ac37c1f1cb85c8cc0376b36d39b054554"
    "0d4d05f8842bcf88c38e3bf72762f9b08524f48781a72ddff9e93543d29b4619"
    "d5df8be66159e2634e92b78692677af588d7cf4210e74b625afb333f3c37c48d"
    "95852eb0071c2b3a387db5118f48a850199d5be16b0c660f3970f535c3f777f7"
    "8dd7040fda6824e52e86c64a81cb9703038a416ed267ac149439cc1b52a77d24"
    "99209d3baa272e57d29a4eead44bf2111c47ef95d363c8bd0209d314516a6aa5"
    "4a437421232f82bf2af78200e54669f61038c1dca38003ad51c58c2f0847ee35"
    "81618601e5d1756d529296de73eaff5403f8dbf1843f78e7edc27c";
/* 32 octets */
static const char S5_S_FIN[] =
    "53a1537c8090112a9b29735f43d06bb1e9af915c7a587a1542a2f18456c01bb6";
/* 32 octets */
static const char S5_THASH_SF[] =
    "680d6ab7a073a74ec9a62a64e7478f2d6550fa0c657b3e0280c4af8a0e5021b9";

/* ---- GCM spec test cases (nonce = IV, seq 0) ---- */
static const char GCM_K4[] = "feffe9928665731c6d6a8f9467308308";
static const char GCM_K16[] = "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308";
static const char GCM_IV[] = "cafebabefacedbaddecaf888";
static const char GCM_P[] =
    "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
    "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39";
static const char GCM_A[] = "feedfacedeadbeeffeedfacedeadbeefabaddad2";
static const char GCM_C4[] =
    "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
    "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091";
static const char GCM_T4[] = "5bc94fbc3221a5db94fae95ae7121a47";
static const char GCM_C16[] =
    "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
    "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662";
static const char GCM_T16[] = "76fc6ece0f4e1768cddf8853bb2d551b";
static const char GCM_T13[] = "530f8afbc74536b9a963b4f1c4cb738b";                    /* K=0^256, P="" */
static const char GCM_CT14[] = "cea7403d4d606b6e074ec5d3baf39d18d0d1c8a799996bf0265b98b5d48ab919"; /* P=0^128 */

/* ---- RFC 8439 §2.8.2 ---- */
static const char CC_KEY[] = "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f";
static const char CC_NONCE[] = "070000004041424344454647";
static const char CC_AAD[] = "50515253c0c1c2c3c4c5c6c7";
static const char CC_PLAIN[] = "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for "
                               "the future, sunscreen would be it.";
static const char CC_CIPHER[] =
    "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6"
    "3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36"
    "92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc"
    "3ff4def08e4b7a9de576d26586cec64b6116";
static const char CC_TAG[] = "1ae10b594f09e26a7e902ecbd0600691";

/* Misc. */
static const char SHA256_EMPTY[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
static const char SHA384_EMPTY[] =
    "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b";
/* Early Secret for SHA-384 suites: HKDF-Extract(0^48, 0^48). */
static const char SHA384_EARLY[] =
    "7ee8206f5570023e6dc7519eb1073bc4e791ad37b5c382aa10ba18e2357e716971f9362f2c2fe2a76bfd78dfec4ea9b5";
/* RFC 5869 A.1: HKDF-Extract PRK. */
static const char HKDF_5869_PRK[] = "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5";

/* ---- key schedule basics ---- */

static void test_basics(void)
{
    const struct tls13_suite *s;
    uint8_t out[TLS13_MAX_HASH];

    s = tls13_suite_find(TLS_AES_128_GCM_SHA256);
    T_CHECK("suite 1301", s && s->hash == TLS13_SHA256 && s->key_len == 16 && s->iv_len == 12, "%p", (void *)s);
    s = tls13_suite_find(TLS_AES_256_GCM_SHA384);
    T_CHECK("suite 1302", s && s->hash == TLS13_SHA384 && s->key_len == 32 && s->iv_len == 12, "%p", (void *)s);
    s = tls13_suite_find(TLS_CHACHA20_POLY1305_SHA256);
    T_CHECK("suite 1303", s && s->hash == TLS13_SHA256 && s->key_len == 32 && s->iv_len == 12, "%p", (void *)s);
    T_CHECK("suite 1304 unknown", tls13_suite_find(0x1304) == NULL && tls13_suite_find(0) == NULL, "found");
    T_CHECK("hash lengths", tls13_hash_len(TLS13_SHA256) == 32 && tls13_hash_len(TLS13_SHA384) == 48, "%zu %zu",
            tls13_hash_len(TLS13_SHA256), tls13_hash_len(TLS13_SHA384));

    tls13_empty_hash(TLS13_SHA256, out);
    check_hex("empty hash sha256", out, 32, SHA256_EMPTY);
    tls13_empty_hash(TLS13_SHA384, out);
    check_hex("empty hash sha384", out, 48, SHA384_EMPTY);

    /* RFC 5869 A.1: IKM = 22 x 0x0b, salt = 00..0c. */
    uint8_t ikm[22], salt[13];
    memset(ikm, 0x0b, sizeof ikm);
    for (int i = 0; i < 13; i++)
        salt[i] = (uint8_t)i;
    tls13_hkdf_extract(TLS13_SHA256, salt, sizeof salt, ikm, sizeof ikm, out);
    check_hex("hkdf-extract rfc5869 A.1", out, 32, HKDF_5869_PRK);

    struct tls13_keysched ks;
    tls13_ks_init(&ks, TLS13_SHA384);
    check_hex("early secret sha384", ks.secret, 48, SHA384_EARLY);
    /* An empty salt is the same HMAC key as 0^HashLen (RFC 5869 §2.2). */
    uint8_t zeros[48] = {0};
    tls13_hkdf_extract(TLS13_SHA384, NULL, 0, zeros, 48, out);
    check_hex("extract empty salt == zero salt", out, 48, SHA384_EARLY);

    uint8_t w[64];
    memset(w, 0xa5, sizeof w);
    tls13_wipe(w, sizeof w);
    int z = 1;
    for (size_t i = 0; i < sizeof w; i++)
        z &= w[i] == 0;
    T_CHECK("tls13_wipe zeroes", z, "non-zero byte left");
}

/* HKDF-Expand-Label's HkdfLabel against the trace's printed "info", and
 * against BearSSL's own HKDF for the SHA-384 path (which the traces, all
 * TLS_AES_128_GCM_SHA256, never reach) and for multi-block output. */
static void test_expand_label(void)
{
    uint8_t out[100], ref[100], prk[48];
    struct vec info = V(S3_INFO_C_HS);
    br_hmac_key_context kc;
    br_hmac_context hc;

    /* By hand: T(1) = HMAC(PRK, info || 0x01). */
    struct vec hs = V(S3_HS_SECRET);
    br_hmac_key_init(&kc, &br_sha256_vtable, hs.p, hs.n);
    br_hmac_init(&hc, &kc, 0);
    br_hmac_update(&hc, info.p, info.n);
    br_hmac_update(&hc, "\x01", 1);
    br_hmac_out(&hc, ref);
    check_hex("HMAC over the trace's HkdfLabel = c hs traffic", ref, 32, S3_C_HS);
    struct vec th = V(S3_THASH_SH);
    hs = V(S3_HS_SECRET);
    tls13_hkdf_expand_label(TLS13_SHA256, hs.p, "c hs traffic", th.p, th.n, out, 32);
    T_CHECK("expand-label c hs traffic == by hand", memcmp(out, ref, 32) == 0, "differs");

    /* SHA-384, 100 bytes (three blocks), against br_hkdf over the same
     * salt/IKM with an HkdfLabel assembled here. */
    static const uint8_t salt[] = "some salt";
    static const uint8_t ikm[] = "input keying material, not secret at all";
    uint8_t ctx[48]; /* a SHA-384 transcript hash is the longest context TLS uses */
    fill(ctx, sizeof ctx, 48);
    uint8_t hl[128];
    size_t n = 0;
    hl[n++] = 0;
    hl[n++] = 100;
    hl[n++] = 16;
    memcpy(hl + n, "tls13 some label", 16);
    n += 16;
    hl[n++] = sizeof ctx;
    memcpy(hl + n, ctx, sizeof ctx);
    n += sizeof ctx;
    br_hkdf_context hk;
    br_hkdf_init(&hk, &br_sha384_vtable, salt, sizeof salt - 1);
    br_hkdf_inject(&hk, ikm, sizeof ikm - 1);
    br_hkdf_flip(&hk);
    br_hkdf_produce(&hk, hl, n, ref, 100);
    tls13_hkdf_extract(TLS13_SHA384, salt, sizeof salt - 1, ikm, sizeof ikm - 1, prk);
    tls13_hkdf_expand_label(TLS13_SHA384, prk, "some label", ctx, sizeof ctx, out, 100);
    T_CHECK("expand-label sha384 x100 == br_hkdf", memcmp(out, ref, 100) == 0, "differs");
    /* And SHA-256, 100 bytes, empty context. */
    hl[1] = 100;
    hl[n - sizeof ctx - 1] = 0;
    n -= sizeof ctx;
    br_hkdf_init(&hk, &br_sha256_vtable, salt, sizeof salt - 1);
    br_hkdf_inject(&hk, ikm, sizeof ikm - 1);
    br_hkdf_flip(&hk);
    br_hkdf_produce(&hk, hl, n, ref, 100);
    tls13_hkdf_extract(TLS13_SHA256, salt, sizeof salt - 1, ikm, sizeof ikm - 1, prk);
    tls13_hkdf_expand_label(TLS13_SHA256, prk, "some label", NULL, 0, out, 100);
    T_CHECK("expand-label sha256 x100 == br_hkdf", memcmp(out, ref, 100) == 0, "differs");

    /* Out-of-range arguments zero the output instead of truncating. */
    memset(out, 0xff, sizeof out);
    static const char long_label[] = "0123456789012345678901234567890123456789012345678901234567890123456789"
                                     "0123456789012345678901234567890123456789012345678901234567890123456789"
                                     "0123456789012345678901234567890123456789012345678901234567890123456789"
                                     "01234567890123456789012345678901234567890123456789"; /* 260 chars */
    tls13_hkdf_expand_label(TLS13_SHA256, prk, long_label, NULL, 0, out, 32);
    int z = 1;
    for (int i = 0; i < 32; i++)
        z &= out[i] == 0;
    T_CHECK("expand-label rejects a label over 249 bytes", z && out[32] == 0xff, "not zeroed");
}

/* ---- the schedule's SHA-256 (tls13_sha256_class) against BearSSL's ---- */

static void test_sha256_class(void)
{
    const br_hash_class *c = tls13_sha256_class();
    static uint8_t buf[1200];
    br_hash_compat_context a, b;
    uint8_t o1[32], o2[32], st1[32], st2[32];
    int ok = 1;

    printf("# schedule SHA-256: %s\n", c == &br_sha256_vtable ? "BearSSL's br_sha256" : "x86 SHA extensions");
    T_CHECK("tls13_sha256_class describes SHA-256 as br_sha256_vtable does",
            c->desc == br_sha256_vtable.desc && c->context_size <= sizeof(br_hash_compat_context), "desc %08x",
            (unsigned)c->desc);
    fill(buf, sizeof buf, 77);
    /* Every length to 1100 (0..17 blocks and every tail), in one update,
     * in two at every third split, then more after a first out(). */
    for (size_t len = 0; len <= 1100; len++) {
        for (int split = 0; split < 2; split++) {
            size_t at = split ? (len * 2) / 3 : len;
            c->init(&a.vtable);
            br_sha256_vtable.init(&b.vtable);
            c->update(&a.vtable, buf, at);
            c->update(&a.vtable, buf + at, len - at);
            br_sha256_vtable.update(&b.vtable, buf, len);
            c->out(&a.vtable, o1);
            br_sha256_vtable.out(&b.vtable, o2);
            ok &= T_QUIET("sha256 class digest", memcmp(o1, o2, 32) == 0, "len %zu split %d", len, split);
            c->update(&a.vtable, buf, 100);
            br_sha256_vtable.update(&b.vtable, buf, 100);
            c->out(&a.vtable, o1);
            br_sha256_vtable.out(&b.vtable, o2);
            ok &= T_QUIET("sha256 class goes on after out", memcmp(o1, o2, 32) == 0, "len %zu", len);
            if (len % 64 == 0) {
                uint64_t n1 = c->state(&a.vtable, st1), n2 = br_sha256_vtable.state(&b.vtable, st2);
                ok &= T_QUIET("sha256 class state", n1 == n2 && memcmp(st1, st2, 32) == 0, "len %zu", len);
            }
        }
    }
    /* HMAC runs on state/set_state: keys shorter than, equal to and longer
     * than a block. */
    for (size_t klen = 0; klen <= 150; klen += 5) {
        for (size_t mlen = 0; mlen <= 300; mlen += 23) {
            br_hmac_key_context k1, k2;
            br_hmac_context h1, h2;
            br_hmac_key_init(&k1, c, buf + 500, klen);
            br_hmac_key_init(&k2, &br_sha256_vtable, buf + 500, klen);
            br_hmac_init(&h1, &k1, 0);
            br_hmac_init(&h2, &k2, 0);
            br_hmac_update(&h1, buf, mlen);
            br_hmac_update(&h2, buf, mlen);
            ok &= T_QUIET("sha256 class HMAC", br_hmac_out(&h1, o1) == 32 && br_hmac_out(&h2, o2) == 32 &&
                                                  memcmp(o1, o2, 32) == 0,
                          "key %zu msg %zu", klen, mlen);
        }
    }
    T_CHECK("tls13_sha256_class agrees with br_sha256 (lengths 0..1100, splits, state, HMAC)", ok, "see above");
}

/* ---- tls13-traces.txt §3: the key schedule, byte for byte ---- */

static void test_trace_schedule(void)
{
    const struct tls13_suite *s = tls13_suite_find(TLS_AES_128_GCM_SHA256);
    struct tls13_transcript t;
    struct tls13_keysched ks;
    uint8_t empty[48], th[48], buf[48], key[32], iv[12], th_sf[48];
    struct vec v;

    tls13_ks_init(&ks, TLS13_SHA256);
    check_hex("S3 early secret", ks.secret, 32, S3_EARLY);
    tls13_empty_hash(TLS13_SHA256, empty);
    tls13_derive_secret(TLS13_SHA256, ks.secret, "derived", empty, buf);
    check_hex("S3 derived (handshake)", buf, 32, S3_DERIVED_HS);

    tls13_transcript_init(&t);
    v = V(S3_CH);
    tls13_transcript_update(&t, v.p, v.n);
    v = V(S3_SH);
    tls13_transcript_update(&t, v.p, v.n);
    tls13_transcript_hash(&t, TLS13_SHA256, th);
    check_hex("S3 transcript CH..SH", th, 32, S3_THASH_SH);
    tls13_transcript_hash(&t, TLS13_SHA256, buf);
    T_CHECK("S3 transcript hash does not finish", memcmp(th, buf, 32) == 0, "second read differs");
    {
        /* The SHA-384 side saw the same bytes. */
        br_sha384_context c;
        uint8_t ref[48];
        br_sha384_init(&c);
        v = V(S3_CH);
        br_sha384_update(&c, v.p, v.n);
        v = V(S3_SH);
        br_sha384_update(&c, v.p, v.n);
        br_sha384_out(&c, ref);
        tls13_transcript_hash(&t, TLS13_SHA384, buf);
        T_CHECK("S3 transcript sha384 runs in parallel", memcmp(ref, buf, 48) == 0, "differs");
    }
    /* The suite is known: from here only SHA-256 runs (the hashes below
     * still match the trace), and the SHA-384 side stands still. */
    tls13_transcript_select(&t, TLS13_SHA256);
    {
        br_sha384_context before = t.sha384;
        v = V(S3_EE);
        struct tls13_transcript u = t;
        tls13_transcript_update(&u, v.p, v.n);
        T_CHECK("S3 transcript select stops the other hash", memcmp(&before, &u.sha384, sizeof before) == 0,
                "sha384 context moved");
    }

    v = V(S3_DHE);
    tls13_ks_handshake(&ks, v.p, v.n, th);
    check_hex("S3 handshake secret", ks.secret, 32, S3_HS_SECRET);
    check_hex("S3 client_handshake_traffic_secret", ks.client_hs, 32, S3_C_HS);
    check_hex("S3 server_handshake_traffic_secret", ks.server_hs, 32, S3_S_HS);

    tls13_traffic_keys(s, ks.server_hs, key, iv);
    check_hex("S3 server handshake key", key, 16, S3_S_HS_KEY);
    check_hex("S3 server handshake iv", iv, 12, S3_S_HS_IV);
    tls13_traffic_keys(s, ks.client_hs, key, iv);
    check_hex("S3 client handshake key", key, 16, S3_C_HS_KEY);
    check_hex("S3 client handshake iv", iv, 12, S3_C_HS_IV);

    /* Server Finished: finished_key, then HMAC over CH..CertificateVerify. */
    tls13_hkdf_expand_label(TLS13_SHA256, ks.server_hs, "finished", NULL, 0, buf, 32);
    check_hex("S3 server finished_key", buf, 32, S3_S_FIN_KEY);
    v = V(S3_EE);
    tls13_transcript_update(&t, v.p, v.n);
    v = V(S3_CERT);
    tls13_transcript_update(&t, v.p, v.n);
    v = V(S3_CV);
    tls13_transcript_update(&t, v.p, v.n);
    tls13_transcript_hash(&t, TLS13_SHA256, th);
    tls13_finished(TLS13_SHA256, ks.server_hs, th, buf);
    check_hex("S3 server Finished verify_data", buf, 32, S3_S_FIN);
    {
        struct vec m = V(S3_S_FINISHED_MSG);
        T_CHECK("S3 server Finished message body", m.n == 36 && memcmp(m.p + 4, buf, 32) == 0, "differs");
    }
    v = V(S3_S_FINISHED_MSG);
    tls13_transcript_update(&t, v.p, v.n);
    tls13_transcript_hash(&t, TLS13_SHA256, th_sf);
    check_hex("S3 transcript CH..server Finished", th_sf, 32, S3_THASH_SF);

    tls13_derive_secret(TLS13_SHA256, ks.secret, "derived", empty, buf);
    check_hex("S3 derived (master)", buf, 32, S3_DERIVED_MS);
    tls13_ks_master(&ks, th_sf);
    check_hex("S3 master secret", ks.secret, 32, S3_MASTER);
    check_hex("S3 client_application_traffic_secret_0", ks.client_app, 32, S3_C_AP);
    check_hex("S3 server_application_traffic_secret_0", ks.server_app, 32, S3_S_AP);
    tls13_derive_secret(TLS13_SHA256, ks.secret, "exp master", th_sf, buf);
    check_hex("S3 exporter_master_secret", buf, 32, S3_EXP_MASTER);
    tls13_traffic_keys(s, ks.server_app, key, iv);
    check_hex("S3 server application key", key, 16, S3_S_AP_KEY);
    check_hex("S3 server application iv", iv, 12, S3_S_AP_IV);
    tls13_traffic_keys(s, ks.client_app, key, iv);
    check_hex("S3 client application key", key, 16, S3_C_AP_KEY);
    check_hex("S3 client application iv", iv, 12, S3_C_AP_IV);

    /* Client Finished: same transcript (through server Finished). */
    tls13_hkdf_expand_label(TLS13_SHA256, ks.client_hs, "finished", NULL, 0, buf, 32);
    check_hex("S3 client finished_key", buf, 32, S3_C_FIN_KEY);
    tls13_finished(TLS13_SHA256, ks.client_hs, th_sf, buf);
    check_hex("S3 client Finished verify_data", buf, 32, S3_C_FIN);

    /* Resumption (optional in the brief, cheap to check). */
    v = V(S3_C_FINISHED_MSG);
    tls13_transcript_update(&t, v.p, v.n);
    tls13_transcript_hash(&t, TLS13_SHA256, th);
    check_hex("S3 transcript CH..client Finished", th, 32, S3_THASH_CF);
    tls13_derive_secret(TLS13_SHA256, ks.secret, "res master", th, buf);
    check_hex("S3 resumption_master_secret", buf, 32, S3_RES_MASTER);
    static const uint8_t ticket_nonce[2] = {0, 0};
    uint8_t psk[32];
    tls13_hkdf_expand_label(TLS13_SHA256, buf, "resumption", ticket_nonce, 2, psk, 32);
    check_hex("S3 ticket PSK (\"resumption\")", psk, 32, S3_RESUMPTION);
}

/* ---- the schedule for SHA-384 suites, against br_hkdf ----
 *
 * No trace covers TLS_AES_256_GCM_SHA384, so its schedule is rebuilt here
 * from BearSSL's HKDF (Extract and Expand both BearSSL's) with HkdfLabel
 * assembled by hand, and compared with tls13_ks_*. */

static size_t hkdf_label(uint8_t *out, size_t len, const char *label, const uint8_t *ctx, size_t ctx_len)
{
    size_t n = 0, ll = strlen(label);
    out[n++] = (uint8_t)(len >> 8);
    out[n++] = (uint8_t)len;
    out[n++] = (uint8_t)(6 + ll);
    memcpy(out + n, "tls13 ", 6);
    memcpy(out + n + 6, label, ll);
    n += 6 + ll;
    out[n++] = (uint8_t)ctx_len;
    if (ctx_len > 0)
        memcpy(out + n, ctx, ctx_len);
    return n + ctx_len;
}

/* HKDF-Expand-Label(HKDF-Extract(salt, ikm), label, ctx, 48), all BearSSL. */
static void br_extract_expand(const uint8_t *salt, const uint8_t *ikm, size_t ikm_len, const char *label,
                              const uint8_t *ctx, size_t ctx_len, uint8_t *out)
{
    uint8_t info[300];
    br_hkdf_context hk;
    br_hkdf_init(&hk, &br_sha384_vtable, salt, 48);
    br_hkdf_inject(&hk, ikm, ikm_len);
    br_hkdf_flip(&hk);
    br_hkdf_produce(&hk, info, hkdf_label(info, 48, label, ctx, ctx_len), out, 48);
}

static void test_sha384_schedule(void)
{
    uint8_t zeros[48] = {0}, empty[48], dhe[32], th_sh[48], th_sf[48];
    uint8_t derived[48], ref[48], out[48], key[32], iv[12], ref_key[32], ref_iv[12];
    struct tls13_keysched ks;
    br_sha384_context c;

    br_sha384_init(&c);
    br_sha384_out(&c, empty);
    fill(dhe, sizeof dhe, 1);
    fill(th_sh, sizeof th_sh, 2);
    fill(th_sf, sizeof th_sf, 3);

    tls13_ks_init(&ks, TLS13_SHA384);
    tls13_ks_handshake(&ks, dhe, sizeof dhe, th_sh);
    /* derived = Expand-Label(Early, "derived", Hash(""), 48), Early =
     * Extract(0, 0); then HS = Extract(derived, dhe). */
    br_extract_expand(zeros, zeros, 48, "derived", empty, 48, derived);
    br_extract_expand(derived, dhe, sizeof dhe, "c hs traffic", th_sh, 48, ref);
    T_CHECK("sha384 client_handshake_traffic_secret == br_hkdf", memcmp(ks.client_hs, ref, 48) == 0, "differs");
    br_extract_expand(derived, dhe, sizeof dhe, "s hs traffic", th_sh, 48, ref);
    T_CHECK("sha384 server_handshake_traffic_secret == br_hkdf", memcmp(ks.server_hs, ref, 48) == 0, "differs");
    br_extract_expand(derived, dhe, sizeof dhe, "derived", empty, 48, derived);
    tls13_ks_master(&ks, th_sf);
    br_extract_expand(derived, zeros, 48, "c ap traffic", th_sf, 48, ref);
    T_CHECK("sha384 client_application_traffic_secret_0 == br_hkdf", memcmp(ks.client_app, ref, 48) == 0,
            "differs");
    br_extract_expand(derived, zeros, 48, "s ap traffic", th_sf, 48, ref);
    T_CHECK("sha384 server_application_traffic_secret_0 == br_hkdf", memcmp(ks.server_app, ref, 48) == 0,
            "differs");

    /* Traffic keys: 32-byte key and 12-byte iv from a 48-byte secret. */
    uint8_t info[64];
    br_hmac_key_context kc;
    br_hmac_context hc;
    br_hmac_key_init(&kc, &br_sha384_vtable, ks.client_app, 48);
    br_hmac_init(&hc, &kc, 0);
    br_hmac_update(&hc, info, hkdf_label(info, 32, "key", NULL, 0));
    br_hmac_update(&hc, "\x01", 1);
    br_hmac_out(&hc, ref);
    memcpy(ref_key, ref, 32);
    br_hmac_init(&hc, &kc, 0);
    br_hmac_update(&hc, info, hkdf_label(info, 12, "iv", NULL, 0));
    br_hmac_update(&hc, "\x01", 1);
    br_hmac_out(&hc, ref);
    memcpy(ref_iv, ref, 12);
    tls13_traffic_keys(tls13_suite_find(TLS_AES_256_GCM_SHA384), ks.client_app, key, iv);
    T_CHECK("sha384 traffic key/iv (AES-256-GCM) == HMAC by hand",
            memcmp(key, ref_key, 32) == 0 && memcmp(iv, ref_iv, 12) == 0, "differs");

    /* Finished: HMAC-SHA384(Expand-Label(base, "finished", "", 48), th). */
    br_hmac_key_init(&kc, &br_sha384_vtable, ks.client_hs, 48);
    br_hmac_init(&hc, &kc, 0);
    br_hmac_update(&hc, info, hkdf_label(info, 48, "finished", NULL, 0));
    br_hmac_update(&hc, "\x01", 1);
    br_hmac_out(&hc, ref); /* finished_key */
    br_hmac_key_init(&kc, &br_sha384_vtable, ref, 48);
    br_hmac_init(&hc, &kc, 0);
    br_hmac_update(&hc, th_sf, 48);
    br_hmac_out(&hc, ref);
    tls13_finished(TLS13_SHA384, ks.client_hs, th_sf, out);
    T_CHECK("sha384 Finished == HMAC by hand", memcmp(out, ref, 48) == 0, "differs");
}

/* ---- §7.2 KeyUpdate ---- */

static void test_next_traffic_secret(void)
{
    static const uint8_t label[] = "\x00\x20\x11tls13 traffic upd\x00";        /* HkdfLabel, L=32 */
    static const uint8_t label48[] = "\x00\x30\x11tls13 traffic upd\x00";      /* L=48 */
    uint8_t secret[48], ref[48];
    br_hmac_key_context kc;
    br_hmac_context hc;

    struct vec v = V(S3_C_AP);
    memcpy(secret, v.p, 32);
    br_hmac_key_init(&kc, &br_sha256_vtable, secret, 32);
    br_hmac_init(&hc, &kc, 0);
    br_hmac_update(&hc, label, sizeof label - 1);
    br_hmac_update(&hc, "\x01", 1);
    br_hmac_out(&hc, ref);
    tls13_next_traffic_secret(TLS13_SHA256, secret);
    T_CHECK("traffic upd sha256 == HMAC by hand", memcmp(secret, ref, 32) == 0, "differs");
    /* N+2 from N+1, in place again. */
    br_hmac_key_init(&kc, &br_sha256_vtable, secret, 32);
    br_hmac_init(&hc, &kc, 0);
    br_hmac_update(&hc, label, sizeof label - 1);
    br_hmac_update(&hc, "\x01", 1);
    br_hmac_out(&hc, ref);
    tls13_next_traffic_secret(TLS13_SHA256, secret);
    T_CHECK("traffic upd sha256 twice", memcmp(secret, ref, 32) == 0, "differs");

    fill(secret, 48, 384);
    br_hmac_key_init(&kc, &br_sha384_vtable, secret, 48);
    br_hmac_init(&hc, &kc, 0);
    br_hmac_update(&hc, label48, sizeof label48 - 1);
    br_hmac_update(&hc, "\x01", 1);
    br_hmac_out(&hc, ref);
    tls13_next_traffic_secret(TLS13_SHA384, secret);
    T_CHECK("traffic upd sha384 == HMAC by hand", memcmp(secret, ref, 48) == 0, "differs");
}

/* ---- tls13-traces.txt §5: HelloRetryRequest transcript ---- */

static void test_trace_hrr(void)
{
    const struct tls13_suite *s = tls13_suite_find(TLS_AES_128_GCM_SHA256);
    struct tls13_transcript t;
    struct tls13_keysched ks;
    uint8_t th[48], key[32], iv[12], ref[48];
    struct vec v;

    tls13_transcript_init(&t);
    v = V(S5_CH1);
    tls13_transcript_update(&t, v.p, v.n);
    tls13_transcript_hrr_reset(&t, TLS13_SHA256); /* the HRR selected 0x1301 */
    v = V(S5_HRR);
    tls13_transcript_update(&t, v.p, v.n);
    v = V(S5_CH2);
    tls13_transcript_update(&t, v.p, v.n);
    v = V(S5_SH);
    tls13_transcript_update(&t, v.p, v.n);
    tls13_transcript_hash(&t, TLS13_SHA256, th);
    check_hex("S5 transcript message_hash..SH", th, 32, S5_THASH_SH);

    {
        /* The SHA-384 context holds message_hash built from SHA-384(CH1). */
        br_sha384_context c;
        uint8_t mh[4 + 48] = {254, 0, 0, 48};
        br_sha384_init(&c);
        v = V(S5_CH1);
        br_sha384_update(&c, v.p, v.n);
        br_sha384_out(&c, mh + 4);
        br_sha384_init(&c);
        br_sha384_update(&c, mh, sizeof mh);
        static const char *const rest[] = {S5_HRR, S5_CH2, S5_SH};
        for (int i = 0; i < 3; i++) {
            v = V(rest[i]);
            br_sha384_update(&c, v.p, v.n);
        }
        br_sha384_out(&c, ref);
        tls13_transcript_hash(&t, TLS13_SHA384, th);
        T_CHECK("S5 sha384 transcript uses its own message_hash", memcmp(th, ref, 48) == 0, "differs");
        tls13_transcript_hash(&t, TLS13_SHA256, th);
    }

    tls13_ks_init(&ks, TLS13_SHA256);
    v = V(S5_DHE);
    tls13_ks_handshake(&ks, v.p, v.n, th);
    check_hex("S5 handshake secret", ks.secret, 32, S5_HS_SECRET);
    check_hex("S5 client_handshake_traffic_secret", ks.client_hs, 32, S5_C_HS);
    check_hex("S5 server_handshake_traffic_secret", ks.server_hs, 32, S5_S_HS);
    tls13_traffic_keys(s, ks.server_hs, key, iv);
    check_hex("S5 server handshake key", key, 16, S5_S_HS_KEY);
    check_hex("S5 server handshake iv", iv, 12, S5_S_HS_IV);

    /* Open the server's encrypted flight, feed it to the transcript, and
     * go on to the application secrets. */
    struct tls13_record_dir rd;
    memset(&rd, 0, sizeof rd);
    tls13_record_key(&rd, TLS_AES_128_GCM_SHA256, key, iv);
    static uint8_t rec[800];
    v = V(S5_S_FLIGHT_REC);
    memcpy(rec, v.p, v.n);
    uint8_t ct = 0, *pl = NULL;
    size_t pl_len = 0;
    int rc = tls13_record_open(&rd, rec, v.n, &ct, &pl, &pl_len);
    T_CHECK("S5 server flight opens", rc == 0 && ct == TLS13_CT_HANDSHAKE, "rc %d ct %u", rc, ct);
    if (rc == 0) {
        check_hex("S5 server flight plaintext", pl, pl_len, S5_S_FLIGHT);
        /* verify_data is the last 32 bytes of the flight; its transcript
         * ends before the Finished message (36 bytes). */
        struct tls13_transcript t2 = t;
        tls13_transcript_update(&t2, pl, pl_len - 36);
        tls13_transcript_hash(&t2, TLS13_SHA256, th);
        tls13_finished(TLS13_SHA256, ks.server_hs, th, ref);
        check_hex("S5 server Finished verify_data", ref, 32, S5_S_FIN);
        tls13_transcript_update(&t, pl, pl_len);
    }
    tls13_transcript_hash(&t, TLS13_SHA256, th);
    check_hex("S5 transcript ..server Finished", th, 32, S5_THASH_SF);
    tls13_ks_master(&ks, th);
    check_hex("S5 master secret", ks.secret, 32, S5_MASTER);
    check_hex("S5 client_application_traffic_secret_0", ks.client_app, 32, S5_C_AP);
    check_hex("S5 server_application_traffic_secret_0", ks.server_app, 32, S5_S_AP);

    /* Plaintext records: CH1 goes out as 0x0301, CH2 (after the HRR) as
     * 0x0303, exactly as in the trace. */
    struct tls13_record_dir wd;
    memset(&wd, 0, sizeof wd);
    size_t n;
    v = V(S5_CH1);
    n = tls13_record_seal(&wd, TLS13_CT_HANDSHAKE, v.p, v.n, rec, sizeof rec);
    check_hex("S5 ClientHello1 record (unkeyed, 0x0301)", rec, n, S5_CH1_REC);
    v = V(S5_CH2);
    n = tls13_record_seal(&wd, TLS13_CT_HANDSHAKE, v.p, v.n, rec, sizeof rec);
    check_hex("S5 ClientHello2 record (unkeyed, 0x0303)", rec, n, S5_CH2_REC);
}

/* ---- tls13-traces.txt §3: protected records ---- */

struct rec_case {
    const char *name;
    const char *key, *iv; /* hex */
    uint64_t seq;
    uint8_t ct;
    const char *content; /* hex */
    const char *record;  /* hex */
};

static void test_trace_records(void)
{
    static const struct rec_case cases[] = {
        {"S3 server EE..Finished", S3_S_HS_KEY, S3_S_HS_IV, 0, TLS13_CT_HANDSHAKE, S3_S_FLIGHT, S3_S_FLIGHT_REC},
        {"S3 client Finished", S3_C_HS_KEY, S3_C_HS_IV, 0, TLS13_CT_HANDSHAKE, S3_C_FINISHED_MSG, S3_C_FIN_REC},
        {"S3 server NewSessionTicket", S3_S_AP_KEY, S3_S_AP_IV, 0, TLS13_CT_HANDSHAKE, S3_NST, S3_NST_REC},
        {"S3 client application data", S3_C_AP_KEY, S3_C_AP_IV, 0, TLS13_CT_APPLICATION_DATA, S3_APPDATA,
         S3_C_APP_REC},
        {"S3 server application data", S3_S_AP_KEY, S3_S_AP_IV, 1, TLS13_CT_APPLICATION_DATA, S3_APPDATA,
         S3_S_APP_REC},
        {"S3 client close_notify", S3_C_AP_KEY, S3_C_AP_IV, 1, TLS13_CT_ALERT, "0100", S3_C_ALERT_REC},
        {"S3 server close_notify", S3_S_AP_KEY, S3_S_AP_IV, 2, TLS13_CT_ALERT, "0100", S3_S_ALERT_REC},
    };
    static uint8_t rec[1024], content[1024], key[16], iv[12];
    char name[120];

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct rec_case *c = &cases[i];
        struct tls13_record_dir d;
        memset(&d, 0, sizeof d);
        unhex(c->key, key, sizeof key);
        unhex(c->iv, iv, sizeof iv);
        size_t clen = unhex(c->content, content, sizeof content);

        /* Seal reproduces the record exactly. */
        tls13_record_key(&d, TLS_AES_128_GCM_SHA256, key, iv);
        d.seq = c->seq;
        size_t n = tls13_record_seal(&d, c->ct, content, clen, rec, sizeof rec);
        snprintf(name, sizeof name, "%s: seal", c->name);
        check_hex(name, rec, n, c->record);
        snprintf(name, sizeof name, "%s: seal advances seq", c->name);
        T_CHECK(name, d.seq == c->seq + 1, "seq %llu", (unsigned long long)d.seq);

        /* Open recovers type and content. */
        tls13_record_key(&d, TLS_AES_128_GCM_SHA256, key, iv);
        d.seq = c->seq;
        struct vec r = V(c->record);
        memcpy(rec, r.p, r.n);
        uint8_t ct = 0, *pl = NULL;
        size_t pl_len = 0;
        int rc = tls13_record_open(&d, rec, r.n, &ct, &pl, &pl_len);
        snprintf(name, sizeof name, "%s: open", c->name);
        T_CHECK(name, rc == 0 && ct == c->ct && pl == rec + 5 && pl_len == clen && memcmp(pl, content, clen) == 0 &&
                          d.seq == c->seq + 1,
                "rc %d ct %u len %zu", rc, ct, pl_len);

        /* The same record at the wrong sequence number fails. */
        tls13_record_key(&d, TLS_AES_128_GCM_SHA256, key, iv);
        d.seq = c->seq + 1;
        memcpy(rec, r.p, r.n);
        rc = tls13_record_open(&d, rec, r.n, &ct, &pl, &pl_len);
        snprintf(name, sizeof name, "%s: wrong seq is bad_record_mac", c->name);
        T_CHECK(name, rc == -20 && d.seq == c->seq + 1, "rc %d", rc);
    }

    /* The clear-text records: ClientHello (0x0301, first record) and the
     * ServerHello passthrough on an unkeyed read direction. */
    struct tls13_record_dir w, r;
    memset(&w, 0, sizeof w);
    memset(&r, 0, sizeof r);
    struct vec v = V(S3_CH);
    memcpy(content, v.p, v.n);
    size_t n = tls13_record_seal(&w, TLS13_CT_HANDSHAKE, content, v.n, rec, sizeof rec);
    check_hex("S3 ClientHello record (unkeyed)", rec, n, S3_CH_REC);
    v = V(S3_SH_REC);
    memcpy(rec, v.p, v.n);
    uint8_t ct = 0, *pl = NULL;
    size_t pl_len = 0;
    int rc = tls13_record_open(&r, rec, v.n, &ct, &pl, &pl_len);
    T_CHECK("S3 ServerHello record (unkeyed) opens as is", rc == 0 && ct == TLS13_CT_HANDSHAKE && pl == rec + 5,
            "rc %d ct %u", rc, ct);
    check_hex("S3 ServerHello content", pl, pl_len, S3_SH);
}

/* ---- AEAD known answers ---- */

static void aead_kat(const char *name, uint16_t suite, const char *khex, const char *ivhex, uint64_t seq,
                     const char *aadhex, const char *plainhex, size_t plain_len_override, const char *outhex)
{
    uint8_t key[32], iv[12], aad[64];
    static uint8_t buf[2048], want[2048];
    struct tls13_aead a;
    char nm[120];

    unhex(khex, key, sizeof key);
    unhex(ivhex, iv, sizeof iv);
    size_t aad_len = unhex(aadhex, aad, sizeof aad);
    memset(buf, 0, sizeof buf);
    size_t len = unhex(plainhex, buf, sizeof buf);
    if (plain_len_override)
        len = plain_len_override; /* zero padding already in buf */
    size_t wlen = unhex(outhex, want, sizeof want);

    int rc = tls13_aead_init(&a, suite, key, iv);
    snprintf(nm, sizeof nm, "%s: init", name);
    T_CHECK(nm, rc == 0, "rc %d", rc);
    tls13_aead_seal(&a, seq, aad, aad_len, buf, len, buf + len);
    snprintf(nm, sizeof nm, "%s: seal", name);
    T_CHECK(nm, wlen == len + 16 && memcmp(buf, want, wlen) == 0, "ciphertext||tag differs (len %zu want %zu)",
            len + 16, wlen);
    rc = tls13_aead_open(&a, seq, aad, aad_len, buf, len, buf + len);
    uint8_t plain[2048];
    memset(plain, 0, sizeof plain);
    unhex(plainhex, plain, sizeof plain);
    snprintf(nm, sizeof nm, "%s: open", name);
    T_CHECK(nm, rc == 0 && memcmp(buf, plain, len) == 0, "rc %d", rc);
    tls13_aead_wipe(&a);
}

static void test_aead_kat(void)
{
    char out[600];
    /* GCM spec test cases 4 (AES-128) and 16 (AES-256). */
    snprintf(out, sizeof out, "%s%s", GCM_C4, GCM_T4);
    aead_kat("AES-128-GCM tc4", TLS_AES_128_GCM_SHA256, GCM_K4, GCM_IV, 0, GCM_A, GCM_P, 0, out);
    snprintf(out, sizeof out, "%s%s", GCM_C16, GCM_T16);
    aead_kat("AES-256-GCM tc16", TLS_AES_256_GCM_SHA384, GCM_K16, GCM_IV, 0, GCM_A, GCM_P, 0, out);
    static const char z32[] = "0000000000000000000000000000000000000000000000000000000000000000";
    static const char z12[] = "000000000000000000000000";
    aead_kat("AES-256-GCM tc13 (empty)", TLS_AES_256_GCM_SHA384, z32, z12, 0, "", "", 0, GCM_T13);
    aead_kat("AES-256-GCM tc14", TLS_AES_256_GCM_SHA384, z32, z12, 0, "", "00000000000000000000000000000000", 0,
             GCM_CT14);

    /* RFC 8439 §2.8.2. */
    char plainhex[300];
    for (size_t i = 0; CC_PLAIN[i]; i++)
        snprintf(plainhex + 2 * i, 3, "%02x", (unsigned char)CC_PLAIN[i]);
    snprintf(out, sizeof out, "%s%s", CC_CIPHER, CC_TAG);
    aead_kat("ChaCha20-Poly1305 rfc8439 2.8.2", TLS_CHACHA20_POLY1305_SHA256, CC_KEY, CC_NONCE, 0, CC_AAD, plainhex,
             0, out);

    /* RFC 9001 A.2, A.3 (AES-128-GCM, packet numbers 2 and 1) and A.5
     * (ChaCha20-Poly1305, packet number 654360564: the nonce XOR). */
    static char a2out[2 * 1200 + 1];
    snprintf(a2out, sizeof a2out, "%s", Q_A2_CIPHER);
    aead_kat("RFC 9001 A.2 client Initial payload", TLS_AES_128_GCM_SHA256, Q_C_KEY, Q_C_IV, 2, Q_A2_HDR, Q_A2_PLAIN,
             1162, a2out);
    aead_kat("RFC 9001 A.3 server Initial payload", TLS_AES_128_GCM_SHA256, Q_S_KEY, Q_S_IV, 1, Q_A3_HDR,
             Q_A3_PLAIN, 0, Q_A3_CIPHER);
    aead_kat("RFC 9001 A.5 ChaCha20 short header", TLS_CHACHA20_POLY1305_SHA256, Q_A5_KEY, Q_A5_IV, 654360564,
             Q_A5_HDR, "01", 0, Q_A5_OUT);

    struct tls13_aead a;
    uint8_t key[32] = {0}, iv[12] = {0};
    T_CHECK("aead init rejects unknown suite", tls13_aead_init(&a, 0x1304, key, iv) == -1, "accepted");
}

/* ---- RFC 9001 A.1 / A.5 key derivation ---- */

static void test_quic_keys(void)
{
    uint8_t salt[20], dcid[8], initial[32], sec[32], out[32];
    unhex(Q_SALT, salt, sizeof salt);
    unhex(Q_DCID, dcid, sizeof dcid);

    tls13_hkdf_extract(TLS13_SHA256, salt, sizeof salt, dcid, sizeof dcid, initial);
    check_hex("QUIC A.1 initial_secret", initial, 32, Q_INITIAL);
    tls13_hkdf_expand_label(TLS13_SHA256, initial, "client in", NULL, 0, sec, 32);
    check_hex("QUIC A.1 client_initial_secret", sec, 32, Q_CLIENT_IN);
    tls13_hkdf_expand_label(TLS13_SHA256, sec, "quic key", NULL, 0, out, 16);
    check_hex("QUIC A.1 client key", out, 16, Q_C_KEY);
    tls13_hkdf_expand_label(TLS13_SHA256, sec, "quic iv", NULL, 0, out, 12);
    check_hex("QUIC A.1 client iv", out, 12, Q_C_IV);
    tls13_hkdf_expand_label(TLS13_SHA256, sec, "quic hp", NULL, 0, out, 16);
    check_hex("QUIC A.1 client hp", out, 16, Q_C_HP);
    tls13_hkdf_expand_label(TLS13_SHA256, initial, "server in", NULL, 0, sec, 32);
    check_hex("QUIC A.1 server_initial_secret", sec, 32, Q_SERVER_IN);
    tls13_hkdf_expand_label(TLS13_SHA256, sec, "quic key", NULL, 0, out, 16);
    check_hex("QUIC A.1 server key", out, 16, Q_S_KEY);
    tls13_hkdf_expand_label(TLS13_SHA256, sec, "quic iv", NULL, 0, out, 12);
    check_hex("QUIC A.1 server iv", out, 12, Q_S_IV);
    tls13_hkdf_expand_label(TLS13_SHA256, sec, "quic hp", NULL, 0, out, 16);
    check_hex("QUIC A.1 server hp", out, 16, Q_S_HP);

    unhex(Q_A5_SECRET, sec, sizeof sec);
    tls13_hkdf_expand_label(TLS13_SHA256, sec, "quic key", NULL, 0, out, 32);
    check_hex("QUIC A.5 key", out, 32, Q_A5_KEY);
    tls13_hkdf_expand_label(TLS13_SHA256, sec, "quic iv", NULL, 0, out, 12);
    check_hex("QUIC A.5 iv", out, 12, Q_A5_IV);
    tls13_hkdf_expand_label(TLS13_SHA256, sec, "quic hp", NULL, 0, out, 32);
    check_hex("QUIC A.5 hp", out, 32, Q_A5_HP);
    tls13_hkdf_expand_label(TLS13_SHA256, sec, "quic ku", NULL, 0, out, 32);
    check_hex("QUIC A.5 ku", out, 32, Q_A5_KU);
}

/* ---- AEAD round trips, tampering, nonces ---- */

static const uint16_t all_suites[] = {TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384, TLS_CHACHA20_POLY1305_SHA256};
static const size_t rt_lens[] = {0, 1, 15, 16, 17, 1000, 16384};

static const char *suite_name(uint16_t s)
{
    return s == TLS_AES_128_GCM_SHA256 ? "AES-128-GCM" : s == TLS_AES_256_GCM_SHA384 ? "AES-256-GCM" : "ChaCha20";
}

static void test_aead_roundtrip(void)
{
    static uint8_t plain[16384 + 16], buf[16384 + 16], tag[16];
    uint8_t key[32], iv[12], aad[13];
    char name[120];

    for (size_t s = 0; s < 3; s++) {
        uint16_t suite = all_suites[s];
        struct tls13_aead a;
        fill(key, sizeof key, (uint32_t)s + 1);
        fill(iv, sizeof iv, (uint32_t)s + 100);
        fill(aad, sizeof aad, (uint32_t)s + 200);
        tls13_aead_init(&a, suite, key, iv);

        for (size_t li = 0; li < sizeof rt_lens / sizeof rt_lens[0]; li++) {
            size_t len = rt_lens[li];
            int ok = 1;
            fill(plain, len, (uint32_t)(len + s));
            memcpy(buf, plain, len);
            tls13_aead_seal(&a, 7, aad, 5, buf, len, tag);
            ok &= T_QUIET("aead ciphertext differs", len < 16 || memcmp(buf, plain, len) != 0, "%zu", len);
            uint8_t ct_copy0 = len ? buf[0] : 0;
            int rc = tls13_aead_open(&a, 7, aad, 5, buf, len, tag);
            ok &= T_QUIET("aead round trip", rc == 0 && memcmp(buf, plain, len) == 0, "%s len %zu rc %d",
                          suite_name(suite), len, rc);
            /* Re-seal, then flip single bits: ciphertext (every byte up to
             * 64, then a spread), tag, AAD, sequence number. */
            tls13_aead_seal(&a, 7, aad, 5, buf, len, tag);
            ok &= T_QUIET("aead deterministic", len == 0 || buf[0] == ct_copy0, "len %zu", len);
            static uint8_t sealed[16384];
            memcpy(sealed, buf, len);
            for (size_t i = 0; i < len; i += (i < 64 ? 1 : 509)) {
                memcpy(buf, sealed, len);
                buf[i] ^= 0x01;
                ok &= T_QUIET("aead tampered ciphertext accepted", tls13_aead_open(&a, 7, aad, 5, buf, len, tag) != 0,
                              "%s len %zu byte %zu", suite_name(suite), len, i);
            }
            if (len > 0) {
                memcpy(buf, sealed, len);
                buf[len - 1] ^= 0x80;
                ok &= T_QUIET("aead tampered last byte accepted", tls13_aead_open(&a, 7, aad, 5, buf, len, tag) != 0,
                              "%s len %zu", suite_name(suite), len);
            }
            for (size_t i = 0; i < 16; i++) {
                memcpy(buf, sealed, len);
                tag[i] ^= 0x40;
                ok &= T_QUIET("aead tampered tag accepted", tls13_aead_open(&a, 7, aad, 5, buf, len, tag) != 0,
                              "%s len %zu tag byte %zu", suite_name(suite), len, i);
                tag[i] ^= 0x40;
            }
            for (size_t i = 0; i < 5; i++) {
                memcpy(buf, sealed, len);
                aad[i] ^= 0x02;
                ok &= T_QUIET("aead tampered aad accepted", tls13_aead_open(&a, 7, aad, 5, buf, len, tag) != 0,
                              "%s len %zu aad byte %zu", suite_name(suite), len, i);
                aad[i] ^= 0x02;
            }
            memcpy(buf, sealed, len);
            ok &= T_QUIET("aead wrong seq accepted", tls13_aead_open(&a, 8, aad, 5, buf, len, tag) != 0, "%s len %zu",
                          suite_name(suite), len);
            /* AAD length is authenticated too (4 of the same 5 bytes). */
            memcpy(buf, sealed, len);
            ok &= T_QUIET("aead shorter aad accepted", tls13_aead_open(&a, 7, aad, 4, buf, len, tag) != 0,
                          "%s len %zu", suite_name(suite), len);
            memcpy(buf, sealed, len);
            ok &= T_QUIET("aead untampered after all", tls13_aead_open(&a, 7, aad, 5, buf, len, tag) == 0 &&
                                                           memcmp(buf, plain, len) == 0,
                          "%s len %zu", suite_name(suite), len);
            snprintf(name, sizeof name, "%s len %zu: round trip, tamper (ct/tag/aad/seq) rejected",
                     suite_name(suite), len);
            T_CHECK(name, ok, "see above");
        }

        /* A failed open never leaves plaintext in buf: GCM keeps the
         * ciphertext (it authenticates before decrypting), ChaCha20 zeroes
         * it (BearSSL decrypts and MACs in one pass). */
        fill(plain, 64, 77);
        memcpy(buf, plain, 64);
        tls13_aead_seal(&a, 1, aad, 5, buf, 64, tag);
        memcpy(plain + 64, buf, 64); /* the ciphertext */
        tag[0] ^= 1;
        tls13_aead_open(&a, 1, aad, 5, buf, 64, tag);
        int no_plain = suite == TLS_CHACHA20_POLY1305_SHA256 ? (buf[0] | buf[31] | buf[63]) == 0
                                                             : memcmp(buf, plain + 64, 64) == 0;
        snprintf(name, sizeof name, "%s: failed open leaves no plaintext", suite_name(suite));
        T_CHECK(name, no_plain, "buf %02x..", buf[0]);

        /* The nonce: seq changes the output; and seq s under iv equals
         * seq 0 under iv XOR (0^4 || s) — RFC 8446 §5.3. */
        uint8_t c0[48], c1[48], t0[16], t1[16];
        fill(c0, 48, 5);
        memcpy(c1, c0, 48);
        tls13_aead_seal(&a, 0, aad, 5, c0, 48, t0);
        tls13_aead_seal(&a, 1, aad, 5, c1, 48, t1);
        snprintf(name, sizeof name, "%s: nonce changes with seq", suite_name(suite));
        T_CHECK(name, memcmp(c0, c1, 48) != 0 && memcmp(t0, t1, 16) != 0, "same output");
        uint64_t seq = 0x0123456789abcdefULL;
        uint8_t iv2[12];
        memcpy(iv2, iv, 12);
        for (int i = 0; i < 8; i++)
            iv2[4 + i] ^= (uint8_t)(seq >> (56 - 8 * i));
        struct tls13_aead b;
        tls13_aead_init(&b, suite, key, iv2);
        fill(c0, 48, 6);
        memcpy(c1, c0, 48);
        tls13_aead_seal(&a, seq, aad, 5, c0, 48, t0);
        tls13_aead_seal(&b, 0, aad, 5, c1, 48, t1);
        snprintf(name, sizeof name, "%s: nonce = iv XOR be64(seq)", suite_name(suite));
        T_CHECK(name, memcmp(c0, c1, 48) == 0 && memcmp(t0, t1, 16) == 0, "differs");

        /* A copied struct still works (the CTR context is addressed in
         * place, not through the stored pointer). */
        struct tls13_aead copy = a;
        tls13_aead_wipe(&a);
        fill(c0, 48, 6);
        tls13_aead_seal(&copy, seq, aad, 5, c0, 48, t1);
        snprintf(name, sizeof name, "%s: struct copy works after the original is wiped", suite_name(suite));
        T_CHECK(name, memcmp(t0, t1, 16) == 0, "differs");
        tls13_aead_wipe(&copy);
        tls13_aead_wipe(&b);
    }
}

/* ---- every implementation agrees ---- */

enum impl { IMPL_DEFAULT, IMPL_PORTABLE, IMPL_THIRD };

/* Re-points an initialised struct at another BearSSL implementation. */
static void force_impl(struct tls13_aead *a, enum impl which, const uint8_t *key, size_t key_len)
{
    static br_aes_big_ctr_keys big; /* lives outside the union: test only */
    if (which == IMPL_DEFAULT)
        return;
    if (a->suite == TLS_CHACHA20_POLY1305_SHA256) {
        a->chacha = br_chacha20_ct_run;
        a->poly = which == IMPL_PORTABLE ? br_poly1305_ctmul_run : br_poly1305_ctmul32_run;
        return;
    }
    if (which == IMPL_PORTABLE) {
        br_aes_ct64_ctr_init(&a->aes.ct64, key, key_len);
        a->ghash = br_ghash_ctmul64;
    } else {
        /* big AES does not fit the union; its keys are copied in (its
         * struct starts with the vtable too, and is no larger than the
         * x86ni one, which the test checks). */
        br_aes_big_ctr_init(&big, key, key_len);
        memcpy(&a->aes, &big, sizeof big);
        a->ghash = br_ghash_ctmul;
    }
}

static void test_aead_impls(void)
{
    static uint8_t plain[16384], out[3][16384], tags[4][16], ref[16384];
    uint8_t key[32], iv[12], aad[5];
    char name[160];

    T_CHECK("br_aes_big_ctr_keys fits the aes union", sizeof(br_aes_big_ctr_keys) <= sizeof(((struct tls13_aead *)0)->aes),
            "%zu > %zu", sizeof(br_aes_big_ctr_keys), sizeof(((struct tls13_aead *)0)->aes));
    printf("# default: AES %s, GHASH %s, ChaCha20 %s, Poly1305 %s\n",
           br_aes_x86ni_ctr_get_vtable() ? "x86ni" : "ct64", br_ghash_pclmul_get() ? "pclmul" : "ctmul64",
           br_chacha20_sse2_get() ? "sse2" : "ct", br_poly1305_ctmulq_get() ? "ctmulq" : "ctmul");

    for (size_t s = 0; s < 3; s++) {
        uint16_t suite = all_suites[s];
        size_t key_len = suite == TLS_AES_128_GCM_SHA256 ? 16 : 32;
        fill(key, sizeof key, (uint32_t)s + 11);
        fill(iv, sizeof iv, (uint32_t)s + 12);
        fill(aad, sizeof aad, (uint32_t)s + 13);
        for (size_t li = 0; li < sizeof rt_lens / sizeof rt_lens[0]; li++) {
            size_t len = rt_lens[li];
            int ok = 1;
            fill(plain, len, (uint32_t)(len * 3 + s));
            for (int w = 0; w < 3; w++) {
                struct tls13_aead a;
                tls13_aead_init(&a, suite, key, iv);
                force_impl(&a, (enum impl)w, key, key_len);
                memcpy(out[w], plain, len);
                tls13_aead_seal(&a, 42, aad, 5, out[w], len, tags[w]);
                memcpy(ref, out[w], len);
                ok &= T_QUIET("impl opens its own output", tls13_aead_open(&a, 42, aad, 5, ref, len, tags[w]) == 0 &&
                                                               memcmp(ref, plain, len) == 0,
                              "%s impl %d len %zu", suite_name(suite), w, len);
                tls13_aead_wipe(&a);
            }
            ok &= T_QUIET("impls agree", memcmp(out[0], out[1], len) == 0 && memcmp(out[0], out[2], len) == 0 &&
                                             memcmp(tags[0], tags[1], 16) == 0 && memcmp(tags[0], tags[2], 16) == 0,
                          "%s len %zu", suite_name(suite), len);
            if (suite != TLS_CHACHA20_POLY1305_SHA256) {
                /* BearSSL's own GCM over its big AES and ctmul GHASH. */
                br_aes_big_ctr_keys bk;
                br_gcm_context gc;
                uint8_t nonce[12];
                memcpy(nonce, iv, 12);
                nonce[11] ^= 42;
                br_aes_big_ctr_init(&bk, key, key_len);
                br_gcm_init(&gc, &bk.vtable, br_ghash_ctmul);
                br_gcm_reset(&gc, nonce, 12);
                br_gcm_aad_inject(&gc, aad, 5);
                br_gcm_flip(&gc);
                memcpy(ref, plain, len);
                br_gcm_run(&gc, 1, ref, len);
                br_gcm_get_tag(&gc, tags[3]);
                ok &= T_QUIET("br_gcm agrees", memcmp(ref, out[0], len) == 0 && memcmp(tags[3], tags[0], 16) == 0,
                              "%s len %zu", suite_name(suite), len);
            }
            snprintf(name, sizeof name, "%s len %zu: default, portable and third implementation agree%s",
                     suite_name(suite), len, suite != TLS_CHACHA20_POLY1305_SHA256 ? " (and br_gcm)" : "");
            T_CHECK(name, ok, "see above");
        }
    }
}

/* ---- X25519 (tls13/x25519.h) ---- */

#if X25519_FAST
static void x25519_kat(const char *name, const char *k_hex, const char *u_hex, const char *want)
{
    uint8_t k[32], u[32], out[32];
    unhex(k_hex, k, 32);
    unhex(u_hex, u, 32);
    x25519(out, k, u);
    check_hex(name, out, 32, want);
}

/* BearSSL's c25519_m31 on the same inputs (it clamps the scalar and masks
 * u's top bit as RFC 7748 says, like ours). */
static void x25519_ref(uint8_t out[32], const uint8_t k[32], const uint8_t u[32])
{
    memcpy(out, u, 32);
    br_ec_c25519_m31.mul(out, 32, k, 32, BR_EC_curve25519);
}

static void test_x25519(void)
{
    uint8_t k[32], u[32], out[32], ref[32], a[32], b[32], pa[32], pb[32];
    char name[96];
    int ok = 1;

    /* RFC 7748 §5.2. */
    x25519_kat("x25519 rfc7748 5.2 #1", "a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
               "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c",
               "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552");
    x25519_kat("x25519 rfc7748 5.2 #2", "4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
               "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493",
               "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957");
    /* §5.2 iterated: k = u = 9; then k, u = X25519(k, u), k. */
    memset(k, 0, 32);
    k[0] = 9;
    memcpy(u, k, 32);
    for (int i = 1; i <= 1000; i++) {
        x25519(out, k, u);
        memcpy(u, k, 32);
        memcpy(k, out, 32);
        if (i == 1)
            check_hex("x25519 rfc7748 5.2 after 1 iteration", k, 32,
                      "422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079");
    }
    check_hex("x25519 rfc7748 5.2 after 1000 iterations", k, 32,
              "684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51");

    /* §6.1: both public keys (x25519_base) and the shared secret both ways. */
    unhex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a", a, 32);
    unhex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb", b, 32);
    x25519_base(pa, a);
    x25519_base(pb, b);
    check_hex("x25519 rfc7748 6.1 Alice's public key", pa, 32,
              "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
    check_hex("x25519 rfc7748 6.1 Bob's public key", pb, 32,
              "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
    x25519(out, a, pb);
    check_hex("x25519 rfc7748 6.1 shared secret (Alice)", out, 32,
              "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");
    x25519(out, b, pa);
    check_hex("x25519 rfc7748 6.1 shared secret (Bob)", out, 32,
              "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");
    memcpy(out, pb, 32);
    x25519(out, a, out);
    check_hex("x25519 output may be the input point", out, 32,
              "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");

    /* Against BearSSL: u values at the edges of the field and of the
     * encoding (0, 1, p - 1, p, p + 1, 2^255 - 1, and the same with bit 255
     * set: masked), each with random scalars, then random u. */
    static const char *edges[] = {
        "0000000000000000000000000000000000000000000000000000000000000000",
        "0100000000000000000000000000000000000000000000000000000000000000",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", /* p - 1 */
        "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", /* p */
        "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", /* p + 1 */
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", /* 2^255 - 1 */
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "0000000000000000000000000000000000000000000000000000000000000080",
        "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "ffffffffffffffffffffffffffffffffffff0000000000000000000000000000", /* long carries */
        "0000000000000000000000000000000000000000ffffffffffffffffffffff7f",
    };
    for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++) {
        for (uint32_t i = 0; i < 8; i++) {
            unhex(edges[e], u, 32);
            fill(k, 32, 1000 + (uint32_t)e * 16 + i);
            if (i == 0)
                memset(k, 0xff, 32);
            if (i == 1)
                memset(k, 0, 32);
            x25519(out, k, u);
            x25519_ref(ref, k, u);
            ok &= T_QUIET("x25519 edge u agrees with br_ec_c25519_m31", memcmp(out, ref, 32) == 0, "u %s scalar %u",
                          edges[e], i);
        }
    }
    for (uint32_t i = 0; i < 2000; i++) {
        fill(k, 32, 5000 + i);
        fill(u, 32, 9000 + i);
        x25519(out, k, u);
        x25519_ref(ref, k, u);
        ok &= T_QUIET("x25519 agrees with br_ec_c25519_m31", memcmp(out, ref, 32) == 0, "case %u", i);
        x25519_base(out, k);
        br_ec_c25519_m31.mulgen(ref, k, 32, BR_EC_curve25519);
        ok &= T_QUIET("x25519_base agrees with br_ec_c25519_m31 mulgen", memcmp(out, ref, 32) == 0, "case %u", i);
    }
    snprintf(name, sizeof name, "x25519 and x25519_base agree with br_ec_c25519_m31 (%zu edge u x 8, 2000 random)",
             sizeof edges / sizeof edges[0]);
    T_CHECK(name, ok, "see above");
}
#else
static void test_x25519(void) { printf("# x25519.h: no 128-bit integers here, BearSSL's default is used\n"); }
#endif

/* ---- record layer rules ---- */

static int open_rec(struct tls13_record_dir *d, uint8_t *rec, size_t n, uint8_t *ct, size_t *len)
{
    uint8_t *pl;
    return tls13_record_open(d, rec, n, ct, &pl, len);
}

/* Builds a protected record with an arbitrary inner plaintext (content,
 * type, padding chosen by the caller) straight from the AEAD. */
static size_t craft(struct tls13_record_dir *d, const uint8_t *inner, size_t inner_len, uint8_t *out)
{
    size_t len = inner_len + 16;
    out[0] = 23;
    out[1] = 3;
    out[2] = 3;
    out[3] = (uint8_t)(len >> 8);
    out[4] = (uint8_t)len;
    memcpy(out + 5, inner, inner_len);
    tls13_aead_seal(&d->aead, d->seq, out, 5, out + 5, inner_len, out + 5 + inner_len);
    return 5 + len;
}

static void test_record_rules(void)
{
    static uint8_t rec[TLS13_RECORD_HDR + TLS13_MAX_CIPHERTEXT + 64], inner[TLS13_MAX_CIPHERTEXT + 64],
        plain[TLS13_MAX_PLAINTEXT + 8];
    uint8_t key[32], iv[12], ct;
    size_t n, len;
    int rc;
    char name[120];

    fill(key, 32, 1);
    fill(iv, 12, 2);

    for (size_t s = 0; s < 3; s++) {
        struct tls13_record_dir w, r;
        memset(&w, 0, sizeof w);
        memset(&r, 0, sizeof r);
        tls13_record_key(&w, all_suites[s], key, iv);
        tls13_record_key(&r, all_suites[s], key, iv);
        int ok = 1;
        static const size_t lens[] = {0, 1, 100, 16383, 16384};
        for (size_t i = 0; i < 5; i++) {
            fill(plain, lens[i], (uint32_t)i);
            n = tls13_record_seal(&w, TLS13_CT_APPLICATION_DATA, plain, lens[i], rec, sizeof rec);
            ok &= T_QUIET("record size", n == lens[i] + tls13_record_overhead() && rec[0] == 23 && rec[1] == 3 &&
                                             rec[2] == 3 && ((size_t)rec[3] << 8 | rec[4]) == n - 5,
                          "len %zu n %zu", lens[i], n);
            uint8_t *pl;
            rc = tls13_record_open(&r, rec, n, &ct, &pl, &len);
            ok &= T_QUIET("record round trip", rc == 0 && ct == 23 && len == lens[i] && memcmp(pl, plain, len) == 0,
                          "rc %d len %zu", rc, len);
        }
        ok &= T_QUIET("seq counts records", w.seq == 5 && r.seq == 5, "%llu %llu", (unsigned long long)w.seq,
                      (unsigned long long)r.seq);
        snprintf(name, sizeof name, "record %s: round trips 0..16384, seq per record", suite_name(all_suites[s]));
        T_CHECK(name, ok, "see above");
    }

    struct tls13_record_dir w, r;
    memset(&w, 0, sizeof w);
    memset(&r, 0, sizeof r);
    tls13_record_key(&w, TLS_AES_128_GCM_SHA256, key, iv);
    tls13_record_key(&r, TLS_AES_128_GCM_SHA256, key, iv);

    /* Seal limits. */
    T_CHECK("seal refuses 2^14+1 bytes", tls13_record_seal(&w, 23, plain, 16385, rec, sizeof rec) == 0 && w.seq == 0,
            "sealed");
    T_CHECK("seal refuses a short buffer",
            tls13_record_seal(&w, 23, plain, 10, rec, 10 + tls13_record_overhead() - 1) == 0 && w.seq == 0, "sealed");
    n = tls13_record_seal(&w, 23, plain, 10, rec, 10 + tls13_record_overhead());
    T_CHECK("seal fits an exact buffer", n == 10 + tls13_record_overhead() && w.seq == 1, "n %zu", n);
    rc = open_rec(&r, rec, n, &ct, &len);
    T_CHECK("  ... and opens", rc == 0 && len == 10, "rc %d", rc);

    /* Empty application data from a NULL pointer (§5.4 allows it). */
    n = tls13_record_seal(&w, 23, NULL, 0, rec, sizeof rec);
    rc = open_rec(&r, rec, n, &ct, &len);
    T_CHECK("empty application data record", n == tls13_record_overhead() && rc == 0 && ct == 23 && len == 0,
            "n %zu rc %d", n, rc);

    /* Sealing in place: content already at out + 5. */
    fill(plain, 300, 9);
    memcpy(rec + 5, plain, 300);
    n = tls13_record_seal(&w, 22, rec + 5, 300, rec, sizeof rec);
    uint8_t *pl;
    rc = tls13_record_open(&r, rec, n, &ct, &pl, &len);
    T_CHECK("seal in place", rc == 0 && ct == 22 && len == 300 && memcmp(pl, plain, 300) == 0, "rc %d", rc);

    /* Padding (§5.4): content || type || zeros, stripped on open. */
    memset(inner, 0, 400);
    fill(inner, 100, 3);
    inner[100] = 22;
    n = craft(&r, inner, 100 + 1 + 250, rec); /* r.seq is where the reader expects it */
    rc = tls13_record_open(&r, rec, n, &ct, &pl, &len);
    T_CHECK("padded record: padding stripped", rc == 0 && ct == 22 && len == 100 && memcmp(pl, inner, 100) == 0,
            "rc %d ct %u len %zu", rc, ct, len);
    /* Content itself ending in zeros: only bytes after the type go. */
    memset(inner, 0, 64);
    inner[0] = 0x41;
    inner[9] = 23; /* content 41 00*8, type 23, 5 bytes padding */
    n = craft(&r, inner, 15, rec);
    rc = tls13_record_open(&r, rec, n, &ct, &pl, &len);
    T_CHECK("padded record: content zeros kept", rc == 0 && ct == 23 && len == 9, "rc %d ct %u len %zu", rc, ct, len);
    /* Maximal padding: §5.4 "the full encoded TLSInnerPlaintext MUST NOT
     * exceed 2^14 + 1 octets", padding included; a record padded to §5.2's
     * 2^14+256 of ciphertext breaks it (it was accepted). */
    memset(inner, 0, sizeof inner);
    inner[0] = 'x';
    inner[1] = 23;
    n = craft(&r, inner, TLS13_MAX_PLAINTEXT + 1, rec);
    rc = tls13_record_open(&r, rec, n, &ct, &pl, &len);
    T_CHECK("padded record: TLSInnerPlaintext of 2^14+1 is fine", rc == 0 && ct == 23 && len == 1, "rc %d len %zu",
            rc, len);
    n = craft(&r, inner, TLS13_MAX_PLAINTEXT + 2, rec);
    T_CHECK("padded record: TLSInnerPlaintext of 2^14+2 is record_overflow (§5.4)",
            tls13_record_open(&r, rec, n, &ct, &pl, &len) == -22, "accepted");
    n = craft(&r, inner, TLS13_MAX_CIPHERTEXT - 16, rec);
    T_CHECK("padded record: ciphertext of 2^14+256 (TLSInnerPlaintext 2^14+240) is record_overflow (§5.4)",
            tls13_record_open(&r, rec, n, &ct, &pl, &len) == -22, "accepted");

    /* All-zero inner plaintext: no content type (§5.4). */
    memset(inner, 0, 64);
    n = craft(&r, inner, 20, rec);
    T_CHECK("all-zero inner plaintext is unexpected_message", open_rec(&r, rec, n, &ct, &len) == -10, "accepted");
    n = craft(&r, inner, 0, rec);
    T_CHECK("empty inner plaintext is unexpected_message", open_rec(&r, rec, n, &ct, &len) == -10, "accepted");
    /* Zero-length handshake / alert content (§5.4). */
    inner[0] = 22;
    n = craft(&r, inner, 1, rec);
    T_CHECK("empty handshake content is unexpected_message", open_rec(&r, rec, n, &ct, &len) == -10, "accepted");
    inner[0] = 23;
    n = craft(&r, inner, 1, rec);
    rc = open_rec(&r, rec, n, &ct, &len);
    T_CHECK("empty application data is fine", rc == 0 && ct == 23 && len == 0, "rc %d", rc);
    /* A protected change_cipher_spec (§5). */
    inner[0] = 1;
    inner[1] = 20;
    n = craft(&r, inner, 2, rec);
    T_CHECK("protected change_cipher_spec is unexpected_message", open_rec(&r, rec, n, &ct, &len) == -10,
            "accepted");
    inner[1] = 24; /* heartbeat: not a TLS 1.3 content type */
    n = craft(&r, inner, 2, rec);
    T_CHECK("protected unknown content type is unexpected_message", open_rec(&r, rec, n, &ct, &len) == -10,
            "accepted");

    /* Length limits. */
    memset(inner, 0, sizeof inner);
    inner[16385] = 23; /* 2^14 + 1 bytes of content */
    n = craft(&r, inner, 16386, rec);
    T_CHECK("content over 2^14 is record_overflow", open_rec(&r, rec, n, &ct, &len) == -22, "accepted");
    memset(rec, 0, sizeof rec);
    rec[0] = 23;
    rec[1] = rec[2] = 3;
    rec[3] = (uint8_t)((TLS13_MAX_CIPHERTEXT + 1) >> 8);
    rec[4] = (uint8_t)(TLS13_MAX_CIPHERTEXT + 1);
    uint64_t seq_before = r.seq;
    T_CHECK("ciphertext over 2^14+256 is record_overflow",
            open_rec(&r, rec, 5 + TLS13_MAX_CIPHERTEXT + 1, &ct, &len) == -22 && r.seq == seq_before, "accepted");
    rec[3] = 0;
    rec[4] = 15;
    T_CHECK("ciphertext shorter than a tag is bad_record_mac", open_rec(&r, rec, 5 + 15, &ct, &len) == -20,
            "accepted");
    T_CHECK("record length mismatch is decode_error", open_rec(&r, rec, 5 + 16, &ct, &len) == -50, "accepted");
    T_CHECK("truncated header is decode_error", open_rec(&r, rec, 4, &ct, &len) == -50, "accepted");

    /* Tag / header tampering: bad_record_mac, and seq does not move. */
    n = tls13_record_seal(&w, 23, plain, 50, rec, sizeof rec);
    seq_before = r.seq;
    r.seq = w.seq - 1;
    seq_before = r.seq;
    rec[n - 1] ^= 1;
    T_CHECK("tampered tag is bad_record_mac", open_rec(&r, rec, n, &ct, &len) == -20 && r.seq == seq_before,
            "accepted");
    n = tls13_record_seal(&w, 23, plain, 50, rec, sizeof rec);
    r.seq = w.seq - 1;
    rec[2] = 1; /* legacy_record_version is in the AAD */
    T_CHECK("tampered header version is bad_record_mac", open_rec(&r, rec, n, &ct, &len) == -20, "accepted");
    n = tls13_record_seal(&w, 23, plain, 50, rec, sizeof rec);
    r.seq = w.seq - 1;
    rec[0] = 22;
    T_CHECK("keyed: outer type handshake is unexpected_message", open_rec(&r, rec, n, &ct, &len) == -10, "accepted");

    /* change_cipher_spec passes in the clear (§5, D.4), consuming no seq. */
    uint64_t ws = w.seq;
    uint8_t one = 1;
    n = tls13_record_seal(&w, TLS13_CT_CHANGE_CIPHER_SPEC, &one, 1, rec, sizeof rec);
    T_CHECK("keyed: CCS sealed in the clear", n == 6 && memcmp(rec, "\x14\x03\x03\x00\x01\x01", 6) == 0 && w.seq == ws,
            "n %zu", n);
    seq_before = r.seq;
    rc = tls13_record_open(&r, rec, n, &ct, &pl, &len);
    T_CHECK("keyed: CCS opens as is", rc == 0 && ct == 20 && len == 1 && pl[0] == 1 && r.seq == seq_before, "rc %d",
            rc);
    rec[5] = 2;
    T_CHECK("CCS other than 0x01 is unexpected_message", open_rec(&r, rec, n, &ct, &len) == -10, "accepted");

    /* Sequence exhaustion (§5.3): no wrap. */
    w.seq = UINT64_MAX - 1;
    n = tls13_record_seal(&w, 23, plain, 10, rec, sizeof rec);
    T_CHECK("seal at seq 2^64-2 works", n > 0 && w.seq == UINT64_MAX, "n %zu", n);
    n = tls13_record_seal(&w, 23, plain, 10, rec, sizeof rec);
    T_CHECK("seal at seq 2^64-1 refuses (no wrap)", n == 0 && w.seq == UINT64_MAX, "n %zu seq %llu", n,
            (unsigned long long)w.seq);
    r.seq = UINT64_MAX - 1;
    w.seq = UINT64_MAX - 1;
    n = tls13_record_seal(&w, 23, plain, 10, rec, sizeof rec);
    rc = open_rec(&r, rec, n, &ct, &len);
    T_CHECK("open at seq 2^64-2 works", rc == 0 && r.seq == UINT64_MAX, "rc %d", rc);
    T_CHECK("open at seq 2^64-1 refuses (internal_error)", open_rec(&r, rec, n, &ct, &len) == -80, "accepted");

    /* Rekeying resets the sequence number (§5.3). */
    tls13_record_key(&w, TLS_AES_256_GCM_SHA384, key, iv);
    T_CHECK("rekey resets seq", w.seq == 0 && w.keyed, "seq %llu", (unsigned long long)w.seq);
    T_CHECK("rekey with an unknown suite fails", tls13_record_key(&w, 0x1305, key, iv) == -1 && !w.keyed, "keyed");

    /* Unkeyed: passthrough both ways. */
    struct tls13_record_dir u;
    memset(&u, 0, sizeof u);
    fill(plain, 100, 4);
    n = tls13_record_seal(&u, 22, plain, 100, rec, sizeof rec);
    T_CHECK("unkeyed seal: first record 0x0301", n == 105 && memcmp(rec, "\x16\x03\x01\x00\x64", 5) == 0 &&
                                                     memcmp(rec + 5, plain, 100) == 0,
            "n %zu", n);
    n = tls13_record_seal(&u, 21, plain, 2, rec, sizeof rec);
    T_CHECK("unkeyed seal: later records 0x0303", n == 7 && memcmp(rec, "\x15\x03\x03\x00\x02", 5) == 0, "n %zu", n);
    rc = tls13_record_open(&u, rec, n, &ct, &pl, &len);
    T_CHECK("unkeyed open: passthrough", rc == 0 && ct == 21 && pl == rec + 5 && len == 2, "rc %d", rc);
    rec[0] = 22;
    rec[3] = 0x40;
    rec[4] = 0x01;
    T_CHECK("unkeyed open: over 2^14 is record_overflow", open_rec(&u, rec, 5 + 16385, &ct, &len) == -22, "accepted");
    rec[3] = 0;
    rec[4] = 0;
    T_CHECK("unkeyed open: empty handshake is unexpected_message", open_rec(&u, rec, 5, &ct, &len) == -10,
            "accepted");
    rec[0] = 24;
    rec[4] = 1;
    T_CHECK("unkeyed open: unknown type is unexpected_message", open_rec(&u, rec, 6, &ct, &len) == -10, "accepted");
}

int main(void)
{
    test_basics();
    test_sha256_class();
    test_expand_label();
    test_trace_schedule();
    test_sha384_schedule();
    test_next_traffic_secret();
    test_trace_hrr();
    test_trace_records();
    test_quic_keys();
    test_aead_kat();
    test_aead_roundtrip();
    test_aead_impls();
    test_x25519();
    test_record_rules();
    T_DONE();
}
