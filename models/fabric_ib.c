/*
 * fabric_ib — InfiniBand as the network's link layer (fabric.h), after the InfiniBand Architecture Specification
 * vol. 1 (InfiniBand Trade Association, release 1.4), chapters 5-7 (packets, link layer) and 9 (transport).
 *
 * A packet is its local route header, transport header, payload and two CRCs (section 7.8):
 *   data packet = LRH 8 + BTH 12 + payload + ICRC 4 + VCRC 2 = payload + 26 bytes   (no GRH: one subnet),
 *   ACK or NAK  = LRH 8 + BTH 12 + AETH 4 + ICRC 4 + VCRC 2 = 30 bytes,
 *   CNP         = LRH 8 + BTH 12 + 16 reserved + ICRC 4 + VCRC 2 = 42 bytes (modelled after RoCE v2's CNP,
 *                 which carries 16 reserved bytes after its BTH; congestion control's own packets come with it),
 * and the link adds a start and an end delimiter, one symbol each, around every packet (the 8b/10b framing of
 * SDR-QDR links; the model keeps it for the 64b/66b and PAM4 generations, whose block framing it does not
 * detail).  Flow-control packets are 6 bytes (models/credit.c).  Payloads (the path MTU) are 256, 512, 1024,
 * 2048 or 4096 bytes.
 *
 * Link rates are data rates after encoding: a 4x EDR link carries 100 Gb/s (4 lanes of 25.78125 Gb/s, 64b/66b),
 * HDR 200 and NDR 400 (PAM4 lanes of 53.125 and 106.25 Gb/s): a link's "rate" is that number.
 *
 * The transport is the reliable connection the RoCE NICs already run (IB's own: RoCE v2 carries IB's BTH and
 * AETH): PSNs, cumulative ACKs, a NAK for a sequence error and go-back-N (models/transport_gbn.c).  Every virtual
 * lane is lossless under credit-based link-level flow control (models/credit.c), which the fabric requires.
 */
#include "models/fabric.h"

static const uint16_t ib_mtus[] = {256, 512, 1024, 2048, 4096, 0};

static const struct fabric_ops ib_fabric = {
    .name = "infiniband",
    .fr = {.hdr_data = 26, .frame_ack = 30, .frame_cnp = 42, .wire = 2},
    .lfc = "credit",
    .mtus = ib_mtus,
};
MODULE_REGISTER(fabric_kind, "infiniband", &ib_fabric);
