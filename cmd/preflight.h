#ifndef WL_RECORD_PREFLIGHT_H
#define WL_RECORD_PREFLIGHT_H

struct app;

/* Everything that can be refused before anything starts (no device opened,
 * no socket, no COMMAND run), so that its error is the first line on
 * stderr: the output folder exists and is writable, an existing file is
 * not replaced without -y, the container is known and fits the codec, the
 * runtime folder for the socket is usable. Returns EXIT_OK, or the exit
 * status after logging one line: EXIT_USAGE for a bad command line,
 * EXIT_FAILED for a refusal of the file system. */
int preflight_check(const struct app *app);

#endif
