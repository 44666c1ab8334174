/*
 * routing — shortest-path tables with interned equal-cost port sets (see
 * routing.h): BFS when every link costs 1, else Dijkstra over the link costs
 * (E. W. Dijkstra, "A note on two problems in connexion with graphs", 1959;
 * binary heap with lazy deletion).
 *
 * A host with a single link to a switch T can only be reached through T, so
 * for every node x other than the host and T, its next hops towards the host
 * are exactly its next hops towards T.  Hosts are therefore grouped by the
 * switch they hang off, one BFS is run per such switch, and the group shares
 * that BFS's column; only T's port to each host is kept per host (see
 * graph.h).  A k=32 fat-tree needs 512 BFS and 512 columns instead of 8,192.
 * Hosts that do not fit that shape (several links, or a link to another host)
 * get a BFS of their own.
 */
#include "topologies/routing.h"
#include "sim/mem.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define INF UINT32_MAX
#define DINF UINT64_MAX /* distance of an unreachable node */
#define BATCH 512             /* at most this many roots' columns are written to the table together */
#define BATCH_BYTES (32u << 20) /* and they take at most this much memory */

/* The interning table: slots hold an offset into nh plus one (0 = empty). */
struct interner {
    uint32_t *slots;
    uint32_t cap; /* power of two */
    uint32_t used;
};

/*
 * One step of the hash of port sets and of table rows (interning both): any
 * decent mix will do.  Only speed depends on it: interned sets and rows are
 * numbered in order of first appearance, not by hash.
 */
static inline uint64_t hash_step(uint64_t h, uint32_t x)
{
    h ^= x;
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
}

/* Hash of a port set (count and ports). */
static uint32_t set_hash(const uint16_t *ports, uint32_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    for (uint32_t i = 0; i < n; i++)
        h = hash_step(h, ports[i]);
    return (uint32_t)(h ^ (h >> 32));
}

/* Returns whether the set at nh[off] equals (ports, n). */
static bool set_equal(const struct g_routes *r, uint32_t off, const uint16_t *ports, uint32_t n)
{
    return r->nh[off] == n && memcmp(&r->nh[off + 1], ports, n * sizeof *ports) == 0;
}

/* Doubles the interning table.  Returns 0, or -1 when out of memory (table unchanged). */
static int interner_grow(struct interner *t, const struct g_routes *r)
{
    uint64_t cap = t->cap ? (uint64_t)t->cap * 2 : 256;
    if (cap > UINT32_MAX)
        return -1;
    uint32_t *slots = calloc((size_t)cap, sizeof *slots);
    if (!slots)
        return -1;
    uint32_t mask = (uint32_t)cap - 1;
    for (uint32_t i = 0; i < t->cap; i++) {
        if (!t->slots[i])
            continue;
        uint32_t off = t->slots[i] - 1;
        uint32_t j = set_hash(&r->nh[off + 1], r->nh[off]) & mask;
        while (slots[j])
            j = (j + 1) & mask;
        slots[j] = t->slots[i];
    }
    free(t->slots);
    t->slots = slots;
    t->cap = (uint32_t)cap;
    return 0;
}

/*
 * Stores the entry of the set (ports, n) in *entry (graph_nh_entry), appending the set to r->nh when it is new.
 * Returns 0, or -1 when out of memory or past GRAPH_NH_MAX.
 */
static int intern(struct g_routes *r, struct interner *t, const uint16_t *ports, uint32_t n, uint32_t *entry)
{
    if ((uint64_t)(t->used + 1) * 2 > t->cap && interner_grow(t, r) < 0)
        return -1;
    uint32_t mask = t->cap - 1;
    uint32_t j = set_hash(ports, n) & mask;
    for (; t->slots[j]; j = (j + 1) & mask) {
        if (set_equal(r, t->slots[j] - 1, ports, n)) {
            *entry = graph_nh_entry(t->slots[j] - 1, n);
            return 0;
        }
    }
    uint64_t need = (uint64_t)r->nh_len + 1 + n;
    if (need > GRAPH_NH_MAX)
        return -1;
    if (need > r->nh_cap) {
        uint64_t cap = r->nh_cap ? r->nh_cap : 1024;
        while (cap < need)
            cap *= 2; /* need <= GRAPH_NH_MAX: at most 2^24 words */
        uint16_t *nh = realloc(r->nh, (size_t)cap * sizeof *nh);
        if (!nh)
            return -1;
        r->nh = nh;
        r->nh_cap = (uint32_t)cap;
    }
    uint32_t off = r->nh_len;
    *entry = graph_nh_entry(off, n);
    r->nh[off] = (uint16_t)n;
    memcpy(&r->nh[off + 1], ports, n * sizeof *ports);
    r->nh_len += 1 + n;
    t->slots[j] = off + 1;
    t->used++;
    return 0;
}


/* Returns whether port p (global id) can carry traffic. */
static inline bool port_up(const struct graph *g, uint32_t p)
{
    return !g->links[g->ports[p].link].down;
}

/* Returns the node at the other end of global port p. */
static inline uint32_t peer_node(const struct graph *g, uint32_t p)
{
    return g->ports[g->ports[p].peer].node;
}

/*
 * Hop distances from root into dist[] (DINF when unreachable), expanding only
 * through the root and switches.  queue has room for every node.
 */
static void bfs(const struct graph *g, uint32_t root, uint64_t *dist, uint32_t *queue)
{
    for (uint32_t i = 0; i < g->n_nodes; i++)
        dist[i] = DINF;
    uint32_t head = 0, tail = 0;
    dist[root] = 0;
    queue[tail++] = root;
    while (head < tail) {
        uint32_t u = queue[head++];
        const struct g_node *n = &g->nodes[u];
        if (u != root && n->kind == SCN_NODE_HOST)
            continue; /* hosts never forward */
        for (uint32_t p = n->first_port; p < n->first_port + n->n_ports; p++) {
            if (!port_up(g, p))
                continue;
            uint32_t v = peer_node(g, p);
            if (dist[v] == DINF) {
                dist[v] = dist[u] + 1;
                queue[tail++] = v;
            }
        }
    }
}

/* A Dijkstra heap entry: tentative distance of node v. */
struct hent {
    uint64_t d;
    uint32_t v;
};

/* Pushes e on the binary min-heap h of *n entries (the caller sized h). */
static void heap_push(struct hent *h, uint32_t *n, struct hent e)
{
    uint32_t i = (*n)++;
    while (i > 0 && h[(i - 1) / 2].d > e.d) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = e;
}

/* Pops and returns the least entry of the non-empty heap h. */
static struct hent heap_pop(struct hent *h, uint32_t *n)
{
    struct hent top = h[0], last = h[--(*n)];
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && h[c + 1].d < h[c].d)
            c++;
        if (h[c].d >= last.d)
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = last;
    return top;
}

/*
 * Least-cost distances from root into dist[] (DINF when unreachable),
 * expanding only through the root and switches.  heap has room for
 * n_ports + 1 entries: every relaxation pushes at most one.
 */
static void dijkstra(const struct graph *g, uint32_t root, uint64_t *dist, struct hent *heap)
{
    for (uint32_t i = 0; i < g->n_nodes; i++)
        dist[i] = DINF;
    uint32_t n = 0;
    dist[root] = 0;
    heap_push(heap, &n, (struct hent){0, root});
    while (n) {
        struct hent e = heap_pop(heap, &n);
        if (e.d != dist[e.v])
            continue; /* a stale entry: the node was reached more cheaply since */
        const struct g_node *nd = &g->nodes[e.v];
        if (e.v != root && nd->kind == SCN_NODE_HOST)
            continue;
        for (uint32_t p = nd->first_port; p < nd->first_port + nd->n_ports; p++) {
            if (!port_up(g, p))
                continue;
            uint32_t v = peer_node(g, p);
            uint64_t d = e.d + g->links[g->ports[p].link].cost;
            if (d < dist[v]) {
                dist[v] = d;
                heap_push(heap, &n, (struct hent){d, v});
            }
        }
    }
}

/*
 * Fills col[x] with the interned next-hop set of every node x towards root
 * (INF for the root itself and unreachable nodes).  buf has room for the
 * largest port count.  Returns 0, or -1 when out of memory.
 */
static int next_hops(struct graph *g, struct interner *t, uint32_t root, const uint64_t *dist,
                     uint32_t *col, uint16_t *buf)
{
    for (uint32_t x = 0; x < g->n_nodes; x++) {
        col[x] = INF;
        if (x == root || dist[x] == DINF)
            continue;
        const struct g_node *n = &g->nodes[x];
        uint32_t cnt = 0;
        for (uint32_t i = 0; i < n->n_ports; i++) {
            uint32_t p = n->first_port + i;
            if (!port_up(g, p))
                continue;
            uint32_t y = peer_node(g, p);
            if (dist[y] != DINF && dist[y] + g->links[g->ports[p].link].cost == dist[x] &&
                (y == root || g->nodes[y].kind == SCN_NODE_SWITCH))
                buf[cnt++] = (uint16_t)i;
        }
        if (cnt && intern(&g->routes, t, buf, cnt, &col[x]) < 0)
            return -1;
    }
    return 0;
}

/*
 * For host node hn: the global port of its only working link when that link
 * goes to a switch, else INF (the host then needs a BFS of its own).
 */
static uint32_t single_uplink(const struct graph *g, uint32_t hn)
{
    const struct g_node *n = &g->nodes[hn];
    uint32_t up = INF;
    for (uint32_t p = n->first_port; p < n->first_port + n->n_ports; p++) {
        if (!port_up(g, p))
            continue;
        if (up != INF)
            return INF;
        up = p;
    }
    if (up == INF || g->nodes[peer_node(g, up)].kind != SCN_NODE_SWITCH)
        return INF;
    return up;
}

uint32_t routing_columns(const struct graph *g)
{
    if (g->routes_per_host)
        return g->n_hosts;
    uint8_t *seen = calloc(g->n_nodes ? g->n_nodes : 1, 1);
    uint32_t c = 0;
    if (!seen)
        return g->n_hosts; /* the bound without grouping */
    for (uint32_t h = 0; h < g->n_hosts; h++) {
        uint32_t hn = g->host_node[h], up = single_uplink(g, hn);
        uint32_t root = up == INF ? hn : peer_node(g, up);
        if (!seen[root]) {
            seen[root] = 1;
            c++;
        }
    }
    free(seen);
    return c;
}

/* Hash of a table row. */
static uint64_t row_hash(const uint32_t *row, uint32_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    for (uint32_t i = 0; i < n; i++)
        h = hash_step(h, row[i]);
    return h;
}

/*
 * Stores each distinct row of the N x C table once, in place, in the order of
 * their first node, and fills r->row_of and r->n_rows.  A root's entry in its
 * own column is never read (its hosts are reached through r->last, and a host
 * is never routed at its own node), so it is first set to its neighbour's
 * value: then every edge switch of a fat-tree has the same row.  Returns 0,
 * or -1 when out of memory (the table is then unchanged).
 */
static int dedup_rows(struct g_routes *r, uint32_t N, const uint32_t *root_col)
{
    const uint32_t C = r->n_cols;
    uint32_t cap = 16;
    while (cap < 2 * (uint64_t)N)
        cap *= 2;
    uint32_t *slots = calloc(cap, sizeof *slots); /* row index + 1, 0 = empty */
    r->row_of = malloc((size_t)N * sizeof *r->row_of);
    if (!slots || !r->row_of) {
        free(slots);
        free(r->row_of);
        r->row_of = NULL;
        return -1;
    }
    uint32_t n_rows = 0;
    for (uint32_t x = 0; x < N; x++) {
        uint32_t *row = &r->table[(uint64_t)x * C];
        if (root_col[x] != INF && C > 1)
            row[root_col[x]] = row[root_col[x] ? root_col[x] - 1 : 1];
        uint32_t j = (uint32_t)row_hash(row, C) & (cap - 1);
        for (; slots[j]; j = (j + 1) & (cap - 1))
            if (memcmp(&r->table[(uint64_t)(slots[j] - 1) * C], row, C * sizeof *row) == 0)
                break;
        if (!slots[j]) {
            /* a new row moves down to the end of the distinct ones (n_rows <= x: nothing unread is overwritten) */
            if (n_rows != x)
                memcpy(&r->table[(uint64_t)n_rows * C], row, C * sizeof *row);
            slots[j] = ++n_rows;
        }
        r->row_of[x] = slots[j] - 1;
    }
    free(slots);
    r->n_rows = n_rows;
    uint32_t *table = mem_realloc_big(r->table, (size_t)n_rows * C * sizeof *table, (size_t)n_rows * C * sizeof *table);
    if (table)
        r->table = table;
    return 0;
}

int routing_install(struct graph *g, const uint16_t *port)
{
    struct g_routes *r = &g->routes;
    const uint32_t N = g->n_nodes, C = r->n_cols;
    struct interner t = {0};
    uint32_t *table = mem_alloc_big(sizeof(uint32_t) * (size_t)N * C), *root_col = malloc((size_t)N * sizeof *root_col);
    struct g_routes keep = *r;
    int rc = -1;
    if (!table || !root_col)
        goto out;
    for (uint32_t i = 0; i < N; i++)
        root_col[i] = INF;
    for (uint32_t h = 0; h < r->n_hosts; h++)
        root_col[r->attach[h] == INF ? g->host_node[h] : r->attach[h]] = r->col[h];
    /* The sets interned so far stay valid (the hosts' last hops point into them); new ones are added. */
    for (uint32_t x = 0; x < N; x++)
        for (uint32_t c = 0; c < C; c++) {
            uint16_t p = port[(uint64_t)x * C + c];
            table[(uint64_t)x * C + c] = INF;
            if (p != UINT16_MAX && intern(r, &t, &p, 1, &table[(uint64_t)x * C + c]) < 0)
                goto out;
        }
    r->table = table;
    r->row_of = NULL;
    if (dedup_rows(r, N, root_col) < 0) {
        r->table = keep.table;
        r->row_of = keep.row_of;
        r->n_rows = keep.n_rows;
        goto out;
    }
    table = keep.table;
    free(keep.row_of);
    rc = 0;
out:
    free(t.slots);
    free(table);
    free(root_col);
    return rc;
}

int routing_compute(struct graph *g)
{
    struct g_routes *r = &g->routes;
    graph_routes_free(g);

    const uint32_t N = g->n_nodes, H = g->n_hosts;
    uint32_t max_ports = 1;
    for (uint32_t i = 0; i < N; i++)
        if (g->nodes[i].n_ports > max_ports)
            max_ports = g->nodes[i].n_ports;
    if (max_ports > UINT16_MAX)
        return -1;
    r->n_hosts = H;
    if (H == 0 || N == 0)
        return 0;

    struct interner t = {0};
    /* Every link costing 1 (all but dragonflies) keeps the plain BFS, the fastest way to build big tables. */
    bool weighted = false;
    for (uint32_t i = 0; i < g->n_links && !weighted; i++)
        weighted = g->links[i].cost != 1;
    uint64_t *dist = malloc(N * sizeof *dist);
    uint32_t *queue = weighted ? NULL : malloc(N * sizeof *queue);
    struct hent *heap = weighted ? malloc(((size_t)g->n_ports + 1) * sizeof *heap) : NULL;
    uint32_t *root_of = malloc(H * sizeof *root_of), *uplink = malloc(H * sizeof *uplink);
    uint32_t *root_col = malloc((size_t)N * sizeof *root_col);
    uint16_t *buf = malloc(max_ports * sizeof *buf);
    r->col = malloc(H * sizeof *r->col);
    r->attach = malloc(H * sizeof *r->attach);
    r->last = malloc(H * sizeof *r->last);
    uint32_t *table = NULL, *cols = NULL;
    int rc = -1;
    if (!dist || (!queue && !heap) || !root_of || !uplink || !root_col || !buf || !r->col || !r->attach || !r->last)
        goto out;

    /* Columns: one per root, numbered in node order. */
    for (uint32_t i = 0; i < N; i++)
        root_col[i] = INF;
    for (uint32_t h = 0; h < H; h++) {
        uint32_t hn = g->host_node[h];
        uplink[h] = g->routes_per_host ? INF : single_uplink(g, hn);
        root_of[h] = uplink[h] == INF ? hn : peer_node(g, uplink[h]);
        root_col[root_of[h]] = 0;
    }
    uint32_t C = 0;
    for (uint32_t i = 0; i < N; i++)
        if (root_col[i] != INF)
            root_col[i] = C++;
    r->n_cols = C;
    uint64_t entries = (uint64_t)N * C;
    if (entries > SIZE_MAX / sizeof *table)
        goto out;
    r->table = table = mem_alloc_big(sizeof(uint32_t) * (size_t)entries);
    uint32_t batch_max = BATCH_BYTES / sizeof(uint32_t) / N;
    batch_max = batch_max < 1 ? 1 : batch_max > BATCH ? BATCH : batch_max;
    cols = malloc((size_t)batch_max * N * sizeof *cols); /* cols[b * N + x]: batch root b, node x */
    if (!table || !cols)
        goto out;
    for (uint32_t h = 0; h < H; h++) {
        r->col[h] = root_col[root_of[h]];
        r->attach[h] = INF;
        r->last[h] = INF;
        if (uplink[h] != INF) {
            uint32_t sw = root_of[h];
            uint16_t port = (uint16_t)(g->ports[uplink[h]].peer - g->nodes[sw].first_port);
            if (intern(r, &t, &port, 1, &r->last[h]) < 0)
                goto out;
            r->attach[h] = sw;
        }
    }

    /*
     * Roots go in batches of columns so that the table, which is
     * node-major, is then written row by row: one column at a time would
     * stride across the whole table for every root.
     */
    uint32_t batch[BATCH], n_batch = 0;
    for (uint32_t root = 0; root <= N; root++) {
        if (root < N && root_col[root] != INF) {
            if (weighted)
                dijkstra(g, root, dist, heap);
            else
                bfs(g, root, dist, queue);
            if (next_hops(g, &t, root, dist, &cols[(size_t)n_batch * N], buf) < 0)
                goto out;
            batch[n_batch++] = root;
        }
        if (n_batch == 0 || (n_batch < batch_max && root < N))
            continue;
        for (uint32_t x = 0; x < N; x++) {
            uint32_t *row = &table[(uint64_t)x * C];
            for (uint32_t b = 0; b < n_batch; b++)
                row[root_col[batch[b]]] = cols[(size_t)b * N + x];
        }
        n_batch = 0;
    }
    if (dedup_rows(r, N, root_col) < 0)
        goto out;
    rc = 0;
out:
    if (rc < 0) {
        graph_routes_free(g);
    } else {
        /* The interned sets are final: give back the growth slack. */
        uint16_t *nh = realloc(r->nh, (r->nh_len ? r->nh_len : 1) * sizeof *nh);
        if (nh) {
            r->nh = nh;
            r->nh_cap = r->nh_len ? r->nh_len : 1;
        }
    }
    free(t.slots);
    free(dist);
    free(queue);
    free(heap);
    free(cols);
    free(root_of);
    free(uplink);
    free(root_col);
    free(buf);
    return rc;
}
