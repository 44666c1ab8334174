/*
 * Tests of the settings tables (sim/settings.h): the tables and docs/scenario.md list the same fields, a
 * grid or --set path is checked against them, and a module can register its own group in place of the
 * scenario's, presets included.
 */
#include "tests/tests.h"

#include "models/dcqcn.h"
#include "sim/scenario.h"
#include "sim/settings.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DOC_FIELDS 64

/* The heading of the docs section that documents group path: "## Top level" for the top, else "## PATH". */
static const char *section_of(const char *doc, const char *path)
{
    char h[128];
    if (!*path)
        return strstr(doc, "\n## Top level\n");
    for (const char *hashes = "##"; hashes; hashes = strcmp(hashes, "##") == 0 ? "###" : NULL) {
        snprintf(h, sizeof h, "\n%s %s\n", hashes, path);
        const char *at = strstr(doc, h);
        if (at)
            return at;
    }
    return NULL;
}

/*
 * The field names in the first column of the tables of the section at sec (up to the next heading):
 * rows like "| `name` | ...".  Returns the count.
 */
static int doc_fields(const char *sec, char names[][64])
{
    int n = 0;
    const char *p = strchr(sec + 1, '\n');
    for (; p && p[1] && p[1] != '#' && n < MAX_DOC_FIELDS; p = strchr(p + 1, '\n')) {
        if (strncmp(p + 1, "| `", 3) != 0)
            continue;
        const char *b = p + 4, *e = strchr(b, '`');
        if (e && e - b < 64) {
            memcpy(names[n], b, (size_t)(e - b));
            names[n++][e - b] = '\0';
        }
    }
    return n;
}

/*
 * Compares every registered group with its section of doc: each table field documented, each documented
 * field in the table, and no section "## A.B" (A a group) without a group.  Each mismatch goes to stderr
 * and into the count.
 */
static int compare_with_docs(const char *doc)
{
    int bad = 0;
    const struct setting_group *g;
    for (int i = 0; (g = settings_group_at(i)); i++) {
        /* A flat group's fields are its parent's members ("host/nic": host's section and table). */
        const char *slash = strchr(g->path, '/');
        char obj[64];
        snprintf(obj, sizeof obj, "%.*s", slash ? (int)(slash - g->path) : (int)strlen(g->path), g->path);
        const char *sec = section_of(doc, obj);
        if (!sec) {
            fprintf(stderr, "\n  settings group \"%s\" has no section in docs/scenario.md", g->path);
            bad++;
            continue;
        }
        char doc_names[MAX_DOC_FIELDS][64];
        int nd = doc_fields(sec, doc_names);
        char msg[SCN_ERR_MAX], at[SETTING_PATH_MAX], path[8192];
        /* Table -> docs: every member of the group's object (settings_check_path knows them all). */
        for (const struct setting *f = g->fields; f->name; f++) {
            if (f->kind == SETTING_CHECK)
                continue;
            bool found = false;
            for (int k = 0; k < nd && !found; k++)
                found = strcmp(doc_names[k], f->name) == 0;
            if (!found) {
                fprintf(stderr, "\n  %s%s%s is in the settings table but not documented", obj, *obj ? "." : "",
                        f->name);
                bad++;
            }
            if (!f->help || !*f->help) {
                fprintf(stderr, "\n  %s%s%s has no help text", obj, *obj ? "." : "", f->name);
                bad++;
            }
        }
        if (slash)
            continue; /* the rest is its parent's, checked with it */
        /* A group registered under this one that its table does not name (a module's) is a member too. */
        const struct setting_group *h;
        for (int j = 0; (h = settings_group_at(j)); j++) {
            const char *last = strrchr(h->path, '.');
            size_t plen = last ? (size_t)(last - h->path) : 0;
            last = last ? last + 1 : h->path;
            if (h == g || !*h->path || strchr(h->path, '/') || plen != strlen(g->path) ||
                strncmp(h->path, g->path, plen) != 0)
                continue;
            bool named = false, found = false;
            for (const struct setting *f = g->fields; f->name && !named; f++)
                named = f->kind == SETTING_GROUP && strcmp(f->name, last) == 0;
            for (int k = 0; k < nd && !found; k++)
                found = strcmp(doc_names[k], last) == 0;
            if (!named && !found) {
                fprintf(stderr, "\n  %s is a registered group but not documented in %s's table", h->path,
                        *g->path ? g->path : "the top level");
                bad++;
            }
        }
        /* Docs -> table. */
        for (int k = 0; k < nd; k++) {
            snprintf(path, sizeof path, "%s%s%s", g->path, *g->path ? "." : "", doc_names[k]);
            if (settings_check_path(path, msg, sizeof msg, at, sizeof at) < 0) {
                fprintf(stderr, "\n  %s is documented but not in the settings table", path);
                bad++;
            }
        }
    }
    /* A documented group section with no group ("### switch.foo"). */
    for (const char *p = strstr(doc, "\n##"); p; p = strstr(p + 1, "\n##")) {
        const char *name = strchr(p + 1, ' ');
        const char *eol = strchr(p + 1, '\n');
        const char *dot = name ? strchr(name, '.') : NULL;
        if (!name || !eol || !dot || dot > eol || eol - name > 64)
            continue;
        char h[64], top[64];
        snprintf(h, sizeof h, "%.*s", (int)(eol - name - 1), name + 1);
        snprintf(top, sizeof top, "%.*s", (int)(dot - name - 1), name + 1);
        if (settings_find(top) && !settings_find(h)) {
            fprintf(stderr, "\n  docs/scenario.md documents %s, which is no settings group", h);
            bad++;
        }
    }
    return bad;
}

/* Every field of the tables is documented in docs/scenario.md, and every documented field is in the tables. */
static void test_tables_match_docs(void)
{
    scn_register_settings();
    char *doc = test_read_file("docs/scenario.md", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    CU_ASSERT_EQUAL(compare_with_docs(doc), 0);
    /* The comparison notices a documented field the table lacks... */
    const char *row = "| `kmin`    |";
    char *at = strstr(doc, row);
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    size_t len = strlen(doc), off = (size_t)(at - doc);
    const char *extra = "| `kmid`    | size | `\"9KB\"` | A field no table has. |\n";
    char *more = malloc(len + strlen(extra) + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(more);
    memcpy(more, doc, off);
    strcpy(more + off, extra);
    strcat(more, doc + off);
    fprintf(stderr, "\n  (an extra documented field, on purpose:)");
    CU_ASSERT_EQUAL(compare_with_docs(more), 1);
    free(more);
    /* ... a field of a table the docs lack (a module's group registered under monitor) ... */
    static const struct setting extra_fields[] = {
        {.name = "depth", .kind = SETTING_INT, .lo = 0, .hi = 9, .dflt = "0", .help = "A field no doc has"},
        {0},
    };
    static const struct setting_group extra_group = {.path = "monitor.extra", .fields = extra_fields};
    CU_ASSERT_EQUAL_FATAL(settings_register(&extra_group), 0);
    fprintf(stderr, "\n  (an undocumented group and field, on purpose:)");
    CU_ASSERT_EQUAL(compare_with_docs(doc), 2); /* monitor.extra has no section; monitor's table lacks "extra" */
    settings_unregister("monitor.extra");
    /* ... and a documented group that is none. */
    char *sec = malloc(len + 64);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sec);
    snprintf(sec, len + 64, "%s\n### host.nosuch\n", doc);
    fprintf(stderr, "\n  (a documented group that does not exist, on purpose:)");
    CU_ASSERT_EQUAL(compare_with_docs(sec), 1);
    CU_ASSERT_EQUAL(compare_with_docs(doc), 0);
    free(sec);
    free(doc);
}

/* Grid and --set paths: a misspelt field inside a group is named with the fields allowed there. */
static void test_check_path(void)
{
    char msg[SCN_ERR_MAX], at[SETTING_PATH_MAX];
    scn_register_settings();
    CU_ASSERT_EQUAL(settings_check_path("host.dcqcn.g", msg, sizeof msg, at, sizeof at), 0);
    CU_ASSERT_EQUAL(settings_check_path("switch.scheduler", msg, sizeof msg, at, sizeof at), 0);
    /* Below a field that is no group, the loader judges. */
    CU_ASSERT_EQUAL(settings_check_path("traffic.0.sise", msg, sizeof msg, at, sizeof at), 0);
    CU_ASSERT_EQUAL(settings_check_path("switch.scheduler.weights.3", msg, sizeof msg, at, sizeof at), 0);
    CU_ASSERT_EQUAL(settings_check_path("switch.ecn.kmn", msg, sizeof msg, at, sizeof at), -1);
    CU_ASSERT_STRING_EQUAL(msg, "expected one of the fields enabled, kmin, kmax, pmax, mark_on, got unknown field "
                                "\"kmn\"");
    CU_ASSERT_STRING_EQUAL(at, "switch.ecn.kmn");
    CU_ASSERT_EQUAL(settings_check_path("swich.ecn.kmin", msg, sizeof msg, at, sizeof at), -1);
    CU_ASSERT_STRING_EQUAL(at, "swich");
}

/*
 * Of several problems in one file, the one whose field the table (and the dump, and docs/scenario.md) lists
 * first is reported: switch before host at the top, priorities before dynamic_alpha in switch.pfc.
 */
static void test_first_problem_in_table_order(void)
{
    static const char head[] = "{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": \"100Gbps\"}}, "
                               "\"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"1MB\"}]";
    char json[512], err[SCN_ERR_MAX];
    struct scenario s;
    snprintf(json, sizeof json, "%s, \"host\": {\"mtu\": 1}, \"switch\": {\"lossy_queue_limit\": \"0KB\"}}", head);
    CU_ASSERT_EQUAL(scn_load_text("t.json", json, NULL, 0, &s, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_STRING_EQUAL(err, "t.json: switch.lossy_queue_limit: expected a size greater than zero, got \"0KB\"");
    snprintf(json, sizeof json, "%s, \"switch\": {\"pfc\": {\"dynamic_alpha\": 2, \"priorities\": [8]}}}", head);
    CU_ASSERT_EQUAL(scn_load_text("t.json", json, NULL, 0, &s, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_STRING_EQUAL(err, "t.json: switch.pfc.priorities.0: expected an integer from 0 to 7, got 8");
}

/*
 * A module registers its own group under a path another module's group already has (host.dcqcn, here): its
 * defaults, presets and fields replace the other's, and the loader, the dump and the unknown-field check follow.
 */
static void test_module_group_replaces(void)
{
    scn_register_settings();
    const struct setting_group *builtin = settings_find("host.dcqcn");
    CU_ASSERT_PTR_NOT_NULL_FATAL(builtin);
    static struct setting fields[32];
    int n = 0;
    for (const struct setting *f = builtin->fields; f->name && n < 30; f++)
        if (strcmp(f->name, "clamp_target_rate") != 0) /* the module's table has no such field */
            fields[n++] = *f;
    fields[n] = (struct setting){0};
    for (int i = 0; i < n; i++)
        if (strcmp(fields[i].name, "g") == 0)
            fields[i].dflt = "0.5";
    struct setting_group module = *builtin;
    module.fields = fields;
    CU_ASSERT_EQUAL_FATAL(settings_register(&module), 0);

    static const char minimal[] = "{\"topology\": {\"type\": \"star\", \"hosts\": 4, \"link\": {\"rate\": "
                                  "\"100Gbps\"}}, \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", "
                                  "\"size\": \"1MB\"}]}";
    struct scenario s;
    char err[SCN_ERR_MAX];
    CU_ASSERT_EQUAL(scn_load_text("t.json", minimal, NULL, 0, &s, err, sizeof err), SCN_OK);
    /* The values are the replacement's now (the slot is its), so they are read through it. */
    CU_ASSERT_EQUAL(SETTINGS_OF(&s.host, module, struct dcqcn_params)->g, 0.5);
    char *json = scn_to_json(&s);
    CU_ASSERT(json && strstr(json, "\"g\": 0.5,") && !strstr(json, "\"clamp_target_rate\""));
    free(json);
    scn_free(&s);
    struct scn_override ov = {"host.dcqcn.preset", "connectx"};
    CU_ASSERT_EQUAL(scn_load_text("t.json", minimal, &ov, 1, &s, err, sizeof err), SCN_OK);
    CU_ASSERT_EQUAL(SETTINGS_OF(&s.host, module, struct dcqcn_params)->g, 5.0 / 1024);
    scn_free(&s);
    struct scn_override gone = {"host.dcqcn.clamp_target_rate", "true"};
    CU_ASSERT_EQUAL(scn_load_text("t.json", minimal, &gone, 1, &s, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "host.dcqcn.clamp_target_rate (from --set): expected one of the fields preset, "
                                       "g,"));

    CU_ASSERT_EQUAL(settings_register(builtin), 0);
    CU_ASSERT_EQUAL(scn_load_text("t.json", minimal, NULL, 0, &s, err, sizeof err), SCN_OK);
    CU_ASSERT_EQUAL(dcqcn_params_of(&s.host)->g, 1.0 / 256);
    scn_free(&s);
}

/*
 * A module's group that names the field it follows (`after`) stands there in the object: in the list of fields,
 * the dump and the order problems are found in, as a group in the parent's table would.
 */
struct after_params {
    int depth;
};

static void test_group_after(void)
{
    scn_register_settings();
    static const struct setting fields[] = {
        {SET_INT("depth", struct after_params, depth, 0, 9, "4", "A field of a module's group")},
        {0},
    };
    static const struct setting_group group = {
        .path = "host.extra", .size = sizeof(struct after_params), .after = "priority", .fields = fields,
    };
    CU_ASSERT_EQUAL_FATAL(settings_register(&group), 0);
    static const char head[] = "{\"topology\": {\"type\": \"star\", \"hosts\": 4, \"link\": {\"rate\": "
                               "\"100Gbps\"}}, \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": "
                               "\"h1\", \"size\": \"1MB\"}]";
    char json[512], err[SCN_ERR_MAX];
    struct scenario s;
    snprintf(json, sizeof json, "%s, \"host\": {\"nosuch\": 1}}", head);
    CU_ASSERT_EQUAL(scn_load_text("t.json", json, NULL, 0, &s, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "mtu, priority, extra, cnp_priority, cc"));
    snprintf(json, sizeof json, "%s, \"host\": {\"cnp_priority\": 9, \"extra\": {\"depth\": 10}}}", head);
    CU_ASSERT_EQUAL(scn_load_text("t.json", json, NULL, 0, &s, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "host.extra.depth"));
    snprintf(json, sizeof json, "%s, \"host\": {\"extra\": {\"depth\": 7}}}", head);
    CU_ASSERT_EQUAL_FATAL(scn_load_text("t.json", json, NULL, 0, &s, err, sizeof err), SCN_OK);
    CU_ASSERT_EQUAL(SETTINGS_OF(&s.host, group, struct after_params)->depth, 7);
    char *dump = scn_to_json(&s);
    const char *host = dump ? strstr(dump, "\"host\"") : NULL;
    const char *pr = host ? strstr(host, "\"priority\"") : NULL, *ex = host ? strstr(host, "\"extra\"") : NULL,
               *cnp = host ? strstr(host, "\"cnp_priority\"") : NULL;
    CU_ASSERT(pr && ex && cnp && pr < ex && ex < cnp);
    free(dump);
    scn_free(&s);
    settings_unregister(group.path); /* the docs test knows only the project's own groups */
}

/*
 * The switch's mechanisms are module groups (models/pfc.c, ecn.c, sched.c, pfcwd.c) that name the field they follow:
 * the switch object keeps the order of docs/scenario.md, in the list of its fields and in the dump.
 */
static void test_switch_order(void)
{
    static const char json[] = "{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": "
                               "\"100Gbps\"}}, \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": "
                               "\"h1\", \"size\": \"1MB\"}], \"switch\": {\"nosuch\": 1}}";
    /* the dump of each fabric leaves out what only the other reads (models/fabric.c, fabric_ops.own) */
    static const char *const order[] = {"buffer",         "flow_control", "pfc",   "ecn",       "scheduler",
                                        "lossy_queue_limit", "watchdog", "deadlock_check", "trim", "cell_size",
                                        "mtu",            "load_balance", "spray", "flowlet",   "adaptive", NULL};
    static const char *const ib_order[] = {"flow_control", "credit", "ibcc", "scheduler", "deadlock_check", "mtu",
                                           "load_balance", "spray", "flowlet", "adaptive", NULL};
    char err[SCN_ERR_MAX];
    struct scenario s;
    CU_ASSERT_EQUAL(scn_load_text("t.json", json, NULL, 0, &s, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "buffer, flow_control, pfc, credit, ibcc, ecn, scheduler, lossy_queue_limit, "
                                       "watchdog, deadlock_check, trim, cell_size, mtu, load_balance, spray, flowlet, "
                                       "adaptive"));
    for (int ib = 0; ib < 2; ib++) {
        char *no_switch = strdup(json);
        CU_ASSERT_PTR_NOT_NULL_FATAL(no_switch);
        strcpy(strstr(no_switch, ", \"switch\""), ib ? ", \"fabric\": \"infiniband\"}" : "}");
        CU_ASSERT_EQUAL_FATAL(scn_load_text("t.json", no_switch, NULL, 0, &s, err, sizeof err), SCN_OK);
        free(no_switch);
        char *dump = scn_to_json(&s);
        cJSON *root = dump ? cJSON_Parse(dump) : NULL;
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "switch");
        m = m ? m->child : NULL;
        const char *const *want = ib ? ib_order : order;
        for (int i = 0; want[i]; i++, m = m ? m->next : NULL)
            CU_ASSERT(m && strcmp(m->string, want[i]) == 0);
        CU_ASSERT_PTR_NULL(m);
        cJSON_Delete(root);
        free(dump);
        scn_free(&s);
    }
}

/*
 * A profile that matches ports may set the fields flagged SETTING_PORT, whichever group declares them: a module's
 * group joins the check and its message (sim/scenario.c builds both from the registered tables).
 */
struct toy_params {
    int a, b;
};

static void test_port_fields_flagged(void)
{
    scn_register_settings();
    static const struct setting fields[] = {
        {SET_INT("a", struct toy_params, a, 0, 9, "1", "A per-port field"), .flags = SETTING_PORT},
        {SET_INT("b", struct toy_params, b, 0, 9, "2", "A field of the whole switch")},
        {0},
    };
    static const struct setting_group group = {
        .path = "switch.toy", .size = sizeof(struct toy_params), .fields = fields,
    };
    CU_ASSERT_EQUAL_FATAL(settings_register(&group), 0);
    static const char head[] = "{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": "
                               "\"100Gbps\"}}, \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": "
                               "\"h1\", \"size\": \"1MB\"}], \"profiles\": [{\"match\": \"s0:0\", \"switch\": ";
    char json[768], err[SCN_ERR_MAX];
    struct scenario s;
    snprintf(json, sizeof json, "%s{\"toy\": {\"a\": 3}, \"ecn\": {\"kmin\": \"1KB\"}}}]}", head);
    CU_ASSERT_EQUAL(scn_load_text("t.json", json, NULL, 0, &s, err, sizeof err), SCN_OK);
    scn_free(&s);
    snprintf(json, sizeof json, "%s{\"toy\": {\"a\": 3, \"b\": 4}}}]}", head);
    CU_ASSERT_EQUAL(scn_load_text("t.json", json, NULL, 0, &s, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_STRING_EQUAL(err, "t.json: profiles.0.switch.toy.b: expected only per-port fields in a profile that "
                                "matches ports (pfc.enabled, pfc.priorities, ecn.enabled, ecn.kmin, ecn.kmax, "
                                "ecn.pmax, toy.a), got \"b\"");
    snprintf(json, sizeof json, "%s{\"watchdog\": {\"enabled\": true}}}]}", head);
    CU_ASSERT_EQUAL(scn_load_text("t.json", json, NULL, 0, &s, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "profiles.0.switch.watchdog: expected only per-port fields"));
    settings_unregister(group.path); /* the docs test knows only the project's own groups */
}

/*
 * What the whole fabric shares only the global switch object may set, never a switch profile: a field flagged
 * SETTING_FABRIC (the deadlock detector's period, the PAUSE time) or an object whose group says `fabric` (the
 * watchdog).  The check reads the flags, so a module's own group joins it: a toy group with one such field.
 */
struct toy_fabric {
    int shared, own;
};

static void test_fabric_fields_flagged(void)
{
    scn_register_settings();
    static const struct setting fields[] = {
        {SET_INT("shared", struct toy_fabric, shared, 0, 9, "1", "The fabric's"), .flags = SETTING_FABRIC},
        {SET_INT("own", struct toy_fabric, own, 0, 9, "2", "A switch's own")},
        {0},
    };
    static const struct setting_group group = {
        .path = "switch.toyf", .size = sizeof(struct toy_fabric), .fields = fields,
    };
    CU_ASSERT_EQUAL_FATAL(settings_register(&group), 0);
    static const char head[] = "{\"topology\": {\"type\": \"star\", \"hosts\": 2, \"link\": {\"rate\": "
                               "\"100Gbps\"}}, \"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": "
                               "\"h1\", \"size\": \"1MB\"}], \"profiles\": [{\"match\": \"s0\", \"switch\": ";
    static const struct {
        const char *obj, *at; /* at: the member refused, NULL: none */
    } cases[] = {
        {"{\"toyf\": {\"own\": 3}, \"ecn\": {\"kmin\": \"1KB\"}, \"buffer\": \"16MB\"}", NULL},
        {"{\"toyf\": {\"own\": 3, \"shared\": 4}}", "toyf.shared"},
        {"{\"buffer\": \"16MB\", \"deadlock_check\": \"2ms\"}", "deadlock_check"},
        {"{\"pfc\": {\"enabled\": false, \"pause_quanta\": 5}}", "pfc.pause_quanta"},
        {"{\"watchdog\": {\"enabled\": true}}", "watchdog"},
        /* the first such member, in the object's order */
        {"{\"pfc\": {\"pause_quanta\": 5}, \"watchdog\": {}}", "pfc.pause_quanta"},
        {"{\"watchdog\": {}, \"pfc\": {\"pause_quanta\": 5}}", "watchdog"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char json[768], err[SCN_ERR_MAX], want[SCN_ERR_MAX];
        struct scenario s;
        snprintf(json, sizeof json, "%s%s}]}", head, cases[i].obj);
        int rc = scn_load_text("t.json", json, NULL, 0, &s, err, sizeof err);
        if (!cases[i].at) {
            CU_ASSERT_EQUAL(rc, SCN_OK);
            if (rc == SCN_OK)
                scn_free(&s);
            continue;
        }
        snprintf(want, sizeof want, "t.json: profiles.0.switch.%s: expected a setting a switch can have of its own, "
                 "got switch.%s, which applies to the whole fabric (set it in the switch object)", cases[i].at,
                 cases[i].at);
        CU_ASSERT_EQUAL(rc, SCN_EUSAGE);
        CU_ASSERT_STRING_EQUAL(err, want);
    }
    settings_unregister(group.path); /* the docs test knows only the project's own groups */
}

/*
 * A flat group (sim/settings.h), registered from this file: its fields are members of the host object itself, after
 * the field it names.  The loader parses them (and lists them among the fields it knows), the dump shows them in
 * their place, --set and the sweep's paths reach them by the host's path, a host profile overrides them over a copy,
 * and a registration that is malformed or would give the host two members of one name is refused.
 */
struct toy_flat {
    int depth;
    bool loud;
};

static const struct setting toy_flat_fields[] = {
    {SET_INT("depth", struct toy_flat, depth, 0, 9, "4", "A field of a flat group")},
    {SET_FIELD("loud", SETTING_BOOL, struct toy_flat, loud, 0, "false", "Another")},
    {0},
};
static const struct setting_group toy_flat_group = {
    .path = "host/toy", .size = sizeof(struct toy_flat), .after = "priority", .fields = toy_flat_fields,
};

static const char toy_head[] = "{\"topology\": {\"type\": \"star\", \"hosts\": 4, \"link\": {\"rate\": \"100Gbps\"}}, "
                               "\"traffic\": [{\"type\": \"flow\", \"src\": \"h0\", \"dst\": \"h1\", \"size\": \"1MB\"}]";

static void test_flat_group(void)
{
    scn_register_settings();
    CU_ASSERT_EQUAL_FATAL(settings_register(&toy_flat_group), 0);
    char json[768], err[SCN_ERR_MAX], msg[SCN_ERR_MAX], at[SETTING_PATH_MAX];
    struct scenario s;
    /* The defaults, and the fields parsed from the host object. */
    snprintf(json, sizeof json, "%s}", toy_head);
    CU_ASSERT_EQUAL_FATAL(scn_load_text("t.json", json, NULL, 0, &s, err, sizeof err), SCN_OK);
    CU_ASSERT_EQUAL(SETTINGS_OF(&s.host, toy_flat_group, struct toy_flat)->depth, 4);
    scn_free(&s);
    snprintf(json, sizeof json, "%s, \"host\": {\"depth\": 7, \"loud\": true, \"mtu\": 2048}}", toy_head);
    CU_ASSERT_EQUAL_FATAL(scn_load_text("t.json", json, NULL, 0, &s, err, sizeof err), SCN_OK);
    const struct toy_flat *t = SETTINGS_OF(&s.host, toy_flat_group, struct toy_flat);
    CU_ASSERT(t->depth == 7 && t->loud);
    /* The dump: in the host object, after priority, before cnp_priority. */
    char *dump = scn_to_json(&s);
    const char *host = dump ? strstr(dump, "\"host\"") : NULL;
    const char *pr = host ? strstr(host, "\"priority\": 3,\n    \"depth\": 7,\n    \"loud\": true,\n    "
                                         "\"cnp_priority\"") : NULL;
    CU_ASSERT_PTR_NOT_NULL(pr);
    CU_ASSERT(dump && !strstr(dump, "toy"));
    free(dump);
    /* A host profile overrides a field over a copy of the host's settings; the global ones stay. */
    scn_free(&s);
    snprintf(json, sizeof json, "%s, \"host\": {\"depth\": 7}, \"profiles\": [{\"match\": \"h1\", \"host\": "
             "{\"depth\": 2}}]}", toy_head);
    CU_ASSERT_EQUAL_FATAL(scn_load_text("t.json", json, NULL, 0, &s, err, sizeof err), SCN_OK);
    struct scn_host copy = s.host;
    CU_ASSERT_EQUAL_FATAL(scn_profile_apply(&s, 0, &copy, err, sizeof err), 0);
    CU_ASSERT_EQUAL(SETTINGS_OF(&copy, toy_flat_group, struct toy_flat)->depth, 2);
    CU_ASSERT_EQUAL(SETTINGS_OF(&s.host, toy_flat_group, struct toy_flat)->depth, 7);
    CU_ASSERT_FALSE(scn_host_equal(&copy, &s.host));
    scn_free(&s);
    snprintf(json, sizeof json, "%s, \"profiles\": [{\"match\": \"h1\", \"host\": {\"depth\": 12}}]}", toy_head);
    CU_ASSERT_EQUAL(scn_load_text("t.json", json, NULL, 0, &s, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_STRING_EQUAL(err, "t.json: profiles.0.host.depth: expected an integer from 0 to 9, got 12");
    /* The unknown-field check lists its fields in their place. */
    snprintf(json, sizeof json, "%s, \"host\": {\"nosuch\": 1}}", toy_head);
    CU_ASSERT_EQUAL(scn_load_text("t.json", json, NULL, 0, &s, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "t.json: host.nosuch: expected one of the fields mtu, priority, depth, loud, "
                                       "cnp_priority, cc, dcqcn, loss_recovery,"));
    /* --set, the sweep's and the tuner's paths: by the host's path, never by the group's. */
    struct scn_override ov = {"host.depth", "9"};
    snprintf(json, sizeof json, "%s}", toy_head);
    CU_ASSERT_EQUAL_FATAL(scn_load_text("t.json", json, &ov, 1, &s, err, sizeof err), SCN_OK);
    CU_ASSERT_EQUAL(SETTINGS_OF(&s.host, toy_flat_group, struct toy_flat)->depth, 9);
    scn_free(&s);
    ov.value = "10";
    CU_ASSERT_EQUAL(scn_load_text("t.json", json, &ov, 1, &s, err, sizeof err), SCN_EUSAGE);
    CU_ASSERT_STRING_EQUAL(err, "t.json: host.depth (from --set): expected an integer from 0 to 9, got 10");
    CU_ASSERT_EQUAL(settings_check_path("host.depth", msg, sizeof msg, at, sizeof at), 0);
    CU_ASSERT_EQUAL(settings_check_path("profiles.2.host.depth", msg, sizeof msg, at, sizeof at), 0);
    CU_ASSERT_EQUAL(settings_check_path("host/toy.depth", msg, sizeof msg, at, sizeof at), -1);
    CU_ASSERT_EQUAL(settings_check_path("host.depth.x", msg, sizeof msg, at, sizeof at), 0); /* the loader judges */
    CU_ASSERT_PTR_EQUAL(settings_field("host.depth"), &toy_flat_fields[0]);
    CU_ASSERT_PTR_EQUAL(settings_field("profiles.0.host.loud"), &toy_flat_fields[1]);
    CU_ASSERT_PTR_NULL(settings_field("host/toy.depth"));
    /* Refused: a malformed flat path, and a field of a name the object has; the registry is left as it was. */
    static const struct setting clash_fields[] = {
        {SET_INT("mtu", struct toy_flat, depth, 0, 9, "4", "The NIC's field's name")},
        {0},
    };
    static const struct setting_group bad[] = {
        {.path = "host/a.b", .size = sizeof(struct toy_flat), .fields = toy_flat_fields},
        {.path = "host/", .size = sizeof(struct toy_flat), .fields = toy_flat_fields},
        {.path = "host/clash", .size = sizeof(struct toy_flat), .fields = clash_fields},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CU_ASSERT_EQUAL(settings_register(&bad[i]), -1);
        CU_ASSERT_PTR_NULL(settings_find(bad[i].path));
    }
    CU_ASSERT_EQUAL(settings_check_path("host.depth", msg, sizeof msg, at, sizeof at), 0);
    settings_unregister(toy_flat_group.path); /* the docs test knows only the project's own groups */
    CU_ASSERT_EQUAL(settings_check_path("host.depth", msg, sizeof msg, at, sizeof at), -1);
}

/*
 * A table entry whose member does not have its kind's type is refused at compile time: the walker would store
 * through the wrong type.  The same file compiles without the wrong entry, so the failure is the check's.
 */
static void test_member_type_checked(void)
{
    static const char cmd[] =
        TEST_CC " -std=c11 -Wall -Wextra -Werror -I. -fsyntax-only tests/compile_fail/setting_types.c";
    char line[512], *out = NULL;
    CU_ASSERT_EQUAL(test_run(cmd, &out), 0);
    if (out && *out)
        fprintf(stderr, "\n%s\n", out);
    free(out);
    out = NULL;
    snprintf(line, sizeof line, "%s -DSIZE_ON_INT", cmd);
    CU_ASSERT_NOT_EQUAL(test_run(line, &out), 0);
    CU_ASSERT(out && strstr(out, "static assertion failed: \"a time, size, rate or length setting needs an int64_t member"));
    free(out);
}

void test_settings_register(void)
{
    CU_pSuite s = CU_add_suite("settings", NULL, NULL);
    if (!s)
        return;
    CU_add_test(s, "the tables and docs/scenario.md list the same fields", test_tables_match_docs);
    CU_add_test(s, "grid and --set paths checked against the tables", test_check_path);
    CU_add_test(s, "a module's group replaces the built-in one", test_module_group_replaces);
    CU_add_test(s, "a module's group stands after the field it names", test_group_after);
    CU_add_test(s, "the switch's mechanisms keep their place in the switch object", test_switch_order);
    CU_add_test(s, "a port profile may set the fields flagged SETTING_PORT", test_port_fields_flagged);
    CU_add_test(s, "no switch profile may set what the whole fabric shares (SETTING_FABRIC)",
                test_fabric_fields_flagged);
    CU_add_test(s, "a flat group: its fields in the parent's object, by the parent's paths", test_flat_group);
    CU_add_test(s, "of several problems, the first in table order is reported", test_first_problem_in_table_order);
    CU_add_test(s, "a member whose type does not fit its kind does not compile", test_member_type_checked);
}
