/*
 * module — one registry for the parts of the simulator that come in interchangeable implementations (a
 * congestion control, a link-level flow control, an egress scheduler), in the manner of Linux's
 * tcp_register_congestion_control: an implementation is one file that fills its kind's table of hooks and
 * registers it with one line,
 *
 *     MODULE_REGISTER(cc_kind, "swift", &cc_swift_ops, &swift_group);
 *
 * The line places a struct module in the linker section rocesim_modules; module_init() (run before main) walks
 * that section, so an object file's presence in the program is enough: no central list to forget it in.  The
 * programs link librocesim.a whole (-Wl,--whole-archive, Makefile) because nothing else references such a file.
 *
 * A kind (struct module_kind, declared by the floor that calls the hooks) says which hooks are required: each
 * registration is checked, and an incomplete or duplicate module is refused with a message naming it (at start,
 * for the modules of the build, the program stops with that message: a bug of the build).  A registered module's
 * settings groups go to the settings registry (sim/settings.h), which listens to the registrations
 * (module_listen): the registry of modules knows nothing of settings.
 *
 * Numbering: a module's index is its place among its kind's modules, which a setting of kind SETTING_MODULE
 * stores.  The modules of the build are numbered the kind's default first, then by name (not by link order, so
 * that no output depends on the order files are linked in); modules registered later (tests) follow.  A
 * zeroed struct thus holds each kind's default.
 *
 * sim/ knows no kind and no module by name: the kinds live with the code that calls them.  One kind is sim/'s,
 * settings_kind, whose modules have no hooks: they only carry settings groups that no module of a kind owns (see
 * SETTINGS_REGISTER).
 */
#ifndef SIM_MODULE_H
#define SIM_MODULE_H

#include <stddef.h>

struct setting_group;
struct module;

#define MODULE_MAX 128     /* modules of all kinds, the tests' included */
#define MODULE_GROUPS_MAX 4 /* settings groups per module */

struct module_kind {
    const char *name; /* as settings name it (SETTING_MODULE's module_kind): "cc" */
    const char *dflt; /* the module numbered 0 (the kind's default setting) */
    /* What m lacks of what the kind requires, for the message ("a rate hook"), or NULL when it is complete. */
    const char *(*missing)(const struct module *m);
    /* Called once the module is registered with its index, so that the kind can keep a table of its own for
     * its hot paths (the congestion controls' cc_registry).  May be NULL. */
    void (*added)(const struct module *m, int index);
};

struct module {
    const struct module_kind *kind;
    const char *name;
    const void *ops;                                         /* the kind's table of hooks */
    const struct setting_group *groups[MODULE_GROUPS_MAX + 1]; /* its settings groups, NULL-terminated */
};

#define MODULE_CAT2(a, b) a##b
#define MODULE_CAT(a, b) MODULE_CAT2(a, b)
/* Registers a module of `kind` (a struct module_kind) called name_, whose hooks are ops_, with its settings
 * groups (pointers, up to MODULE_GROUPS_MAX) after them. */
#define MODULE_REGISTER(kind_, name_, ops_, ...)                                                                     \
    __attribute__((used, section("rocesim_modules"), aligned(sizeof(void *)))) static const struct module         \
        MODULE_CAT(module_entry_, __LINE__) = {.kind = &(kind_), .name = (name_), .ops = (ops_),                   \
                                               .groups = {__VA_ARGS__}}

/*
 * Registers settings groups that belong to no module of a kind: those of a part that comes in one implementation
 * (the NIC's own fields, the switch's) or that a kind shares among its modules (host.cc, which chooses the
 * congestion control; the transport's timeouts).  The file that reads them registers them with one line, a module
 * of kind "settings" named name_ (numbered by name, as modules are, so the groups' order is the build's):
 *
 *     SETTINGS_REGISTER("nic", &nic_group);
 */
extern const struct module_kind settings_kind;
#define SETTINGS_REGISTER(name_, ...) MODULE_REGISTER(settings_kind, name_, &settings_kind, __VA_ARGS__)

/* Registers m (which must outlive the program's use of it): its index within its kind, or -1 with the reason
 * (naming the module: an incomplete table, a duplicate name, a full registry, its listener's refusal) in err. */
int module_register(const struct module *m, char *err, size_t errlen);

/*
 * What hears of every registration, before the module counts as registered: 0 to take it, or -1 with the reason in
 * err (the module is then refused).  One listener (the settings registry, which takes the module's groups); set it
 * once, before main: it hears first of the modules registered already, in their order (a refusal of one of those
 * is a bug of the build, which stops the program).
 */
typedef int module_listener(const struct module *m, char *err, size_t errlen);
void module_listen(module_listener *fn);
/* The index of the module of kind `kind` called name, or -1. */
int module_find(const char *kind, const char *name);
/* The module of kind `kind` numbered i, or NULL. */
const struct module *module_at(const char *kind, int i);
/* How many modules of kind `kind` are registered. */
int module_count(const char *kind);
/* Registers the modules of the build (the section), in the order stated above; stops the program on a refused
 * one.  Runs before main; calling it again does nothing. */
void module_init(void);

#endif
