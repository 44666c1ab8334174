/* module — the registry of interchangeable implementations (module.h). */
#include "sim/module.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* See module.h: its modules carry settings groups only (their table is the kind itself, never called). */
const struct module_kind settings_kind = {.name = "settings"};

static const struct module *mods[MODULE_MAX];
static int n_mods;
static module_listener *listener;

/* Each kind's modules in their order (places in mods): module_at and module_count answer without a pass over the
 * whole registry (a scenario's loader asks for each of its traffic entries). */
#define KINDS_MAX 32
static struct kind_list {
    const char *name;
    int n;
    unsigned char at[MODULE_MAX];
} kinds[KINDS_MAX];
static int n_kinds;

static struct kind_list *kind_of(const char *kind)
{
    for (int k = 0; k < n_kinds; k++)
        if (kinds[k].name == kind || strcmp(kinds[k].name, kind) == 0)
            return &kinds[k];
    return NULL;
}

/* The linker defines these around the section MODULE_REGISTER fills; weak so that a program without modules
 * links too. */
extern const struct module __start_rocesim_modules[] __attribute__((weak));
extern const struct module __stop_rocesim_modules[] __attribute__((weak));

/* See module.h. */
int module_find(const char *kind, const char *name)
{
    const struct kind_list *l = kind_of(kind);
    for (int i = 0; l && i < l->n; i++)
        if (strcmp(mods[l->at[i]]->name, name) == 0)
            return i;
    return -1;
}

/* See module.h. */
const struct module *module_at(const char *kind, int i)
{
    const struct kind_list *l = kind_of(kind);
    return l && i >= 0 && i < l->n ? mods[l->at[i]] : NULL;
}

/* See module.h. */
int module_count(const char *kind)
{
    const struct kind_list *l = kind_of(kind);
    return l ? l->n : 0;
}

/* See module.h. */
int module_register(const struct module *m, char *err, size_t errlen)
{
    const char *kind = m->kind && m->kind->name ? m->kind->name : "(no kind)";
    const char *name = m->name ? m->name : "(no name)";
    const char *missing = !m->kind || !m->name || !*m->name || !m->ops ? "a kind, a name or a table"
                          : m->kind->missing ? m->kind->missing(m) : NULL;
    if (missing) {
        snprintf(err, errlen, "module %s \"%s\" is refused: it lacks %s", kind, name, missing);
        return -1;
    }
    if (module_find(kind, name) >= 0) {
        snprintf(err, errlen, "module %s \"%s\" is refused: another module of kind %s has that name", kind, name,
                 kind);
        return -1;
    }
    if (n_mods == MODULE_MAX) {
        snprintf(err, errlen, "module %s \"%s\" is refused: the registry is full (MODULE_MAX %d)", kind, name,
                 MODULE_MAX);
        return -1;
    }
    struct kind_list *l = kind_of(kind);
    if (!l && n_kinds == KINDS_MAX) {
        snprintf(err, errlen, "module %s \"%s\" is refused: the registry has no room for another kind (KINDS_MAX "
                 "%d in sim/module.c)", kind, name, KINDS_MAX);
        return -1;
    }
    if (listener && listener(m, err, errlen) < 0)
        return -1;
    if (!l) {
        l = &kinds[n_kinds++];
        l->name = m->kind->name;
    }
    l->at[l->n] = (unsigned char)n_mods;
    mods[n_mods++] = m;
    int index = l->n++;
    if (m->kind->added)
        m->kind->added(m, index);
    return index;
}

/* See module.h. */
void module_listen(module_listener *fn)
{
    listener = fn;
    for (int i = 0; i < n_mods; i++) {
        char err[256];
        if (fn(mods[i], err, sizeof err) < 0) {
            fprintf(stderr, "rocesim: bug: %s\n", err);
            abort();
        }
    }
}

/* The numbering of module.h: by kind, the kind's default first, then by name. */
static int by_kind_default_name(const void *a, const void *b)
{
    const struct module *x = *(const struct module *const *)a, *y = *(const struct module *const *)b;
    int c = strcmp(x->kind->name, y->kind->name);
    if (c)
        return c;
    bool xd = x->kind->dflt && strcmp(x->name, x->kind->dflt) == 0;
    bool yd = y->kind->dflt && strcmp(y->name, y->kind->dflt) == 0;
    if (xd != yd)
        return xd ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* See module.h.  Before main, so that every program (rocesim, the tests, the bench, the fuzzers) knows the modules
 * and their settings before it loads a scenario.  The section is not instrumented by the sanitizers (a section
 * named like an identifier keeps its objects adjacent), so it reads as an array. */
__attribute__((constructor)) void module_init(void)
{
    static bool done;
    if (done)
        return;
    done = true;
    size_t n = (size_t)(__stop_rocesim_modules - __start_rocesim_modules);
    if (!__start_rocesim_modules || n == 0)
        return;
    const struct module **order = malloc(n * sizeof *order);
    if (!order) {
        fprintf(stderr, "rocesim: out of memory registering the modules\n");
        abort();
    }
    for (size_t i = 0; i < n; i++)
        order[i] = &__start_rocesim_modules[i];
    for (size_t i = 0; i < n; i++)
        if (!order[i]->kind || !order[i]->kind->name || !order[i]->name) {
            fprintf(stderr, "rocesim: bug: a module in the section rocesim_modules has no kind or name\n");
            abort();
        }
    qsort(order, n, sizeof *order, by_kind_default_name);
    for (size_t i = 0; i < n; i++) {
        char err[256];
        if (module_register(order[i], err, sizeof err) < 0) {
            /* A refused built-in module is a bug of the build: better no program than one without it. */
            fprintf(stderr, "rocesim: bug: %s\n", err);
            abort();
        }
    }
    free(order);
}
