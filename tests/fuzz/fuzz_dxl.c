/* libFuzzer target: the DYNAMIXEL 2.0 stream parser. Any byte stream, fed
 * in chunks whose sizes come from the input: packets that come out must
 * re-encode to a packet that parses back to the same content. */
#include "tycho/devproto.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static tycho_dxl_parser p;
    static tycho_dxl_packet out, again;
    tycho_dxl_parser_init(&p);
    size_t off = 0;
    while (off < size) {
        size_t chunk = 1 + data[off] % 64;
        if (chunk > size - off) chunk = size - off;
        size_t end = off + chunk;
        while (off < end) {
            bool got;
            off += tycho_dxl_feed(&p, data + off, end - off, &out, &got);
            if (!got) continue;
            if (out.n > sizeof out.params) abort();
            uint8_t buf[4096];
            uint8_t body[1100];
            size_t nb = 0;
            if (out.instruction == 0x55) body[nb++] = out.error;
            memcpy(body + nb, out.params, out.n);
            nb += out.n;
            size_t n = tycho_dxl_encode(out.id, out.instruction, body, nb, buf, sizeof buf);
            if (!n) continue;
            tycho_dxl_parser q;
            tycho_dxl_parser_init(&q);
            bool got2 = false;
            tycho_dxl_feed(&q, buf, n, &again, &got2);
            if (!got2 || again.n != out.n || memcmp(again.params, out.params, out.n) != 0) abort();
        }
    }
    return 0;
}
