#ifndef WL_RECORD_SCREENCOPY_INTERNAL_H
#define WL_RECORD_SCREENCOPY_INTERNAL_H

/* Inside the desktop source (screencopy_source.h): the part every copy
 * protocol shares (screencopy_source.c: connection, outputs, selection,
 * buffers, delivery to the sinks) and what each protocol adds
 * (wlr_screencopy.c, ext_copy_session.c). */

#include <stdbool.h>
#include <stdint.h>

#include "desktop_connection.h"
#include "desktop_outputs.h"
#include "dmabuf_pool.h"
#include "frame_source.h"
#include "screencopy_source.h"
#include "shm_pool.h"

/* One copy protocol, as the shared part drives it. */
struct copy_protocol {
	enum screencopy_protocol id;
	/* Asks for the next picture (the first one at the start). */
	void (*start_capture)(struct screencopy_source *source);
	/* A buffer may be free again: attach it if a copy waits for one. */
	void (*retry)(struct screencopy_source *source);
	/* The end: drops the copy under way (the shared part ends the rest). */
	void (*cancel)(struct screencopy_source *source);
};

extern const struct copy_protocol wlr_screencopy_protocol;
extern const struct copy_protocol ext_copy_protocol;

/* wlr-screencopy's objects. */
struct wlr_copy_state {
	struct zwlr_screencopy_manager_v1 *manager;
	uint32_t manager_version;
	struct zwlr_screencopy_frame_v1 *frame; /* the copy under way */
	uint32_t flags;
	bool region_cut_here; /* -g: the whole output copied, then cut */
};

/* ext-image-copy-capture's objects. */
struct ext_copy_state {
	struct ext_output_image_capture_source_manager_v1 *source_manager;
	struct ext_image_copy_capture_manager_v1 *manager;
	struct ext_image_capture_source_v1 *capture_source;
	struct ext_image_copy_capture_session_v1 *session;
	struct ext_image_copy_capture_frame_v1 *frame; /* the copy under way */
	/* The session's buffer constraints: being received, and the last
	 * complete set (after `done`). */
	struct copy_offer receiving;
	uint32_t receiving_width, receiving_height;
	struct copy_offer constraints;
	struct dmabuf_offer receiving_dmabuf; /* rank 0: none offered */
	struct dmabuf_offer dmabuf_constraints;
	bool constraints_known;
	unsigned constraints_serial; /* one more at each `done` */
	unsigned frame_serial;       /* constraints_serial when the copy was asked */
	bool waiting_constraints;    /* a copy failed on them: wait for new ones */
	int failed_copies;           /* in a row, for no stated reason */
	/* What the compositor said of the copy under way. */
	bool damage_seen;
	bool warned_modifiers; /* a dmabuf_format of part of a modifier, said once */
	uint32_t transform;
	bool time_known;
	uint32_t sec_hi, sec_lo, nsec;
};

struct screencopy_source {
	struct frame_source frames;
	struct wl_display *display;
	struct wl_registry *registry;
	struct zxdg_output_manager_v1 *xdg_output_manager;
	struct wl_list outputs; /* desktop_output.link */
	bool globals_read;      /* later outputs are not bound: only the chosen one matters */
	struct desktop_output *output; /* the one recorded */
	/* -g: the part of `output` recorded, in its logical coordinates. */
	bool region;
	int region_x, region_y, region_width, region_height;
	bool no_cursor;
	char description[192];
	char note[160];

	const struct copy_protocol *protocol; /* the one copying */
	struct wlr_copy_state wlr;
	struct ext_copy_state ext;

	struct desktop_connection connection;
	struct wl_event_source *retry;
	ended_fn ended;
	void *ended_data;
	bool over;

	/* The copy under way: into `target` (shm) or `dmabuf_target`, locked
	 * until it is delivered or dropped (screencopy_drop_target). */
	struct copy_offer offer;
	struct dmabuf_offer dmabuf_offer; /* rank 0: none offered */
	struct screencopy_shm_buffer *target;
	struct screencopy_dmabuf_buffer *dmabuf_target;
	bool damage_known;
	struct frame_damage damage;
	bool copied_once; /* later copies wait for damage */
	int64_t start_ns;
	int64_t last_pts_ns;

	struct screencopy_shm_pool pool;
	/* The last picture handed on, kept (one reference) so that the next
	 * copy never lands in it and can be compared with it. */
	struct screencopy_shm_buffer *last;
	int64_t unchanged_copies;
	/* The output transform the log last named (normal at first). */
	uint32_t transform_said;

	/* dmabuf copies (dmabuf_pool.h): what the app asked for (no sinks:
	 * nothing), and what was chosen at the first copy
	 * (screencopy_take_target). */
	struct screencopy_buffers_request buffers;
	enum { BUFFERS_UNDECIDED, BUFFERS_SHM, BUFFERS_DMABUF } buffers_kind;
	struct screencopy_dmabuf_pool dmabuf;
	int64_t dmabuf_copies;
};

/* Binds the protocol's globals; false when `interface` is none of them. */
bool wlr_screencopy_bind(struct screencopy_source *source, struct wl_registry *registry,
			 uint32_t name, const char *interface, uint32_t version);
bool ext_copy_bind(struct screencopy_source *source, struct wl_registry *registry,
		   uint32_t name, const char *interface, uint32_t version);
bool ext_copy_offered(const struct screencopy_source *source);
void wlr_screencopy_destroy(struct screencopy_source *source);
void ext_copy_destroy(struct screencopy_source *source);

/* Ends the capture once, telling the app why; no frame follows. */
void screencopy_end(struct screencopy_source *source, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Sends what is queued to the compositor. */
void screencopy_flush(struct screencopy_source *source);

/* A free buffer for source->offer to copy into, or NULL: the source ended
 * (no readable format, no memory), or every buffer is kept and the
 * protocol's retry() comes later. */
struct screencopy_shm_buffer *screencopy_take_buffer(struct screencopy_source *source);

/* The buffer for the next copy: source->dmabuf_target when dmabufs were
 * chosen (the choice is made here, at the first copy: `cropped` when -g is
 * cut out of the copy by the CPU), else source->target (as
 * screencopy_take_buffer()). False when neither: the source ended, or
 * every buffer is kept and the protocol's retry() comes later. */
bool screencopy_take_target(struct screencopy_source *source, bool cropped);
/* The copy will not be delivered (failed, cancelled): its buffer is free. */
void screencopy_drop_target(struct screencopy_source *source);

/* The wl_buffer of the copy under way's buffer. */
struct wl_buffer *screencopy_target_wl_buffer(const struct screencopy_source *source);

/* A dmabuf copy failed or cannot be delivered (`why`): shm for the rest of
 * the session, said once (a warning). */
void screencopy_dmabuf_failed(struct screencopy_source *source, const char *why);

/* Hands a dmabuf copy to the sinks as its buffer (with source->damage); the
 * buffer is copied into again once no sink holds it. A y-inverted or
 * turned copy (`transform`, output_transform.h) cannot be turned upright
 * without the CPU: screencopy_dmabuf_failed(), and the next copy is a
 * whole one into shm. Takes the copy's lock on `buffer`. */
void screencopy_deliver_dmabuf(struct screencopy_source *source,
			       struct screencopy_dmabuf_buffer *buffer, int64_t pts_ns,
			       bool y_invert, uint32_t transform);

/* The largest copy side taken from a compositor (as shm_offer_rank's). */
#define SCREENCOPY_MAX_SIDE 16384

/* Grows source->damage by a rectangle the compositor reports; 64-bit, as
 * the protocols' values are (x + width may overflow an int). */
void screencopy_add_damage(struct screencopy_source *source, int64_t x, int64_t y,
			   int64_t width, int64_t height);

/* The compositor's presentation time (CLOCK_MONOTONIC) when usable, else
 * now; strictly increasing either way, as the muxer needs. */
int64_t screencopy_frame_time(struct screencopy_source *source, bool known, uint32_t sec_hi,
			      uint32_t sec_lo, uint32_t nsec);

/* -g in the pixels of the upright picture of a copy of the whole output
 * into `buffer` (turned by `transform`): what screencopy_deliver() crops. */
struct frame_damage screencopy_region_in_copy(const struct screencopy_source *source,
					      const struct screencopy_shm_buffer *buffer,
					      uint32_t transform);

/* Hands the copy in `buffer` (with source->damage) to the sinks: rows
 * flipped first when `y_invert`, then turned upright from `transform` (the
 * wl_output transform the compositor applied, output_transform.h), then
 * only `crop` (pixels of the upright picture; NULL: all of it). A copy that
 * changed nothing is passed over. Takes the copy's lock on `buffer` (it
 * becomes source->last's). The caller then asks for the next one unless
 * source->over. */
void screencopy_deliver(struct screencopy_source *source, struct screencopy_shm_buffer *buffer,
			int64_t pts_ns, bool y_invert, uint32_t transform,
			const struct frame_damage *crop);

#endif
