/* The clipboard and the primary selection (--window) through the real
 * protocol: what the desktop's selection offers, what a client's selection
 * gives the desktop, and the errors clients earn. */
#include "xdg-common.h"

/* ---- the clipboard (--window): wl_data_device_manager ---- */

struct clip {
	struct wl_data_device_manager *manager;
	struct wl_data_device *device;
	struct wl_data_offer *offer; /* the newest data_offer */
	struct wl_data_offer *offers[16]; /* every one not yet destroyed */
	int offer_count;
	struct wl_data_offer *selection;
	char offered[256];           /* mime types of the newest offer, ';'-joined */
	int offered_count;           /* how many */
	int selections;              /* selection events */
	/* The peer (the desktop's side), as cmd/ would connect it. */
	char peer_types[256];
	size_t peer_type_count;
	int peer_selections;
	char peer_receive_mime[64];
	int peer_receives;
	/* The client's source. */
	char sent_mime[64];
	int sends, cancels;
};

static void clip_global(void *data, struct wl_registry *registry, uint32_t name,
			const char *interface, uint32_t version)
{
	struct clip *c = data;
	if (strcmp(interface, "wl_data_device_manager") == 0) {
		test_assert(version == 3);
		c->manager = wl_registry_bind(registry, name, &wl_data_device_manager_interface, 3);
	}
}

static const struct wl_registry_listener clip_registry_listener = {
	.global = clip_global, .global_remove = registry_global_remove,
};

static void clip_offer_offer(void *data, struct wl_data_offer *offer, const char *mime_type)
{
	struct clip *c = data;
	c->offered_count++;
	size_t used = strlen(c->offered);
	snprintf(c->offered + used, sizeof(c->offered) - used, "%s%s", used ? ";" : "", mime_type);
}

static void clip_offer_source_actions(void *data, struct wl_data_offer *offer, uint32_t actions)
{
}

static void clip_offer_action(void *data, struct wl_data_offer *offer, uint32_t action)
{
}

static const struct wl_data_offer_listener clip_offer_listener = {
	.offer = clip_offer_offer, .source_actions = clip_offer_source_actions,
	.action = clip_offer_action,
};

static void clip_data_offer(void *data, struct wl_data_device *device, struct wl_data_offer *offer)
{
	struct clip *c = data;
	c->offer = offer;
	c->offered[0] = 0;
	c->offered_count = 0;
	test_assert(c->offer_count < 16);
	c->offers[c->offer_count++] = offer;
	wl_data_offer_add_listener(offer, &clip_offer_listener, c);
}

static void clip_enter(void *data, struct wl_data_device *device, uint32_t serial,
		       struct wl_surface *surface, wl_fixed_t x, wl_fixed_t y,
		       struct wl_data_offer *offer)
{
}

static void clip_leave(void *data, struct wl_data_device *device)
{
}

static void clip_motion(void *data, struct wl_data_device *device, uint32_t time, wl_fixed_t x,
			wl_fixed_t y)
{
}

static void clip_drop(void *data, struct wl_data_device *device)
{
}

static void clip_selection(void *data, struct wl_data_device *device, struct wl_data_offer *offer)
{
	struct clip *c = data;
	test_assert(!offer || offer == c->offer);
	c->selection = offer;
	c->selections++;
}

static const struct wl_data_device_listener clip_device_listener = {
	.data_offer = clip_data_offer, .enter = clip_enter, .leave = clip_leave,
	.motion = clip_motion, .drop = clip_drop, .selection = clip_selection,
};

static void peer_selection(void *data, const char *const *mime_types, size_t count)
{
	struct clip *c = data;
	c->peer_selections++;
	c->peer_type_count = count;
	c->peer_types[0] = 0;
	for (size_t i = 0; i < count; i++) {
		size_t used = strlen(c->peer_types);
		snprintf(c->peer_types + used, sizeof(c->peer_types) - used, "%s%s",
			 used ? ";" : "", mime_types[i]);
	}
}

/* The desktop's selection is "desktop text" in any type. */
static void peer_receive(void *data, const char *mime_type, int fd)
{
	struct clip *c = data;
	c->peer_receives++;
	snprintf(c->peer_receive_mime, sizeof(c->peer_receive_mime), "%s", mime_type);
	test_assert(write(fd, "desktop text", 12) == 12);
	close(fd);
}

/* The clipboard offered (as with --window), the client's data device. */
static void clip_setup(struct inproc *t, struct globals *g, struct clip *c)
{
	*c = (struct clip){ 0 };
	struct wl_registry *registry = wl_display_get_registry(t->display);
	wl_registry_add_listener(registry, &clip_registry_listener, c);
	test_assert(inproc_roundtrip(t));
	test_assert(!c->manager, "the clipboard is offered without --window");
	struct wl_record_clipboard_peer peer = {
		.selection = peer_selection, .receive = peer_receive, .data = c,
	};
	selection_set_peer(t->server->data_device, &peer);
	selection_enable(t->server->data_device);
	test_assert(inproc_roundtrip(t));
	wl_registry_destroy(registry);
	test_assert(c->manager != NULL);
	c->device = wl_data_device_manager_get_data_device(c->manager, g->seat);
	wl_data_device_add_listener(c->device, &clip_device_listener, c);
	test_assert(inproc_roundtrip(t));
}

/* Destroys one of the offers the client was given. */
static void clip_offer_destroy(struct clip *c, struct wl_data_offer *offer)
{
	for (int i = 0; i < c->offer_count; i++) {
		if (c->offers[i] == offer) {
			c->offers[i] = c->offers[--c->offer_count];
			wl_data_offer_destroy(offer);
			return;
		}
	}
	test_assert(false, "not an offer of this client");
}

/* The client's clipboard objects destroyed (also after a protocol error:
 * a proxy lives on the client side until destroyed). */
static void clip_finish(struct clip *c)
{
	while (c->offer_count)
		clip_offer_destroy(c, c->offers[0]);
	if (c->device)
		wl_data_device_release(c->device);
	wl_data_device_manager_destroy(c->manager);
}

/* What comes out of a pipe's `read_fd` (closed here) once the server has
 * run, into `out`. */
static void read_pasted(struct inproc *t, int read_fd, char *out, size_t size)
{
	test_assert(inproc_roundtrip(t));
	ssize_t n = read(read_fd, out, size - 1);
	out[n > 0 ? n : 0] = 0;
	close(read_fd);
}

/* What the client reads from the selection offered to it, as `mime`. */
static void paste_from(struct inproc *t, struct wl_data_offer *offer, const char *mime, char *out,
		       size_t size)
{
	int fds[2];
	test_assert(pipe(fds) == 0);
	wl_data_offer_receive(offer, mime, fds[1]);
	close(fds[1]);
	read_pasted(t, fds[0], out, size);
}

static void source_target(void *data, struct wl_data_source *source, const char *mime_type)
{
}

/* The client's selection is "client text". */
static void source_send(void *data, struct wl_data_source *source, const char *mime_type,
			int32_t fd)
{
	struct clip *c = data;
	c->sends++;
	snprintf(c->sent_mime, sizeof(c->sent_mime), "%s", mime_type);
	test_assert(write(fd, "client text", 11) == 11);
	close(fd);
}

static void source_cancelled(void *data, struct wl_data_source *source)
{
	((struct clip *)data)->cancels++;
}

static const struct wl_data_source_listener clip_source_listener = {
	.target = source_target, .send = source_send, .cancelled = source_cancelled,
};

static struct wl_data_source *text_source(struct clip *c)
{
	struct wl_data_source *source = wl_data_device_manager_create_data_source(c->manager);
	wl_data_source_add_listener(source, &clip_source_listener, c);
	wl_data_source_offer(source, "text/plain;charset=utf-8");
	wl_data_source_offer(source, "text/plain");
	return source;
}

TEST(clipboard_desktop_selection_follows_the_keyboard)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct input_log log;
	input_setup(&t, &g, &log);
	struct clip c;
	clip_setup(&t, &g, &c);
	struct window top;
	struct test_buffer red;
	test_buffer_init(&t, &red, 64, 48, WL_SHM_FORMAT_XRGB8888);
	solid(&red, RED);
	map_toplevel(&t, &g, &top, &red);
	static const char *const types[] = { "text/plain;charset=utf-8", "text/plain" };
	/* The desktop copies while the window lacks the keyboard: nothing. */
	selection_set_desktop(t.server->data_device, types, 2);
	test_assert(inproc_roundtrip(&t));
	test_assert(c.selections == 0 && c.offer == NULL);

	/* The keyboard comes: the selection is offered. */
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_KEYBOARD_ENTER });
	test_assert(log.keyboard_surface == top.surface);
	test_assert(c.selection != NULL && strcmp(c.offered, "text/plain;charset=utf-8;text/plain") == 0,
		    "offered '%s'", c.offered);
	char pasted[64];
	paste_from(&t, c.selection, "text/plain", pasted, sizeof(pasted));
	test_assert(strcmp(pasted, "desktop text") == 0 && c.peer_receives == 1 &&
		    strcmp(c.peer_receive_mime, "text/plain") == 0, "pasted '%s'", pasted);

	/* The keyboard leaves: no selection, and the old offer reads nothing. */
	struct wl_data_offer *old = c.selection;
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_KEYBOARD_LEAVE });
	test_assert(c.selection == NULL);
	paste_from(&t, old, "text/plain", pasted, sizeof(pasted));
	test_assert(pasted[0] == 0 && c.peer_receives == 1, "pasted '%s' without the keyboard", pasted);
	clip_offer_destroy(&c, old);

	/* A client without the keyboard cannot copy. */
	struct wl_data_source *source = text_source(&c);
	wl_data_device_set_selection(c.device, source, 0);
	test_assert(inproc_roundtrip(&t));
	test_assert(c.peer_selections == 0 && c.cancels == 1);
	wl_data_source_destroy(source);

	/* With it, the desktop is told and pastes from the client's source. */
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_KEYBOARD_ENTER });
	if (c.selection)
		clip_offer_destroy(&c, c.selection);
	source = text_source(&c);
	wl_data_device_set_selection(c.device, source, 0);
	test_assert(inproc_roundtrip(&t));
	test_assert(c.peer_selections == 1 &&
		    strcmp(c.peer_types, "text/plain;charset=utf-8;text/plain") == 0,
		    "the desktop was offered '%s'", c.peer_types);
	int fds[2];
	test_assert(pipe(fds) == 0);
	selection_desktop_receive(t.server->data_device, "text/plain;charset=utf-8", fds[1]);
	read_pasted(&t, fds[0], pasted, sizeof(pasted));
	test_assert(strcmp(pasted, "client text") == 0 && c.sends == 1 &&
		    strcmp(c.sent_mime, "text/plain;charset=utf-8") == 0, "the desktop got '%s'", pasted);

	/* The desktop copies again: the client's source is cancelled. */
	selection_set_desktop(t.server->data_device, types, 1);
	test_assert(inproc_roundtrip(&t));
	test_assert(c.cancels == 2 && strcmp(c.offered, "text/plain;charset=utf-8") == 0);
	wl_data_source_destroy(source);
	if (c.selection)
		clip_offer_destroy(&c, c.selection);
	selection_set_peer(t.server->data_device, NULL);
	clip_finish(&c);
	input_finish(&log);
	destroy_window(&top);
	test_buffer_finish(&red);
	teardown(&t, &g);
}

TEST(clipboard_offers_are_capped_both_ways)
{
	/* A client offering a thousand types, or a desktop doing so, has the
	 * first SELECTION_MIME_TYPES_MAX passed on (issue 30 §3.6): each would
	 * be re-sent at every focus change. */
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct input_log log;
	input_setup(&t, &g, &log);
	struct clip c;
	clip_setup(&t, &g, &c);
	struct window top;
	struct test_buffer red;
	test_buffer_init(&t, &red, 64, 48, WL_SHM_FORMAT_XRGB8888);
	solid(&red, RED);
	map_toplevel(&t, &g, &top, &red);
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_KEYBOARD_ENTER });

	struct wl_data_source *source = wl_data_device_manager_create_data_source(c.manager);
	wl_data_source_add_listener(source, &clip_source_listener, &c);
	for (int i = 0; i < 1000; i++) {
		char mime[32];
		snprintf(mime, sizeof(mime), "application/x-type-%d", i);
		wl_data_source_offer(source, mime);
	}
	wl_data_device_set_selection(c.device, source, 0);
	test_assert(inproc_roundtrip(&t));
	test_assert(c.peer_selections == 1 && c.peer_type_count == SELECTION_MIME_TYPES_MAX,
		    "the desktop was told %zu types", c.peer_type_count);
	test_assert(strncmp(c.peer_types, "application/x-type-0;application/x-type-1;", 42) == 0,
		    "the first types are kept: '%.60s'", c.peer_types);

	static const char *many[1000];
	static char names[1000][32];
	for (int i = 0; i < 1000; i++) {
		snprintf(names[i], sizeof(names[i]), "text/x-desktop-%d", i);
		many[i] = names[i];
	}
	selection_set_desktop(t.server->data_device, many, 1000);
	test_assert(inproc_roundtrip(&t));
	test_assert(c.selection != NULL && c.offered_count == SELECTION_MIME_TYPES_MAX,
		    "the client was offered %d types", c.offered_count);

	wl_data_source_destroy(source);
	if (c.selection)
		clip_offer_destroy(&c, c.selection);
	selection_set_peer(t.server->data_device, NULL);
	clip_finish(&c);
	input_finish(&log);
	destroy_window(&top);
	test_buffer_finish(&red);
	teardown(&t, &g);
}

TEST(clipboard_source_used_twice)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct clip c;
	clip_setup(&t, &g, &c);
	struct wl_data_source *source = text_source(&c);
	wl_data_device_set_selection(c.device, source, 0);
	test_assert(inproc_roundtrip(&t));
	wl_data_device_set_selection(c.device, source, 0);
	expect_protocol_error(&t, &wl_data_source_interface, source,
			      WL_DATA_SOURCE_ERROR_INVALID_SOURCE);
	selection_set_peer(t.server->data_device, NULL);
	wl_data_source_destroy(source);
	clip_finish(&c);
	teardown(&t, &g);
}

TEST(clipboard_drag_source_is_no_selection)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct clip c;
	clip_setup(&t, &g, &c);
	struct wl_data_source *source = text_source(&c);
	wl_data_source_set_actions(source, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	wl_data_device_set_selection(c.device, source, 0);
	expect_protocol_error(&t, &wl_data_source_interface, source,
			      WL_DATA_SOURCE_ERROR_INVALID_SOURCE);
	selection_set_peer(t.server->data_device, NULL);
	wl_data_source_destroy(source);
	clip_finish(&c);
	teardown(&t, &g);
}

TEST(clipboard_finish_on_a_selection)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct input_log log;
	input_setup(&t, &g, &log);
	struct clip c;
	clip_setup(&t, &g, &c);
	struct window top;
	struct test_buffer red;
	test_buffer_init(&t, &red, 64, 48, WL_SHM_FORMAT_XRGB8888);
	solid(&red, RED);
	map_toplevel(&t, &g, &top, &red);
	static const char *const types[] = { "text/plain" };
	selection_set_desktop(t.server->data_device, types, 1);
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_KEYBOARD_ENTER });
	test_assert(c.selection != NULL);
	wl_data_offer_finish(c.selection);
	expect_protocol_error(&t, &wl_data_offer_interface, c.selection,
			      WL_DATA_OFFER_ERROR_INVALID_FINISH);
	selection_set_peer(t.server->data_device, NULL);
	clip_finish(&c);
	input_finish(&log);
	destroy_window(&top);
	test_buffer_finish(&red);
	teardown(&t, &g);
}

/* ---- the primary selection (--window): zwp_primary_selection_device_manager_v1 ---- */

struct primary {
	struct clip peer; /* the desktop's side and the source, logged as for the clipboard */
	struct zwp_primary_selection_device_manager_v1 *manager;
	struct zwp_primary_selection_device_v1 *device;
	struct zwp_primary_selection_offer_v1 *offer; /* the newest data_offer */
	struct zwp_primary_selection_offer_v1 *offers[16]; /* every one not yet destroyed */
	int offer_count;
	struct zwp_primary_selection_offer_v1 *selection;
	char offered[256]; /* mime types of the newest offer, ';'-joined */
	int selections;    /* selection events */
};

static void primary_global(void *data, struct wl_registry *registry, uint32_t name,
			   const char *interface, uint32_t version)
{
	struct primary *p = data;
	if (strcmp(interface, zwp_primary_selection_device_manager_v1_interface.name) == 0) {
		test_assert(version == 1);
		p->manager = wl_registry_bind(registry, name,
					      &zwp_primary_selection_device_manager_v1_interface, 1);
	}
}

static const struct wl_registry_listener primary_registry_listener = {
	.global = primary_global, .global_remove = registry_global_remove,
};

static void primary_offer_offer(void *data, struct zwp_primary_selection_offer_v1 *offer,
				const char *mime_type)
{
	struct primary *p = data;
	size_t used = strlen(p->offered);
	snprintf(p->offered + used, sizeof(p->offered) - used, "%s%s", used ? ";" : "", mime_type);
}

static const struct zwp_primary_selection_offer_v1_listener primary_offer_listener = {
	.offer = primary_offer_offer,
};

static void primary_data_offer(void *data, struct zwp_primary_selection_device_v1 *device,
			       struct zwp_primary_selection_offer_v1 *offer)
{
	struct primary *p = data;
	p->offer = offer;
	p->offered[0] = 0;
	test_assert(p->offer_count < 16);
	p->offers[p->offer_count++] = offer;
	zwp_primary_selection_offer_v1_add_listener(offer, &primary_offer_listener, p);
}

static void primary_selection_event(void *data, struct zwp_primary_selection_device_v1 *device,
				    struct zwp_primary_selection_offer_v1 *offer)
{
	struct primary *p = data;
	test_assert(!offer || offer == p->offer);
	p->selection = offer;
	p->selections++;
}

static const struct zwp_primary_selection_device_v1_listener primary_device_listener = {
	.data_offer = primary_data_offer, .selection = primary_selection_event,
};

/* The primary selection offered (as with --window), the client's device. */
static void primary_setup(struct inproc *t, struct globals *g, struct primary *p)
{
	*p = (struct primary){ 0 };
	struct wl_registry *registry = wl_display_get_registry(t->display);
	wl_registry_add_listener(registry, &primary_registry_listener, p);
	test_assert(inproc_roundtrip(t));
	test_assert(!p->manager, "the primary selection is offered without --window");
	struct wl_record_clipboard_peer peer = {
		.selection = peer_selection, .receive = peer_receive, .data = &p->peer,
	};
	selection_set_peer(t->server->primary_selection, &peer);
	selection_enable(t->server->primary_selection);
	test_assert(inproc_roundtrip(t));
	wl_registry_destroy(registry);
	test_assert(p->manager != NULL);
	p->device = zwp_primary_selection_device_manager_v1_get_device(p->manager, g->seat);
	zwp_primary_selection_device_v1_add_listener(p->device, &primary_device_listener, p);
	test_assert(inproc_roundtrip(t));
}

static void primary_offer_destroy(struct primary *p, struct zwp_primary_selection_offer_v1 *offer)
{
	for (int i = 0; i < p->offer_count; i++) {
		if (p->offers[i] == offer) {
			p->offers[i] = p->offers[--p->offer_count];
			zwp_primary_selection_offer_v1_destroy(offer);
			return;
		}
	}
	test_assert(false, "not an offer of this client");
}

static void primary_finish(struct inproc *t, struct primary *p)
{
	selection_set_peer(t->server->primary_selection, NULL);
	while (p->offer_count)
		primary_offer_destroy(p, p->offers[0]);
	if (p->device)
		zwp_primary_selection_device_v1_destroy(p->device);
	zwp_primary_selection_device_manager_v1_destroy(p->manager);
}

static void primary_paste_from(struct inproc *t, struct zwp_primary_selection_offer_v1 *offer,
			       const char *mime, char *out, size_t size)
{
	int fds[2];
	test_assert(pipe(fds) == 0);
	zwp_primary_selection_offer_v1_receive(offer, mime, fds[1]);
	close(fds[1]);
	read_pasted(t, fds[0], out, size);
}

static void primary_source_send(void *data, struct zwp_primary_selection_source_v1 *source,
				const char *mime_type, int32_t fd)
{
	source_send(data, NULL, mime_type, fd);
}

static void primary_source_cancelled(void *data, struct zwp_primary_selection_source_v1 *source)
{
	source_cancelled(data, NULL);
}

static const struct zwp_primary_selection_source_v1_listener primary_source_listener = {
	.send = primary_source_send, .cancelled = primary_source_cancelled,
};

/* A source of "client text" as text/plain;charset=utf-8. */
static struct zwp_primary_selection_source_v1 *primary_text_source(struct primary *p)
{
	struct zwp_primary_selection_source_v1 *source =
		zwp_primary_selection_device_manager_v1_create_source(p->manager);
	zwp_primary_selection_source_v1_add_listener(source, &primary_source_listener, &p->peer);
	zwp_primary_selection_source_v1_offer(source, "text/plain;charset=utf-8");
	return source;
}

/* A toplevel mapped, the window's keyboard on it when `keyboard`. */
struct primary_scene {
	struct inproc t;
	struct globals g;
	struct input_log log;
	struct primary p;
	struct window top;
	struct test_buffer red;
};

static void primary_scene_setup(struct primary_scene *s)
{
	setup(&s->t, &s->g, 64, 48);
	input_setup(&s->t, &s->g, &s->log);
	primary_setup(&s->t, &s->g, &s->p);
	test_buffer_init(&s->t, &s->red, 64, 48, WL_SHM_FORMAT_XRGB8888);
	solid(&s->red, RED);
	map_toplevel(&s->t, &s->g, &s->top, &s->red);
}

static void primary_scene_finish(struct primary_scene *s)
{
	primary_finish(&s->t, &s->p);
	input_finish(&s->log);
	destroy_window(&s->top);
	test_buffer_finish(&s->red);
	teardown(&s->t, &s->g);
}

static void keyboard_to_window(struct primary_scene *s, bool enter)
{
	feed(&s->t, &(struct wl_record_input_event){
		.type = enter ? WL_RECORD_INPUT_KEYBOARD_ENTER : WL_RECORD_INPUT_KEYBOARD_LEAVE });
}

TEST(primary_selection_follows_the_keyboard)
{
	struct primary_scene s;
	primary_scene_setup(&s);
	struct primary *p = &s.p;
	static const char *const types[] = { "text/plain;charset=utf-8", "text/plain" };
	/* The desktop selects while the window lacks the keyboard: nothing. */
	selection_set_desktop(s.t.server->primary_selection, types, 2);
	test_assert(inproc_roundtrip(&s.t));
	test_assert(p->selections == 0 && p->offer == NULL);

	/* The keyboard comes: the primary selection is offered, and read
	 * through the desktop's side. */
	keyboard_to_window(&s, true);
	test_assert(s.log.keyboard_surface == s.top.surface);
	test_assert(p->selection != NULL &&
		    strcmp(p->offered, "text/plain;charset=utf-8;text/plain") == 0,
		    "offered '%s'", p->offered);
	char pasted[64];
	primary_paste_from(&s.t, p->selection, "text/plain", pasted, sizeof(pasted));
	test_assert(strcmp(pasted, "desktop text") == 0 && p->peer.peer_receives == 1 &&
		    strcmp(p->peer.peer_receive_mime, "text/plain") == 0, "pasted '%s'", pasted);

	/* The keyboard leaves: none, and the old offer reads nothing. */
	struct zwp_primary_selection_offer_v1 *old = p->selection;
	int selections = p->selections;
	keyboard_to_window(&s, false);
	test_assert(p->selection == NULL && p->selections == selections + 1);
	primary_paste_from(&s.t, old, "text/plain", pasted, sizeof(pasted));
	test_assert(pasted[0] == 0 && p->peer.peer_receives == 1,
		    "pasted '%s' without the keyboard", pasted);

	/* The desktop selects again meanwhile: offered only when the
	 * keyboard is back. */
	selection_set_desktop(s.t.server->primary_selection, types, 1);
	test_assert(inproc_roundtrip(&s.t));
	test_assert(p->selections == selections + 1);
	keyboard_to_window(&s, true);
	test_assert(p->selection != NULL && p->selection != old &&
		    strcmp(p->offered, "text/plain;charset=utf-8") == 0, "offered '%s'", p->offered);
	/* The clipboard is another selection: not offered it. */
	test_assert(selection_global(s.t.server->data_device) == NULL);
	primary_scene_finish(&s);
}

TEST(primary_selection_set_only_with_the_keyboard)
{
	struct primary_scene s;
	primary_scene_setup(&s);
	struct primary *p = &s.p;
	/* Without the keyboard: cancelled, the desktop not told. */
	struct zwp_primary_selection_source_v1 *source = primary_text_source(p);
	zwp_primary_selection_device_v1_set_selection(p->device, source, 0);
	test_assert(inproc_roundtrip(&s.t));
	test_assert(p->peer.peer_selections == 0 && p->peer.cancels == 1);
	zwp_primary_selection_source_v1_destroy(source);

	/* With it: the desktop is told, and pastes from the client's source. */
	keyboard_to_window(&s, true);
	source = primary_text_source(p);
	zwp_primary_selection_device_v1_set_selection(p->device, source, 0);
	test_assert(inproc_roundtrip(&s.t));
	test_assert(p->peer.peer_selections == 1 &&
		    strcmp(p->peer.peer_types, "text/plain;charset=utf-8") == 0,
		    "the desktop was offered '%s'", p->peer.peer_types);
	int fds[2];
	test_assert(pipe(fds) == 0);
	selection_desktop_receive(s.t.server->primary_selection, "text/plain;charset=utf-8",
				  fds[1]);
	char pasted[64];
	read_pasted(&s.t, fds[0], pasted, sizeof(pasted));
	test_assert(strcmp(pasted, "client text") == 0 && p->peer.sends == 1,
		    "the desktop got '%s'", pasted);

	/* The client's source goes: the desktop is told there is none. */
	zwp_primary_selection_source_v1_destroy(source);
	test_assert(inproc_roundtrip(&s.t));
	test_assert(p->peer.peer_selections == 2 && p->peer.peer_types[0] == 0);
	primary_scene_finish(&s);
}

/* primary-selection-unstable-v1 names no error for a source set twice
 * (wlroots takes it again): no protocol error, the selection unchanged. */
TEST(primary_selection_source_set_twice_is_no_error)
{
	struct primary_scene s;
	primary_scene_setup(&s);
	struct primary *p = &s.p;
	keyboard_to_window(&s, true);
	struct zwp_primary_selection_source_v1 *source = primary_text_source(p);
	zwp_primary_selection_device_v1_set_selection(p->device, source, 0);
	test_assert(inproc_roundtrip(&s.t));
	zwp_primary_selection_device_v1_set_selection(p->device, source, 0);
	test_assert(inproc_roundtrip(&s.t));
	test_assert(wl_display_get_error(s.t.display) == 0);
	test_assert(p->peer.peer_selections == 1 && p->peer.cancels == 0);
	zwp_primary_selection_source_v1_destroy(source);
	primary_scene_finish(&s);
}
