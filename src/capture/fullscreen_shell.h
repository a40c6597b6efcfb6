#ifndef WL_RECORD_FULLSCREEN_SHELL_H
#define WL_RECORD_FULLSCREEN_SHELL_H

#include <stdbool.h>

struct server;

/* zwp_fullscreen_shell_v1: a thin layer that tells the screen which surface
 * is presented and how, and switches the output mode on request. */
struct fullscreen_shell *fullscreen_shell_create(struct server *server);

/* Call after the display's clients are gone. Accepts NULL. */
void fullscreen_shell_destroy(struct fullscreen_shell *shell);

#endif
