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

/* The linker defines these around the section MODULE_REGISTER fills; weak so that a program without modules
 * links too. */
extern const struct module __start_rocesim_modules[] __attribute__((weak));
extern const struct module __stop_rocesim_modules[] __attribute__((weak));

/* See module.h. */
int module_find(const char *kind, const char *name)
{
    int k = 0;
    for (int i = 0; i < n_mods; i++)
        if (strcmp(mods[i]->kind->name, kind) == 0) {
            if (strcmp(mods[i]->name, name) == 0)
                return k;
            k++;
        }
    return -1;
}

/* See module.h. */
const struct module *module_at(const char *kind, int i)
{
    for (int j = 0; j < n_mods && i >= 0; j++)
        if (strcmp(mods[j]->kind->name, kind) == 0 && i-- == 0)
            return mods[j];
    return NULL;
}

/* See module.h. */
int module_count(const char *kind)
{
    int k = 0;
    for (int i = 0; i < n_mods; i++)
        k += strcmp(mods[i]->kind->name, kind) == 0;
    return k;
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
    if (listener && listener(m, err, errlen) < 0)
        return -1;
    mods[n_mods++] = m;
    int index = module_count(kind) - 1;
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
