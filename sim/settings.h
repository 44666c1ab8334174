/*
 * settings — each scenario setting declared once.
 *
 * A setting is one entry of a table: its name within its JSON object, the kind of value it takes (a time,
 * size, rate or length with a unit, a number, an integer, a boolean, one of a list of strings), its bounds,
 * its default, a line of help and where its value lives in the resolved struct.  One table per JSON object
 * (a "group": `switch.ecn`, `host`, ...) drives every place that used to spell the setting out again:
 * the loader (type and range checks, the unknown-field check and its list of fields), the defaults, the
 * presets, `rocesim check`'s dump (scn_to_json), the sweep's check of grid paths, and the test that compares
 * the tables with docs/scenario.md.
 *
 * Parts that are no flat object of scalars (topology shapes, traffic entries, faults, custom links) keep
 * hand-written parsing; a table entry of kind SETTING_CUSTOM stands for them, so that the object that holds
 * them still knows their name, their place in the dump and their docs.
 *
 * Registering a group.  Groups live in a registry keyed by their dotted path; the loader looks a group up
 * when it meets its object.  sim/scenario.c registers the scenario's own objects (the top level, `switch`,
 * `host`) on first use.  A module of a higher floor (a congestion control or a switch mechanism in models/, an
 * observer in tools/, say) declares its own table and group, with its presets, and names the group on its
 * MODULE_REGISTER line (sim/module.h), or, when no module of a kind owns it (the NIC's, the switch's own
 * fields), on a SETTINGS_REGISTER line; the registry hears of each module as it registers (module_listen) and
 * takes its groups with settings_register(&its_group), before any scenario is loaded: a group registered under a path that is already taken replaces the one there, and a group
 * whose path its parent's table does not name becomes a member of the parent object after the parent's own
 * fields, in registration order (for modules, their numbering: not the link order), unless it names (`after`) the
 * member of the parent it follows.  sim/ includes nothing of models/: the registry is how the higher floor hands its fields down.
 *
 * Where a group's values live.  A group of sim/ has a struct inside its
 * parent's, at `offset`.  A module's group declares instead the size of its own struct (`size`); sim/ cannot
 * name that type, so its values live in the scenario's store (struct settings_store) and the parent's struct
 * holds a pointer to them in its struct setting_mods (the parent group's `mods`), one slot per module group,
 * given out by settings_register.  Stored values are never written again: a parse or a preset writes a new
 * value, and an identical value is stored once.  So a parent struct stays a plain value that is copied with =
 * or memcpy (profiles resolve a host by copying the global one), copies never see each other's changes, and
 * two copies with equal settings compare equal with memcmp (models/profiles.c shares equal host settings).  The
 * module reads its struct with SETTINGS_OF, once per flow at set-up.
 *
 * Flat groups.  A module's settings need not be an object of their own: a flat group's fields are members of its
 * PARENT's object, as if the parent's table listed them (`host.mtu`, read by the NIC, `host.rto`, by the
 * transport).  Its path is the parent's, a '/', and a name of its own that no JSON path spells ("host/nic"): a
 * '.'-separated path never reaches it, so it is never mistaken for a member, and its fields are found (--set,
 * a sweep's or tune's path, settings_field, profiles) by their object's path, "host.mtu".  Otherwise it is a
 * module group like the others: its values are its own struct in the store, read with SETTINGS_OF through the
 * parent struct's `mods` (or, without a size, a struct at `offset` in the parent's), with defaults and presets
 * (its preset key is then a member of the parent's object).  Its fields stand where its `after` names (any
 * member of the object: a field of the parent's table or of another flat group, or a group), else after the
 * parent's own fields; groups may in turn follow its fields.  So the members of an object are, in order: the
 * parent's table, each field followed by what names it (`after`); then, in registration order, the flat groups
 * that name nothing, then the other groups that name nothing, each followed by what names it; then those whose
 * `after` is not there.  The parse (with its unknown-field check and list), the
 * defaults, the dump and docs/scenario.md follow that one order.  A registration that would give an object two
 * members of one name is refused.
 */
#ifndef SIM_SETTINGS_H
#define SIM_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cJSON;

#define SETTING_PATH_MAX 256

/* ---- What every check of an input reports (the scenario loader, the tables, the file reader, the CLI) ---- */

/* The longest error message, one line. */
#define SCN_ERR_MAX 512

/* Return codes shared by the loader and the CLI: they are the exit statuses. */
enum scn_status { SCN_OK = 0, SCN_EUSAGE = 2, SCN_EIO = 3 };

/*
 * Makes an error message one printable line in place: control characters become '?'.  Messages quote the
 * user's keys and values, which may hold newlines or escapes (found by fuzzing, tests/fuzz/regressions/).
 */
void scn_one_line(char *msg);

/* The most module groups (settings_register with a size, not per_entry) registered at once. */
#define SETTING_MODS_MAX 48

/* A parent struct's pointers to its module groups' values, by slot; NULL until the loader sets its defaults. */
struct setting_mods {
    const void *of[SETTING_MODS_MAX];
};

/* Where a scenario keeps its module groups' values (see above); one per scenario, freed with it. */
struct settings_store;
struct settings_store *settings_store_new(void);
void settings_store_free(struct settings_store *st);
/* size zeroed bytes that live as long as the store (a traffic entry's fields and what they hold); NULL when memory
 * runs out. */
void *settings_store_alloc(struct settings_store *st, size_t size);

/* Loader state every check reports through; the scenario loader extends it (first member). */
struct setting_ctx {
    struct settings_store *store;       /* where values of module groups parsed now go */
    const char *file;
    char *err;
    size_t errlen;
    int status;                         /* SCN_EUSAGE, or SCN_EIO for out-of-memory */
    bool in_override;                   /* errors now are about the override being applied */
    char (*ovpath)[SETTING_PATH_MAX];   /* normalized paths of the overrides, for "(from --set)" */
    int n_ov;
};

enum setting_kind {
    SETTING_TIME,   /* int64_t ps, from a string like "1.5us" */
    SETTING_SIZE,   /* int64_t bytes */
    SETTING_RATE,   /* int64_t bit/s */
    SETTING_LENGTH, /* int64_t mm */
    SETTING_NUMBER, /* double in [lo, hi] (bounds open with SETTING_LO_OPEN / SETTING_HI_OPEN) */
    SETTING_INT,    /* int in [lo, hi]; hi >= INT_MAX means unbounded */
    SETTING_BOOL,   /* bool */
    SETTING_ENUM,   /* int (an enum): the index of the string in `names` */
    SETTING_GROUP,  /* an object with a table of its own, registered under PARENT.NAME */
    SETTING_CUSTOM, /* hand-written: `parse` and `dump` do the work */
    SETTING_CHECK,  /* no field: `check` runs at this point of the parse (a rule across fields) */
    SETTING_MODULE, /* int: the index of a registered module of kind `module_kind` (sim/module.h), named by its name */
};

enum {
    SETTING_POSITIVE = 1 << 0, /* quantities: > 0 */
    SETTING_LO_OPEN = 1 << 1,  /* numbers: lo itself is out of range */
    SETTING_HI_OPEN = 1 << 2,
    SETTING_REQUIRED = 1 << 3, /* the object must have it; `what` says what is expected */
    SETTING_ALWAYS = 1 << 4,   /* `parse` runs also when the field is absent (v NULL), to say what is missing */
    /* A switch setting its module resolves per port (into struct port_cfg, models/profiles.c): the fields a profile
     * that matches ports ("node:port") may set; the loader builds that check and its message from the flags. */
    SETTING_PORT = 1 << 5,
    /* A switch setting of the whole fabric (the PAUSE time, the deadlock detector's period): only the global switch
     * object may set it, a switch profile not (a switch of its own would be ignored); a group's `fabric` says it of
     * every field of its object.  The loader builds that check from the flags. */
    SETTING_FABRIC = 1 << 6,
    /* A traffic class as a priority (host.priority, cnp_priority, ack_priority): a fabric whose traffic goes by
     * service level instead (InfiniBand) refuses it and its dump leaves it out (setting_classes_hidden). */
    SETTING_CLASS = 1 << 7,
};

/* Whether the dump leaves the SETTING_CLASS fields out (the object being dumped is of a fabric without
 * priorities); NULL: never.  models/fabric.c sets it before main, as sim/ knows no fabric. */
extern bool (*setting_classes_hidden)(void);
/* Whether the dump leaves out the member (object or field) at a dotted path ("switch.pfc", "ib"): a setting only
 * another fabric reads; NULL: none.  models/fabric.c sets it before main, as sim/ knows no fabric. */
extern bool (*setting_hidden)(const char *path);

struct setting;

/* Parses v (present) at path into the group's struct base; 0, or -1 with the error written. */
typedef int setting_parse_fn(struct setting_ctx *c, const struct setting *f, const struct cJSON *v,
                             const char *path, void *base);
/* Adds the field to obj (or nothing: a field may be left out of the dump when it is off). */
typedef void setting_dump_fn(struct cJSON *obj, const struct setting *f, const void *base);
/* A SETTING_CHECK rule over the object obj at path (obj may be NULL for the top level's absent objects). */
typedef int setting_check_fn(struct setting_ctx *c, const struct cJSON *obj, const char *path, void *base);

struct setting {
    const char *name;          /* the key within its object; NULL ends a table */
    enum setting_kind kind;
    size_t offset;             /* of the value in the group's struct */
    unsigned flags;
    double lo, hi;             /* SETTING_NUMBER and SETTING_INT bounds */
    const char *const *names;  /* SETTING_ENUM: the JSON strings, NULL-terminated, in enum order */
    const char *module_kind;   /* SETTING_MODULE: the kind whose modules' names it takes ("cc") */
    const char *dflt;          /* the default as --set would take it ("32MB", "0.125", "true", "[3]"); NULL: zero */
    const char *help;          /* one line for people (docs/scenario.md says more) */
    const char *what;          /* SETTING_REQUIRED: what the message says is expected */
    setting_parse_fn *parse;   /* SETTING_CUSTOM (or to override a kind's parser) */
    setting_dump_fn *dump;     /* SETTING_CUSTOM (or to override a kind's dump) */
    setting_check_fn *check;   /* SETTING_CHECK */
};

/* A named set of values for a group's fields; fields it does not list take their default. */
struct setting_value {
    const char *name;
    const char *value; /* as in struct setting's dflt */
};
struct setting_preset {
    const char *name;                   /* NULL ends the list */
    const struct setting_value *values; /* ends with {NULL} */
};

struct setting_group {
    const char *path;                     /* dotted path of its object: "" for the top level, "switch.ecn"; or a flat
                                           * group's "PARENT/NAME" (above) */
    size_t offset;                        /* of its struct inside its parent's struct (0 for the top level) */
    size_t size;                          /* a module's group: the size of its own struct (in the store); 0: none */
    /* Its values belong to each entry of an array (a traffic or fault kind's fields, which the loader parses per
     * entry into a struct of `size` bytes), not to a parent's struct: it takes no slot of struct setting_mods. */
    bool per_entry;
    /* A group its parent's table does not name: the parent's field it follows, so that a group that moved out of
     * sim/ keeps its place in the dump, the docs and the error order; NULL: after the parent's own fields. */
    const char *after;
    bool fabric;                          /* its object is the whole fabric's (SETTING_FABRIC), as the watchdog's */
    bool has_mods;                        /* its struct holds the struct setting_mods of the module groups under it, */
    size_t mods;                          /* at this offset */
    const struct setting *fields;         /* ends with an entry whose name is NULL */
    /*
     * Presets: `preset_key` names an enum field of the table whose `names` are the presets' names; the
     * preset the object chooses (else the first) is applied before its other fields, so explicit fields win
     * wherever they stand in the object.  NULL: no presets.
     */
    const char *preset_key;
    const struct setting_preset *presets; /* ends with {NULL} */
};

/* Adds g to the registry (replacing a group of the same path); returns -1 when the registry (or, for a group
 * with a size that is not per_entry, the SETTING_MODS_MAX slots) is full, when a flat group's path is not
 * "PARENT/NAME" (NAME without '.' or '/'), or when an object would have two members of one name (a flat group's
 * field and another member). */
int settings_register(const struct setting_group *g);
/* Removes the group registered under path, if any (tests that register a group of their own). */
void settings_unregister(const char *path);
/* The group registered under path, or NULL. */
const struct setting_group *settings_find(const char *path);
/* The field a dotted path names ("switch.ecn.kmin", "host.mtu" of a flat group), or NULL when no registered table
 * has it (a path into an array or a topology): the tuner learns a parameter's kind and bounds from it. */
const struct setting *settings_field(const char *path);
/* The i-th registered group (registration order), or NULL past the end: for listing every setting. */
const struct setting_group *settings_group_at(int i);

/*
 * The values of module group g (registered, with a size) in a parent struct whose setting_mods is m.  size is
 * the reader's sizeof of the struct, checked against g's: a module that reads another type than it declared,
 * reads a group it did not register or reads a struct the loader did not fill is a bug, which stops the program
 * naming the group.  Not for a per-packet path: a flow reads it at set-up and keeps the pointer.
 */
const void *settings_of(const struct setting_mods *m, const struct setting_group *g, size_t size);
/* The slot of module group g's values in every struct setting_mods, checked as settings_of checks: fixed once g
 * is registered, for the rare reader that needs the values per frame (it takes the slot before main and reads
 * m->of[slot]). */
int settings_slot(const struct setting_group *g, size_t size);
/* Whether a and b hold equal values, slot by slot: within one scenario that is a == b, across two the values. */
bool settings_mods_equal(const struct setting_mods *a, const struct setting_mods *b);
/* obj's (a struct scn_host, say) values of module group `group` (a struct setting_group), as a const type *. */
#define SETTINGS_OF(obj, group, type) ((const type *)settings_of(&(obj)->mods, &(group), sizeof(type)))

/*
 * Reads the members of obj (an object, already checked) at path into base, the group's struct: the
 * unknown-field check, the preset, then every field in table order (the order the dump and docs/scenario.md
 * show, so that of several problems the one listed first is reported; a rule across fields is a
 * SETTING_CHECK placed after them).  0, or -1 with the error.
 */
int settings_parse(struct setting_ctx *c, const struct setting_group *g, const struct cJSON *obj, const char *path,
                   void *base);
/* Sets every field of g (and of its member groups and flat groups) to its default; 0, or -1 when memory runs out. */
int settings_defaults(struct setting_ctx *c, const struct setting_group *g, void *base);
/* Adds every member of g's object to obj (member groups as objects, flat groups' fields in their places), in the
 * order of the members (above). */
void settings_dump(const struct setting_group *g, const void *base, struct cJSON *obj);

/*
 * Checks a dotted --set or grid path against the tables: each component inside a group must name one of
 * its fields (what is below a field that is not a group is left to the loader).  Returns 0, or -1 with
 * "expected one of the fields ..., got unknown field \"K\"" in msg (the loader's wording) and the path of
 * the offending component in at.
 */
int settings_check_path(const char *path, char *msg, size_t msglen, char *at, size_t atlen);

/* ---- The checks every JSON input shares (the scenario loader, its custom parts, the sweep file) ---- */

/* Writes "FILE: PATH: message" into the error buffer (PATH "(top level)" when empty); returns -1. */
int setting_bad(struct setting_ctx *c, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Reports an allocation failure (an I/O-class error); returns -1. */
int setting_oom(struct setting_ctx *c);
/* Describes a JSON value for a "got ..." clause; returns buf. */
const char *setting_describe(const struct cJSON *v, char *buf, size_t len);
/* Formats a double so that it reads back exactly; returns buf. */
char *setting_fmt_num(double d, char *buf, size_t len);
/* "parent.key" (or "key" at the top level) into out (SETTING_PATH_MAX bytes); returns out. */
char *setting_join(char *out, const char *parent, const char *key);
/* "parent.i" into out; returns out. */
char *setting_join_idx(char *out, const char *parent, int i);
/* Fails on the first object (at any depth) that has a key twice. */
int setting_check_dups(struct setting_ctx *c, const struct cJSON *v, const char *path);
/* Fails when obj has a member whose name is not in the NULL-terminated list. */
int setting_check_fields(struct setting_ctx *c, const struct cJSON *obj, const char *path, const char *const *known);

/* The single-value checks: each checks v at path and stores the value; 0, or -1 with the error written. */
int setting_val_obj(struct setting_ctx *c, const struct cJSON *v, const char *path);
int setting_val_arr(struct setting_ctx *c, const struct cJSON *v, const char *path, const char *what);
int setting_val_bool(struct setting_ctx *c, const struct cJSON *v, const char *path, bool *out);
int setting_val_int(struct setting_ctx *c, const struct cJSON *v, const char *path, long long lo, long long hi,
                    long long *out);
int setting_val_num(struct setting_ctx *c, const struct cJSON *v, const char *path, double lo, bool lo_open, double hi,
                    bool hi_open, double *out);
/* A quantity of kind SETTING_TIME..SETTING_LENGTH; > 0 when positive. */
int setting_val_qty(struct setting_ctx *c, const struct cJSON *v, const char *path, enum setting_kind q, bool positive,
                    int64_t *out);
int setting_val_str(struct setting_ctx *c, const struct cJSON *v, const char *path, const char *what,
                    const char **out);
int setting_val_enum(struct setting_ctx *c, const struct cJSON *v, const char *path, const char *const *names,
                     int *out);
/* A string of at most max comma-separated "A:B" pairs (OpenSM's form of its tables), A in [lo[0], hi[0]] and B in
 * [lo[1], hi[1]], into pairs, their count in *n (0 for ""); what: what a non-string gets told is expected, form:
 * what a bad pair does ("VL:weight pairs with VL 0-14 and weight 0-255"). */
int setting_val_pairs(struct setting_ctx *c, const struct cJSON *v, const char *path, const char *what,
                      const char *form, const long lo[2], const long hi[2], long (*pairs)[2], int max, int *n);
/* snprintf for messages and names, where truncation is acceptable (buffers are sized for the normal case);
 * returns the length it wanted to write. */
int setting_strf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The end of the engine's clock (SIM_TIME_LIMIT, sim.h), exactly and in seconds: "17.592186044415s"; returns buf.
 * Every time of a scenario is at most that (setting_val_qty refuses a later one). */
char *setting_time_limit_text(char *buf, size_t len);
/* "a time like \"1.5us\"" and so on, for a quantity kind. */
const char *setting_qty_what(enum setting_kind q);
/* A field's parse and dump hooks for "auto" (stored as 0: the model derives the value) or a positive quantity of
 * the field's kind (time, size or rate, an int64_t member). */
int setting_parse_auto_qty(struct setting_ctx *c, const struct setting *f, const struct cJSON *v, const char *path,
                           void *base);
void setting_dump_auto_qty(struct cJSON *o, const struct setting *f, const void *base);

/*
 * Whether member m of struct T has the type a field of kind k is read and written as (the walker stores through
 * an int64_t *, double *, int * or bool *): a constant expression, for the static assertions of the SET_ macros.
 * An enum is stored through an int *: any integer type of int's size passes (gcc gives an enum int or unsigned
 * int).  Groups, custom fields and checks are not checked.
 */
#define SETTING_MEMBER_(T, m) (((T *)0)->m)
#define SETTING_IS_(T, m, type) _Generic(SETTING_MEMBER_(T, m), type: 1, default: 0)
#define SETTING_FITS_ENUM_(T, m) \
    (_Generic(SETTING_MEMBER_(T, m), int: 1, unsigned int: 1, default: 0) && sizeof SETTING_MEMBER_(T, m) == sizeof(int))
/* offsetof(T, m), refused at compile time when m's type does not fit kind k (the message says what it needs). */
#define SETTING_OFFSET_(k, T, m)                                                                                  \
    (offsetof(T, m) +                                                                                            \
     0 * sizeof(struct {                                                                                         \
         _Static_assert((k) > SETTING_LENGTH || SETTING_IS_(T, m, int64_t),                                      \
                        "a time, size, rate or length setting needs an int64_t member");                        \
         _Static_assert((k) != SETTING_NUMBER || SETTING_IS_(T, m, double), "a number setting needs a double member"); \
         _Static_assert((k) != SETTING_INT || SETTING_IS_(T, m, int), "an int setting needs an int member");    \
         _Static_assert((k) != SETTING_BOOL || SETTING_IS_(T, m, bool), "a bool setting needs a bool member");  \
         _Static_assert((k) != SETTING_ENUM || SETTING_FITS_ENUM_(T, m),                                         \
                        "an enum setting needs an enum or int-sized integer member");                           \
         _Static_assert((k) != SETTING_MODULE || SETTING_IS_(T, m, int), "a module setting needs an int member"); \
         int setting_checked_;                                                                                   \
     }))

/*
 * Table entries: the parts most fields need (the hooks are added where a field needs them), for the
 * scenario's own tables and the ones modules register.  Each checks at compile time that its member's type
 * fits its kind (SETTING_OFFSET_).
 */
#define SET_FIELD(name_, kind_, type_, member_, flags_, dflt_, help_) \
    .name = name_, .kind = kind_, .offset = SETTING_OFFSET_(kind_, type_, member_), .flags = flags_, .dflt = dflt_, \
    .help = help_
#define SET_NUM(name_, type_, member_, flags_, lo_, hi_, dflt_, help_) \
    .name = name_, .kind = SETTING_NUMBER, .offset = SETTING_OFFSET_(SETTING_NUMBER, type_, member_), .flags = flags_, \
    .lo = lo_, .hi = hi_, .dflt = dflt_, .help = help_
#define SET_INT(name_, type_, member_, lo_, hi_, dflt_, help_) \
    .name = name_, .kind = SETTING_INT, .offset = SETTING_OFFSET_(SETTING_INT, type_, member_), .lo = lo_, .hi = hi_, \
    .dflt = dflt_, .help = help_
#define SET_ENUM(name_, type_, member_, names_, dflt_, help_) \
    .name = name_, .kind = SETTING_ENUM, .offset = SETTING_OFFSET_(SETTING_ENUM, type_, member_), .names = names_, \
    .dflt = dflt_, .help = help_
#define SET_MODULE(name_, type_, member_, kind_, dflt_, help_) \
    .name = name_, .kind = SETTING_MODULE, .offset = SETTING_OFFSET_(SETTING_MODULE, type_, member_),             \
    .module_kind = kind_, .dflt = dflt_, .help = help_
#define SET_GROUP(name_, help_) .name = name_, .kind = SETTING_GROUP, .help = help_
#define SET_CHECK(fn_) .name = "", .kind = SETTING_CHECK, .check = fn_

#endif
