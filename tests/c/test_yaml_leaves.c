/* YAML documents as leaves (ROS 2 parameter files): key paths, lines,
 * quoting, lists and empty mappings, and the refusals with file:line. */
#include "check.h"
#include "tycho/yaml_leaves.h"

#include <string.h>

#define MAX_LEAVES 16

typedef struct {
    int n;
    char path[MAX_LEAVES][128];
    char value[MAX_LEAVES][64];
    tycho_yaml_leaf_kind kind[MAX_LEAVES];
    bool quoted[MAX_LEAVES];
    int line[MAX_LEAVES];
    int stop_after; /* 0: never */
} collected;

static int collect(void *ud, const tycho_yaml_leaf *leaf)
{
    collected *c = ud;
    if (c->n >= MAX_LEAVES) return 1;
    char *p = c->path[c->n];
    p[0] = '\0';
    for (int i = 0; i < leaf->depth; i++) {
        if (i) strncat(p, ".", 127 - strlen(p));
        strncat(p, leaf->keys[i], 127 - strlen(p));
    }
    snprintf(c->value[c->n], 64, "%s", leaf->value ? leaf->value : "(none)");
    c->kind[c->n] = leaf->kind;
    c->quoted[c->n] = leaf->quoted;
    c->line[c->n] = leaf->line;
    c->n++;
    return c->stop_after && c->n >= c->stop_after;
}

static tycho_status leaves(const char *text, collected *c, tycho_err *err)
{
    memset(c, 0, sizeof *c);
    tycho_err_clear(err);
    return tycho_yaml_leaves(text, strlen(text), "p.yaml", collect, c, err);
}

static void test_ros2_layout(void)
{
    collected c;
    tycho_err err;
    const char *text = "# tuned on the robot\n"
                       "heat_seek:\n"
                       "  ros__parameters:\n"
                       "    max_speed: 0.2\n"
                       "    localization: \"scan_matching\"\n"
                       "    attempt_ramp: false\n"
                       "    waypoints: [1, 2]\n"
                       "    nested: {}\n";
    if (!CHECKED(leaves(text, &c, &err) == TYCHO_OK, err.msg)) return;
    CHECK(c.n == 5);
    CHECK(!strcmp(c.path[0], "heat_seek.ros__parameters.max_speed"));
    CHECK(!strcmp(c.value[0], "0.2") && c.line[0] == 4 && !c.quoted[0] &&
          c.kind[0] == TYCHO_YAML_SCALAR);
    CHECK(!strcmp(c.value[1], "scan_matching") && c.quoted[1] && c.line[1] == 5);
    CHECK(!strcmp(c.value[2], "false") && !c.quoted[2]);
    CHECK(c.kind[3] == TYCHO_YAML_LIST && c.line[3] == 7 && !strcmp(c.value[3], "(none)"));
    CHECK(c.kind[4] == TYCHO_YAML_EMPTY_MAP &&
          !strcmp(c.path[4], "heat_seek.ros__parameters.nested"));
}

static void test_empty_and_scalar_documents(void)
{
    collected c;
    tycho_err err;
    CHECK(leaves("", &c, &err) == TYCHO_OK && c.n == 0);
    CHECK(leaves("# only a comment\n", &c, &err) == TYCHO_OK && c.n == 0);
    CHECK(leaves("just text\n", &c, &err) == TYCHO_OK && c.n == 1);
    CHECK(c.path[0][0] == '\0' && !strcmp(c.value[0], "just text"));
}

static void test_refusals_name_the_line(void)
{
    collected c;
    tycho_err err;
    CHECK(leaves("a:\n  b: 1\n  b: 2\n", &c, &err) == TYCHO_EPARSE);
    CHECK_MSG(strstr(err.msg, "p.yaml:3: duplicate key 'b' (first on line 2)") != NULL, "%s",
              err.msg);
    CHECK(leaves("a:\n  b: [1\n", &c, &err) == TYCHO_EPARSE);
    CHECK_MSG(strncmp(err.msg, "p.yaml:", 7) == 0 && strstr(err.msg, "YAML error") != NULL, "%s",
              err.msg);
    CHECK(leaves("? [1, 2]\n: x\n", &c, &err) == TYCHO_EPARSE);
    CHECK_MSG(strstr(err.msg, "p.yaml:1: a mapping key must be a plain name") != NULL, "%s",
              err.msg);
    CHECK(leaves("a: 1\n---\nb: 2\n", &c, &err) == TYCHO_EPARSE);
    CHECK_MSG(strstr(err.msg, "a second YAML document") != NULL, "%s", err.msg);
    char deep[512] = "";
    for (int i = 0; i < TYCHO_YAML_MAX_DEPTH + 1; i++) {
        char line[64];
        snprintf(line, sizeof line, "%*sk%d:\n", 2 * i, "", i);
        strncat(deep, line, sizeof deep - strlen(deep) - 1);
    }
    strncat(deep, "                                    v: 1\n", sizeof deep - strlen(deep) - 1);
    CHECK(leaves(deep, &c, &err) == TYCHO_EPARSE);
    CHECK_MSG(strstr(err.msg, "nested deeper than") != NULL, "%s", err.msg);
    /* the callback can stop the walk */
    memset(&c, 0, sizeof c);
    c.stop_after = 1;
    tycho_err_clear(&err);
    CHECK(tycho_yaml_leaves("a: 1\nb: 2\n", 10, "p.yaml", collect, &c, &err) == TYCHO_EINVAL &&
          c.n == 1);
    CHECK(tycho_yaml_leaves(NULL, 0, "p.yaml", collect, &c, &err) == TYCHO_EINVAL);
}

int main(void)
{
    test_ros2_layout();
    test_empty_and_scalar_documents();
    test_refusals_name_the_line();
    return check_summary("yaml_leaves");
}
