/* Base64: the RFC 4648 test vectors both ways, every length of a byte
 * sequence round-tripped, and the decoder refusing what is not base64
 * (recorded samples must come back bit for bit or not at all). */
#include <string.h>

#include "check.h"
#include "tycho/base64.h"

static void rfc_vectors(void)
{
    static const char *const plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *const coded[] = {"",         "Zg==",     "Zm8=",    "Zm9v",
                                        "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (int i = 0; i < 7; i++) {
        char out[16];
        size_t n = tycho_base64_encode((const uint8_t *)plain[i], strlen(plain[i]), out);
        CHECK_MSG(n == strlen(coded[i]) && memcmp(out, coded[i], n) == 0, "encode \"%s\"",
                  plain[i]);
        uint8_t back[16];
        long m = tycho_base64_decode(coded[i], strlen(coded[i]), back);
        CHECK_MSG(m == (long)strlen(plain[i]) && memcmp(back, plain[i], (size_t)m) == 0,
                  "decode %s", coded[i]);
    }
}

static void round_trips(void)
{
    uint8_t data[300], back[300];
    char text[400];
    for (int i = 0; i < 300; i++) data[i] = (uint8_t)(i * 151 + 7);
    int bad = 0;
    for (size_t n = 0; n <= sizeof data; n++) {
        size_t k = tycho_base64_encode(data, n, text);
        if (k != tycho_base64_len(n)) bad++;
        long m = tycho_base64_decode(text, k, back);
        if (m != (long)n || memcmp(back, data, n) != 0) bad++;
        if (tycho_base64_max_decoded(k) < n) bad++;
    }
    CHECK_MSG(bad == 0, "%d round trips of 0..300 bytes failed", bad);
}

static void refused(void)
{
    static const char *const bad[] = {
        "Zg=", "Zg", "Z===", "Zm9v!A==", "Zg==Zg==", "Zm=v", "=AAA", "Zm9\n"};
    uint8_t out[16];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK_MSG(tycho_base64_decode(bad[i], strlen(bad[i]), out) == -1, "\"%s\" accepted",
                  bad[i]);
}

int main(void)
{
    rfc_vectors();
    round_trips();
    refused();
    return check_summary("test_base64");
}
