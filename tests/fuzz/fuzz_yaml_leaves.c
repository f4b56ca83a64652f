/* libFuzzer target: YAML documents as leaves (ROS 2 parameter files read by
 * --params-file). Any input either walks with sane leaves or fails with a
 * message naming the file. */
#include "tycho/yaml_leaves.h"

#include <stdlib.h>
#include <string.h>

static int check_leaf(void *ud, const tycho_yaml_leaf *leaf)
{
    (void)ud;
    if (leaf->depth < 0 || leaf->depth > TYCHO_YAML_MAX_DEPTH || leaf->line < 1) abort();
    for (int i = 0; i < leaf->depth; i++)
        if (!leaf->keys[i]) abort();
    if ((leaf->kind == TYCHO_YAML_SCALAR) != (leaf->value != NULL)) abort();
    if (leaf->value && leaf->value[leaf->length] != '\0') abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tycho_err err;
    tycho_err_clear(&err);
    tycho_status st = tycho_yaml_leaves((const char *)data, size, "p.yaml", check_leaf, NULL, &err);
    if (st != TYCHO_OK && !strstr(err.msg, "p.yaml")) abort();
    return 0;
}
