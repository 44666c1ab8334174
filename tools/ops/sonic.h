/*
 * sonic — a switch's settings in SONiC's config_db.json, in and out (docs/sonic.md).
 *
 * `rocesim import sonic CONFIG_DB.json [--ports MAP]` reads SONiC's QoS tables (BUFFER_POOL, BUFFER_PROFILE,
 * BUFFER_PG, PORT_QOS_MAP, WRED_PROFILE, QUEUE, SCHEDULER, PFC_WD) and prints the `switch` object of a scenario,
 * with `profiles` for the ports that differ, and the list of what it did not model.  Values are checked against
 * the ranges of SONiC's YANG models (sonic-buildimage src/sonic-yang-models: sonic-pfcwd.yang,
 * sonic-scheduler.yang, sonic-wred-profile.yang, sonic-buffer-profile.yang, sonic-buffer-pool.yang,
 * sonic-port-qos-map.yang, sonic-buffer-pg.yang, sonic-queue.yang).
 *
 * `rocesim switch-config [SCENARIO] [--set ...] [--from best.json] --format sonic [--node NAME]` writes the same
 * tables for one switch of a built scenario; what SONiC cannot express is listed on stderr.
 */
#ifndef TOOLS_SONIC_H
#define TOOLS_SONIC_H

#include <stddef.h>
#include <stdint.h>

struct cJSON;
struct run;
struct sbuf;

/*
 * Converts config_db.json text (`file` names it in messages), read as the scenario loader reads JSON
 * (scn_parse_json: nothing after the object; each key once).  ports_map is "Ethernet0=tor0:0,..." (checked as
 * sonic_ports_check does) or NULL (the ports are then named "SWITCH:<SONiC name>", to be renamed).  On success
 * returns 0 and *out is {"switch": {...}, "profiles": [...], "not_modelled": [...]} (caller deletes), with one line
 * per item not modelled and per default taken appended to notes (when not NULL).  Else returns 2 with one line
 * "FILE: KEY.PATH: expected ..., got ..." (or "--ports: ...") in err; a file with no entry in any QoS table is
 * refused.
 */
int sonic_import_text(const char *file, const char *text, const char *ports_map, struct cJSON **out,
                      struct sbuf *notes, char *err, size_t errlen);

/*
 * Checks a --ports map ("Ethernet0=tor0:0,..."): each pair a SONiC port name without wildcards, one node's name and a
 * port number 0..99999, no SONiC port or rocesim port twice.  Returns 0, or 2 with "--ports: expected ..." in err.
 * (The node and its port are checked against the topology when a scenario with the import's profiles is built.)
 */
int sonic_ports_check(const char *ports_map, char *err, size_t errlen);

/*
 * The config_db.json tables of switch sw_index (an index into r->net.sws) of a built run; its ports are named
 * Ethernet0, Ethernet4, ... (port j is Ethernet<4j>).  What SONiC cannot express is appended to notes, one line
 * each.  Returns the object (caller deletes).
 */
struct cJSON *sonic_export(const struct run *r, uint32_t sw_index, struct sbuf *notes);

/* `rocesim import sonic ...` (argv[1] "import"); returns the exit status: 0, 2 bad usage or input, 3 unreadable. */
int sonic_import_main(int argc, char **argv);

/* `rocesim switch-config ...` (argv[1] "switch-config"); returns the exit status. */
int sonic_export_main(int argc, char **argv);

#endif
