#ifndef WL_RECORD_XDG_SHELL_H
#define WL_RECORD_XDG_SHELL_H

struct server;
struct xdg_shell;

/* xdg_wm_base: toplevels are configured fullscreen at the output's size and
 * shown through the screen's views; popups are shown at their position. */
struct xdg_shell *xdg_shell_create(struct server *server);
void xdg_shell_destroy(struct xdg_shell *shell);

/* The output changed size: every toplevel is configured to the new one. */
void xdg_shell_output_resized(struct xdg_shell *shell);

#endif
