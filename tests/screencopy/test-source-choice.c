/* Where frames come from (src/pipeline/source_choice.h): each step of the order, the
 * display probed only when its answer decides, and --capture's parsing. */
#include <stdio.h>
#include <string.h>

#include "options.h"
#include "source_choice.h"
#include "source_select.h"
#include "test-runner.h"

struct fake_display {
	unsigned offers; /* screencopy_protocol bits */
	int probes;
	char probed[64];
};

static unsigned probe(void *data, const char *display, char *why, size_t why_size)
{
	struct fake_display *fake = data;
	fake->probes++;
	snprintf(fake->probed, sizeof(fake->probed), "%s", display);
	if (!fake->offers)
		snprintf(why, why_size, "it offers no copy protocol");
	return fake->offers;
}

#define WLR SCREENCOPY_WLR
#define EXT SCREENCOPY_EXT

static struct source_choice choose(const struct source_request *request, struct fake_display *fake)
{
	struct source_choice choice;
	source_choose(request, probe, fake, &choice);
	return choice;
}

TEST(no_display_hosts_without_probing)
{
	struct fake_display fake = { .offers = WLR };
	struct source_request request = { 0 };
	struct source_choice choice = choose(&request, &fake);
	test_assert(choice.kind == SOURCE_HOST && !choice.failed);
	test_assert(fake.probes == 0);
	test_assert(strstr(choice.reason, "WAYLAND_DISPLAY is not set"), "%s", choice.reason);

	request.wayland_display = ""; /* set but empty: the same */
	choice = choose(&request, &fake);
	test_assert(choice.kind == SOURCE_HOST && fake.probes == 0);
}

TEST(display_offering_screencopy_is_copied)
{
	struct fake_display fake = { .offers = WLR };
	struct source_request request = { .wayland_display = "wayland-1" };
	struct source_choice choice = choose(&request, &fake);
	test_assert(choice.kind == SOURCE_SCREENCOPY && !choice.failed);
	test_assert(fake.probes == 1 && strcmp(fake.probed, "wayland-1") == 0);
	test_assert(strstr(choice.reason, "WAYLAND_DISPLAY=wayland-1 offers wlr-screencopy"), "%s",
		    choice.reason);
	test_assert(choice.protocol == WLR);
}

/* ext-image-copy-capture is wlr-screencopy's successor: chosen whenever it
 * is offered, and said so. */
TEST(ext_copy_preferred_when_offered)
{
	struct fake_display fake = { .offers = EXT | WLR };
	struct source_request request = { .wayland_display = "wayland-1" };
	struct source_choice choice = choose(&request, &fake);
	test_assert(choice.kind == SOURCE_SCREENCOPY && !choice.failed);
	test_assert(choice.protocol == EXT);
	test_assert(strcmp(choice.reason, "WAYLAND_DISPLAY=wayland-1 offers ext-image-copy-capture, "
			   "preferred to wlr-screencopy") == 0, "%s", choice.reason);

	fake = (struct fake_display){ .offers = EXT };
	choice = choose(&request, &fake);
	test_assert(choice.kind == SOURCE_SCREENCOPY && choice.protocol == EXT);
	test_assert(strcmp(choice.reason, "WAYLAND_DISPLAY=wayland-1 offers ext-image-copy-capture") ==
		    0, "%s", choice.reason);

	/* -o/-g and --capture screencopy take either, the successor first. */
	request.desktop_part = true;
	fake = (struct fake_display){ .offers = EXT | WLR };
	test_assert(choose(&request, &fake).protocol == EXT);
	request.desktop_part = false;
	request.capture = CAPTURE_SCREENCOPY;
	test_assert(choose(&request, &fake).protocol == EXT);
	fake = (struct fake_display){ .offers = WLR };
	choice = choose(&request, &fake);
	test_assert(!choice.failed && choice.protocol == WLR);
}

/* --capture ext-image-copy and wlr-screencopy force one protocol: used
 * when offered (even beside the other), a failure naming what there is
 * when not. */
TEST(forced_protocol)
{
	struct {
		enum capture_method method;
		unsigned offers;
		bool failed;
		enum screencopy_protocol protocol;
		const char *reason;
	} cases[] = {
		{ CAPTURE_EXT_COPY, EXT | WLR, false, EXT, "--capture ext-image-copy" },
		{ CAPTURE_EXT_COPY, EXT, false, EXT, "--capture ext-image-copy" },
		{ CAPTURE_EXT_COPY, WLR, true, 0,
		  "--capture ext-image-copy: WAYLAND_DISPLAY=wayland-1 offers wlr-screencopy only" },
		{ CAPTURE_WLR_SCREENCOPY, EXT | WLR, false, WLR, "--capture wlr-screencopy" },
		{ CAPTURE_WLR_SCREENCOPY, EXT, true, 0,
		  "--capture wlr-screencopy: WAYLAND_DISPLAY=wayland-1 offers ext-image-copy-capture "
		  "only" },
		{ CAPTURE_WLR_SCREENCOPY, 0, true, 0,
		  "--capture wlr-screencopy: WAYLAND_DISPLAY=wayland-1: it offers no copy protocol" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake_display fake = { .offers = cases[i].offers };
		/* Forced: before a screen-share's socket, like screencopy. */
		struct source_request request = { .capture = cases[i].method, .server_socket = true,
						  .wayland_display = "wayland-1" };
		struct source_choice choice = choose(&request, &fake);
		test_assert(choice.kind == SOURCE_SCREENCOPY && fake.probes == 1, "case %zu", i);
		test_assert(choice.failed == cases[i].failed, "case %zu: %s", i, choice.reason);
		if (!cases[i].failed)
			test_assert(choice.protocol == cases[i].protocol, "case %zu", i);
		test_assert(strcmp(choice.reason, cases[i].reason) == 0, "case %zu: %s", i,
			    choice.reason);
	}
}

/* -o and -g name a part of the desktop: a copy of it or a failure, never
 * a hosted compositor that has no such monitor. */
TEST(desktop_part_copies_or_fails)
{
	struct fake_display fake = { .offers = WLR };
	struct source_request request = { .wayland_display = "wayland-1", .desktop_part = true };
	struct source_choice choice = choose(&request, &fake);
	test_assert(choice.kind == SOURCE_SCREENCOPY && !choice.failed);
	test_assert(strstr(choice.reason, "-o or -g"), "%s", choice.reason);

	fake.offers = 0;
	choice = choose(&request, &fake);
	test_assert(choice.failed, "%s", choice.reason);
	test_assert(strstr(choice.reason, "-o or -g (a part of the desktop): WAYLAND_DISPLAY=wayland-1: "
			   "it offers no copy protocol"), "%s", choice.reason);

	request.wayland_display = NULL;
	choice = choose(&request, &fake);
	test_assert(choice.failed && strstr(choice.reason, "WAYLAND_DISPLAY is not set"), "%s",
		    choice.reason);
	/* Even where a screen-share launched us. */
	request.server_socket = true;
	choice = choose(&request, &fake);
	test_assert(choice.failed);
}

TEST(display_without_screencopy_hosts)
{
	struct fake_display fake = { .offers = 0 };
	struct source_request request = { .wayland_display = "weston" };
	struct source_choice choice = choose(&request, &fake);
	test_assert(choice.kind == SOURCE_HOST && !choice.failed);
	test_assert(fake.probes == 1);
	test_assert(strstr(choice.reason, "WAYLAND_DISPLAY=weston: it offers no copy protocol"),
		    "%s", choice.reason);
}

/* Each of these hosts whatever WAYLAND_DISPLAY offers, without asking it. */
TEST(earlier_steps_win_over_the_display)
{
	struct source_request requests[] = {
		{ .server_socket = true, .wayland_display = "wayland-1" },
		{ .command = true, .wayland_display = "wayland-1" },
		{ .capture = CAPTURE_LISTEN, .wayland_display = "wayland-1" },
		{ .socket_name = true, .wayland_display = "wayland-1" },
	};
	const char *reasons[] = { "WAYLAND_SERVER_SOCKET", "COMMAND", "--capture listen",
				  "--socket" };
	for (size_t i = 0; i < sizeof(requests) / sizeof(requests[0]); i++) {
		struct fake_display fake = { .offers = WLR };
		struct source_choice choice = choose(&requests[i], &fake);
		test_assert(choice.kind == SOURCE_HOST && !choice.failed, "request %zu", i);
		test_assert(fake.probes == 0, "request %zu probed the display", i);
		test_assert(strstr(choice.reason, reasons[i]), "request %zu: %s", i, choice.reason);
	}
	/* The screen-share's socket comes before a COMMAND too. */
	struct fake_display fake = { .offers = WLR };
	struct source_request both = { .server_socket = true, .command = true };
	test_assert(strstr(choose(&both, &fake).reason, "WAYLAND_SERVER_SOCKET"));
}

TEST(forced_screencopy)
{
	struct fake_display fake = { .offers = WLR };
	struct source_request request = { .capture = CAPTURE_SCREENCOPY, .server_socket = true,
					  .wayland_display = "wayland-1" };
	struct source_choice choice = choose(&request, &fake);
	test_assert(choice.kind == SOURCE_SCREENCOPY && !choice.failed);
	test_assert(fake.probes == 1);

	fake = (struct fake_display){ .offers = 0 };
	choice = choose(&request, &fake);
	test_assert(choice.failed);
	test_assert(strcmp(choice.reason, "--capture screencopy: WAYLAND_DISPLAY=wayland-1: "
					  "it offers no copy protocol") == 0, "%s", choice.reason);

	fake = (struct fake_display){ .offers = WLR };
	request.wayland_display = NULL;
	choice = choose(&request, &fake);
	test_assert(choice.failed && fake.probes == 0);
	test_assert(strstr(choice.reason, "WAYLAND_DISPLAY is not set"), "%s", choice.reason);
}

struct fake_portal {
	bool present;
	int probes;
};

static bool probe_portal(void *data, char *why, size_t why_size)
{
	struct fake_display *fake = data;
	struct fake_portal *portal = (struct fake_portal *)(fake + 1);
	portal->probes++;
	if (!portal->present)
		snprintf(why, why_size, "no ScreenCast portal on the session D-Bus");
	return portal->present;
}

/* GNOME and KDE offer no copy protocol: the portal, when there is one. */
TEST(portal_when_the_display_offers_no_copy)
{
	struct { struct fake_display display; struct fake_portal portal; } fake = {
		.display = { .offers = 0 }, .portal = { .present = true } };
	struct source_request request = { .wayland_display = "gnome",
					  .portal_probe = probe_portal };
	struct source_choice choice = choose(&request, &fake.display);
	test_assert(choice.kind == SOURCE_PORTAL && !choice.failed);
	test_assert(fake.display.probes == 1 && fake.portal.probes == 1);
	test_assert(strcmp(choice.reason, "WAYLAND_DISPLAY=gnome: it offers no copy protocol; "
			   "the session bus has a ScreenCast portal") == 0, "%s", choice.reason);

	/* No portal either: hosting, as before, and both reasons said. */
	fake.portal = (struct fake_portal){ .present = false };
	fake.display.probes = 0;
	choice = choose(&request, &fake.display);
	test_assert(choice.kind == SOURCE_HOST && !choice.failed);
	test_assert(strcmp(choice.reason, "WAYLAND_DISPLAY=gnome: it offers no copy protocol") == 0,
		    "%s", choice.reason);
	test_assert(strcmp(choice.portal_note, "no ScreenCast portal on the session D-Bus") == 0,
		    "%s", choice.portal_note);

	/* A copy protocol wins; the portal is not asked. */
	fake.display = (struct fake_display){ .offers = WLR };
	fake.portal = (struct fake_portal){ .present = true };
	choice = choose(&request, &fake.display);
	test_assert(choice.kind == SOURCE_SCREENCOPY && fake.portal.probes == 0);

	/* Nor for a COMMAND, or with no desktop at all. */
	struct source_request command = { .command = true, .wayland_display = "gnome",
					  .portal_probe = probe_portal };
	choice = choose(&command, &fake.display);
	test_assert(choice.kind == SOURCE_HOST && fake.portal.probes == 0);
	struct source_request nothing = { .portal_probe = probe_portal };
	choice = choose(&nothing, &fake.display);
	test_assert(choice.kind == SOURCE_HOST && fake.portal.probes == 0);

	/* --capture portal asks nothing: the portal itself answers. */
	struct source_request forced = { .capture = CAPTURE_PORTAL, .wayland_display = "sway",
					 .portal_probe = probe_portal };
	fake.display.probes = 0;
	choice = choose(&forced, &fake.display);
	test_assert(choice.kind == SOURCE_PORTAL && !choice.failed);
	test_assert(fake.display.probes == 0 && fake.portal.probes == 0);
}

#define PARSE(opts, ...)                                                                  \
	({                                                                                 \
		char *argv_[] = { "wl-record", __VA_ARGS__, NULL };                        \
		options_parse((int)(sizeof(argv_) / sizeof(argv_[0])) - 1, argv_, (opts));  \
	})

TEST(capture_option)
{
	struct options o;
	test_assert(PARSE(&o, "out.mkv") == OPTIONS_RUN && o.capture == CAPTURE_AUTO);
	test_assert(PARSE(&o, "--capture", "screencopy", "out.mkv") == OPTIONS_RUN);
	test_assert(o.capture == CAPTURE_SCREENCOPY);
	test_assert(PARSE(&o, "--capture=listen", "out.mkv") == OPTIONS_RUN);
	test_assert(o.capture == CAPTURE_LISTEN);
	test_assert(PARSE(&o, "--capture", "ext-image-copy", "out.mkv") == OPTIONS_RUN);
	test_assert(o.capture == CAPTURE_EXT_COPY);
	test_assert(PARSE(&o, "--capture=wlr-screencopy", "-o", "HDMI-A-1", "out.mkv") == OPTIONS_RUN);
	test_assert(o.capture == CAPTURE_WLR_SCREENCOPY);
	test_assert(PARSE(&o, "--capture", "ext-image-copy", "out.mkv", "--", "true") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--capture", "wlr-screencopy", "--socket", "x", "out.mkv") ==
		    OPTIONS_BAD);
	test_assert(PARSE(&o, "--capture", "portal", "out.mkv") == OPTIONS_RUN);
	test_assert(o.capture == CAPTURE_PORTAL);
	test_assert(PARSE(&o, "--capture", "portal", "-o", "DP-1", "out.mkv") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--capture", "portal", "out.mkv", "--", "true") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--capture", "portal", "--socket", "x", "out.mkv") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--capture", "portals", "out.mkv") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--capture", "screencopy", "out.mkv", "--", "true") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--capture", "screencopy", "--socket", "x", "out.mkv") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--capture", "listen", "out.mkv", "--", "true") == OPTIONS_RUN);
}

TEST(forget_portal_option)
{
	struct options o;
	test_assert(PARSE(&o, "--forget-portal") == OPTIONS_RUN && o.forget_portal);
	test_assert(PARSE(&o, "--forget-portal", "out.mkv") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--forget-portal", "--capture", "portal") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--forget-portal", "--toggle") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--forget-portal", "--stop") == OPTIONS_BAD);
	test_assert(PARSE(&o, "out.mkv") == OPTIONS_RUN && !o.forget_portal);
}

/* source_select(): hosting is the program's own source, made only when
 * chosen; a forced copy that cannot be had makes none. */
static int hosts_made;

static bool host_start(struct capture_source *source, struct wl_event_loop *loop,
		       ended_fn ended, void *data)
{
	return true;
}

static struct frame_source *host_frames(struct capture_source *source)
{
	return NULL;
}

static const char *host_describe(const struct capture_source *source)
{
	return "the test's host";
}

static void host_destroy(struct capture_source *source)
{
	hosts_made--;
}

static const struct capture_source_impl host_impl = {
	.hosting = true, .start = host_start, .frames = host_frames,
	.describe = host_describe, .destroy = host_destroy,
};
static struct capture_source host_source = { .impl = &host_impl };

static struct capture_source *make_host(void)
{
	hosts_made++;
	return &host_source;
}

TEST(select_hosts_through_the_program)
{
	struct source_select_request request = { .command = true, .host = make_host };
	bool bad_usage = true;
	struct capture_source *source = source_select(&request, &bad_usage);
	test_assert(source == &host_source && hosts_made == 1 && !bad_usage);
	test_assert(capture_source_is_hosting(source));
	test_assert(!capture_source_list_outputs(source, stdout)); /* a host has no outputs */
	capture_source_destroy(source);
	test_assert(hosts_made == 0);

	request = (struct source_select_request){ .capture = CAPTURE_SCREENCOPY, .host = make_host };
	test_assert(!source_select(&request, &bad_usage) && !bad_usage && hosts_made == 0);
}
