/* map_server maps: Nav2's loading semantics case by case, saving, round
 * trips, and malformed YAML with file:line messages. */
#include "check.h"
#include "tycho/mapio.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[256];

static const char *tmp_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", tmpdir, name);
    return buf;
}

static void write_file(const char *name, const char *text)
{
    char p[512];
    FILE *fp = fopen(tmp_path(p, sizeof p, name), "wb");
    if (!fp) abort();
    fputs(text, fp);
    fclose(fp);
}

/* One-row image of `n` pixels with `ch` channels. */
static tycho_image row_image(int n, int ch, const uint8_t *px)
{
    tycho_image img;
    tycho_image_init(&img, n, 1, ch, NULL);
    memcpy(img.pixels, px, (size_t)n * ch);
    return img;
}

static tycho_map_meta meta_with(tycho_map_mode mode, double occ, double fr, bool negate)
{
    tycho_map_meta m;
    tycho_map_meta_defaults(&m);
    m.mode = mode;
    m.occupied_thresh = occ;
    m.free_thresh = fr;
    m.negate = negate;
    return m;
}

/* Costs of a one-row gray image under meta. */
static void costs_of(const uint8_t *px, int n, int ch, const tycho_map_meta *m, uint8_t *out)
{
    tycho_image img = row_image(n, ch, px);
    tycho_err err = {0};
    tycho_grid *g = tycho_map_from_image(&img, m, &err);
    CHECK_MSG(g != NULL, "%s", err.msg);
    for (int i = 0; i < n; i++) out[i] = g ? tycho_grid_get(g, i, 0) : 0;
    tycho_grid_free(g);
    tycho_image_free(&img);
}

static void test_meta_defaults(void)
{
    tycho_map_meta m;
    tycho_map_meta_defaults(&m);
    CHECK(m.mode == TYCHO_MAP_TRINARY && !m.negate);
    CHECK_NEAR(m.occupied_thresh, 0.65, 0);
    CHECK_NEAR(m.free_thresh, 0.25, 0);
}

static void test_trinary_thresholds(void)
{
    uint8_t c[8];
    /* defaults 0.65 / 0.25: occ = 1 - v/255. occupied iff v <= 89 (occ .651),
     * v = 90 gives .647; free iff v >= 192 (occ .247), v = 191 gives .251 */
    tycho_map_meta m = meta_with(TYCHO_MAP_TRINARY, 0.65, 0.25, false);
    uint8_t px[6] = {89, 90, 191, 192, 0, 255};
    costs_of(px, 6, 1, &m, c);
    CHECK(c[0] == 254 && c[1] == 255 && c[2] == 255 && c[3] == 0 && c[4] == 254 && c[5] == 0);

    /* exactly at a threshold: 0.6 = 1 - 102/255, 0.2 = 1 - 204/255. Nav2
     * compares strictly, so the pixel at the threshold is unknown. */
    m = meta_with(TYCHO_MAP_TRINARY, 0.6, 0.2, false);
    uint8_t at[6] = {101, 102, 103, 203, 204, 205};
    costs_of(at, 6, 1, &m, c);
    CHECK(c[0] == 254); /* just above occupied_thresh */
    CHECK(c[1] == 255); /* exactly at */
    CHECK(c[2] == 255); /* just below */
    CHECK(c[3] == 255); /* just above free_thresh */
    CHECK(c[4] == 255); /* exactly at */
    CHECK(c[5] == 0);   /* just below */

    /* the map_saver trio under the thresholds we write (0.65 / 0.196) */
    m = meta_with(TYCHO_MAP_TRINARY, 0.65, 0.196, false);
    uint8_t saver[3] = {0, 205, 254};
    costs_of(saver, 3, 1, &m, c);
    CHECK(c[0] == 254 && c[1] == 255 && c[2] == 0);
    /* ...and Nav2's default 0.25 turns the unknown gray into free */
    m = meta_with(TYCHO_MAP_TRINARY, 0.65, 0.25, false);
    costs_of(saver, 3, 1, &m, c);
    CHECK(c[1] == 0);
}

static void test_negate(void)
{
    uint8_t c[4];
    tycho_map_meta m = meta_with(TYCHO_MAP_TRINARY, 0.65, 0.25, true);
    uint8_t px[4] = {0, 255, 128, 200}; /* occ = v/255 */
    costs_of(px, 4, 1, &m, c);
    CHECK(c[0] == 0 && c[1] == 254 && c[2] == 255 && c[3] == 254);
    /* scale mode: negate flips the gradient too */
    m = meta_with(TYCHO_MAP_SCALE, 0.6, 0.2, true);
    uint8_t mid[1] = {102}; /* occ .4 -> occupancy 50 -> cost 127 */
    costs_of(mid, 1, 1, &m, c);
    CHECK(c[0] == 127);
}

static void test_scale(void)
{
    uint8_t c[8];
    tycho_map_meta m = meta_with(TYCHO_MAP_SCALE, 0.6, 0.2, false);
    /* 101: above occ -> 254; 102 at occ -> rint(100) -> 254; 103: occupancy
     * rint(99.02) = 99 -> 251; 153: occ .4 -> 50 -> 127; 203: 0.98 -> 1 -> 2;
     * 204 at free -> 0; 205 below free -> 0 */
    uint8_t px[7] = {101, 102, 103, 153, 203, 204, 205};
    costs_of(px, 7, 1, &m, c);
    CHECK(c[0] == 254 && c[1] == 254 && c[2] == 251 && c[3] == 127);
    CHECK(c[4] == 2 && c[5] == 0 && c[6] == 0);
    /* every intermediate cost is monotone in darkness */
    uint8_t ramp[256], rc[256];
    for (int i = 0; i < 256; i++) ramp[i] = (uint8_t)i;
    costs_of(ramp, 256, 1, &m, rc);
    int mono = 1;
    for (int i = 1; i < 256; i++) mono &= rc[i] <= rc[i - 1];
    CHECK(mono);
    CHECK(rc[0] == 254 && rc[255] == 0);

    /* alpha < 255 -> unknown in scale mode, alpha ignored for the shade */
    uint8_t ga[8] = {153, 255, 153, 254, 0, 0, 255, 255};
    costs_of(ga, 4, 2, &m, c);
    CHECK(c[0] == 127 && c[1] == 255 && c[2] == 255 && c[3] == 0);
}

static void test_alpha_trinary_and_rgb(void)
{
    uint8_t c[8];
    tycho_map_meta m = meta_with(TYCHO_MAP_TRINARY, 0.65, 0.25, false);
    /* Nav2 averages alpha in as a 4th channel in trinary mode:
     * (0,a255): shade .25, occ .75 -> occupied; (0,a0): occupied;
     * (255,a0): shade .75, occ .25 exactly -> unknown; (205,a255): occ .147
     * -> free; (254,a255) free */
    uint8_t ga[10] = {0, 255, 0, 0, 255, 0, 205, 255, 254, 255};
    costs_of(ga, 5, 2, &m, c);
    CHECK(c[0] == 254 && c[1] == 254 && c[2] == 255 && c[3] == 0 && c[4] == 0);

    /* RGB: shade is the channel mean. (255,0,0) mean 85, occ .667 ->
     * occupied; (255,255,0) mean 170 -> unknown; (255,255,192) mean 234 ->
     * free; (89,89,90) mean 89.33 -> occ .6497 -> unknown; (89,89,89) ->
     * occupied */
    uint8_t rgb[15] = {255, 0, 0, 255, 255, 0, 255, 255, 192, 89, 89, 90, 89, 89, 89};
    costs_of(rgb, 5, 3, &m, c);
    CHECK(c[0] == 254 && c[1] == 255 && c[2] == 0 && c[3] == 255 && c[4] == 254);
    /* RGBA in trinary: alpha joins the mean */
    uint8_t rgba[8] = {0, 0, 0, 255, 255, 255, 255, 0};
    costs_of(rgba, 2, 4, &m, c);
    CHECK(c[0] == 254); /* shade .25 */
    CHECK(c[1] == 255); /* shade .75, occ .25: at the free threshold */
}

static void test_raw(void)
{
    uint8_t c[8];
    tycho_map_meta m = meta_with(TYCHO_MAP_RAW, 0.65, 0.25, true); /* negate ignored */
    uint8_t px[8] = {0, 1, 50, 99, 100, 101, 205, 255};
    costs_of(px, 8, 1, &m, c);
    CHECK(c[0] == 0 && c[1] == 2 && c[2] == 127 && c[3] == 251);
    CHECK(c[4] == 254 && c[5] == 255 && c[6] == 255 && c[7] == 255);
    /* RGB mean, rounded */
    uint8_t rgb[3] = {50, 51, 51}; /* 50.67 -> 51 -> 129 */
    costs_of(rgb, 1, 3, &m, c);
    CHECK(c[0] == 129);
}

static void test_flip_and_origin(void)
{
    /* 2x3 image: top row dark. Grid row 0 is the bottom. */
    tycho_image img;
    tycho_image_init(&img, 2, 3, 1, NULL);
    uint8_t px[6] = {0, 0, 255, 255, 255, 0};
    memcpy(img.pixels, px, 6);
    tycho_map_meta m;
    tycho_map_meta_defaults(&m);
    m.resolution = 0.5;
    m.origin.x = 1.5;
    m.origin.y = -2.0;
    m.origin.yaw = M_PI / 2;
    tycho_grid *g = tycho_map_from_image(&img, &m, NULL);
    CHECK(tycho_grid_get(g, 0, 2) == 254 && tycho_grid_get(g, 1, 2) == 254);
    CHECK(tycho_grid_get(g, 0, 1) == 0);
    CHECK(tycho_grid_get(g, 1, 0) == 254 && tycho_grid_get(g, 0, 0) == 0);
    tycho_pose2 o = tycho_grid_origin(g);
    CHECK(o.x == 1.5 && o.y == -2.0 && o.yaw == M_PI / 2);
    double x, y;
    tycho_grid_cell_to_world(g, 1, 0, &x, &y); /* map +x is world +y */
    CHECK_NEAR(x, 1.5 - 0.25, 1e-12);
    CHECK_NEAR(y, -2.0 + 0.75, 1e-12);
    tycho_grid_free(g);
    tycho_err err;
    m.resolution = 0;
    CHECK(tycho_map_from_image(&img, &m, &err) == NULL && err.code == TYCHO_EINVAL);
    tycho_image_free(&img);
}

/* --- YAML ---------------------------------------------------------------- */
static const char *GOOD = "image: tiny.pgm\nresolution: 0.1\norigin: [-0.4, -0.3, 0.0]\nnegate: 0\n"
                          "occupied_thresh: 0.65\nfree_thresh: 0.196\n";

static void yaml_fails(const char *text, const char *want)
{
    tycho_map_meta m;
    tycho_err err = {0};
    tycho_status st = tycho_map_parse_yaml_mem(text, strlen(text), "maps/x.yaml", &m, &err);
    CHECK_MSG(st == TYCHO_EPARSE, "expected a parse error for: %s", want);
    CHECK_MSG(strstr(err.msg, want) != NULL, "'%s' not in '%s'", want, err.msg);
}

static void test_yaml_parse(void)
{
    tycho_map_meta m;
    tycho_err err = {0};
    CHECK(tycho_map_parse_yaml_mem(GOOD, strlen(GOOD), "maps/x.yaml", &m, &err) == TYCHO_OK);
    CHECK(!strcmp(m.image, "maps/tiny.pgm"));
    CHECK(m.resolution == 0.1 && m.origin.x == -0.4 && m.origin.y == -0.3 && m.origin.yaw == 0);
    CHECK(!m.negate && m.mode == TYCHO_MAP_TRINARY && m.free_thresh == 0.196);

    const char *flow = "{image: /abs/m.png, resolution: 5e-2, origin: [1, 2, 0.5], negate: true,"
                       " occupied_thresh: 0.9, free_thresh: 0.1, mode: Scale, extra: [1, 2]}";
    CHECK(tycho_map_parse_yaml_mem(flow, strlen(flow), "x.yaml", &m, &err) == TYCHO_OK);
    CHECK(!strcmp(m.image, "/abs/m.png") && m.resolution == 0.05 && m.negate);
    CHECK(m.origin.yaw == 0.5 && m.mode == TYCHO_MAP_SCALE && m.occupied_thresh == 0.9);
    const char *raw = "image: \"my map.pgm\"\nresolution: 1\norigin: [0,0,0]\nnegate: 1\n"
                      "occupied_thresh: 1\nfree_thresh: 0\nmode: raw\n";
    CHECK(tycho_map_parse_yaml_mem(raw, strlen(raw), "x.yaml", &m, &err) == TYCHO_OK);
    CHECK(!strcmp(m.image, "my map.pgm") && m.negate && m.mode == TYCHO_MAP_RAW);

    yaml_fails("", "maps/x.yaml: empty YAML document");
    yaml_fails("- image\n- resolution\n", "maps/x.yaml:1: expected a mapping");
    yaml_fails("image: tiny.pgm\nresolution: [0.05,\n", "maps/x.yaml:3: YAML error");
    yaml_fails("image: tiny.pgm\n  resolution: 0.1\n", "maps/x.yaml:2: YAML error");
    yaml_fails("image: 'unterminated\n", "maps/x.yaml:");
    yaml_fails("image: a\n\tresolution: 1\n", "YAML error");
    char buf[512];
    snprintf(buf, sizeof buf,
             "image: tiny.pgm\nresolution: [0.1]\norigin: [0, 0, 0]\nnegate: 0\n"
             "occupied_thresh: 0.65\nfree_thresh: 0.196\n");
    yaml_fails(buf, "maps/x.yaml:2: resolution must be a number, not a list");
    yaml_fails("image: tiny.pgm\norigin: [0, 0, 0]\nnegate: 0\noccupied_thresh: 0.65\n"
               "free_thresh: 0.196\n",
               "maps/x.yaml: missing required key 'resolution'");
    yaml_fails("image: tiny.pgm\nresolution: 0.1\norigin: [0, 0, 0]\noccupied_thresh: 0.65\n"
               "free_thresh: 0.196\n",
               "missing required key 'negate'");
    yaml_fails("resolution: 0.1\norigin: [0, 0, 0]\nnegate: 0\noccupied_thresh: 0.65\n"
               "free_thresh: 0.196\n",
               "missing required key 'image'");
    yaml_fails("image: a.pgm\nresolution: 0.1\norigin: [0, 0, 0]\nnegate: 0\n"
               "occupied_thresh: 0.65\n",
               "missing required key 'free_thresh'");
    static const char *const tail = "origin: [0, 0, 0]\nnegate: 0\noccupied_thresh: 0.65\n"
                                    "free_thresh: 0.196\n";
    struct {
        const char *head, *want;
    } cases[] = {
        {"image: a.pgm\nresolution: 0\n", "maps/x.yaml:2: resolution must be > 0"},
        {"image: a.pgm\nresolution: -0.05\n", "maps/x.yaml:2: resolution must be > 0"},
        {"image: a.pgm\nresolution: nan\n",
         "maps/x.yaml:2: resolution must be a number (got 'nan')"},
        {"image: a.pgm\nresolution: .nan\n", "maps/x.yaml:2: resolution must be a number"},
        {"image: a.pgm\nresolution: 1e999\n", "resolution must be a finite number"},
        {"image: a.pgm\nresolution: 0x10\n", "resolution must be a number (got '0x10')"},
        {"image: a.pgm\nresolution: 5cm\n", "resolution must be a number (got '5cm')"},
        {"image: a.pgm\nresolution: ''\n", "resolution must be a number"},
        {"image: a.pgm\nresolution: {a: 1}\n", "resolution must be a number, not a mapping"},
        {"image: ''\nresolution: 1\n", "maps/x.yaml:1: image must not be empty"},
        {"image: [a.pgm]\nresolution: 1\n", "maps/x.yaml:1: image must be a file name, not a list"},
        {"image: a.pgm\nresolution: 1\nresolution: 2\n",
         "maps/x.yaml:3: duplicate key 'resolution' (first on line 2)"},
        {"image: a.pgm\nresolution: 1\nmode: foo\n",
         "maps/x.yaml:3: unknown mode 'foo' (trinary, scale, raw)"},
        {"image: a.pgm\nresolution: 1\nmode: [trinary]\n", "mode must be trinary, scale or raw"},
        {"image: a.pgm\nresolution: 1\nnegate: maybe\n",
         "maps/x.yaml:3: negate must be 0, 1, true or false (got 'maybe')"},
        {"image: \"a\\0b.pgm\"\nresolution: 1\n", "image contains a NUL character"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(buf, sizeof buf, "%s%s", cases[i].head, tail);
        yaml_fails(buf, cases[i].want);
    }
    static const char *const head = "image: a.pgm\nresolution: 0.1\n";
    struct {
        const char *rest, *want;
    } c2[] = {
        {"origin: [0, 0]\nnegate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.2\n",
         "maps/x.yaml:3: origin must have 3 elements [x, y, yaw] (got 2)"},
        {"origin: 0\nnegate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.2\n",
         "maps/x.yaml:3: origin must be a list [x, y, yaw], not a scalar"},
        {"origin: [0, a, 0]\nnegate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.2\n",
         "origin y must be a number (got 'a')"},
        {"origin: [0, [1], 0]\nnegate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.2\n",
         "origin y must be a number, not a list"},
        {"origin: [0, 0, inf]\nnegate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.2\n",
         "origin yaw must be a number (got 'inf')"},
        {"origin: [0, 0, 0]\nnegate: 0\noccupied_thresh: 1.5\nfree_thresh: 0.2\n",
         "maps/x.yaml:5: occupied_thresh must be in [0, 1] (got 1.5)"},
        {"origin: [0, 0, 0]\nnegate: 0\noccupied_thresh: 0.6\nfree_thresh: -0.1\n",
         "free_thresh must be in [0, 1]"},
        {"origin: [0, 0, 0]\nnegate: 0\noccupied_thresh: 0.3\nfree_thresh: 0.3\n",
         "maps/x.yaml:6: free_thresh (0.3) must be below occupied_thresh (0.3)"},
    };
    for (size_t i = 0; i < sizeof c2 / sizeof *c2; i++) {
        snprintf(buf, sizeof buf, "%s%s", head, c2[i].rest);
        yaml_fails(buf, c2[i].want);
    }
    /* a truncated copy of a good file never crashes and never succeeds
     * unless complete */
    size_t len = strlen(GOOD);
    int ok = 0;
    for (size_t cut = 0; cut < len; cut++) {
        tycho_status st = tycho_map_parse_yaml_mem(GOOD, cut, "cut.yaml", &m, &err);
        if (st == TYCHO_OK) ok++;
        else CHECK_MSG(strstr(err.msg, "cut.yaml") != NULL, "%s", err.msg);
    }
    /* only cuts inside the last value ("0", "0.", ..., "0.196") parse */
    CHECK(ok <= 5);
    CHECK(tycho_map_parse_yaml("/nonexistent/x.yaml", &m, &err) == TYCHO_EIO);
    CHECK(strstr(err.msg, "/nonexistent/x.yaml: cannot open") != NULL);
}

/* --- load from files: paths, formats ------------------------------------- */
static void test_load_paths(void)
{
    char p[512], q[1024];
    tycho_err err = {0};
    tycho_map_meta m;
    tycho_grid *ref =
        tycho_map_load(source_path(p, sizeof p, "tests/data/maps/tiny.yaml"), &m, &err);
    CHECK_MSG(ref != NULL, "%s", err.msg);
    if (!ref) return;
    CHECK(tycho_grid_width(ref) == 8 && tycho_grid_height(ref) == 6);
    CHECK(strstr(m.image, "tests/data/maps/tiny.pgm") != NULL);
    /* border walls, unknown block at image rows 1..2 = grid rows 3..4, gray
     * 128 at image (2,3) = grid (2,2) -> unknown */
    CHECK(tycho_grid_get(ref, 0, 0) == 254 && tycho_grid_get(ref, 7, 5) == 254);
    CHECK(tycho_grid_get(ref, 1, 1) == 0 && tycho_grid_get(ref, 4, 4) == 255 &&
          tycho_grid_get(ref, 5, 3) == 255 && tycho_grid_get(ref, 2, 2) == 255);
    tycho_grid_stats s;
    tycho_grid_stats_compute(ref, &s);
    CHECK(s.lethal == 24 && s.unknown == 5 && s.free == 19);
    tycho_pose2 o = tycho_grid_origin(ref);
    CHECK(o.x == -0.4 && o.y == -0.3 && tycho_grid_resolution(ref) == 0.1);

    /* P2 with maxval 1000 and 16-bit P5 give the same cells */
    const char *same[] = {"tests/data/maps/tiny_p2.yaml"};
    tycho_grid *g = tycho_map_load(source_path(p, sizeof p, same[0]), NULL, &err);
    CHECK_MSG(g && !memcmp(tycho_grid_cells(g), tycho_grid_cells(ref), 48), "%s", err.msg);
    tycho_grid_free(g);
    tycho_image img;
    CHECK(tycho_image_load(source_path(p, sizeof p, "tests/data/maps/tiny16.pgm"), &img, &err) ==
          TYCHO_OK);
    g = tycho_map_from_image(&img, &m, &err);
    CHECK(img.channels == 1 && g && !memcmp(tycho_grid_cells(g), tycho_grid_cells(ref), 48));
    tycho_grid_free(g);
    tycho_image_free(&img);

    /* scale mode RGBA map: gradient and a transparent cell */
    g = tycho_map_load(source_path(p, sizeof p, "tests/data/maps/scale_rgba.yaml"), &m, &err);
    CHECK_MSG(g != NULL, "%s", err.msg);
    if (g) {
        CHECK(m.mode == TYCHO_MAP_SCALE && m.origin.yaw == 0.5);
        uint8_t want[8] = {254, 254, 254, 208, 116, 27, 0, 0};
        int bad = 0;
        for (int x = 0; x < 8; x++) bad += tycho_grid_get(g, x, 0) != want[x];
        CHECK(bad == 0);
        CHECK(tycho_grid_get(g, 3, 1) == 255 && tycho_grid_get(g, 3, 2) == 208);
        tycho_grid_free(g);
    }
    g = tycho_map_load(source_path(p, sizeof p, "tests/data/maps/raw.yaml"), &m, &err);
    CHECK_MSG(g != NULL, "%s", err.msg);
    if (g) {
        uint8_t top[4] = {0, 127, 254, 255}, bottom[4] = {25, 50, 76, 101};
        int bad = 0;
        for (int x = 0; x < 4; x++)
            bad += tycho_grid_get(g, x, 1) != top[x] || tycho_grid_get(g, x, 0) != bottom[x];
        CHECK(bad == 0);
        tycho_grid_free(g);
    }

    /* relative image in a subfolder, absolute image, YAML opened through a
     * relative path from another working directory */
    char sub[512];
    mkdir(tmp_path(sub, sizeof sub, "img"), 0755);
    snprintf(q, sizeof q, "cp %s %s/img/t.pgm",
             source_path(p, sizeof p, "tests/data/maps/tiny.pgm"), tmpdir);
    CHECK(system(q) == 0);
    write_file("rel.yaml", "image: img/t.pgm\nresolution: 0.1\norigin: [-0.4, -0.3, 0]\n"
                           "negate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.196\n");
    snprintf(q, sizeof q,
             "image: %s/img/t.pgm\nresolution: 0.1\norigin: [-0.4, -0.3, 0]\n"
             "negate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.196\n",
             tmpdir);
    write_file("img/abs.yaml", q);
    g = tycho_map_load(tmp_path(p, sizeof p, "rel.yaml"), NULL, &err);
    CHECK_MSG(g && !memcmp(tycho_grid_cells(g), tycho_grid_cells(ref), 48), "%s", err.msg);
    tycho_grid_free(g);
    g = tycho_map_load(tmp_path(p, sizeof p, "img/abs.yaml"), NULL, &err);
    CHECK_MSG(g && !memcmp(tycho_grid_cells(g), tycho_grid_cells(ref), 48), "%s", err.msg);
    tycho_grid_free(g);
    char cwd[PATH_MAX];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CHECK(chdir(tmpdir) == 0);
    g = tycho_map_load("rel.yaml", &m, &err);
    CHECK_MSG(g != NULL, "%s", err.msg);
    CHECK(!strcmp(m.image, "img/t.pgm"));
    tycho_grid_free(g);
    write_file("missing.yaml", "image: maze.pgm\nresolution: 0.1\norigin: [0, 0, 0]\n"
                               "negate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.196\n");
    CHECK(tycho_map_load("missing.yaml", NULL, &err) == NULL);
    char want[PATH_MAX + 100];
    char real[PATH_MAX];
    CHECK(realpath(tmpdir, real) != NULL);
    snprintf(want, sizeof want, "missing.yaml: image 'maze.pgm' not found (looked in %s)", real);
    CHECK_MSG(!strcmp(err.msg, want), "'%s' vs '%s'", err.msg, want);
    CHECK(chdir(cwd) == 0);
    /* a broken image names the image file */
    write_file("broken.pgm", "P5\n8 6\n255\nabc");
    write_file("broken.yaml", "image: broken.pgm\nresolution: 0.1\norigin: [0, 0, 0]\n"
                              "negate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.196\n");
    CHECK(tycho_map_load(tmp_path(p, sizeof p, "broken.yaml"), NULL, &err) == NULL);
    CHECK_MSG(strstr(err.msg, "broken.pgm: truncated PGM data") != NULL, "%s", err.msg);
    tycho_grid_free(ref);
}

/* --- saving --------------------------------------------------------------- */
static void test_save_round_trip(void)
{
    char p[512];
    tycho_err err = {0};
    tycho_pose2 o = {-3.25, 7.1, 0.3};
    tycho_grid *g = tycho_grid_new(37, 23, 0.05, o, 0, &err);
    unsigned seed = 12345;
    uint8_t *cells = tycho_grid_cells(g);
    static const uint8_t vals[3] = {0, 254, 255};
    for (int i = 0; i < 37 * 23; i++) {
        seed = seed * 1103515245u + 12345u;
        cells[i] = vals[(seed >> 16) % 3];
    }
    const char *exts[2] = {NULL, "png"};
    for (int k = 0; k < 2; k++) {
        CHECK(tycho_map_save(g, tmp_path(p, sizeof p, "rt.yaml"), exts[k], &err) == TYCHO_OK);
        tycho_map_meta m;
        tycho_grid *b = tycho_map_load(p, &m, &err);
        CHECK_MSG(b != NULL, "%s", err.msg);
        if (!b) continue;
        CHECK(tycho_grid_width(b) == 37 && tycho_grid_height(b) == 23);
        CHECK(!memcmp(tycho_grid_cells(b), cells, 37 * 23));
        tycho_pose2 bo = tycho_grid_origin(b);
        CHECK(bo.x == o.x && bo.y == o.y && bo.yaw == o.yaw); /* exact */
        CHECK(tycho_grid_resolution(b) == 0.05);
        CHECK(m.mode == TYCHO_MAP_TRINARY && !m.negate);
        CHECK(strstr(m.image, k ? "rt.png" : "rt.pgm") != NULL);
        tycho_grid_free(b);
    }
    /* the YAML text itself */
    FILE *fp = fopen(tmp_path(p, sizeof p, "rt.yaml"), "rb");
    char text[512] = {0};
    CHECK(fp && fread(text, 1, sizeof text - 1, fp) > 0);
    if (fp) fclose(fp);
    CHECK_MSG(!strcmp(text, "image: rt.png\nmode: trinary\nresolution: 0.05\n"
                            "origin: [-3.25, 7.1, 0.3]\nnegate: 0\noccupied_thresh: 0.65\n"
                            "free_thresh: 0.196\n"),
              "%s", text);
    /* the image pixels are map_saver's 254 / 0 / 205 */
    tycho_image img;
    CHECK(tycho_image_load(tmp_path(p, sizeof p, "rt.pgm"), &img, &err) == TYCHO_OK);
    int bad = 0;
    for (int y = 0; y < 23; y++)
        for (int x = 0; x < 37; x++) {
            uint8_t c = cells[(22 - y) * 37 + x], v = img.pixels[y * 37 + x];
            bad += v != (c == 0 ? 254 : c == 254 ? 0 : 205);
        }
    CHECK(bad == 0);
    tycho_image_free(&img);

    /* intermediate costs: >= 165 occupied, else free; unknown stays. 165 is
     * occupancy 65 under the static layer, so a scale-mode grid saves as
     * map_saver would save its occupancy (64 -> cost 162 is not occupied) */
    tycho_grid_fill(g, 0);
    uint8_t probe[8] = {1, 100, 164, 165, 200, 252, 253, 255};
    for (int i = 0; i < 8; i++) tycho_grid_set(g, i, 0, probe[i]);
    CHECK(tycho_map_save(g, tmp_path(p, sizeof p, "infl.yaml"), "pgm", &err) == TYCHO_OK);
    tycho_grid *b = tycho_map_load(p, NULL, &err);
    uint8_t want[8] = {0, 0, 0, 254, 254, 254, 254, 255};
    bad = 0;
    for (int i = 0; i < 8; i++) bad += tycho_grid_get(b, i, 0) != want[i];
    CHECK(bad == 0);
    tycho_grid_free(b);

    CHECK(tycho_map_save(g, tmp_path(p, sizeof p, "noext"), NULL, &err) == TYCHO_OK);
    CHECK(access(tmp_path(p, sizeof p, "noext.pgm"), R_OK) == 0);
    CHECK(tycho_map_save(g, tmp_path(p, sizeof p, "x.yaml"), "bmp", &err) == TYCHO_EINVAL);
    CHECK(strstr(err.msg, "image format must be 'pgm' or 'png'") != NULL);
    CHECK(tycho_map_save(g, "/nonexistent/dir/m.yaml", NULL, &err) == TYCHO_EIO);
    CHECK(tycho_map_save(g, tmp_path(p, sizeof p, ".yaml"), NULL, &err) == TYCHO_EINVAL);
    /* a name that needs quoting in YAML still reads back */
    CHECK(tycho_map_save(g, tmp_path(p, sizeof p, "my map #1.yaml"), NULL, &err) == TYCHO_OK);
    b = tycho_map_load(p, NULL, &err);
    CHECK_MSG(b != NULL, "%s", err.msg);
    tycho_grid_free(b);
    tycho_grid_free(g);
}

static void test_data_set_maps(void)
{
    char p[512];
    tycho_err err = {0};
    tycho_map_meta m;
    tycho_grid *g = tycho_map_load(test_data(p, sizeof p, "warehouse/map.yaml"), &m, &err);
    CHECK_MSG(g != NULL, "%s", err.msg);
    if (g) {
        CHECK(tycho_grid_width(g) == 600 && tycho_grid_height(g) == 600);
        CHECK(m.resolution == 0.066667 && m.origin.x == -20 && m.free_thresh == 0.196);
        tycho_grid_stats s;
        tycho_grid_stats_compute(g, &s);
        CHECK(s.free + s.lethal + s.unknown == 360000);
        CHECK(s.free > 100000 && s.lethal > 10000);
        tycho_grid_free(g);
    }
    tycho_image img;
    if (!CHECKED(tycho_image_load(test_data(p, sizeof p, "raycast/basement_hallways_5cm.png"), &img,
                                  &err) == TYCHO_OK,
                 err.msg))
        return;
    tycho_map_meta_defaults(&m);
    g = tycho_map_from_image(&img, &m, &err);
    tycho_image_free(&img);
    CHECK(g && tycho_grid_width(g) == 1200 && tycho_grid_height(g) == 1200);
    if (g) {
        tycho_grid_stats s;
        tycho_grid_stats_compute(g, &s);
        CHECK(s.free > 1000000 && s.lethal > 5000 && s.lethal < 100000);
        tycho_grid_free(g);
    }
}

static void rm_rf(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/tycho_test_mapio_XXXXXX");
    if (!mkdtemp(tmpdir)) return 2;
    test_meta_defaults();
    test_trinary_thresholds();
    test_negate();
    test_scale();
    test_alpha_trinary_and_rgb();
    test_raw();
    test_flip_and_origin();
    test_yaml_parse();
    test_load_paths();
    test_save_round_trip();
    test_data_set_maps();
    rm_rf(tmpdir);
    return check_summary("test_mapio");
}
