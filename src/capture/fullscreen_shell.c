#define LOG_MODULE "shell"
#include "fullscreen_shell.h"

#include <assert.h>
#include <stdlib.h>
#include <sys/types.h>
#include <wayland-server-protocol.h>

#include "clock.h"
#include "fullscreen-shell-unstable-v1-server-protocol.h"
#include "log.h"
#include "output.h"
#include "server.h"
#include "shm.h"
#include "surface.h"

#define SHELL_VERSION 1

/* A presentation waiting for the surface's next commit. */
struct pending_present {
	struct surface *surface;         /* NULL: nothing pending */
	enum screen_method method;
	struct wl_resource *feedback;    /* present_surface_for_mode only */
	int32_t framerate_mhz;
	struct wl_listener surface_destroy;
};

struct fullscreen_shell {
	struct server *server;
	struct wl_global *global;
	struct pending_present pending;
	bool for_mode;                   /* the presented surface asked for a mode */
};

/* Per surface that has the fullscreen-shell role. */
struct shell_surface {
	struct fullscreen_shell *shell;
	struct surface *surface;
	struct wl_listener surface_destroy;
};

static const struct zwp_fullscreen_shell_v1_interface shell_impl;

static struct fullscreen_shell *shell_from_resource(struct wl_resource *resource)
{
	assert(wl_resource_instance_of(resource, &zwp_fullscreen_shell_v1_interface, &shell_impl));
	return wl_resource_get_user_data(resource);
}

static void feedback_resource_destroy(struct wl_resource *resource)
{
	struct fullscreen_shell *shell = wl_resource_get_user_data(resource);
	if (shell && shell->pending.feedback == resource)
		shell->pending.feedback = NULL;
}

/* Sends one of the feedback's destructor events and destroys it. */
static void finish_feedback(struct fullscreen_shell *shell,
			    void (*send)(struct wl_resource *resource))
{
	struct wl_resource *feedback = shell->pending.feedback;
	if (!feedback)
		return;
	shell->pending.feedback = NULL;
	send(feedback);
	wl_resource_destroy(feedback);
}

static void clear_pending(struct fullscreen_shell *shell)
{
	wl_list_remove(&shell->pending.surface_destroy.link);
	wl_list_init(&shell->pending.surface_destroy.link);
	shell->pending.surface = NULL;
}

static void pending_surface_destroyed(struct wl_listener *listener, void *data)
{
	struct fullscreen_shell *shell = wl_container_of(listener, shell, pending.surface_destroy);
	finish_feedback(shell, zwp_fullscreen_shell_mode_feedback_v1_send_present_cancelled);
	clear_pending(shell);
}

/* Replaces whatever was pending; a mode request that never took effect is
 * answered present_cancelled, as the protocol asks. */
static void set_pending(struct fullscreen_shell *shell, struct surface *surface,
			enum screen_method method, struct wl_resource *feedback,
			int32_t framerate_mhz)
{
	finish_feedback(shell, zwp_fullscreen_shell_mode_feedback_v1_send_present_cancelled);
	clear_pending(shell);
	shell->pending.surface = surface;
	shell->pending.method = method;
	shell->pending.feedback = feedback;
	shell->pending.framerate_mhz = framerate_mhz;
	if (surface)
		wl_signal_add(&surface->events.destroy, &shell->pending.surface_destroy);
}

/* The mode a surface asks for: its buffer's size as shown (transformed). The
 * buffer size rather than the surface size, so a HiDPI main compositor is
 * recorded at full resolution. */
static bool surface_mode(const struct surface *surface, int *width, int *height)
{
	if (!surface->mapped || !surface->texture)
		return false;
	int w = pixman_image_get_width(surface->texture);
	int h = pixman_image_get_height(surface->texture);
	if (surface->current.transform & WL_OUTPUT_TRANSFORM_90) {
		int t = w;
		w = h;
		h = t;
	}
	*width = w;
	*height = h;
	return w > 0 && h > 0 && w <= SHM_MAX_BUFFER_SIDE && h <= SHM_MAX_BUFFER_SIDE;
}

static void apply_pending(struct fullscreen_shell *shell, struct surface *surface, int64_t commit_ns)
{
	struct server *server = shell->server;
	if (shell->pending.feedback) {
		int width, height;
		if (!surface_mode(surface, &width, &height)) {
			if (!surface->mapped)
				return; /* no buffer yet: the request waits for one */
			LOG_WARN("cannot switch the output to the surface's size; mode_failed");
			finish_feedback(shell, zwp_fullscreen_shell_mode_feedback_v1_send_mode_failed);
			clear_pending(shell);
			return;
		}
		int refresh = shell->pending.framerate_mhz > 0 ? shell->pending.framerate_mhz
							       : server->output->refresh_mhz;
		server_set_output_size(server, width, height, refresh);
		finish_feedback(shell, zwp_fullscreen_shell_mode_feedback_v1_send_mode_successful);
		shell->for_mode = true;
	} else {
		shell->for_mode = false;
	}
	enum screen_method method = shell->pending.method;
	clear_pending(shell);
	output_send_enter(server->output, surface->resource);
	screen_present(&server->screen, surface, method, commit_ns);
}

static void shell_surface_commit(struct surface *surface, const pixman_region32_t *damage,
				 int64_t commit_ns)
{
	struct shell_surface *shell_surface = surface->role_data;
	struct fullscreen_shell *shell = shell_surface->shell;
	struct server *server = shell->server;

	if (shell->pending.surface == surface) {
		apply_pending(shell, surface, commit_ns);
		return;
	}
	if (server->screen.surface != surface)
		return;

	/* A surface presented for a mode that changes size: follow it, so the
	 * recording keeps the main compositor's real size. */
	int width, height;
	if (shell->for_mode && surface_mode(surface, &width, &height) &&
	    (width != server->screen.width || height != server->screen.height)) {
		server_set_output_size(server, width, height, server->output->refresh_mhz);
		screen_present(&server->screen, surface, server->screen.method, commit_ns);
		return;
	}
	screen_surface_committed(&server->screen, surface, damage, commit_ns);
}

static const struct surface_role shell_surface_role = {
	.name = "zwp_fullscreen_shell_v1",
	.commit = shell_surface_commit,
};

static void shell_surface_destroyed(struct wl_listener *listener, void *data)
{
	struct shell_surface *shell_surface = wl_container_of(listener, shell_surface, surface_destroy);
	wl_list_remove(&shell_surface->surface_destroy.link);
	free(shell_surface);
}

static bool give_role(struct fullscreen_shell *shell, struct surface *surface,
		      struct wl_resource *shell_resource)
{
	if (surface->role == &shell_surface_role)
		return true;
	struct shell_surface *shell_surface = calloc(1, sizeof(*shell_surface));
	if (!shell_surface) {
		wl_resource_post_no_memory(shell_resource);
		return false;
	}
	if (!surface_set_role(surface, &shell_surface_role, shell_surface, shell_resource,
			      ZWP_FULLSCREEN_SHELL_V1_ERROR_ROLE)) {
		free(shell_surface);
		return false;
	}
	shell_surface->shell = shell;
	shell_surface->surface = surface;
	shell_surface->surface_destroy.notify = shell_surface_destroyed;
	wl_signal_add(&surface->events.destroy, &shell_surface->surface_destroy);
	return true;
}

/* One presenting client at a time: the first client to present owns the
 * output until it disconnects (then wl-record finishes, or with a COMMAND
 * serves the next one). Two clients taking turns would splice two unrelated
 * desktops into one recording. The protocol has no error for "busy", so the
 * second client gets wl_display's implementation error: a limit of this
 * compositor, not a bug of the client's, and a clear message either way. */
static bool claim_output(struct fullscreen_shell *shell, struct wl_client *client)
{
	struct wl_client *owner = shell->server->screen.presenter;
	if (!owner && shell->pending.surface)
		owner = wl_resource_get_client(shell->pending.surface->resource);
	if (!owner || owner == client)
		return true;
	pid_t pid = 0;
	wl_client_get_credentials(owner, &pid, NULL, NULL);
	LOG_WARN("refusing a second presenting client: pid %d is presenting", (int)pid);
	wl_client_post_implementation_error(client, "wl-record records one presenting client at "
					    "a time, and another client (pid %d) is presenting",
					    (int)pid);
	return false;
}

/* An output argument that names another global is a client bug the protocol
 * has no error for; wl-record has one output, so any is taken to mean it. */
static void shell_handle_present_surface(struct wl_client *client, struct wl_resource *resource,
					 struct wl_resource *surface_resource, uint32_t method,
					 struct wl_resource *output_resource)
{
	struct fullscreen_shell *shell = shell_from_resource(resource);
	if (method > ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_STRETCH) {
		wl_resource_post_error(resource, ZWP_FULLSCREEN_SHELL_V1_ERROR_INVALID_METHOD,
				       "unknown present method %u", method);
		return;
	}
	if (!claim_output(shell, client))
		return;
	if (!surface_resource) {
		/* Nothing presented: the output goes black now. */
		set_pending(shell, NULL, SCREEN_METHOD_DEFAULT, NULL, 0);
		shell->for_mode = false;
		screen_present(&shell->server->screen, NULL, SCREEN_METHOD_DEFAULT, clock_now_ns());
		return;
	}
	struct surface *surface = surface_from_resource(surface_resource);
	if (!give_role(shell, surface, resource))
		return;
	set_pending(shell, surface, (enum screen_method)method, NULL, 0);
}

static void shell_handle_present_surface_for_mode(struct wl_client *client,
						  struct wl_resource *resource,
						  struct wl_resource *surface_resource,
						  struct wl_resource *output_resource,
						  int32_t framerate, uint32_t feedback_id)
{
	struct fullscreen_shell *shell = shell_from_resource(resource);
	struct surface *surface = surface_from_resource(surface_resource);
	if (!claim_output(shell, client))
		return;

	struct wl_resource *feedback = wl_resource_create(
		client, &zwp_fullscreen_shell_mode_feedback_v1_interface, 1, feedback_id);
	if (!feedback) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(feedback, NULL, shell, feedback_resource_destroy);
	if (!give_role(shell, surface, resource))
		return;
	set_pending(shell, surface, SCREEN_METHOD_DEFAULT, feedback, framerate);
}

static void shell_handle_release(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct zwp_fullscreen_shell_v1_interface shell_impl = {
	.release = shell_handle_release,
	.present_surface = shell_handle_present_surface,
	.present_surface_for_mode = shell_handle_present_surface_for_mode,
};

static void shell_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(
		client, &zwp_fullscreen_shell_v1_interface, (int)version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &shell_impl, data, NULL);
	zwp_fullscreen_shell_v1_send_capability(resource,
						ZWP_FULLSCREEN_SHELL_V1_CAPABILITY_ARBITRARY_MODES);
}

struct fullscreen_shell *fullscreen_shell_create(struct server *server)
{
	struct fullscreen_shell *shell = calloc(1, sizeof(*shell));
	if (!shell)
		return NULL;
	shell->server = server;
	wl_list_init(&shell->pending.surface_destroy.link);
	shell->pending.surface_destroy.notify = pending_surface_destroyed;
	shell->global = wl_global_create(server->display, &zwp_fullscreen_shell_v1_interface,
					 SHELL_VERSION, shell, shell_bind);
	if (!shell->global) {
		LOG_ERR("cannot create the zwp_fullscreen_shell_v1 global");
		free(shell);
		return NULL;
	}
	return shell;
}

void fullscreen_shell_destroy(struct fullscreen_shell *shell)
{
	if (!shell)
		return;
	clear_pending(shell);
	wl_global_destroy(shell->global);
	free(shell);
}
