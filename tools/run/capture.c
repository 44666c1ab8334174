/*
 * capture — monitor.capture: pcap files of the frames on the links of chosen ports, which Wireshark, tshark and
 * tcpdump read (docs/outputs.md, "capture/").
 *
 * The format is libpcap's with nanosecond timestamps (magic 0xa1b23c4d, version 2.4; the tcpdump.org "pcap" file
 * format page, and draft-ietf-opsawg-pcap): a 24-byte file header, then per frame a 16-byte record header (seconds,
 * nanoseconds, bytes kept, bytes of the frame) and the bytes kept.  On a RoCE fabric the link type is Ethernet (1)
 * and each frame is what a RoCE v2 NIC puts on the wire (InfiniBand Architecture Specification vol. 1, annex A17
 * "RoCEv2": Ethernet, IPv4, UDP to port 4791, then IB's BTH and AETH; IEEE 802.1Q for the tag, IEEE 802.1Qbb for
 * the PFC frame, RFC 3168 for the ECN field).  On an InfiniBand fabric each packet is an ERF record (link type
 * LINKTYPE_ERF, 197; Endace's "Extensible Record Format" as libpcap's link-type list and Wireshark's ERF reader take
 * it: a 16-byte header of a little-endian 64-bit timestamp in 2^-32 s, then big-endian type, flags, record length,
 * loss counter and wire length, then the packet) of type 21, an IB packet from its LRH (IBA vol. 1, sections 7.7
 * and 9.2-9.3), or of type 25, a link packet (flow control, section 7.9.4): Wireshark dissects both from the file
 * as it is, which it does for no pcap link type that carries bare IB packets (it maps none of them, 247 included,
 * to InfiniBand).
 *
 * The network hands every frame a port sends or receives intact to the tap (net.tap, models/net.h) from the port's
 * node's event: a captured port's file is written only in its node's partition, in that node's event order, so
 * the files are the same for any --threads N and no two threads share anything here.  The tap reads the frame
 * and its flow's fixed fields and changes nothing, so no other output changes.
 */
#include "tools/run/monitor_settings.h"
#include "tools/run/observer.h"
#include "tools/run/run.h"
#include "tools/common/files.h"
#include "sim/mem.h"
#include "sim/units.h"

#include <cjson/cJSON.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PCAP_MAGIC_NS 0xa1b23c4du
#define LINKTYPE_ETHERNET 1
#define LINKTYPE_ERF 197
#define ERF_HDR 16
#define ERF_TYPE_IB 21      /* a packet from its LRH */
#define ERF_TYPE_IB_LINK 25 /* a link packet: flow control */
#define ERF_VLEN 0x04       /* flags: records of varying length */
#define PCAP_FILE_HDR 24
#define PCAP_REC_HDR 16
#define ROCE_UDP_PORT 4791
#define QPN_BASE 0x100 /* QPs 0 and 1 are InfiniBand's management QPs */
#define HDR_MAX 96     /* the longest header synthesized: Ethernet, tag, IPv4, UDP, BTH and 16 bytes */

/* BTH opcodes (IBA vol. 1, table 35): reliable connection SEND, Acknowledge, the congestion notification, and two of
 * the manufacturer-specific range (0xC0-0xFF) for UET's pull and request to send. */
enum {
    OP_SEND_FIRST = 0x00, OP_SEND_MIDDLE = 0x01, OP_SEND_LAST = 0x02, OP_SEND_ONLY = 0x04, OP_ACK = 0x11,
    OP_CNP = 0x81, OP_PULL = 0xC0, OP_RTS = 0xC1,
};

/* One captured port: written only by its node's partition; a line of its own so that two ports' writers in two
 * partitions share none. */
struct cap_port {
    _Alignas(64) FILE *f;
    const struct capture_spec *spec;
    int entry;                /* its monitor.capture index, for messages */
    uint32_t node, host;      /* its node, and the node's host index (UINT32_MAX: a switch) */
    uint8_t mac[6], peer_mac[6]; /* its interface's MAC and its peer's */
    uint64_t bytes, frames;
    bool full;                /* max_size reached: no more records */
    sim_time_t full_at;       /* the time of the first frame left out */
    int err;                  /* errno of a failed write, or 0 */
    char path[4400], tmp[4440];
};

struct capture {
    const struct run *r;
    int32_t *slot;            /* per port id: its index in ports, or -1 */
    struct cap_port *ports;
    uint32_t n;
    bool ib;                  /* an InfiniBand fabric: IB packets in ERF records */
};

static const uint8_t zeros[CAPTURE_SNAPLEN_MAX];

static void put16(uint8_t *b, uint32_t v) { b[0] = (uint8_t)(v >> 8); b[1] = (uint8_t)v; }
static void put24(uint8_t *b, uint32_t v) { b[0] = (uint8_t)(v >> 16); b[1] = (uint8_t)(v >> 8); b[2] = (uint8_t)v; }
static void put32(uint8_t *b, uint32_t v) { put16(b, v >> 16); put16(b + 2, v); }

/* Locally administered (bit 1 of the first byte), unicast: 02 and the node id's 24 bits, then the port's 16. */
static void make_mac(uint8_t *m, uint32_t node, uint32_t local)
{
    m[0] = 0x02;
    put24(m + 1, node);
    put16(m + 4, local);
}

/* Host h's IPv4 address, 10.0.0.0/8 numbered from 1: h0 is 10.0.0.1. */
static uint32_t host_ip(uint32_t h) { return 0x0A000000u | ((h + 1) & 0xFFFFFFu); }

/* A flow's queue pair number at both ends. */
static uint32_t flow_qpn(uint32_t flow) { return (QPN_BASE + flow) & 0xFFFFFFu; }

/* Frames that travel from the flow's receiver to its sender. */
static bool backward(int type) { return type == PKT_ACK || type == PKT_NACK || type == PKT_CNP || type == PKT_PULL; }

/* The BTH (12 bytes at b) and what follows it up to the payload (AETH, the CNP's reserved bytes); returns the bytes
 * written.  fecn/becn: InfiniBand's congestion bits (0 on RoCE, which marks the IP header instead). */
static int put_bth(uint8_t *b, const struct pkt *k, const struct flow *f, bool fecn, bool becn)
{
    uint8_t op;
    uint32_t psn = k->psn;
    switch (k->type) {
    case PKT_DATA:
    case PKT_TRIM:
        op = f->n_pkts <= 1            ? OP_SEND_ONLY
             : k->psn == 0             ? OP_SEND_FIRST
             : k->psn + 1 >= f->n_pkts ? OP_SEND_LAST
                                       : OP_SEND_MIDDLE;
        break;
    case PKT_ACK: op = OP_ACK; psn = k->psn - 1; break; /* an ACK carries the last PSN it acknowledges */
    case PKT_NACK: op = OP_ACK; break;                  /* a NAK the PSN expected */
    case PKT_CNP: op = OP_CNP; psn = 0; break;
    case PKT_PULL: op = OP_PULL; break;
    default: op = OP_RTS; break;
    }
    memset(b, 0, 12);
    b[0] = op;
    put16(b + 2, 0xFFFF); /* the default partition key */
    b[4] = (uint8_t)((fecn ? 0x80 : 0) | (becn ? 0x40 : 0));
    put24(b + 5, flow_qpn(f->idx));
    b[8] = (k->tflags & PKT_TF_AR) ? 0x80 : 0;
    put24(b + 9, psn & 0xFFFFFFu);
    if (k->type == PKT_ACK || k->type == PKT_NACK || k->type == PKT_PULL || k->type == PKT_RTS) {
        /* AETH: syndrome (ACK: credit count 31, "no credit count"; NAK: 011 and code 0, PSN sequence error), MSN.
         * A pull or request to send is an ACK's size: the same four bytes, zero. */
        memset(b + 12, 0, 4);
        if (k->type == PKT_ACK)
            b[12] = 0x1F;
        else if (k->type == PKT_NACK)
            b[12] = 0x60;
        return 16;
    }
    if (k->type == PKT_CNP) {
        memset(b + 12, 0, 16);
        return 28;
    }
    return 12;
}

/* An Ethernet frame of k as port cp's link carries it; returns the header bytes in h and sets *orig. */
static int eth_frame(const struct capture *c, const struct cap_port *cp, const struct pkt *k, bool rx, uint8_t *h,
                     uint32_t *orig)
{
    memcpy(h, rx ? cp->mac : cp->peer_mac, 6);
    memcpy(h + 6, rx ? cp->peer_mac : cp->mac, 6);
    if (k->type == PKT_PAUSE) {
        /* IEEE 802.1Qbb: MAC control to 01:80:c2:00:00:01, opcode 0x0101, the class-enable vector and eight times;
         * a RESUME is the class enabled with time 0.  Padded to the 60 bytes of a minimal frame (FCS not kept). */
        static const uint8_t dst[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};
        memcpy(h, dst, 6);
        memset(h + 12, 0, 48);
        put16(h + 12, 0x8808);
        put16(h + 14, 0x0101);
        put16(h + 16, 1u << (k->prio & 7));
        put16(h + 18 + 2 * (k->prio & 7), k->quanta);
        *orig = 60;
        return 60;
    }
    const struct flow *f = net_flow(&c->r->net, k->flow);
    /* The model's frame sizes hold the FCS and no VLAN tag (docs/model.md): the tag takes the FCS's 4 bytes, and an
     * untagged frame is 4 bytes shorter. */
    int tag = cp->spec->vlan ? 4 : 0;
    uint32_t len = k->size - 4 + (uint32_t)tag;
    *orig = len;
    if (tag) {
        put16(h + 12, 0x8100);
        put16(h + 14, (uint32_t)(k->prio & 7) << 13); /* PCP, VLAN 0 (priority-tagged) */
    }
    put16(h + 12 + tag, 0x0800);
    uint8_t *ip = h + 14 + tag;
    bool back = backward(k->type);
    uint32_t src = back ? f->dst : f->src, dst = back ? f->src : f->dst;
    uint8_t ecn = 0;
    if (k->type == PKT_DATA || k->type == PKT_TRIM)
        ecn = (k->ecn & ECN_CE) ? 3 : (k->ecn & ECN_ECT) ? 2 : 0;
    memset(ip, 0, 20);
    ip[0] = 0x45;
    ip[1] = (uint8_t)(((k->prio & 7) * 8) << 2 | ecn); /* DSCP: class selector of the priority */
    put16(ip + 2, len - 14 - (uint32_t)tag);
    put16(ip + 6, 0x4000); /* don't fragment */
    ip[8] = 64;
    ip[9] = 17;
    put32(ip + 12, host_ip(src));
    put32(ip + 16, host_ip(dst));
    uint32_t sum = 0;
    for (int i = 0; i < 20; i += 2)
        sum += (uint32_t)ip[i] << 8 | ip[i + 1];
    while (sum >> 16)
        sum = (sum & 0xFFFF) + (sum >> 16);
    put16(ip + 10, ~sum & 0xFFFF);
    uint8_t *udp = ip + 20;
    /* The source port carries the flow's entropy as RoCE v2 NICs do (RFC 6438's flow label idea): a UET data
     * frame's entropy value, else the hash its switches balance by. */
    uint32_t ent = (k->type == PKT_DATA && k->quanta) ? k->quanta : k->hash;
    put16(udp, 0xC000 | (ent & 0x3FFF));
    put16(udp + 2, ROCE_UDP_PORT);
    put16(udp + 4, len - 34 - (uint32_t)tag);
    put16(udp + 6, 0); /* RoCE v2 sends no UDP checksum */
    return 42 + tag + put_bth(udp + 8, k, f, false, false);
}

/* An InfiniBand packet of k (LRH, BTH, ...), or a flow-control packet; returns the header bytes in h, sets *orig. */
static int ib_packet(const struct capture *c, const struct pkt *k, uint8_t *h, uint32_t *orig)
{
    *orig = k->size;
    if (k->type == PKT_PAUSE) {
        /* Section 7.9.4: Op 0 (normal), FCTBS (not kept by the model: 0), VL, FCCL (12 bits), then the 16-bit
         * LPCRC (0).  Recorded as 8 bytes, two zeros after the six the link carries: Wireshark 4.0 reads 8 bytes
         * of a link packet for its summary line and calls a record of 6 malformed (docs/outputs.md). */
        memset(h, 0, 8);
        put16(h + 2, (uint32_t)(k->prio & 15) << 12 | (k->psn & 0xFFF));
        *orig = 8;
        return 8;
    }
    const struct flow *f = net_flow(&c->r->net, k->flow);
    bool back = backward(k->type);
    uint32_t src = back ? f->dst : f->src, dst = back ? f->src : f->dst;
    h[0] = (uint8_t)((k->prio & 15) << 4); /* VL, LVer 0 */
    h[1] = (uint8_t)((k->prio & 15) << 4 | 0x2); /* SL (the VL's number), LNH 2: BTH next */
    put16(h + 2, (dst + 1) & 0xFFFF);
    put16(h + 4, ((k->size - 2) / 4) & 0x7FF); /* in words, from the LRH to the ICRC */
    put16(h + 6, (src + 1) & 0xFFFF);
    bool fecn = (k->type == PKT_DATA || k->type == PKT_TRIM) && (k->ecn & ECN_CE);
    bool becn = k->type == PKT_CNP || ((k->type == PKT_ACK || k->type == PKT_NACK) && (k->ecn & ECN_ECE));
    return 8 + put_bth(h + 8, k, f, fecn, becn);
}

/* An ERF record's header (into b, returned) for a packet of orig bytes of which incl are kept, at ns nanoseconds.
 * The timestamp's fraction is rounded to the nearest 2^-32 s, which Wireshark rounds back to the same ns (the
 * error is at most 0.12 ns).  The wire length has 16 bits, as many as an IB packet's length field allows (the
 * LRH's 11 bits of words). */
static const uint8_t *erf_header(uint64_t ns, uint8_t type, uint32_t incl, uint32_t orig, uint8_t *b)
{
    uint64_t sec = ns / 1000000000u, frac = (((ns % 1000000000u) << 32) + 500000000u) / 1000000000u;
    uint64_t ts = sec << 32 | frac;
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(ts >> (8 * i));
    b[8] = type;
    b[9] = ERF_VLEN;
    put16(b + 10, ERF_HDR + incl);
    put16(b + 12, 0);
    put16(b + 14, orig);
    return b;
}

static void write_bytes(struct cap_port *cp, const void *b, size_t n)
{
    if (!cp->err && n && fwrite(b, 1, n, cp->f) != n)
        cp->err = errno ? errno : EIO;
}

/* The tap (net.tap): k leaves port p (rx false) or arrived at it (rx true), in p's node's event. */
static void tap(void *ctx, const struct port *p, const struct pkt *k, bool rx)
{
    struct capture *c = ctx;
    const struct net *n = &c->r->net;
    int32_t s = c->slot[p - n->ports];
    if (s < 0)
        return;
    struct cap_port *cp = &c->ports[s];
    sim_time_t now = net_sim(n)->now;
    if (now < cp->spec->start_ps || (cp->spec->end_ps >= 0 && now >= cp->spec->end_ps) || cp->full || cp->err)
        return;
    uint8_t h[HDR_MAX];
    uint32_t orig;
    int hl = c->ib ? ib_packet(c, k, h, &orig) : eth_frame(c, cp, k, rx, h, &orig);
    uint32_t incl = orig < (uint32_t)cp->spec->snaplen ? orig : (uint32_t)cp->spec->snaplen;
    uint32_t pre = c->ib ? ERF_HDR : 0;
    if (cp->bytes + PCAP_REC_HDR + pre + incl > (uint64_t)cp->spec->max_size) {
        cp->full = true;
        cp->full_at = now;
        return;
    }
    uint64_t ns = (uint64_t)now / 1000;
    uint8_t rec[PCAP_REC_HDR];
    uint32_t v[4] = {(uint32_t)(ns / 1000000000u), (uint32_t)(ns % 1000000000u), pre + incl, pre + orig};
    memcpy(rec, v, sizeof v); /* the file's own byte order, which its magic tells */
    write_bytes(cp, rec, sizeof rec);
    uint8_t erf[ERF_HDR];
    if (pre)
        write_bytes(cp, erf_header(ns, k->type == PKT_PAUSE ? ERF_TYPE_IB_LINK : ERF_TYPE_IB, incl, orig, erf),
                    ERF_HDR);
    uint32_t from_h = (uint32_t)hl < incl ? (uint32_t)hl : incl;
    write_bytes(cp, h, from_h);
    write_bytes(cp, zeros, incl - from_h); /* payload and ICRC: zeros */
    cp->bytes += PCAP_REC_HDR + pre + incl;
    cp->frames++;
}

/* Removes what an earlier run left in DIR/capture: its files, and the temporaries of a process that is gone. */
static void clear_dir(const char *dir)
{
    char d[4200], path[4500];
    snprintf(d, sizeof d, "%s/capture", dir);
    DIR *dp = opendir(d);
    if (!dp)
        return;
    struct dirent *e;
    while ((e = readdir(dp))) {
        size_t l = strlen(e->d_name);
        const char *t = strstr(e->d_name, ".pcap.tmp.");
        bool stale = t && kill((pid_t)atol(t + 10), 0) != 0 && errno == ESRCH;
        if ((l > 5 && strcmp(e->d_name + l - 5, ".pcap") == 0) || stale) {
            snprintf(path, sizeof path, "%s/%s", d, e->d_name);
            unlink(path);
        }
    }
    closedir(dp);
    rmdir(d); /* only when empty: files of other names stay */
}

static void free_capture(struct capture *c)
{
    for (uint32_t i = 0; i < c->n; i++)
        if (c->ports[i].f) {
            fclose(c->ports[i].f);
            unlink(c->ports[i].tmp);
        }
    free(c->ports);
    free(c->slot);
    free(c);
}

/* The file name of port id: capture/NODE-PORT.pcap. */
static void port_file(const struct run *r, uint32_t id, char *buf, size_t len)
{
    const struct g_node *nd = &r->g.nodes[r->g.ports[id].node];
    snprintf(buf, len, "%s-%u.pcap", nd->name, id - nd->first_port);
}

/* Marks the ports pattern pat of entry e names in slot (as e's); a pattern that matches no port is refused. */
static int match_ports(const struct run *r, struct capture *c, int e, int pi, char *err, size_t errlen)
{
    const struct capture_spec *cs = &monitor_settings_of(r->scn)->captures[e];
    char node_pat[2 * SCN_NAME_MAX];
    snprintf(node_pat, sizeof node_pat, "%s", cs->ports[pi]);
    char *colon = strchr(node_pat, ':');
    if (!colon)
        abort(); /* the loader checked the shape */
    *colon = '\0';
    bool any = strcmp(colon + 1, "*") == 0, node_found = false;
    long want = any ? -1 : atol(colon + 1);
    uint32_t matched = 0;
    for (uint32_t nd = 0; nd < r->g.n_nodes; nd++) {
        const struct g_node *gn = &r->g.nodes[nd];
        if (!scn_glob_match(node_pat, gn->name))
            continue;
        node_found = true;
        for (uint32_t lp = 0; lp < gn->n_ports; lp++) {
            if (!any && (long)lp != want)
                continue;
            uint32_t id = gn->first_port + lp;
            matched++;
            if (c->slot[id] >= 0 && c->slot[id] != e) {
                snprintf(err, errlen, "%s: monitor.capture.%d.ports.%d: expected a port no other capture takes, got "
                                      "\"%s\" (%s:%u is in monitor.capture.%d)", r->scn->file, e, pi, cs->ports[pi],
                         gn->name, lp, c->slot[id]);
                return SCN_EUSAGE;
            }
            c->slot[id] = e;
        }
    }
    if (!matched) {
        if (node_found)
            snprintf(err, errlen, "%s: monitor.capture.%d.ports.%d: expected a port that exists, got \"%s\" (no node "
                                  "matching \"%s\" has port %ld; ports are numbered from 0)", r->scn->file, e, pi,
                     cs->ports[pi], node_pat, want);
        else
            snprintf(err, errlen, "%s: monitor.capture.%d.ports.%d: expected a pattern matching a node (a switch or "
                                  "a host), got \"%s\"", r->scn->file, e, pi, cs->ports[pi]);
        return SCN_EUSAGE;
    }
    return 0;
}

static int cap_open(struct run *r, const struct run_options *o, void **ctx, const struct run_observer_ops **watch,
                    char *err, size_t errlen)
{
    (void)watch;
    const struct monitor_settings *mo = monitor_settings_of(r->scn);
    if (o->dir)
        clear_dir(o->dir);
    if (mo->n_captures == 0)
        return 0;
    if (o->ranks) {
        snprintf(err, errlen, "%s: monitor.capture: expected a run in one process (a run over MPI ranks writes no "
                              "capture; use --threads)", r->scn->file);
        return SCN_EUSAGE;
    }
    struct capture *c = mem_xcalloc(1, sizeof *c, "the packet capture");
    c->r = r;
    c->ib = r->net.sl2vl != NULL;
    uint32_t np = r->g.n_ports;
    c->slot = mem_xmalloc(sizeof *c->slot * (np ? np : 1), "the packet capture");
    for (uint32_t i = 0; i < np; i++)
        c->slot[i] = -1;
    int rc = 0;
    for (int e = 0; e < mo->n_captures && !rc; e++)
        for (int pi = 0; pi < mo->captures[e].n_ports && !rc; pi++)
            rc = match_ports(r, c, e, pi, err, errlen);
    if (rc || !o->dir) {
        free_capture(c);
        return rc;
    }
    for (uint32_t i = 0; i < np; i++)
        c->n += c->slot[i] >= 0;
    c->ports = mem_xcalloc(c->n, sizeof *c->ports, "the packet capture");
    char d[4096], name[2 * SCN_NAME_MAX + 16];
    snprintf(d, sizeof d, "%s/capture", o->dir);
    if (make_dirs(d)) {
        snprintf(err, errlen, "%s: cannot create directory: %s", d, strerror(errno));
        free_capture(c);
        return SCN_EIO;
    }
    uint32_t k = 0;
    for (uint32_t id = 0; id < np; id++) {
        if (c->slot[id] < 0)
            continue;
        struct cap_port *cp = &c->ports[k];
        cp->entry = c->slot[id];
        cp->spec = &mo->captures[cp->entry];
        const struct g_port *gp = &r->g.ports[id], *pp = &r->g.ports[gp->peer];
        cp->node = gp->node;
        cp->host = r->g.nodes[gp->node].host >= 0 ? (uint32_t)r->g.nodes[gp->node].host : UINT32_MAX;
        make_mac(cp->mac, gp->node, id - r->g.nodes[gp->node].first_port);
        make_mac(cp->peer_mac, pp->node, gp->peer - r->g.nodes[pp->node].first_port);
        port_file(r, id, name, sizeof name);
        snprintf(cp->path, sizeof cp->path, "%s/%s", d, name);
        snprintf(cp->tmp, sizeof cp->tmp, "%s.tmp.%ld", cp->path, (long)getpid());
        c->slot[id] = (int32_t)k++;
        if (!(cp->f = fopen(cp->tmp, "w"))) {
            snprintf(err, errlen, "%s: cannot create: %s", cp->tmp, strerror(errno));
            free_capture(c);
            return SCN_EIO;
        }
        setvbuf(cp->f, NULL, _IOFBF, 1 << 16);
        uint32_t fh32[2] = {PCAP_MAGIC_NS, 2u | 4u << 16}; /* version 2.4 */
        uint32_t rest[4] = {0, 0, (uint32_t)cp->spec->snaplen + (c->ib ? ERF_HDR : 0),
                            c->ib ? LINKTYPE_ERF : LINKTYPE_ETHERNET};
        write_bytes(cp, fh32, sizeof fh32);
        write_bytes(cp, rest, sizeof rest);
        cp->bytes = PCAP_FILE_HDR;
    }
    net_set_tap(&r->net, tap, c);
    *ctx = c;
    return 0;
}

static int cap_finish(void *ctx, bool keep, char *err, size_t errlen)
{
    struct capture *c = ctx;
    int rc = 0;
    char t[32];
    for (uint32_t i = 0; i < c->n; i++) {
        struct cap_port *cp = &c->ports[i];
        if (!cp->f)
            continue;
        int bad = ferror(cp->f) ? (cp->err ? cp->err : EIO) : cp->err;
        if (fclose(cp->f) && !bad)
            bad = errno ? errno : EIO;
        cp->f = NULL;
        if (keep && !rc && bad) {
            snprintf(err, errlen, "%s: cannot write: %s", cp->tmp, strerror(bad));
            rc = SCN_EIO;
        }
        if (keep && !rc && rename(cp->tmp, cp->path)) {
            snprintf(err, errlen, "%s: cannot write: %s", cp->path, strerror(errno));
            rc = SCN_EIO;
        }
        unlink(cp->tmp);
    }
    if (rc) /* all or none */
        for (uint32_t i = 0; i < c->n; i++)
            unlink(c->ports[i].path);
    for (uint32_t i = 0; keep && !rc && i < c->n; i++) {
        const struct cap_port *cp = &c->ports[i];
        if (cp->full)
            fprintf(stderr, "rocesim: note: %s stops before %s with %llu frames: monitor.capture.%d.max_size "
                            "reached; raise it or narrow start and end\n",
                    cp->path, units_fmt_time(cp->full_at, t, sizeof t), (unsigned long long)cp->frames, cp->entry);
    }
    return rc;
}

/* capture_capped: the files max_size cut short (also said on stderr when they are made final). */
static void cap_summarize(void *ctx, cJSON *root)
{
    const struct capture *c = ctx;
    cJSON *capped = NULL;
    for (uint32_t i = 0; i < c->n; i++) {
        const struct cap_port *cp = &c->ports[i];
        if (!cp->full)
            continue;
        if (!capped)
            capped = cJSON_AddArrayToObject(root, "capture_capped");
        cJSON *o = cJSON_CreateObject();
        /* as the run's directory names it: from the last "capture/" of the path (the directory may hold one too) */
        const char *base = cp->path;
        for (const char *q = strstr(base, "capture/"); q; q = strstr(q + 1, "capture/"))
            base = q;
        cJSON_AddStringToObject(o, "file", base);
        cJSON_AddNumberToObject(o, "frames", (double)cp->frames);
        cJSON_AddNumberToObject(o, "from_ns", units_ps_to_ns(cp->full_at));
        cJSON_AddItemToArray(capped, o);
    }
}

static void cap_close(void *ctx, bool whole)
{
    (void)whole;
    struct capture *c = ctx;
    net_set_tap((struct net *)&c->r->net, NULL, NULL);
    free_capture(c);
}

/* It takes no callback: the network's tap brings its frames. */
static const struct run_observer_ops cap_watch = {.name = "capture"};

static const struct observer_ops capture_observer = {
    .watch = &cap_watch, .open = cap_open, .finish = cap_finish, .summarize = cap_summarize, .close = cap_close,
};

MODULE_REGISTER(observer_kind, "capture", &capture_observer);
