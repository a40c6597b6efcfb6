#ifndef WL_RECORD_SCREENCOPY_PROTOCOL_H
#define WL_RECORD_SCREENCOPY_PROTOCOL_H

/* The copy protocols wl-record speaks, a bit each. Header-only: cmd/'s
 * choice of source (source_choice.c) uses them without linking the source. */
enum screencopy_protocol {
	SCREENCOPY_WLR = 1 << 0, /* wlr-screencopy-unstable-v1 */
	SCREENCOPY_EXT = 1 << 1, /* ext-image-copy-capture-v1 with its output source */
};

/* "wlr-screencopy", "ext-image-copy-capture". */
static inline const char *screencopy_protocol_name(enum screencopy_protocol protocol)
{
	return protocol == SCREENCOPY_EXT ? "ext-image-copy-capture" : "wlr-screencopy";
}

#endif
