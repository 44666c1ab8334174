/*
 * scenario — the validated, fully resolved form of a scenario JSON file.
 *
 * scn_load() reads a file, applies --set overrides, checks every field against
 * the format described in docs/scenario.md, fills in defaults (including the
 * modules' presets) and produces a struct scenario.  Every later stage reads only
 * this struct, never JSON.  Units are already converted: times in ps, sizes in
 * bytes, rates in bit/s, lengths in mm.
 *
 * Node names that only a topology generator knows (switch names in a pinned
 * `path` or a `link_down` fault) are kept as strings here and resolved when the
 * topology is built; host names are resolved here, because every topology
 * names its hosts in a way the loader can compute (h0..h{n-1}, or the custom
 * node list).
 */
#ifndef SIM_SCENARIO_H
#define SIM_SCENARIO_H

#include "sim/settings.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SCN_NPRIO 8
#define SCN_NAME_MAX 64

/* One direction's worth of link parameters (links are symmetric). */
struct scn_link {
    int64_t rate_bps;
    int64_t delay_ps;  /* propagation delay; derived from length when given */
    int64_t length_mm; /* 0 when the delay was given directly */
    double loss_rate;  /* probability that a frame is corrupted on the wire (each direction), in [0, 1) */
};

enum scn_node_kind { SCN_NODE_HOST, SCN_NODE_SWITCH };

struct cJSON;

/*
 * The size of the network a topology describes, from its settings alone (nothing built): what a topology's size
 * hook counts, for the memory estimate before building (memest_topology below, tools/run/limits.h) and the loader's refusal
 * of oversized topologies.
 */
struct memest_counts {
    double hosts, switches, links;
    double columns;       /* routing table columns: distinct attachment switches (topologies/routing.c) */
    double routing_bytes; /* nodes x columns x 4 B, plus the per-host lookup arrays */
};

/* routing_bytes of counts c, whose other fields are filled. */
static inline double memest_routing_bytes(const struct memest_counts *c)
{
    return (c->hosts + c->switches) * c->columns * 4 + c->hosts * 12;
}

/*
 * What sim/ asks of a topology: the first member of the table a topology module fills (struct topo_ops,
 * topologies/topo.h), so that the loader, the dump and the memory estimate reach the module through the registry
 * (kind "topology", sim/module.h) without knowing any topology by name.
 */
struct scn_topo_hooks {
    size_t cfg_size; /* the module's own settings struct, which the loader allocates zeroed and frees */
    /* Reads the topology object obj at path (its "type" already read) into cfg: the field check (knowing "type"),
     * the fields, the defaults.  *hosts: how many hosts the shape has (saturating), *formula: how they were
     * counted, for the messages on the network's size (" (left + right)", or "").  0, or -1 with the error. */
    int (*parse)(struct setting_ctx *c, const struct cJSON *obj, const char *path, void *cfg, int64_t *hosts,
                 const char **formula);
    /* Adds the fields other than "type" to obj, as `rocesim check` shows them (they must load back the same). */
    void (*dump)(const void *cfg, struct cJSON *obj);
    /* Frees what parse allocated inside cfg (not cfg itself).  May be NULL. */
    void (*release)(void *cfg);
    /* Size of the network before it is built (struct memest_counts): counts into out (hosts already there). */
    void (*size)(const void *cfg, double hosts, struct memest_counts *out);
    /* The rate (bit/s) of each host's one link into rate[0 .. n_hosts). */
    void (*host_rates)(const void *cfg, int n_hosts, double *rate);
    /*
     * Topologies whose node names are known before the network is built (custom lists them, rail makes them
     * up) say so with these, so that the loader checks the names a pinned path or a fault gives; NULL: hosts
     * are h0..h{n-1} and other names are known only once the topology is built.  host_node: host i's node;
     * node_index: the node called name, or -1; node_name: node i's name, which lives as long as cfg;
     * names_hint: where messages send the reader for the names ("topology.nodes").
     */
    int (*host_node)(const void *cfg, int i);
    int (*node_index)(const void *cfg, const char *name);
    const char *(*node_name)(const void *cfg, int i);
    bool (*linked)(const void *cfg, int a, int b);
    void (*names_hint)(const void *cfg, char *buf, size_t len);
};

struct scn_topology {
    int type;  /* the index of a module of kind "topology" (sim/module.h): topology.type */
    void *cfg; /* its settings, in the module's own struct (struct scn_topo_hooks.cfg_size bytes) */
    /* derived: number of hosts */
    int n_hosts;
    /*
     * Derived by the loader (added for scn_host_name / scn_host_index):
     * host_names[i] is host i's name, pointing into host_names_buf (generated
     * names) or into the module's settings (listed names); host_by_name lists
     * the host indices sorted by name (listed names only) for a binary search.
     */
    const char **host_names;
    char *host_names_buf;
    int *host_by_name;
};

/*
 * A setting given by port speed: {"25Gbps": "100KB", "100Gbps": "400KB"} (docs/scenario.md, "Settings by port
 * speed").  n == 0: the field's single value applies at every rate.  Resolved per port when the network is built
 * (scn_rate_value); kept small and bounded so that a module's settings struct that holds one stays a flat value
 * that can be copied and compared (the store shares equal values, sim/settings.h).
 */
#define SCN_RATE_MAP_MAX 8
struct scn_rate_map {
    uint8_t n;
    bool linear;            /* "scale": "linear": a rate with no entry scales the nearest entry by the rate ratio */
    int16_t profile;        /* where the map was given: -1 the global switch object, else the profile's index */
    int64_t rate[SCN_RATE_MAP_MAX];
    double val[SCN_RATE_MAP_MAX]; /* bytes for sizes */
};

/*
 * The value of a setting at a port of rate_bps: the scalar when the map is empty, the map's entry for that rate,
 * or (linear) the nearest entry's scaled by the rate ratio (sizes only: a fraction or probability keeps the
 * nearest entry's value).  Returns false when the map has no entry for the rate and does not scale.
 */
bool scn_rate_value(const struct scn_rate_map *m, double scalar, int64_t rate_bps, bool is_size, double *out);

/*
 * For a module's settings table (sim/settings.h) whose fields take a map by port speed.  scn_parse_rate_map reads
 * the object v at path p into m: keys are rates, values what field f takes (sizes when is_size, else numbers in
 * f's bounds), and "scale": "linear" or "none"; m->profile says where it was given (the profile's index when p
 * lies in "profiles.N.", else -1).  scn_dump_rate_map adds m to obj as name, as the dump writes maps.
 */
int scn_parse_rate_map(struct setting_ctx *c, const struct setting *f, const struct cJSON *v, const char *p,
                       bool is_size, struct scn_rate_map *m);
void scn_dump_rate_map(struct cJSON *obj, const char *name, const struct scn_rate_map *m, bool is_size);
/*
 * A SETTING_SIZE or SETTING_NUMBER field that takes one value or a map by port speed, its map `map_off` bytes into
 * the group's struct: parse and dump hooks, which SCN_VALUE_OR_MAP wraps for a table entry.  With a map, the scalar
 * is 0; with a value, the map is empty.
 */
int scn_parse_value_or_map(struct setting_ctx *c, const struct setting *f, const struct cJSON *v, const char *p,
                           void *base, size_t map_off);
void scn_dump_value_or_map(struct cJSON *obj, const struct setting *f, const void *base, size_t map_off);
/* Defines parse_NAME and dump_NAME, the hooks of a field of struct `type_` whose map is its member map_. */
#define SCN_VALUE_OR_MAP(name_, type_, map_)                                                                       \
    static int parse_##name_(struct setting_ctx *c_, const struct setting *f_, const struct cJSON *v_,            \
                             const char *p_, void *base_)                                                         \
    {                                                                                                              \
        return scn_parse_value_or_map(c_, f_, v_, p_, base_, offsetof(type_, map_));                               \
    }                                                                                                              \
    static void dump_##name_(struct cJSON *o_, const struct setting *f_, const void *base_)                        \
    {                                                                                                              \
        scn_dump_value_or_map(o_, f_, base_, offsetof(type_, map_));                                               \
    }

/*
 * The switch object: every field is a module's.  Its mechanisms (switch.pfc, switch.ecn, switch.scheduler,
 * switch.watchdog) are module groups, each in its own struct, read with its accessor (pfc_settings_of(), ...);
 * its own fields are the modules' flat groups (sim/settings.h): buffer, lossy_queue_limit, cell_size and mtu
 * models/switch.h's, flow_control models/lfc.h's, deadlock_check models/deadlock.h's.
 */
struct scn_switch {
    /* The values of the modules' groups (with a size, read with SETTINGS_OF): pointers into the scenario's store,
     * so a copy of the struct is a copy of the settings, and equal settings of one scenario compare equal with
     * memcmp (models/profiles.c shares them). */
    struct setting_mods mods;
};

/*
 * The host object: every field is a module's (the NIC's models/nic.h, the congestion control's models/cc.h and
 * each algorithm's, the transport's models/transport.h), read with its accessor.
 */
struct scn_host {
    struct setting_mods mods; /* as struct scn_switch's */
};

/* Whether a and b are the same settings (of one scenario or of two). */
bool scn_host_equal(const struct scn_host *a, const struct scn_host *b);

/*
 * The data priority of hosts with settings h: sim/ does not know it (a module owns host.priority, models/nic.h),
 * so that module sets this before main.  The loader gives a traffic entry without a priority the global host's.
 */
extern int (*scn_host_priority)(const struct scn_host *h);
/* Whether scenario s's fabric classes traffic by service level, so that it has no priorities to dump (models/fabric.c
 * sets it, as scn_host_priority); NULL: it does not. */
struct scenario;
extern bool (*scn_service_levels)(const struct scenario *s);

/* A resolved host selector: host indices, in the order the user gave them. */
struct scn_hostset {
    int n;
    int *idx;
};

/* A pinned route: node names from the source host to the destination host. */
struct scn_route {
    int n;
    char (*node)[SCN_NAME_MAX];
};

/*
 * A traffic entry.  Its kind is a module of kind "traffic" (models/traffic.h), which owns the entry's own
 * fields: their table is the module's settings group, their values a struct of the group's size (conf).  The
 * loader reads here only what every entry has.
 */
struct scn_traffic {
    int type;              /* the kind: a module of kind "traffic", by index */
    char id[SCN_NAME_MAX]; /* the entry's id, or "t{i}" */
    bool id_given;
    int priority;          /* resolved: the entry's, else the global host.priority (scn_host_priority) */
    bool priority_given;   /* else the sender's host.priority, which a host profile may set, applies */
    int sl;                /* an InfiniBand fabric's service level 0..15 (its VL: models/fabric_ib.c), or -1: none */
    int64_t start_ps;
    bool start_given;      /* the entry spelled its start out */
    const void *conf;      /* the kind's fields (read with TRAFFIC_CONF, models/traffic.h); in the scenario's store */
};

/*
 * What the loader asks of a traffic kind: the first member of the kind's table of hooks (struct traffic_ops,
 * models/traffic.h), so that sim/ can ask it without knowing the kinds.
 */
struct scn_traffic_ops {
    /* How many flows "ID.J" entry t names: J below it; 0 when it names only the flow "ID" (a single flow); -1 when
     * any J may name one (a generator whose count is known only at run time). */
    long (*numbered)(const struct scn_traffic *t);
    /* Whether entry t starts when another model says so rather than at its start (a flow waiting on a trigger,
     * models/trigger.h): its dump then has no start.  May be NULL: never. */
    bool (*untimed)(const struct scn_traffic *t);
};

/* The hooks of entry t's kind. */
const struct scn_traffic_ops *scn_traffic_ops(const struct scn_traffic *t);
/* The name of entry t's kind ("flow"), or "?". */
const char *scn_traffic_kind_name(const struct scn_traffic *t);

/*
 * For a traffic kind's settings table (models/traffic_*.c), whose fields the loader parses with the entry's
 * context: the scenario and the entry being loaded (only within a custom parse or check hook), the scenario
 * being dumped (only within a dump hook), values that live as long as the scenario, and the custom fields every
 * kind may take: a host (an int index; table entry with SCN_HOST_FIELD), a host selector (a struct scn_hostset,
 * at least `lo` hosts; absent: every host, when the field has SETTING_ALWAYS) and a route (a struct scn_route from
 * src to dst, which the kind's own parse hook checks with scn_val_route).
 */
const struct scenario *scn_loading(const struct setting_ctx *c);
const struct scn_traffic *scn_loading_traffic(const struct setting_ctx *c);
const struct scenario *scn_dumping(void);
/* Dumps group g's values at base (a switch's or host's settings, say) as part of scenario s: the dump hooks see s
 * (scn_dumping), as in scn_to_json. */
void scn_dump_group(const struct scenario *s, const struct setting_group *g, const void *base, struct cJSON *obj);
void *scn_keep(struct setting_ctx *c, size_t size);
int scn_parse_host(struct setting_ctx *c, const struct setting *f, const struct cJSON *v, const char *path,
                   void *base);
void scn_dump_host(struct cJSON *obj, const struct setting *f, const void *base);
int scn_parse_hostset(struct setting_ctx *c, const struct setting *f, const struct cJSON *v, const char *path,
                      void *base);
void scn_dump_hostset(struct cJSON *obj, const struct setting *f, const void *base);
int scn_val_route(struct setting_ctx *c, const struct cJSON *v, const char *path, int src, int dst,
                  struct scn_route *out);
void scn_dump_route(struct cJSON *obj, const struct setting *f, const void *base);

/*
 * A fault.  Its kind is a module of kind "fault" (models/fault.h), which owns every field but `type`: their table
 * is the module's settings group, their values a struct of the group's size (conf, read with FAULT_CONF).
 */
struct scn_fault {
    int type;         /* the kind: a module of kind "fault", by index */
    const void *conf; /* in the scenario's store */
};

/* The name of fault f's kind ("link_down"), or "?". */
const char *scn_fault_kind_name(const struct scn_fault *f);

/* For a fault kind's table: two different node names (char [2][SCN_NAME_MAX]), linked when the topology is custom
 * (else checked when the network is built). */
int scn_parse_link_ends(struct setting_ctx *c, const struct setting *f, const struct cJSON *v, const char *path,
                        void *base);
void scn_dump_link_ends(struct cJSON *obj, const struct setting *f, const void *base);

/*
 * A profile: a partial `switch` or `host` object applied, in the order of the profiles, over the global one to
 * the nodes (or, for a switch profile, the ports "node:port") its selectors match.  The selectors name nodes
 * that exist only once the topology is built: models/profiles.c resolves them.  The loader checks the partial object
 * by parsing it over a copy of the global one; the object is kept as JSON text and parsed again, over each
 * node's settings, by scn_profile_apply.
 */
enum scn_profile_kind { SCN_PROFILE_SWITCH, SCN_PROFILE_HOST };
struct scn_profile {
    enum scn_profile_kind kind;
    bool ports;                        /* its selectors are "node:port": only per-port fields are allowed */
    bool match_array;                  /* "match" was given as an array (for the dump) */
    int n_match;
    char (*match)[2 * SCN_NAME_MAX];
    char *json;                        /* the partial object, unformatted */
};

struct scenario {
    char file[256];            /* as given on the command line, for messages */
    char name[SCN_NAME_MAX];
    char *description;
    uint64_t seed;
    int64_t stop_ps;
    struct scn_topology topo;
    struct scn_switch sw;
    struct scn_host host;
    int n_profiles;
    struct scn_profile *profiles;
    int n_traffic;
    struct scn_traffic *traffic;
    int n_faults;
    struct scn_fault *faults;
    /* The values of the module groups at the top level (the monitor's, tools/run/monitor.h), by slot. */
    struct setting_mods mods;
    struct settings_store *store; /* the values of the modules' settings groups (sim/settings.h) */
};

/* A --set PATH=VALUE override, as given on the command line. */
struct scn_override {
    const char *path;
    const char *value;
};

/*
 * Loads and validates a scenario.  Returns SCN_OK and fills *out, or returns
 * SCN_EUSAGE (bad scenario or override) / SCN_EIO (unreadable file) and writes
 * one line "FILE: JSON.PATH: expected ..., got ..." into err.  On failure *out
 * holds nothing that needs freeing.
 */
int scn_load(const char *file, const struct scn_override *ov, int n_ov,
             struct scenario *out, char *err, size_t errlen);

/* Same, from JSON text already in memory; `file` is only used in messages. */
int scn_load_text(const char *file, const char *text, const struct scn_override *ov, int n_ov,
                  struct scenario *out, char *err, size_t errlen);

void scn_free(struct scenario *s);

/*
 * Parses profile i's partial object over *base, a struct scn_switch or struct scn_host as its kind says (the
 * node's settings so far).  0, or SCN_EUSAGE with "FILE: profiles.I.PATH: expected ..." in err (a value that
 * passed the loader's check over the global settings may still fail over another node's, e.g. a kmax below
 * that node's kmin).
 */
int scn_profile_apply(const struct scenario *s, int i, void *base, char *err, size_t errlen);
/* Parses the partial object json (a `switch` or `host` object, as group names it) over *base, as a profile's:
 * what a built-in set of settings (a server's inside, topologies/server.c) is applied with; path names it in
 * messages.  0, or SCN_EUSAGE / SCN_EIO with the message in err. */
int scn_partial_apply(const struct scenario *s, const char *group, const char *json, const char *path, void *base,
                      char *err, size_t errlen);

/*
 * Whether the node name matches selector sel: "all", the name itself, a range "leaf0-leaf3" (a common prefix
 * and numbers, both ends included), or a glob where only '*' is special.
 */
bool scn_name_match(const char *sel, const char *name);

/*
 * Whether selector sel can match no node but the one of its own name: not "all", no '*' and no range, as
 * scn_name_match reads them (a name like "leaf0-leaf3" is a range).
 */
bool scn_sel_is_one_node(const char *sel);

/* Whether s is a non-empty run of decimal digits (a port number, the J of a flow "ID.J"). */
bool scn_all_digits(const char *s);

/* Glob match where only '*' is special (node names may hold any other character). */
bool scn_glob_match(const char *pat, const char *s);

/*
 * Whether id names a flow of s: a traffic entry's id, or "ID.J" for flow J of an entry whose kind numbers its flows
 * (J below the count it knows up front, if any).  For a settings table that names flows (monitor.flows), once the
 * traffic is loaded (scn_loading gives s).
 */
bool scn_flow_id_exists(const struct scenario *s, const char *id);

/*
 * Reads a name that ends up in CSV files and messages at path into out: a string of 1 to SCN_NAME_MAX - 1 bytes
 * without whitespace, control characters, quotes, commas or the characters of also_forbidden; `what` names it in
 * the message ("a flow id").  0, or -1 with the error written.
 */
int scn_val_name(struct setting_ctx *c, const struct cJSON *v, const char *path, const char *what,
                 const char *also_forbidden, char out[SCN_NAME_MAX]);

/*
 * Whether the flow named by the len bytes at name comes from the traffic entry whose id is entry: the entry's own
 * flow, or one its generator numbered ("ENTRY.J", and whatever follows).  The rule monitor.flows, a flow set's
 * traffic filter and the rate plot's order share.
 */
bool scn_flow_of_entry(const char *name, size_t len, const char *entry);

/*
 * A copy of JSON text with // and block comments replaced by spaces (newlines
 * kept, so line:column positions stay right).  An unclosed block comment
 * blanks the rest and its offset goes to *unclosed_at (else SIZE_MAX).
 * Returns NULL when out of memory.
 */
char *scn_strip_comments(const char *text, size_t *unclosed_at);

/*
 * Parses JSON text whose comments are blanked (scn_strip_comments), as the
 * loader does, for every JSON file rocesim reads as input (scenario, sweep).
 * Returns the tree (cJSON_Delete it), or NULL with one line in err:
 * "FILE:LINE:COL: expected valid JSON, got ..." for a syntax error or nesting
 * deeper than cJSON's limit, "FILE: PATH: expected UTF-8 text, got ..." for a
 * key or string that is not UTF-8, or one holding the escape \u0000.
 */
struct cJSON *scn_parse_json(const char *file, const char *text, char *err, size_t errlen);

/*
 * Seeds are 64-bit unsigned integers, read exactly: from JSON (the scenario, --set seed=, sweep and tune files)
 * and from --seed.  cJSON reads numbers as doubles, exact only up to 2^53, so the parsers above keep the text of
 * every larger number (scn_json_seed reads it); a seed that is not a whole number from 0 to 2^64 - 1, written
 * as one, is refused, never rounded.  Outputs print seeds as digits, never through a double.
 */
#define SCN_SEED_MAX_TEXT "18446744073709551615"
/* Reads s[0..n), decimal digits and nothing else, as a seed: 0, or -1 when it is not one or exceeds 2^64 - 1. */
int scn_seed_parse(const char *s, size_t n, uint64_t *out);
/* Reads a JSON value read by scn_parse_json or the loader as a seed: 0, or -1 when it is not one. */
int scn_json_seed(const struct cJSON *v, uint64_t *out);

/*
 * Registers the settings tables of the scenario's own objects (sim/settings.h) where no module registered a
 * group of the same path first.  The loader and scn_to_json call it; callers of settings_* (the sweep's path
 * check, the docs test) call it before them.  Idempotent.
 */
void scn_register_settings(void);

/* The resolved scenario (defaults filled in) as pretty-printed JSON; caller frees. */
char *scn_to_json(const struct scenario *s);

/* Host name for index i ("h3", or the custom node's name). */
const char *scn_host_name(const struct scenario *s, int i);

/* A name and the index of what it names, sorted by scn_cmp_named (by name, then by index, so that of equal names
 * the first comes first: duplicates are found next to each other and reported at the first).  qsort passes no
 * context, and scenarios may be loaded on several threads at once, so the names travel with the indices. */
struct scn_named {
    const char *name;
    int idx;
};
int scn_cmp_named(const void *a, const void *b);

/* Host index for a name, or -1. */
int scn_host_index(const struct scenario *s, const char *name);

/* ---- For topology modules (topologies/): the readers every shape shares, so that their messages read alike ---- */

#define SCN_MAX_HOSTS 1000000
#define SCN_MAX_COUNT 1000000 /* any single count in a topology */

/* Reads rate and delay|length (and loss_rate) of link object o at path, whose other fields were already checked. */
int scn_topo_link_fields(struct setting_ctx *c, const struct cJSON *o, const char *path, struct scn_link *l);
/* Reads the link object obj.key if present; *given says whether it was. */
int scn_topo_link(struct setting_ctx *c, const struct cJSON *obj, const char *ppath, const char *key,
                  struct scn_link *l, bool *given);
/* Reads the link obj.key, which must be given unless have_default (then *dflt, the object's "link", stands in). */
int scn_topo_need_link(struct setting_ctx *c, const struct cJSON *obj, const char *ppath, const char *key,
                       bool have_default, const struct scn_link *dflt, struct scn_link *l);
/*
 * Table entries for a topology's settings (sim/settings.h), which its parse hook reads with settings_parse()
 * and its dump hook writes with settings_dump(): a count is a SET_INT with SETTING_REQUIRED and `what` "an
 * integer of at least N"; a link is SET_TOPO_LINK, a custom entry that reads a link object into a struct
 * scn_link member.  A tier's link that falls back to the object's "link" is a custom entry whose parse hook
 * (SETTING_ALWAYS) calls scn_topo_link_class with that link.
 */
#define SCN_TOPO_LINK_WHAT "a link like {\"rate\": \"100Gbps\", \"delay\": \"1us\"}"
setting_parse_fn scn_topo_link_parse;
setting_dump_fn scn_topo_link_dump;
int scn_topo_link_class(struct setting_ctx *c, const struct setting *f, const struct cJSON *v, const char *p,
                        void *base, const struct scn_link *fallback);
#define SET_TOPO_LINK(name_, type_, member_, flags_, help_) \
    SET_TOPO_LINK_HOOKS(name_, type_, member_, flags_, scn_topo_link_parse, scn_topo_link_dump, help_)
/* The same with hooks of its own (a tier's link with a fallback; dump_ NULL: left out of the dump). */
#define SET_TOPO_LINK_HOOKS(name_, type_, member_, flags_, parse_, dump_, help_)                                  \
    .name = name_, .kind = SETTING_CUSTOM,                                                                        \
    .offset = offsetof(type_, member_) + 0 * sizeof(struct {                                                      \
        _Static_assert(_Generic(((type_ *)0)->member_, struct scn_link: 1, default: 0),                           \
                       "a link setting needs a struct scn_link member");                                         \
        int checked_;                                                                                             \
    }),                                                                                                           \
    .flags = flags_, .what = SCN_TOPO_LINK_WHAT, .help = help_, .parse = parse_, .dump = dump_
/* The entry "type" every topology's table starts with, so that the field check knows it (the loader reads it). */
setting_parse_fn scn_topo_type_parse;
#define SET_TOPO_TYPE .name = "type", .kind = SETTING_CUSTOM, .help = "The topology module", .parse = scn_topo_type_parse

/* Reads the required count obj.key in [lo, SCN_MAX_COUNT]. */
int scn_topo_count(struct setting_ctx *c, const struct cJSON *obj, const char *ppath, const char *key, int lo,
                   int *out);
/* Reads a node name (the rules of every name that reaches CSV files, and no ':' or '*', which selectors use). */
int scn_topo_name_field(struct setting_ctx *c, const struct cJSON *v, const char *path, char out[SCN_NAME_MAX]);
/* Adds link l as obj.key (into obj itself when key is NULL) as the dump writes links. */
void scn_topo_dump_link(struct cJSON *obj, const char *key, const struct scn_link *l);
/* a x b, saturating at INT64_MAX (host counts of absurd shapes are refused, not wrapped). */
int64_t scn_mul_sat(int64_t a, int64_t b);

/* The hooks of s's topology module (never NULL once loaded). */
const struct scn_topo_hooks *scn_topo_hooks(const struct scenario *s);

/* Counts for s's topology (its module's size hook, which fills switches, links and columns) with `hosts` hosts
 * (s->topo.n_hosts may not be set yet).  Never fails. */
struct memest_counts memest_topology(const struct scenario *s, double hosts);

/*
 * The link rate (bit/s) of every host of a loaded topology into rate[0 .. s->topo.n_hosts): the rate a poisson
 * load is a fraction of (a host has one link).  mem_oom (sim/mem.h) when out of memory.
 */
void memest_host_rates(const struct scenario *s, double *rate);

/* The name of s's topology module, as topology.type gives it ("fat-tree"), or "?". */
const char *scn_topo_name(const struct scenario *s);

/*
 * The offset of the first byte of s that does not begin a well-formed UTF-8 sequence (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or -1 when s is all UTF-8: the rule of every string the loader
 * reads, for names that reach a scenario by another way (`import sonic --ports`).
 */
long scn_utf8_bad_at(const char *s);

/* Replaces each byte of s that begins no well-formed UTF-8 sequence (scn_utf8_bad_at) by '?': text that goes into a
 * scenario from elsewhere (a file name on a command line, in another encoding) is then UTF-8 as the loader wants. */
void scn_utf8_clean(char *s);

/*
 * Makes name (a file's name, cut to SCN_NAME_MAX - 1 bytes by the caller) one the loader takes as a scenario's
 * "name", which becomes a directory's: UTF-8 (scn_utf8_clean), each control character and backslash '_', and a
 * name left empty, "." or ".." is fallback.  The default name from the scenario's file and the importers' names
 * from theirs.
 */
void scn_name_clean(char *name, size_t len, const char *fallback);


#endif
