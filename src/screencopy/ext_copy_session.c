#define LOG_MODULE "screencopy"
/* ext-image-copy-capture-v1 (with ext-image-capture-source-v1 for the
 * output): one session per recording, whose buffer constraints (size, shm
 * formats) may change at any time (a mode change); one frame object per
 * copy. Each copy tells the compositor what changed in its buffer since
 * that buffer was last filled (damage_buffer), and the compositor answers
 * when the output changed, with the damage and its presentation time. The
 * protocol copies whole outputs: -g is cropped from the copy. */
#include "screencopy_internal.h"
#include "output_transform.h"

#include <string.h>

#include "buffer_negotiation.h"
#include "ext-image-capture-source-v1-client-protocol.h"
#include "ext-image-copy-capture-v1-client-protocol.h"
#include "log.h"

/* A copy that fails for no stated reason is asked again, this many times
 * in a row at most. */
#define MAX_FAILED_COPIES 3

static void new_frame(struct screencopy_source *source);

static void session_buffer_size(void *data, struct ext_image_copy_capture_session_v1 *session,
				uint32_t width, uint32_t height)
{
	struct ext_copy_state *ext = &((struct screencopy_source *)data)->ext;
	ext->receiving_width = width;
	ext->receiving_height = height;
}

static void session_shm_format(void *data, struct ext_image_copy_capture_session_v1 *session,
			       uint32_t format)
{
	struct ext_copy_state *ext = &((struct screencopy_source *)data)->ext;
	int rank = shm_offer_rank(format, 1, 1, 4);
	LOG_DBG("the compositor offers shm format 0x%08x%s", format, rank ? "" : " (not read)");
	if (rank > ext->receiving.rank)
		ext->receiving = (struct copy_offer){ .format = format, .rank = rank };
}

static void session_dmabuf_device(void *data, struct ext_image_copy_capture_session_v1 *session,
				  struct wl_array *device)
{
	struct ext_copy_state *ext = &((struct screencopy_source *)data)->ext;
	if (device->size != sizeof(dev_t))
		return;
	memcpy(&ext->receiving_dmabuf.device, device->data, sizeof(dev_t));
	ext->receiving_dmabuf.device_known = true;
}

static void session_dmabuf_format(void *data, struct ext_image_copy_capture_session_v1 *session,
				  uint32_t format, struct wl_array *modifiers)
{
	struct screencopy_source *source = data;
	struct ext_copy_state *ext = &source->ext;
	/* An array of 64-bit values (the protocol's words): whole ones only. A
	 * compositor that sends a part of one is not read for this format. */
	if (modifiers->size % sizeof(uint64_t)) {
		if (!ext->warned_modifiers)
			LOG_WARN("the compositor's dmabuf format 0x%08x lists %zu bytes of modifiers, "
				 "not whole 64-bit values: that format is not used", format,
				 modifiers->size);
		ext->warned_modifiers = true;
		return;
	}
	const struct screencopy_buffers_request *asked = &source->buffers;
	int rank = wl_record_dmabuf_format_rank(asked->sinks, asked->n_sinks, format);
	size_t count = modifiers->size / sizeof(uint64_t);
	LOG_DBG("the compositor offers dmabuf format 0x%08x with %zu modifier(s)%s", format, count,
		rank ? "" : " (not mapped)");
	if (rank <= ext->receiving_dmabuf.rank)
		return;
	/* Only the modifiers every sink takes. */
	int n_taken = 0;
	uint64_t taken[DMABUF_OFFER_MAX_MODIFIERS];
	for (size_t i = 0; i < count; i++) {
		/* memcpy: the array need not be 8-byte aligned in the message. */
		uint64_t modifier;
		memcpy(&modifier, (const uint8_t *)modifiers->data + i * sizeof(uint64_t),
		       sizeof(modifier));
		bool sinks_take = wl_record_dmabuf_modifier_taken(asked->sinks, asked->n_sinks,
								  format, modifier);
		if (sinks_take && n_taken < DMABUF_OFFER_MAX_MODIFIERS)
			taken[n_taken++] = modifier;
	}
	if (count && !n_taken)
		return; /* as a format no sink takes */
	struct dmabuf_offer *offer = &ext->receiving_dmabuf;
	offer->format = format;
	offer->rank = rank;
	offer->n_modifiers = n_taken;
	memcpy(offer->modifiers, taken, sizeof(taken[0]) * (size_t)n_taken);
}

/* A whole set of constraints: the buffers from now on. */
static void session_done(void *data, struct ext_image_copy_capture_session_v1 *session)
{
	struct screencopy_source *source = data;
	struct ext_copy_state *ext = &source->ext;
	/* Taken as ints below (and times 4): larger is refused here. */
	if (ext->receiving_width > SCREENCOPY_MAX_SIDE || ext->receiving_height > SCREENCOPY_MAX_SIDE) {
		screencopy_end(source, "the compositor's buffers would be %ux%u pixels: wl-record "
				       "takes up to %dx%d", ext->receiving_width,
			       ext->receiving_height, SCREENCOPY_MAX_SIDE, SCREENCOPY_MAX_SIDE);
		return;
	}
	struct copy_offer offer = ext->receiving;
	offer.width = (int)ext->receiving_width;
	offer.height = (int)ext->receiving_height;
	offer.stride = offer.width * 4;
	if (offer.rank)
		offer.rank = shm_offer_rank(offer.format, ext->receiving_width,
					    ext->receiving_height, (uint32_t)offer.stride);
	LOG_DBG("ext-image-copy-capture buffers: %dx%d, shm format 0x%08x", offer.width,
		offer.height, offer.format);
	ext->constraints = offer;
	ext->dmabuf_constraints = ext->receiving_dmabuf;
	ext->dmabuf_constraints.width = offer.width;
	ext->dmabuf_constraints.height = offer.height;
	if (!offer.width || !offer.height)
		ext->dmabuf_constraints.rank = 0;
	if (ext->dmabuf_constraints.rank)
		LOG_DBG("ext-image-copy-capture buffers: dmabuf format 0x%08x",
			ext->dmabuf_constraints.format);
	ext->constraints_known = true;
	ext->constraints_serial++;
	ext->receiving = (struct copy_offer){ 0 };
	ext->receiving_dmabuf = (struct dmabuf_offer){ 0 };
	ext->waiting_constraints = false;
	if (!ext->frame)
		new_frame(source);
	screencopy_flush(source);
}

static void session_stopped(void *data, struct ext_image_copy_capture_session_v1 *session)
{
	screencopy_end(data, "the compositor stopped the capture (ext-image-copy-capture session "
			     "stopped)");
}

static const struct ext_image_copy_capture_session_v1_listener session_listener = {
	.buffer_size = session_buffer_size,
	.shm_format = session_shm_format,
	.dmabuf_device = session_dmabuf_device,
	.dmabuf_format = session_dmabuf_format,
	.done = session_done,
	.stopped = session_stopped,
};

static void frame_transform(void *data, struct ext_image_copy_capture_frame_v1 *frame,
			    uint32_t transform)
{
	struct screencopy_source *source = data;
	source->ext.transform = transform;
}

static void frame_damage(void *data, struct ext_image_copy_capture_frame_v1 *frame, int32_t x,
			 int32_t y, int32_t width, int32_t height)
{
	struct screencopy_source *source = data;
	/* Known from the first rectangle on; none at all: not known. */
	if (!source->ext.damage_seen) {
		source->ext.damage_seen = true;
		source->damage_known = true;
		source->damage = (struct frame_damage){ 0 };
	}
	screencopy_add_damage(source, x, y, width, height);
}

static void frame_presentation_time(void *data, struct ext_image_copy_capture_frame_v1 *frame,
				    uint32_t sec_hi, uint32_t sec_lo, uint32_t nsec)
{
	struct ext_copy_state *ext = &((struct screencopy_source *)data)->ext;
	ext->time_known = true;
	ext->sec_hi = sec_hi;
	ext->sec_lo = sec_lo;
	ext->nsec = nsec;
}

static void frame_ready(void *data, struct ext_image_copy_capture_frame_v1 *frame)
{
	struct screencopy_source *source = data;
	struct ext_copy_state *ext = &source->ext;
	/* The copy's lock goes with the buffer to screencopy_deliver*(). */
	struct screencopy_shm_buffer *buffer = source->target;
	struct screencopy_dmabuf_buffer *dmabuf = source->dmabuf_target;
	ext_image_copy_capture_frame_v1_destroy(ext->frame);
	ext->frame = NULL;
	source->target = NULL;
	source->dmabuf_target = NULL;
	ext->failed_copies = 0;
	/* Both pools: what changed is stale in every buffer but this one. */
	shm_pool_note_copy(&source->pool, buffer, source->damage_known, &source->damage);
	dmabuf_pool_note_copy(&source->dmabuf, dmabuf, source->damage_known, &source->damage);
	int64_t pts = screencopy_frame_time(source, ext->time_known, ext->sec_hi, ext->sec_lo,
					    ext->nsec);
	if (dmabuf) {
		/* Never with -g (cut by the CPU): see screencopy_take_target. */
		screencopy_deliver_dmabuf(source, dmabuf, pts, false, ext->transform);
		if (!source->over)
			new_frame(source);
		screencopy_flush(source);
		return;
	}
	struct frame_damage crop;
	if (source->region)
		crop = screencopy_region_in_copy(source, buffer, ext->transform);
	screencopy_deliver(source, buffer, pts, false, ext->transform,
			   source->region ? &crop : NULL);
	if (!source->over)
		new_frame(source);
	screencopy_flush(source);
}

static void frame_failed(void *data, struct ext_image_copy_capture_frame_v1 *frame,
			 uint32_t reason)
{
	struct screencopy_source *source = data;
	struct ext_copy_state *ext = &source->ext;
	bool into_dmabuf = source->dmabuf_target != NULL;
	ext_image_copy_capture_frame_v1_destroy(ext->frame);
	ext->frame = NULL;
	screencopy_drop_target(source);
	/* A dmabuf refused (for no reason, or for constraints that did not
	 * change): shm from now on, asked again at once. A stop or new
	 * constraints are what they are with any buffer. */
	if (into_dmabuf && reason != EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_STOPPED &&
	    (reason != EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_BUFFER_CONSTRAINTS ||
	     ext->frame_serial == ext->constraints_serial)) {
		screencopy_dmabuf_failed(source, "the compositor could not copy into a dmabuf "
					 "(ext-image-copy-capture failed)");
		new_frame(source);
		screencopy_flush(source);
		return;
	}
	switch (reason) {
	case EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_BUFFER_CONSTRAINTS:
		/* New constraints (a mode change) come with a `done`, or came
		 * already while this copy was under way. */
		LOG_DBG("the copy no longer fits the output: following its new size");
		if (ext->frame_serial == ext->constraints_serial)
			ext->waiting_constraints = true;
		break;
	case EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_STOPPED:
		screencopy_end(source, "the compositor stopped the capture (ext-image-copy-capture "
				       "session stopped)");
		return;
	default:
		if (++ext->failed_copies >= MAX_FAILED_COPIES) {
			screencopy_end(source, "the compositor could not copy the output "
					       "(ext-image-copy-capture failed %d times in a row)",
				       ext->failed_copies);
			return;
		}
		LOG_DBG("the compositor could not copy the output: asking again");
		break;
	}
	new_frame(source);
	screencopy_flush(source);
}

static const struct ext_image_copy_capture_frame_v1_listener frame_listener = {
	.transform = frame_transform,
	.damage = frame_damage,
	.presentation_time = frame_presentation_time,
	.ready = frame_ready,
	.failed = frame_failed,
};

/* The next copy, once the constraints are known and a buffer is free (a
 * retry comes when none is). */
static void new_frame(struct screencopy_source *source)
{
	struct ext_copy_state *ext = &source->ext;
	if (source->over || ext->frame || !ext->constraints_known || ext->waiting_constraints)
		return;
	source->offer = ext->constraints;
	source->dmabuf_offer = ext->dmabuf_constraints;
	/* -g is cut out of the copy by the CPU: shm. */
	if (!screencopy_take_target(source, source->region))
		return;
	struct wl_buffer *wl_buffer = screencopy_target_wl_buffer(source);
	bool stale_known;
	struct frame_damage stale;
	int width, height;
	if (source->dmabuf_target) {
		stale_known = source->dmabuf_target->stale_known;
		stale = source->dmabuf_target->stale;
		width = source->dmabuf_target->width;
		height = source->dmabuf_target->height;
	} else {
		stale_known = source->target->stale_known;
		stale = source->target->stale;
		width = source->target->width;
		height = source->target->height;
	}
	source->damage_known = false;
	source->damage = (struct frame_damage){ 0 };
	ext->damage_seen = false;
	ext->time_known = false;
	ext->transform = WL_OUTPUT_TRANSFORM_NORMAL;
	ext->frame_serial = ext->constraints_serial;
	ext->frame = ext_image_copy_capture_session_v1_create_frame(ext->session);
	ext_image_copy_capture_frame_v1_add_listener(ext->frame, &frame_listener, source);
	ext_image_copy_capture_frame_v1_attach_buffer(ext->frame, wl_buffer);
	/* What this buffer lacks: all of it the first time, then what the
	 * output changed since it was last filled. */
	struct frame_damage whole = { 0, 0, width, height };
	if (!stale_known)
		stale = whole;
	frame_damage_clip(&stale, &whole);
	if (stale.x2 > stale.x1 && stale.y2 > stale.y1)
		ext_image_copy_capture_frame_v1_damage_buffer(ext->frame, stale.x1, stale.y1,
							      stale.x2 - stale.x1,
							      stale.y2 - stale.y1);
	ext_image_copy_capture_frame_v1_capture(ext->frame);
}

static void start_capture(struct screencopy_source *source)
{
	struct ext_copy_state *ext = &source->ext;
	if (ext->session) {
		new_frame(source);
		return;
	}
	ext->capture_source = ext_output_image_capture_source_manager_v1_create_source(
		ext->source_manager, source->output->wl_output);
	uint32_t options = source->no_cursor
			   ? 0 : EXT_IMAGE_COPY_CAPTURE_MANAGER_V1_OPTIONS_PAINT_CURSORS;
	ext->session = ext_image_copy_capture_manager_v1_create_session(ext->manager,
									ext->capture_source,
									options);
	ext_image_copy_capture_session_v1_add_listener(ext->session, &session_listener, source);
	/* The first copy goes once the constraints are known (session_done). */
}

static void retry(struct screencopy_source *source)
{
	new_frame(source);
	screencopy_flush(source);
}

static void cancel(struct screencopy_source *source)
{
	struct ext_copy_state *ext = &source->ext;
	if (ext->frame)
		ext_image_copy_capture_frame_v1_destroy(ext->frame);
	if (ext->session)
		ext_image_copy_capture_session_v1_destroy(ext->session);
	if (ext->capture_source)
		ext_image_capture_source_v1_destroy(ext->capture_source);
	ext->frame = NULL;
	ext->session = NULL;
	ext->capture_source = NULL;
	screencopy_drop_target(source);
}

const struct copy_protocol ext_copy_protocol = {
	.id = SCREENCOPY_EXT,
	.start_capture = start_capture,
	.retry = retry,
	.cancel = cancel,
};

bool ext_copy_bind(struct screencopy_source *source, struct wl_registry *registry,
		   uint32_t name, const char *interface, uint32_t version)
{
	struct ext_copy_state *ext = &source->ext;
	if (strcmp(interface, ext_image_copy_capture_manager_v1_interface.name) == 0 &&
	    !ext->manager) {
		ext->manager = wl_registry_bind(registry, name,
						&ext_image_copy_capture_manager_v1_interface, 1);
	} else if (strcmp(interface, ext_output_image_capture_source_manager_v1_interface.name) == 0 &&
		   !ext->source_manager) {
		ext->source_manager = wl_registry_bind(
			registry, name, &ext_output_image_capture_source_manager_v1_interface, 1);
	} else {
		return false;
	}
	return true;
}

bool ext_copy_offered(const struct screencopy_source *source)
{
	return source->ext.manager && source->ext.source_manager;
}

void ext_copy_destroy(struct screencopy_source *source)
{
	struct ext_copy_state *ext = &source->ext;
	cancel(source);
	if (ext->manager)
		ext_image_copy_capture_manager_v1_destroy(ext->manager);
	if (ext->source_manager)
		ext_output_image_capture_source_manager_v1_destroy(ext->source_manager);
	ext->manager = NULL;
	ext->source_manager = NULL;
}
