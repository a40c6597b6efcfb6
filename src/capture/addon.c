#include "addon.h"

#include <assert.h>

void addon_set_init(struct addon_set *set)
{
	wl_list_init(&set->addons);
}

void addon_set_finish(struct addon_set *set)
{
	/* A destroy hook may finish other addons too: take the first one
	 * each time instead of iterating a list that changes under us. */
	while (!wl_list_empty(&set->addons)) {
		struct addon *addon = wl_container_of(set->addons.next, addon, link);
		addon->impl->destroy(addon);
		assert(set->addons.next != &addon->link); /* destroy must finish it */
	}
}

void addon_init(struct addon *addon, struct addon_set *set, const void *owner,
		const struct addon_interface *impl)
{
	assert(impl && impl->destroy);
	assert(!addon_find(set, owner, impl));
	addon->impl = impl;
	addon->owner = owner;
	wl_list_insert(&set->addons, &addon->link);
}

void addon_finish(struct addon *addon)
{
	wl_list_remove(&addon->link);
	wl_list_init(&addon->link);
}

struct addon *addon_find(struct addon_set *set, const void *owner,
			 const struct addon_interface *impl)
{
	struct addon *addon;
	wl_list_for_each(addon, &set->addons, link) {
		if (addon->owner == owner && addon->impl == impl)
			return addon;
	}
	return NULL;
}
