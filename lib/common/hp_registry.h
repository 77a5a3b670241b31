/* SPDX-License-Identifier: BSD-3-Clause
 * A registry of named entries (tasks, apps, accelerator kernels): the
 * register / find / at trio that every ops table needs, written once.
 * An entry is a pointer to a struct whose name is a `const char *` at a
 * fixed offset. Registration runs in constructors, before main() and
 * single-threaded, so nothing here locks. Free of DPDK and valid C++, so
 * the CUDA code uses it too.
 */
#ifndef HP_REGISTRY_H
#define HP_REGISTRY_H

#include <errno.h>
#include <stddef.h>
#include <string.h>

struct hp_registry {
	size_t name_off;      /* offsetof(entry type, its name field) */
	unsigned int n, cap;
	const void **entries; /* cap slots, n used, in registration order */
};

/* A file-local registry var of at most max entries of type, named by
 * its member field. */
#define HP_REGISTRY(var, type, field, max)				\
	static const void *var ## _entries[max];			\
	static struct hp_registry var = { offsetof(type, field), 0,	\
					  (max), var ## _entries }

static inline const char *
hp_registry_name(const struct hp_registry *r, const void *e)
{
	return *(const char *const *)(const void *)((const char *)e + r->name_off);
}

static inline const void *
hp_registry_find(const struct hp_registry *r, const char *name)
{
	unsigned int i;

	for (i = 0; name != NULL && i < r->n; i++)
		if (strcmp(hp_registry_name(r, r->entries[i]), name) == 0)
			return r->entries[i];
	return NULL;
}

/* The i-th entry in registration order, NULL past the last. */
static inline const void *
hp_registry_at(const struct hp_registry *r, unsigned int i)
{
	return i < r->n ? r->entries[i] : NULL;
}

/* Adds e: 0, or -EINVAL when e or its name is NULL, the name is taken
 * or the registry is full. */
static inline int
hp_registry_add(struct hp_registry *r, const void *e)
{
	if (e == NULL || hp_registry_name(r, e) == NULL || r->n == r->cap ||
	    hp_registry_find(r, hp_registry_name(r, e)) != NULL)
		return -EINVAL;
	r->entries[r->n++] = e;
	return 0;
}

#endif /* HP_REGISTRY_H */
