/*
 * Writes the example Chakra execution traces of this folder (README.md): tp2-dp2.0.et .. tp2-dp2.3.et, one per
 * rank, each a GlobalMetadata message and then its nodes, every message after its length as a varint (Chakra's
 * framing), packed with the C that protoc-c makes from models/chakra.proto.
 */
#include "models/chakra.pb-c.h"

#include <stdio.h>
#include <stdlib.h>

static void put_msg(FILE *f, const ProtobufCMessage *m)
{
    size_t len = protobuf_c_message_get_packed_size(m);
    uint8_t *buf = malloc(len + 1), v[10];
    int k = 0;
    if (!buf)
        exit(3);
    protobuf_c_message_pack(m, buf);
    for (size_t l = len; k == 0 || l; l >>= 7)
        v[k++] = (uint8_t)((l & 0x7f) | (l >> 7 ? 0x80 : 0));
    fwrite(v, 1, (size_t)k, f);
    fwrite(buf, 1, len, f);
    free(buf);
}

static ChakraProtoMsg__AttributeProto attr_i64(const char *name, int64_t v)
{
    ChakraProtoMsg__AttributeProto a = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
    a.name = (char *)name;
    a.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
    a.int64_val = v;
    return a;
}

/* One node: a compute of us microseconds (bytes 0), or an all-reduce of bytes over group pg. */
static void put_node(FILE *f, uint64_t id, const char *name, uint64_t us, int64_t bytes, const char *pg, uint64_t dep)
{
    ChakraProtoMsg__Node m = CHAKRA_PROTO_MSG__NODE__INIT;
    ChakraProtoMsg__AttributeProto a[3], *ap[3];
    m.id = id;
    m.name = (char *)name;
    m.type = bytes ? CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE : CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE;
    m.duration_micros = us;
    m.n_data_deps = dep ? 1 : 0;
    m.data_deps = &dep;
    if (bytes) {
        a[0] = attr_i64("comm_type", CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE);
        a[1] = attr_i64("comm_size", bytes);
        a[2] = (ChakraProtoMsg__AttributeProto)CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
        a[2].name = "pg_name";
        a[2].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
        a[2].string_val = (char *)pg;
        for (int i = 0; i < 3; i++)
            ap[i] = &a[i];
        m.n_attr = 3;
        m.attr = ap;
    }
    put_msg(f, &m.base);
}

int main(int argc, char **argv)
{
    static const char *const tp[4] = {"1", "1", "2", "2"}, *const dp[4] = {"3", "4", "3", "4"};
    const char *dir = argc > 1 ? argv[1] : ".";
    for (int r = 0; r < 4; r++) {
        char path[512];
        snprintf(path, sizeof path, "%s/tp2-dp2.%d.et", dir, r);
        FILE *f = fopen(path, "wb");
        if (!f)
            return perror(path), 3;
        ChakraProtoMsg__GlobalMetadata g = CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;
        g.version = "0.0.4";
        put_msg(f, &g.base);
        put_node(f, 1, "forward", 50, 0, NULL, 0);
        put_node(f, 2, "tp_all_reduce", 0, 1000000, tp[r], 1);
        put_node(f, 3, "backward", 100, 0, NULL, 2);
        put_node(f, 4, "dp_all_reduce", 0, 4000000, dp[r], 3);
        put_node(f, 5, "optimizer", 20, 0, NULL, 4);
        if (fclose(f))
            return perror(path), 3;
    }
    return 0;
}
