#ifndef WL_RECORD_XDG_SHELL_H
#define WL_RECORD_XDG_SHELL_H

struct server;
struct surface;
struct xdg_shell;

/* xdg_wm_base: toplevels are configured fullscreen at the output's size and
 * shown through the screen's views; popups are shown at their position. */
struct xdg_shell *xdg_shell_create(struct server *server);
void xdg_shell_destroy(struct xdg_shell *shell);

/* The output changed size: every toplevel is configured to the new one. */
void xdg_shell_output_resized(struct xdg_shell *shell);

/* xdg_popup grabs: the surface of the topmost popup holding one (NULL:
 * none) ... */
struct surface *xdg_shell_grab_surface(struct xdg_shell *shell);
/* ... and ending them (a click outside the grabbing client): each grabbing
 * popup, topmost first, with its child popups, is dismissed (popup_done). */
void xdg_shell_dismiss_grab(struct xdg_shell *shell);

/* The title of the toplevel on top (the most recently mapped one, which
 * has the keyboard unless a click gave it elsewhere; NULL when there is
 * none or it set no title) goes to `handler` whenever it changes, and once
 * when set. NULL handler: none. */
typedef void (*xdg_shell_title_handler)(void *data, const char *title);
void xdg_shell_set_title_handler(struct xdg_shell *shell, xdg_shell_title_handler handler,
				 void *data);

/* Asks every toplevel to close (xdg_toplevel.close), as a desktop does when
 * its window is closed. Returns how many were asked. */
int xdg_shell_close_toplevels(struct xdg_shell *shell);

#endif
