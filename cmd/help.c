#include "help.h"

#include <getopt.h>
#include <string.h>

#include "options.h"

/* Where the right column of --help starts. */
#define HELP_COLUMN 27

/* One row of the options table: its heading, then "  -x, --name VALUE" (or
 * its own left column) and its text, continued lines under the text. */
static void print_option(FILE *out, const struct option_spec *spec)
{
	if (spec->section)
		fprintf(out, "\n%s%s", spec->section, spec->section[0] ? "\n" : "");
	if (!spec->usage && !spec->help)
		return; /* told in the line before */
	char left[80];
	if (spec->usage)
		snprintf(left, sizeof(left), "%s", spec->usage);
	else
		snprintf(left, sizeof(left), "  %c%c%c --%s%s%s",
			 spec->short_name ? '-' : ' ', spec->short_name ? spec->short_name : ' ',
			 spec->short_name ? ',' : ' ', spec->name,
			 spec->value_name && spec->has_arg == required_argument ? " " : "",
			 spec->value_name ? spec->value_name : "");
	fputs(left, out);
	if (spec->help) {
		/* A left column that fills the column gets two spaces. */
		int pad = (int)strlen(left) < HELP_COLUMN ? HELP_COLUMN - (int)strlen(left) : 2;
		for (const char *line = spec->help; line; ) {
			const char *end = strchr(line, '\n');
			fprintf(out, "%*s%.*s", pad, "", end ? (int)(end - line) : (int)strlen(line),
				line);
			if (end)
				fputc('\n', out);
			line = end ? end + 1 : NULL;
			pad = HELP_COLUMN;
		}
	}
	fputc('\n', out);
}

/* Short on purpose: one line per option, grouped; wl-record(1) has the rest. */
void print_help(FILE *out)
{
	fputs(
"Usage: wl-record [OPTIONS] [FILE] [-- COMMAND [ARG...]]\n"
"Records the desktop it runs in (screencopy), what a compositor presents to it\n"
"or the apps it hosts as video (H.264; VP9 for .webm), or a PNG still. Without\n"
"FILE: in $XDG_VIDEOS_DIR or $XDG_PICTURES_DIR; the path is printed on stdout.\n",
	      out);
	for (size_t i = 0; i < option_spec_count; i++)
		print_option(out, &option_specs[i]);
	fputs(
"Exit status: 0 done, 1 failed, 2 bad command line; with COMMAND, its status.\n"
"More in wl-record(1).\n",
	      out);
}
