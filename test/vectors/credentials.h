/* test/vectors/credentials.h — PEM certificates and keys for test/unit/unit_credentials.c,
 * made once with openssl 3 (test-only keys, valid for 100 years):
 *   a CA (P-256) and a P-256 leaf it signed (p256: PKCS#8, and the same key as SEC 1
 *   "EC PRIVATE KEY"); self-signed P-384 and RSA-2048 (PKCS#8, and the same key as
 *   PKCS#1 "RSA PRIVATE KEY"); an Ed25519 and a P-521 key; the P-256 key encrypted
 *   (openssl pkey -aes256). */
#ifndef SHB_TEST_VECTORS_CREDENTIALS_H
#define SHB_TEST_VECTORS_CREDENTIALS_H

static const char pem_ca_crt[] =
    "-----BEGIN CERTIFICATE-----\n"
    "MIIBfDCCASGgAwIBAgIUJRcLrU90Bl9ke/Wlte66bqv25i4wCgYIKoZIzj0EAwIw\n"
    "EjEQMA4GA1UEAwwHdW5pdCBDQTAgFw0yNjEyMDUyMjE0MTBaGA8yMTI2MTExMTIy\n"
    "MTQxMFowEjEQMA4GA1UEAwwHdW5pdCBDQTBZMBMGByqGSM49AgEGCCqGSM49AwEH\n"
    "A0IABMZTh/KNp2QhDmi5e6UpDysc0uBERWp0/b531Dx3uY5vzzVRNUoOmlt1CEkj\n"
    "epvaDkgDID/sLGvL6KuB4feEHyijUzBRMB0GA1UdDgQWBBTighVUMwaVGT5xx7z0\n"
    "Ihtqu6H/HzAfBgNVHSMEGDAWgBTighVUMwaVGT5xx7z0Ihtqu6H/HzAPBgNVHRMB\n"
    "Af8EBTADAQH/MAoGCCqGSM49BAMCA0kAMEYCIQD2yGhbC4fdy7cDJ2ma4feFKc1c\n"
    "IKN384CCu43tQnmYmwIhAKmjW2UGccw7bMOu5OKJsZlELt6cQEX1E7TplTE2sLPV\n"
    "-----END CERTIFICATE-----\n";

static const char pem_p256_crt[] =
    "-----BEGIN CERTIFICATE-----\n"
    "MIIBIjCByQIUDaTIbu6VRBZkrkpqwuLcxckoLpowCgYIKoZIzj0EAwIwEjEQMA4G\n"
    "A1UEAwwHdW5pdCBDQTAgFw0yNjEyMDUyMjE0MTBaGA8yMTI2MTExMTIyMTQxMFow\n"
    "FDESMBAGA1UEAwwJdW5pdCBwMjU2MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n"
    "eDpnb6eWtBs0PTvvJtNZm3+iGF4IiQQjTj60GN4/3bKlhkqMU2kMS31Ulv3NN3JL\n"
    "K+G/c67nFdXD+hbv+sbx1jAKBggqhkjOPQQDAgNIADBFAiAzN97kV9RzfLZWSZBT\n"
    "Bre4NfSiLIUhvMk01y9F2xrc4wIhALZ+rfcMdGZ7zn9rFJyWxMhsS0hz/ohMK5QY\n"
    "U5exIuJO\n"
    "-----END CERTIFICATE-----\n";

static const char pem_p256_key[] =
    "-----BEGIN PRIVATE KEY-----\n"
    "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgxvbuZjW4JktbXUAd\n"
    "gRS50lZuzuYdtabqy8ACfvbqWEShRANCAAR4Omdvp5a0GzQ9O+8m01mbf6IYXgiJ\n"
    "BCNOPrQY3j/dsqWGSoxTaQxLfVSW/c03cksr4b9zrucV1cP6Fu/6xvHW\n"
    "-----END PRIVATE KEY-----\n";

static const char pem_p256_sec1_key[] =
    "-----BEGIN EC PRIVATE KEY-----\n"
    "MHcCAQEEIMb27mY1uCZLW11AHYEUudJWbs7mHbWm6svAAn726lhEoAoGCCqGSM49\n"
    "AwEHoUQDQgAEeDpnb6eWtBs0PTvvJtNZm3+iGF4IiQQjTj60GN4/3bKlhkqMU2kM\n"
    "S31Ulv3NN3JLK+G/c67nFdXD+hbv+sbx1g==\n"
    "-----END EC PRIVATE KEY-----\n";

static const char pem_p384_crt[] =
    "-----BEGIN CERTIFICATE-----\n"
    "MIIBvTCCAUKgAwIBAgIUL5wO2e8SxibTzFTuVnDojemiZ3YwCgYIKoZIzj0EAwIw\n"
    "FDESMBAGA1UEAwwJdW5pdCBwMzg0MCAXDTI2MTIwNTIyMTQxMFoYDzIxMjYxMTEx\n"
    "MjIxNDEwWjAUMRIwEAYDVQQDDAl1bml0IHAzODQwdjAQBgcqhkjOPQIBBgUrgQQA\n"
    "IgNiAAQ7EuWDFKiy0/mchh6pA+h4car5xfyFW92dJGjlk3LGva43N6YxtXMWwrIJ\n"
    "DmARp0lVix3N6iXKPWJqsHX1AqtZJj6FuXM0D+II7Dir0HzrvjiH1nF4Y8baue8h\n"
    "rE7fqMSjUzBRMB0GA1UdDgQWBBTAAUvUBNAwsszQXRnexsR0UymXcjAfBgNVHSME\n"
    "GDAWgBTAAUvUBNAwsszQXRnexsR0UymXcjAPBgNVHRMBAf8EBTADAQH/MAoGCCqG\n"
    "SM49BAMCA2kAMGYCMQCV/wZuvPPexoB+nZH4kNs+MVUTafrkjqm/RLupBbtFd0Ii\n"
    "wdlkgh+amalRWtz7j1UCMQDCARNgAqhT6MkUGHLn/jW73/2IpdlMJ3zYwKh/KqkD\n"
    "v+8D/HuPC0e4nfB4YeqqV4k=\n"
    "-----END CERTIFICATE-----\n";

static const char pem_p384_key[] =
    "-----BEGIN PRIVATE KEY-----\n"
    "MIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDAzZ/al558ArAZ0rHvD\n"
    "IIOEb5JsUdwFglZCBjz+uUpbBaMb8s7HVlcT7K0kigZWHrKhZANiAAQ7EuWDFKiy\n"
    "0/mchh6pA+h4car5xfyFW92dJGjlk3LGva43N6YxtXMWwrIJDmARp0lVix3N6iXK\n"
    "PWJqsHX1AqtZJj6FuXM0D+II7Dir0HzrvjiH1nF4Y8baue8hrE7fqMQ=\n"
    "-----END PRIVATE KEY-----\n";

static const char pem_rsa_crt[] =
    "-----BEGIN CERTIFICATE-----\n"
    "MIIDCTCCAfGgAwIBAgIUK2hkhZhKdlnPnXyBYlVpgwKkOXAwDQYJKoZIhvcNAQEL\n"
    "BQAwEzERMA8GA1UEAwwIdW5pdCByc2EwIBcNMjYxMjA1MjIxNDExWhgPMjEyNjEx\n"
    "MTEyMjE0MTFaMBMxETAPBgNVBAMMCHVuaXQgcnNhMIIBIjANBgkqhkiG9w0BAQEF\n"
    "AAOCAQ8AMIIBCgKCAQEAvYHW5DgyYXURhf+InJ5TkBT2z1sMmmxgIUXsdLdTqhxE\n"
    "05PhNg/MZAffEswqz4aM2a9OrY6IxFZ/X7BHi7J6ka2kMLUsjEmo/9nVYpPsIbPw\n"
    "KjyiEHKGPaUEQzuLcsvE/R3o2eWQXFCn9qggAEXvsE/AaXSIo8aXi1C9u2tk5uX2\n"
    "FA7Jz76t1doqrVOYybj+eNk3lJesrp4dP4NUCsbcvn4bAScg67ItQ6Y6nxUX3Za6\n"
    "MICQlXkDCbPHmphSreXlfO+pr8t0kbxeXRb8RE8Xnd3Sok4wfg0vmVKef7ryDeiL\n"
    "vZN34QF2M9ZAZ+ZL1vhHVWnEKXOCQMRE1RhHs6ubyQIDAQABo1MwUTAdBgNVHQ4E\n"
    "FgQU2SAPf/ZbGJMYs5k2F5Z7/sQY4ZowHwYDVR0jBBgwFoAU2SAPf/ZbGJMYs5k2\n"
    "F5Z7/sQY4ZowDwYDVR0TAQH/BAUwAwEB/zANBgkqhkiG9w0BAQsFAAOCAQEAiZjf\n"
    "vMuw+7Ca9nesKj6NF+NGDzmr5/NwNN9tXk41bMTGBKnKsqqc2rvQAj7OOMzFDSrr\n"
    "mwFDAJVPWWGXg54NiU4c9c1RGKpayynqA4GTPH2E1FwhgC8tPWydUL7TCnJgsM3c\n"
    "sJLH3w7H1nynqRnpNdMhvai1m0Uv6PDPwe30luWzlrA01r1vSEDGP+hRXSgzpKLp\n"
    "u8chQ9KEpI0OT/ewj/wk5CAMfCTRlXynIbJfQdPpNg2jFkvwWN7OmTs/UrBGa2zh\n"
    "l61NHC6iWi4039FACWhOZIcRBdirJECqTgsN4+88aUevg0gYg5UJNMrWNGJ86rku\n"
    "Q1ffgmfZrSPUU+ez+A==\n"
    "-----END CERTIFICATE-----\n";

static const char pem_rsa_key[] =
    "-----BEGIN PRIVATE KEY-----\n"
    "MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQC9gdbkODJhdRGF\n"
    "/4icnlOQFPbPWwyabGAhRex0t1OqHETTk+E2D8xkB98SzCrPhozZr06tjojEVn9f\n"
    "sEeLsnqRraQwtSyMSaj/2dVik+whs/AqPKIQcoY9pQRDO4tyy8T9HejZ5ZBcUKf2\n"
    "qCAARe+wT8BpdIijxpeLUL27a2Tm5fYUDsnPvq3V2iqtU5jJuP542TeUl6yunh0/\n"
    "g1QKxty+fhsBJyDrsi1DpjqfFRfdlrowgJCVeQMJs8eamFKt5eV876mvy3SRvF5d\n"
    "FvxETxed3dKiTjB+DS+ZUp5/uvIN6Iu9k3fhAXYz1kBn5kvW+EdVacQpc4JAxETV\n"
    "GEezq5vJAgMBAAECggEASSxs5wOCBJqZERYZ0GvcFUrbADcGd0w4lDB1PJ4bKpiu\n"
    "xMmZkO/puohFjPMT5rzr/xQPe7mJOtKxbSfagGkCpeSX/Qy/7k10+ZHJsL4wU9Uw\n"
    "e4adB1/JUN06d6Fy13kyD5BwfE6FfvfP21CQxro6cmhhAfcy2ZZRpsQe9tLhi7v+\n"
    "tMd19ndNCihnXbfQbzEcGWVtTBUNq7Zi2c98EQcmXSFv9BvLEHIe9USjVOvL0ra5\n"
    "hMW1WTAWiR9qyA+TinK2FyW7L0PlV/dDDUhInhBYVwFh9mTts0IrzUxnsjGvUeKO\n"
    "KytIylj63c4yrl+FHW8OmU5z5BzjQfIAFY9yGI94pwKBgQDhJ73ni9ceFkK6+fid\n"
    "E21lNNPS2I3B6oKp0RvRGbARoWvOaCkSHY2MsOQkXqSZTuPfmB+Rc7GiToOl93yf\n"
    "F64cw2Nz7fKLGnZCadW//KbZMb0LYwSRAMAurOZpxm1mUtxKYaqTVkrbrdL5dfws\n"
    "XwMEHmRsI9SPBxK5TLZQjxxaUwKBgQDXd+kAWiM+N0OJMVFSEMAdvqLomfaWT9Q5\n"
    "1OkDMnLiRvhw3pNO3WL3IARorJ9oFr5DR4/ZccZUG+Ayo0/dlvldmpkzfHK5sAp1\n"
    "MP8qmmOqd4BshpqmMI3f0Bwih03Nu/g/57F5wxv/djm9IPvoWuMMNWBedyYtUgK9\n"
    "Ifq2BMDF8wKBgQDKMu2Jjn0OiQE+dxR8w6CfnfSIym9r8VWMeb0YaJBFFQkC4WnY\n"
    "2e9vpMANpWz+POnJuAzJi/O/hfEWUA57tUFolVOwHcWOhKIlfHQ4KQYR0WgrXK4S\n"
    "JnFwuVdnMIq4tLselV0hWgJ6DD2GSB3CH0VPIpgewYK3O6vl+u1TpWHZ/wKBgQCl\n"
    "5wj7oWuzct/IWbXQp18VR/ytdia8c7jn0nybXpPAkH6ogWgQ+DtEJl3ertOKVMCo\n"
    "kwg6l/TqPBBzTPWom59jqC6/ytmXCenzdAd0qS2GSr8SUM3wmkATDW0sVNveRhYO\n"
    "NnqbU1RSbZhlfGkZ7ikV9F9APSOjD5tWPzyIO76mawKBgAmVL4IvLGeH7PpJjExa\n"
    "6fr5eGCH+9p9pDyxHlQ3GOS7cslWjJ0raHyHEpq3ybcqrNDK/Qt5A9AM1yfoodq3\n"
    "QoY4M8ZDIGUX8uzG8VfsEFt74Se0YdIb2tBYazsCnw4+D2+8lSQsabbcWE/c/5Xp\n"
    "94kmKzQtV6blOkDO6kqYZ7Cl\n"
    "-----END PRIVATE KEY-----\n";

static const char pem_rsa_pkcs1_key[] =
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEpAIBAAKCAQEAvYHW5DgyYXURhf+InJ5TkBT2z1sMmmxgIUXsdLdTqhxE05Ph\n"
    "Ng/MZAffEswqz4aM2a9OrY6IxFZ/X7BHi7J6ka2kMLUsjEmo/9nVYpPsIbPwKjyi\n"
    "EHKGPaUEQzuLcsvE/R3o2eWQXFCn9qggAEXvsE/AaXSIo8aXi1C9u2tk5uX2FA7J\n"
    "z76t1doqrVOYybj+eNk3lJesrp4dP4NUCsbcvn4bAScg67ItQ6Y6nxUX3Za6MICQ\n"
    "lXkDCbPHmphSreXlfO+pr8t0kbxeXRb8RE8Xnd3Sok4wfg0vmVKef7ryDeiLvZN3\n"
    "4QF2M9ZAZ+ZL1vhHVWnEKXOCQMRE1RhHs6ubyQIDAQABAoIBAEksbOcDggSamREW\n"
    "GdBr3BVK2wA3BndMOJQwdTyeGyqYrsTJmZDv6bqIRYzzE+a86/8UD3u5iTrSsW0n\n"
    "2oBpAqXkl/0Mv+5NdPmRybC+MFPVMHuGnQdfyVDdOnehctd5Mg+QcHxOhX73z9tQ\n"
    "kMa6OnJoYQH3MtmWUabEHvbS4Yu7/rTHdfZ3TQooZ1230G8xHBllbUwVDau2YtnP\n"
    "fBEHJl0hb/QbyxByHvVEo1Try9K2uYTFtVkwFokfasgPk4pythcluy9D5Vf3Qw1I\n"
    "SJ4QWFcBYfZk7bNCK81MZ7Ixr1HijisrSMpY+t3OMq5fhR1vDplOc+Qc40HyABWP\n"
    "chiPeKcCgYEA4Se954vXHhZCuvn4nRNtZTTT0tiNweqCqdEb0RmwEaFrzmgpEh2N\n"
    "jLDkJF6kmU7j35gfkXOxok6Dpfd8nxeuHMNjc+3yixp2QmnVv/ym2TG9C2MEkQDA\n"
    "LqzmacZtZlLcSmGqk1ZK263S+XX8LF8DBB5kbCPUjwcSuUy2UI8cWlMCgYEA13fp\n"
    "AFojPjdDiTFRUhDAHb6i6Jn2lk/UOdTpAzJy4kb4cN6TTt1i9yAEaKyfaBa+Q0eP\n"
    "2XHGVBvgMqNP3Zb5XZqZM3xyubAKdTD/KppjqneAbIaapjCN39AcIodNzbv4P+ex\n"
    "ecMb/3Y5vSD76FrjDDVgXncmLVICvSH6tgTAxfMCgYEAyjLtiY59DokBPncUfMOg\n"
    "n530iMpva/FVjHm9GGiQRRUJAuFp2Nnvb6TADaVs/jzpybgMyYvzv4XxFlAOe7VB\n"
    "aJVTsB3FjoSiJXx0OCkGEdFoK1yuEiZxcLlXZzCKuLS7HpVdIVoCegw9hkgdwh9F\n"
    "TyKYHsGCtzur5frtU6Vh2f8CgYEApecI+6Frs3LfyFm10KdfFUf8rXYmvHO459J8\n"
    "m16TwJB+qIFoEPg7RCZd3q7TilTAqJMIOpf06jwQc0z1qJufY6guv8rZlwnp83QH\n"
    "dKkthkq/ElDN8JpAEw1tLFTb3kYWDjZ6m1NUUm2YZXxpGe4pFfRfQD0jow+bVj88\n"
    "iDu+pmsCgYAJlS+CLyxnh+z6SYxMWun6+Xhgh/vafaQ8sR5UNxjku3LJVoydK2h8\n"
    "hxKat8m3KqzQyv0LeQPQDNcn6KHat0KGODPGQyBlF/LsxvFX7BBbe+EntGHSG9rQ\n"
    "WGs7Ap8OPg9vvJUkLGm23FhP3P+V6feJJis0LVem5TpAzupKmGewpQ==\n"
    "-----END RSA PRIVATE KEY-----\n";

static const char pem_ed25519_key[] =
    "-----BEGIN PRIVATE KEY-----\n"
    "MC4CAQAwBQYDK2VwBCIEIJ6S1zedVzvklWUylAKS8IUaNakvtJyVBoZAVE5jWb9s\n"
    "-----END PRIVATE KEY-----\n";

static const char pem_p521_key[] =
    "-----BEGIN PRIVATE KEY-----\n"
    "MIHuAgEAMBAGByqGSM49AgEGBSuBBAAjBIHWMIHTAgEBBEIAQ7ROnaAbIEoMukog\n"
    "3bpekJw/tRUEmJ2ohO6BAQIfVAaJBwjb8vT9NxMJKs+IE2sQuRk5BLr8P1y5QSMv\n"
    "IF01wfWhgYkDgYYABAGGGWWymGwWx7TaSBYj6N/YQWmiuOXYy4xAXoY1OlqTpNGB\n"
    "4MzxiGgXha1d+sCSsFPZc+KzBba5eennkv/l4yiJSwC3ELoAW+fubR1xmmC8/9zU\n"
    "e7+s9JyVbLco/sIrDqDtMleomSI/xzqMLB67p1H84m1h9OFXFhYo4jx4CCNIL7k7\n"
    "tA==\n"
    "-----END PRIVATE KEY-----\n";

static const char pem_p256_enc_key[] =
    "-----BEGIN ENCRYPTED PRIVATE KEY-----\n"
    "MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAh318pM5g73VAICCAAw\n"
    "DAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEELmzWFJv++AEEl2FLcuJKkgEgZDt\n"
    "GUY6j7jjFt4ooaybmqZYsbhyydCnEuEiPQWWpno7I/h6NMwqHi7XOALU+YmElV0d\n"
    "6i0F3uqPtPcDKTlmBMPnxDKJF82GG/CBcOHRhIKNKvQKNw83TNi03Gg1UR5qfNPX\n"
    "LYfjbpR3/iLaratHyFicJnwx6MP7KShMSG0X1iiLIdxUjCXED8rCwdXCZcdow0M=\n"
    "-----END ENCRYPTED PRIVATE KEY-----\n";

#endif
