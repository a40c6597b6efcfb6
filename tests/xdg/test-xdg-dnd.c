/* Drag and drop within the session (--window) through the real protocol:
 * between clients, cancelled, without a source, a side gone, the icon, and
 * the actions. */
#include "xdg-common.h"

/* ---- drag and drop within the session (--window) ---- */

/* One client's data device and drag source, as it sees them. */
struct dnd {
	struct wl_data_device_manager *manager;
	struct wl_data_device *device;
	struct wl_data_offer *offer; /* the newest */
	struct wl_data_offer *offers[8];
	int offer_count;
	char offered[128];
	uint32_t offer_source_actions, offer_action;
	struct wl_surface *entered; /* NULL after leave */
	uint32_t enter_serial;
	bool enter_had_offer;
	double x, y;
	int enters, leaves, motions, drops;
	/* Its source. */
	char target[64];
	int targets, sends, cancels, drops_performed, finishes, source_actions_told;
	uint32_t source_action;
};

static void dnd_global(void *data, struct wl_registry *registry, uint32_t name,
		       const char *interface, uint32_t version)
{
	struct dnd *d = data;
	if (strcmp(interface, "wl_data_device_manager") == 0)
		d->manager = wl_registry_bind(registry, name, &wl_data_device_manager_interface, 3);
}

static const struct wl_registry_listener dnd_registry_listener = {
	.global = dnd_global, .global_remove = registry_global_remove,
};

static void dnd_offer_offer(void *data, struct wl_data_offer *offer, const char *mime_type)
{
	struct dnd *d = data;
	size_t used = strlen(d->offered);
	snprintf(d->offered + used, sizeof(d->offered) - used, "%s%s", used ? ";" : "", mime_type);
}

static void dnd_offer_source_actions(void *data, struct wl_data_offer *offer, uint32_t actions)
{
	((struct dnd *)data)->offer_source_actions = actions;
}

static void dnd_offer_action(void *data, struct wl_data_offer *offer, uint32_t action)
{
	((struct dnd *)data)->offer_action = action;
}

static const struct wl_data_offer_listener dnd_offer_listener = {
	.offer = dnd_offer_offer, .source_actions = dnd_offer_source_actions,
	.action = dnd_offer_action,
};

static void dnd_data_offer(void *data, struct wl_data_device *device, struct wl_data_offer *offer)
{
	struct dnd *d = data;
	d->offer = offer;
	d->offered[0] = 0;
	d->offer_source_actions = d->offer_action = 0;
	test_assert(d->offer_count < 8);
	d->offers[d->offer_count++] = offer;
	wl_data_offer_add_listener(offer, &dnd_offer_listener, d);
}

static void dnd_enter(void *data, struct wl_data_device *device, uint32_t serial,
		      struct wl_surface *surface, wl_fixed_t x, wl_fixed_t y,
		      struct wl_data_offer *offer)
{
	struct dnd *d = data;
	test_assert(!offer || offer == d->offer);
	d->entered = surface;
	d->enter_serial = serial;
	d->enter_had_offer = offer != NULL;
	d->x = wl_fixed_to_double(x);
	d->y = wl_fixed_to_double(y);
	d->enters++;
}

static void dnd_leave(void *data, struct wl_data_device *device)
{
	struct dnd *d = data;
	test_assert(d->entered != NULL);
	d->entered = NULL;
	d->leaves++;
}

static void dnd_motion(void *data, struct wl_data_device *device, uint32_t time, wl_fixed_t x,
		       wl_fixed_t y)
{
	struct dnd *d = data;
	test_assert(d->entered != NULL);
	d->x = wl_fixed_to_double(x);
	d->y = wl_fixed_to_double(y);
	d->motions++;
}

static void dnd_drop(void *data, struct wl_data_device *device)
{
	struct dnd *d = data;
	test_assert(d->entered != NULL);
	d->drops++;
}

static void dnd_selection(void *data, struct wl_data_device *device, struct wl_data_offer *offer)
{
}

static const struct wl_data_device_listener dnd_device_listener = {
	.data_offer = dnd_data_offer, .enter = dnd_enter, .leave = dnd_leave,
	.motion = dnd_motion, .drop = dnd_drop, .selection = dnd_selection,
};

static void dnd_source_target(void *data, struct wl_data_source *source, const char *mime_type)
{
	struct dnd *d = data;
	d->targets++;
	snprintf(d->target, sizeof(d->target), "%s", mime_type ? mime_type : "");
}

/* What is dragged is "dragged text". */
static void dnd_source_send(void *data, struct wl_data_source *source, const char *mime_type,
			    int32_t fd)
{
	((struct dnd *)data)->sends++;
	test_assert(write(fd, "dragged text", 12) == 12);
	close(fd);
}

static void dnd_source_cancelled(void *data, struct wl_data_source *source)
{
	((struct dnd *)data)->cancels++;
}

static void dnd_source_drop_performed(void *data, struct wl_data_source *source)
{
	((struct dnd *)data)->drops_performed++;
}

static void dnd_source_finished(void *data, struct wl_data_source *source)
{
	((struct dnd *)data)->finishes++;
}

static void dnd_source_action(void *data, struct wl_data_source *source, uint32_t action)
{
	struct dnd *d = data;
	d->source_action = action;
	d->source_actions_told++;
}

static const struct wl_data_source_listener dnd_source_listener = {
	.target = dnd_source_target, .send = dnd_source_send, .cancelled = dnd_source_cancelled,
	.dnd_drop_performed = dnd_source_drop_performed, .dnd_finished = dnd_source_finished,
	.action = dnd_source_action,
};

static void dnd_bind(struct inproc *t, struct globals *g, struct dnd *d)
{
	*d = (struct dnd){ 0 };
	struct wl_registry *registry = wl_display_get_registry(t->display);
	wl_registry_add_listener(registry, &dnd_registry_listener, d);
	test_assert(inproc_roundtrip(t));
	wl_registry_destroy(registry);
	test_assert(d->manager != NULL);
	d->device = wl_data_device_manager_get_data_device(d->manager, g->seat);
	wl_data_device_add_listener(d->device, &dnd_device_listener, d);
	test_assert(inproc_roundtrip(t));
}

static void dnd_finish(struct dnd *d)
{
	for (int i = 0; i < d->offer_count; i++)
		wl_data_offer_destroy(d->offers[i]);
	d->offer_count = 0;
	wl_data_device_release(d->device);
	wl_data_device_manager_destroy(d->manager);
}

/* A text source with `actions` (0: set_actions not called). */
static struct wl_data_source *dnd_source(struct dnd *d, uint32_t actions)
{
	struct wl_data_source *source = wl_data_device_manager_create_data_source(d->manager);
	wl_data_source_add_listener(source, &dnd_source_listener, d);
	wl_data_source_offer(source, "text/plain");
	wl_data_source_offer(source, "text/html");
	if (actions)
		wl_data_source_set_actions(source, actions);
	return source;
}

/* Client A's 32x24 red toplevel (at 16,12 on the screen) over client B's
 * 64x48 blue one, both with a data device; input on. */
struct dnd_scene {
	struct inproc t;
	struct globals g;
	struct input_log log;
	struct dnd a, b;
	struct other_client o;
	struct window top, other;
	struct test_buffer red, blue;
};

static void dnd_sync(struct dnd_scene *s)
{
	test_assert(inproc_roundtrip(&s->t));
	test_assert(inproc_roundtrip(&s->o.t));
	test_assert(inproc_roundtrip(&s->t));
	test_assert(inproc_roundtrip(&s->o.t));
}

static void dnd_scene_setup(struct dnd_scene *s)
{
	setup(&s->t, &s->g, 64, 48);
	s->t.server->screen.policy = SCREEN_POLICY_ALL;
	input_setup(&s->t, &s->g, &s->log);
	selection_enable(s->t.server->data_device);
	dnd_bind(&s->t, &s->g, &s->a);
	other_client_connect(&s->t, &s->o);
	dnd_bind(&s->o.t, &s->o.g, &s->b);
	test_buffer_init(&s->o.t, &s->blue, 64, 48, WL_SHM_FORMAT_XRGB8888);
	solid(&s->blue, BLUE);
	map_toplevel(&s->o.t, &s->o.g, &s->other, &s->blue);
	test_buffer_init(&s->t, &s->red, 32, 24, WL_SHM_FORMAT_XRGB8888);
	solid(&s->red, RED);
	map_toplevel(&s->t, &s->g, &s->top, &s->red);
	dnd_sync(s);
}

static void dnd_scene_finish(struct dnd_scene *s)
{
	dnd_finish(&s->b);
	if (s->other.surface)
		destroy_window(&s->other);
	test_buffer_finish(&s->blue);
	wl_proxy_destroy((struct wl_proxy *)s->o.g.seat);
	wl_proxy_destroy((struct wl_proxy *)s->o.g.wm_base);
	wl_proxy_destroy((struct wl_proxy *)s->o.g.subcompositor);
	wl_proxy_destroy((struct wl_proxy *)s->o.g.viewporter);
	wl_proxy_destroy((struct wl_proxy *)s->o.t.compositor);
	wl_proxy_destroy((struct wl_proxy *)s->o.t.shm);
	wl_registry_destroy(s->o.registry);
	wl_display_disconnect(s->o.t.display);
	/* Not after a protocol error: A's connection is gone. */
	bool alive = wl_display_get_error(s->t.display) == 0;
	test_assert(!alive || inproc_roundtrip(&s->t));
	dnd_finish(&s->a);
	input_finish(&s->log);
	destroy_window(&s->top);
	test_buffer_finish(&s->red);
	test_assert(!alive || inproc_roundtrip(&s->t));
	teardown(&s->t, &s->g);
}

static void press(struct inproc *t, bool pressed)
{
	feed(t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_POINTER_BUTTON,
						 .button = 272, .pressed = pressed });
}

/* A presses the button at 20,16 (4,4 in its toplevel) and starts dragging
 * `source` from its toplevel. */
static void dnd_begin(struct dnd_scene *s, struct wl_data_source *source, struct wl_surface *icon)
{
	move_to(&s->t, 20, 16);
	test_assert(s->log.pointer_surface == s->top.surface);
	press(&s->t, true);
	wl_data_device_start_drag(s->a.device, source, s->top.surface, icon, s->log.button_serial);
	dnd_sync(s);
}

TEST(dnd_between_clients)
{
	struct dnd_scene s;
	dnd_scene_setup(&s);
	struct wl_data_source *source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY |
								  WL_DATA_DEVICE_MANAGER_DND_ACTION_MOVE);
	dnd_begin(&s, source, NULL);
	/* The pointer's own events stop; A's surface under it is entered. */
	test_assert(s.log.pointer_surface == NULL && s.log.leaves == 1);
	test_assert(s.a.entered == s.top.surface && s.a.enter_had_offer &&
		    strcmp(s.a.offered, "text/plain;text/html") == 0, "offered '%s'", s.a.offered);

	/* Over B: A is left, B entered with an offer of the source's types. */
	move_to(&s.t, 4, 8);
	dnd_sync(&s);
	test_assert(s.a.entered == NULL && s.a.leaves == 1);
	test_assert(s.b.entered == s.other.surface && s.b.enter_had_offer &&
		    near(s.b.x, 4) && near(s.b.y, 8), "at %g,%g", s.b.x, s.b.y);
	test_assert(strcmp(s.b.offered, "text/plain;text/html") == 0, "offered '%s'", s.b.offered);
	test_assert(s.b.offer_source_actions == (WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY |
						 WL_DATA_DEVICE_MANAGER_DND_ACTION_MOVE));
	move_to(&s.t, 6, 9);
	dnd_sync(&s);
	test_assert(s.b.motions == 1 && near(s.b.x, 6) && near(s.b.y, 9));

	/* B accepts text and prefers moving: both are told. */
	wl_data_offer_accept(s.b.offer, s.b.enter_serial, "text/plain");
	wl_data_offer_set_actions(s.b.offer, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY |
						     WL_DATA_DEVICE_MANAGER_DND_ACTION_MOVE,
				  WL_DATA_DEVICE_MANAGER_DND_ACTION_MOVE);
	dnd_sync(&s);
	test_assert(strcmp(s.a.target, "text/plain") == 0);
	test_assert(s.a.source_action == WL_DATA_DEVICE_MANAGER_DND_ACTION_MOVE &&
		    s.b.offer_action == WL_DATA_DEVICE_MANAGER_DND_ACTION_MOVE);

	/* The release drops; B reads the data from A's source, then finishes. */
	press(&s.t, false);
	dnd_sync(&s);
	test_assert(s.b.drops == 1 && s.a.drops_performed == 1 && s.a.cancels == 0);
	int fds[2];
	test_assert(pipe(fds) == 0);
	wl_data_offer_receive(s.b.offer, "text/plain", fds[1]);
	close(fds[1]);
	dnd_sync(&s);
	char got[32];
	ssize_t n = read(fds[0], got, sizeof(got) - 1);
	got[n > 0 ? n : 0] = 0;
	close(fds[0]);
	test_assert(strcmp(got, "dragged text") == 0 && s.a.sends == 1, "got '%s'", got);
	test_assert(s.a.finishes == 0);
	wl_data_offer_finish(s.b.offer);
	dnd_sync(&s);
	test_assert(s.a.finishes == 1 && s.a.cancels == 0);

	/* The pointer is back to normal. */
	move_to(&s.t, 18, 14);
	test_assert(s.log.pointer_surface == s.top.surface);
	test_assert(s.a.enters == 1 && s.b.enters == 1);
	wl_data_source_destroy(source);
	dnd_scene_finish(&s);
}

TEST(dnd_cancelled_unless_accepted)
{
	struct dnd_scene s;
	dnd_scene_setup(&s);
	/* Dropped on B, which never accepted: cancelled, B left. */
	struct wl_data_source *source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	dnd_begin(&s, source, NULL);
	move_to(&s.t, 4, 4);
	dnd_sync(&s);
	test_assert(s.b.entered == s.other.surface);
	press(&s.t, false);
	dnd_sync(&s);
	test_assert(s.a.cancels == 1 && s.b.drops == 0 && s.b.leaves == 1 &&
		    s.a.drops_performed == 0);
	wl_data_source_destroy(source);

	/* An action agreed, but no type accepted: cancelled. */
	source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	dnd_begin(&s, source, NULL);
	move_to(&s.t, 4, 4);
	dnd_sync(&s);
	wl_data_offer_set_actions(s.b.offer, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY, 0);
	dnd_sync(&s);
	test_assert(s.a.source_action == WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	press(&s.t, false);
	dnd_sync(&s);
	test_assert(s.a.cancels == 2 && s.b.drops == 0);
	wl_data_source_destroy(source);

	/* Accepted, but B (version 3) never said which actions: cancelled. */
	source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	dnd_begin(&s, source, NULL);
	move_to(&s.t, 4, 4);
	dnd_sync(&s);
	wl_data_offer_accept(s.b.offer, s.b.enter_serial, "text/plain");
	dnd_sync(&s);
	press(&s.t, false);
	dnd_sync(&s);
	test_assert(s.a.cancels == 3 && s.b.drops == 0);
	wl_data_source_destroy(source);

	/* Dropped on nothing (off the picture). */
	source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	dnd_begin(&s, source, NULL);
	move_to(&s.t, -5, 20);
	dnd_sync(&s);
	test_assert(s.a.entered == NULL && s.b.entered == NULL);
	press(&s.t, false);
	dnd_sync(&s);
	test_assert(s.a.cancels == 4 && s.a.drops == 0 && s.b.drops == 0);
	wl_data_source_destroy(source);

	/* A wrong serial: cancelled at once, the pointer stays. */
	move_to(&s.t, 20, 16);
	press(&s.t, true);
	source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	wl_data_device_start_drag(s.a.device, source, s.top.surface, NULL,
				  s.log.button_serial + 1000);
	dnd_sync(&s);
	test_assert(s.a.cancels == 5 && s.log.pointer_surface == s.top.surface);
	press(&s.t, false);
	wl_data_source_destroy(source);

	/* The button already up: cancelled. */
	source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	wl_data_device_start_drag(s.a.device, source, s.top.surface, NULL, s.log.button_serial);
	dnd_sync(&s);
	test_assert(s.a.cancels == 6 && s.log.pointer_surface == s.top.surface);
	wl_data_source_destroy(source);

	/* The pointer leaves the window mid-drag: cancelled. */
	source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	dnd_begin(&s, source, NULL);
	feed(&s.t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_POINTER_LEAVE });
	dnd_sync(&s);
	test_assert(s.a.cancels == 7 && s.a.entered == NULL);
	wl_data_source_destroy(source);

	/* The keyboard leaves the window mid-drag: cancelled too. */
	feed(&s.t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_KEYBOARD_ENTER });
	source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	dnd_begin(&s, source, NULL);
	test_assert(s.a.entered == s.top.surface);
	feed(&s.t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_KEYBOARD_LEAVE });
	dnd_sync(&s);
	test_assert(s.a.cancels == 8 && s.a.entered == NULL);
	press(&s.t, false);
	wl_data_source_destroy(source);
	dnd_scene_finish(&s);
}

TEST(dnd_without_source_stays_in_the_client)
{
	struct dnd_scene s;
	dnd_scene_setup(&s);
	struct sub sub;
	make_sub(&s.t, &s.g, &sub, s.top.surface, GREEN, 20, 14);
	wl_surface_commit(s.top.surface);
	dnd_sync(&s);
	dnd_begin(&s, NULL, NULL);
	test_assert(s.a.entered == s.top.surface && !s.a.enter_had_offer && s.a.offer_count == 0);
	/* Over B: B hears nothing, A is left. */
	move_to(&s.t, 4, 4);
	dnd_sync(&s);
	test_assert(s.b.enters == 0 && s.a.entered == NULL && s.a.leaves == 1);
	/* A's subsurface gets it, and the drop. */
	move_to(&s.t, 38, 29);
	dnd_sync(&s);
	test_assert(s.a.entered == sub.surface && near(s.a.x, 2) && near(s.a.y, 3));
	press(&s.t, false);
	dnd_sync(&s);
	test_assert(s.a.drops == 1 && s.b.drops == 0 && s.b.enters == 0);
	destroy_sub(&sub);
	dnd_scene_finish(&s);
}

TEST(dnd_target_or_source_gone)
{
	struct dnd_scene s;
	dnd_scene_setup(&s);
	struct wl_data_source *source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	dnd_begin(&s, source, NULL);
	move_to(&s.t, 4, 4);
	dnd_sync(&s);
	wl_data_offer_accept(s.b.offer, s.b.enter_serial, "text/plain");
	wl_data_offer_set_actions(s.b.offer, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY, 0);
	dnd_sync(&s);
	test_assert(s.a.source_action == WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	/* The target's window goes under the pointer: the drop is cancelled. */
	destroy_window(&s.other);
	s.other.surface = NULL;
	dnd_sync(&s);
	test_assert(s.b.entered == NULL);
	move_to(&s.t, 5, 4);
	dnd_sync(&s);
	test_assert(s.a.entered == NULL && s.b.enters == 1);
	press(&s.t, false);
	dnd_sync(&s);
	test_assert(s.a.cancels == 1 && s.b.drops == 0 && s.a.drops_performed == 0);
	wl_data_source_destroy(source);

	/* The source goes mid-drag: the target is left, the drag over. */
	source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	dnd_begin(&s, source, NULL);
	test_assert(s.a.entered == s.top.surface);
	wl_data_source_destroy(source);
	dnd_sync(&s);
	test_assert(s.a.entered == NULL);
	press(&s.t, false);
	test_assert(s.log.pointer_surface == s.top.surface);
	dnd_scene_finish(&s);
}

TEST(dnd_icon_drawn_at_the_pointer)
{
	struct dnd_scene s;
	dnd_scene_setup(&s);
	struct damage_log damage;
	damage_log_init(&s.t, &damage);
	struct wl_surface *icon = wl_compositor_create_surface(s.t.compositor);
	struct test_buffer cyan;
	test_buffer_init(&s.t, &cyan, 4, 4, WL_SHM_FORMAT_ARGB8888);
	solid(&cyan, CYAN);
	commit_buffer(icon, &cyan);
	struct wl_data_source *source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	dnd_begin(&s, source, icon);
	/* Without --cursor too: the icon is the app's. */
	test_assert(!s.t.server->screen.draw_cursor);
	assert_square(&s.t, 20, 16, CYAN, RED);
	move_to(&s.t, 50, 40);
	dnd_sync(&s);
	assert_square(&s.t, 50, 40, CYAN, BLUE);
	test_assert_pixel(&s.t, 20, 16, RED);
	test_assert_damage(&damage, 20, 16, 54, 44);
	/* Its own commits are followed, and its origin's moves (attach's
	 * x,y: the hotspot). */
	solid(&cyan, YELLOW);
	wl_surface_attach(icon, cyan.buffer, -2, -1);
	wl_surface_damage_buffer(icon, 0, 0, 4, 4);
	wl_surface_commit(icon);
	dnd_sync(&s);
	assert_square(&s.t, 48, 39, YELLOW, BLUE);
	test_assert_pixel(&s.t, 53, 43, BLUE); /* its old place, redrawn */
	/* Gone with the drag. */
	press(&s.t, false);
	dnd_sync(&s);
	test_assert(s.a.cancels == 1);
	test_assert_pixel(&s.t, 48, 39, BLUE);
	test_assert_pixel(&s.t, 51, 42, BLUE);
	test_assert_damage(&damage, 48, 39, 52, 43);
	wl_list_remove(&damage.listener.link);
	wl_data_source_destroy(source);
	wl_surface_destroy(icon);
	test_buffer_finish(&cyan);
	dnd_scene_finish(&s);
}

TEST(dnd_icon_with_another_role)
{
	struct dnd_scene s;
	dnd_scene_setup(&s);
	struct wl_data_source *source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	/* A subsurface as the icon. */
	struct sub sub;
	make_sub(&s.t, &s.g, &sub, s.top.surface, GREEN, 2, 2);
	wl_surface_commit(s.top.surface);
	dnd_sync(&s);
	move_to(&s.t, 20, 16);
	press(&s.t, true);
	wl_data_device_start_drag(s.a.device, source, s.top.surface, sub.surface,
				  s.log.button_serial);
	expect_protocol_error(&s.t, &wl_data_device_interface, s.a.device,
			      WL_DATA_DEVICE_ERROR_ROLE);
	wl_data_source_destroy(source);
	destroy_sub(&sub);
	dnd_scene_finish(&s);
}

TEST(dnd_ask_settled_after_the_drop)
{
	struct dnd_scene s;
	dnd_scene_setup(&s);
	struct wl_data_source *source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY |
								  WL_DATA_DEVICE_MANAGER_DND_ACTION_ASK);
	dnd_begin(&s, source, NULL);
	move_to(&s.t, 4, 4);
	dnd_sync(&s);
	wl_data_offer_accept(s.b.offer, s.b.enter_serial, "text/html");
	wl_data_offer_set_actions(s.b.offer, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY |
						     WL_DATA_DEVICE_MANAGER_DND_ACTION_ASK,
				  WL_DATA_DEVICE_MANAGER_DND_ACTION_ASK);
	dnd_sync(&s);
	test_assert(s.a.source_action == WL_DATA_DEVICE_MANAGER_DND_ACTION_ASK &&
		    s.b.offer_action == WL_DATA_DEVICE_MANAGER_DND_ACTION_ASK);
	press(&s.t, false);
	dnd_sync(&s);
	test_assert(s.b.drops == 1 && s.a.drops_performed == 1);
	/* The user chose to copy: the target says so, then finishes. */
	wl_data_offer_set_actions(s.b.offer, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY,
				  WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	dnd_sync(&s);
	test_assert(s.a.source_action == WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY &&
		    s.b.offer_action == WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	wl_data_offer_finish(s.b.offer);
	dnd_sync(&s);
	test_assert(s.a.finishes == 1 && s.a.cancels == 0);
	wl_data_source_destroy(source);
	dnd_scene_finish(&s);
}

TEST(dnd_finish_before_the_drop)
{
	struct dnd_scene s;
	dnd_scene_setup(&s);
	struct wl_data_source *source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	dnd_begin(&s, source, NULL);
	move_to(&s.t, 4, 4);
	dnd_sync(&s);
	wl_data_offer_accept(s.b.offer, s.b.enter_serial, "text/plain");
	wl_data_offer_set_actions(s.b.offer, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY, 0);
	wl_data_offer_finish(s.b.offer);
	expect_protocol_error(&s.o.t, &wl_data_offer_interface, s.b.offer,
			      WL_DATA_OFFER_ERROR_INVALID_FINISH);
	/* B is gone with its error: the drag over it ends as a drop on nothing. */
	press(&s.t, false);
	test_assert(inproc_roundtrip(&s.t));
	test_assert(s.a.cancels == 1 && s.a.drops_performed == 0);
	wl_data_source_destroy(source);
	dnd_scene_finish(&s);
}

TEST(dnd_not_during_another_clients_popup_grab)
{
	struct dnd_scene s;
	dnd_scene_setup(&s);
	move_to(&s.t, 20, 16);
	press(&s.t, true);
	/* B's menu grabs (its serial is not checked) while A's button is down. */
	struct window pop = { 0 };
	struct test_buffer green;
	map_grabbing_menu(&s.o.t, &s.o.g, &pop, &s.other, 0, &green);
	dnd_sync(&s);
	test_assert(xdg_shell_grab_surface(s.t.server->xdg_shell) != NULL);
	struct wl_data_source *source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	wl_data_device_start_drag(s.a.device, source, s.top.surface, NULL, s.log.button_serial);
	dnd_sync(&s);
	test_assert(s.a.cancels == 1 && s.a.enters == 0 && s.log.pointer_surface == s.top.surface);
	press(&s.t, false);
	wl_data_source_destroy(source);
	destroy_window(&pop);
	test_buffer_finish(&green);
	dnd_scene_finish(&s);
}
