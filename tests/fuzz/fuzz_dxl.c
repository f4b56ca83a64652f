/* libFuzzer target: the DYNAMIXEL 2.0 stream parser. Any byte stream, fed
 * in chunks whose sizes come from the input (chunks.h): packets that come
 * out must re-encode to a packet that parses back to the same content. */
#include "chunks.h"
#include "tycho/devproto.h"

#include <stdlib.h>
#include <string.h>

static size_t take(void *parser, const uint8_t *p, size_t n)
{
    static tycho_dxl_packet out, again;
    bool got;
    size_t used = tycho_dxl_feed(parser, p, n, &out, &got);
    if (!got) return used;
    if (out.n > sizeof out.params) abort();
    uint8_t buf[4096];
    uint8_t body[1100];
    size_t nb = 0;
    if (out.instruction == 0x55) body[nb++] = out.error;
    memcpy(body + nb, out.params, out.n);
    nb += out.n;
    size_t len = tycho_dxl_encode(out.id, out.instruction, body, nb, buf, sizeof buf);
    if (!len) return used;
    tycho_dxl_parser q;
    tycho_dxl_parser_init(&q);
    bool got2 = false;
    tycho_dxl_feed(&q, buf, len, &again, &got2);
    if (!got2 || again.n != out.n || memcmp(again.params, out.params, out.n) != 0) abort();
    return used;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static tycho_dxl_parser p;
    tycho_dxl_parser_init(&p);
    fuzz_feed_in_chunks(data, size, 64, take, &p);
    return 0;
}
