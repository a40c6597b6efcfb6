/* producer: a PipeWire video node of known frames, for the pipewire tests.
 *
 *   producer NAME [--fps N] [--size WxH] [--format BGRx|RGBx] [--dmabuf]
 *            [--cursor] [--crop] [--lie-damage] [--delay-odd-ms MS]
 *            [--still-after N]
 *
 * Publishes a Video/Source node called NAME that drives itself at --fps
 * (default 10). Frame i is one solid colour, palette_colour(i) (63
 * colours, each channel a multiple of 85, so a decoder can tell them
 * apart; tests/pipewire/check.py knows them), with a Header pts (CLOCK_MONOTONIC ns, taken when the frame is
 * made) and VideoDamage metadata (the whole picture). Buffers are sealed
 * memfds, offered as MemFd, or with --dmabuf as DmaBuf with the LINEAR
 * modifier (the stand-in for a real LINEAR dmabuf). Each frame is one line
 * on stdout, "frame INDEX PTS_NS QUEUED_NS", QUEUED_NS the CLOCK_MONOTONIC
 * time it was queued (after --delay-odd-ms); a frame that could not be
 * sent (PipeWire had no free buffer: the consumer still holds them all)
 * takes no index and is a line "unsent NS REASON" instead.
 *   --cursor      Cursor metadata: a 32x32 BGRA bitmap, transparent but for
 *                 an orange (ff8000) 16x16 square in its middle, hotspot
 *                 (8,8), at position (100,80) of the picture.
 *   --crop        VideoCrop of (16,16) 256x192; outside it the picture is
 *                 black.
 *   --lie-damage  damage says only the left half changed (the right half
 *                 changes too): a consumer that honours damage keeps an
 *                 older right half.
 *   --delay-odd-ms MS  odd frames are queued MS ms after their pts was
 *                 taken: their time must come from the header, not from
 *                 when they arrive.
 *   --still-after N  sends N frames and then nothing (a still screen).
 *   --cursor-only-after N  (with --cursor) after N frames, buffers without
 *                 a picture (chunk size 0) that only move the cursor: 10
 *                 pixels right each time (x = 110..250, then from 110
 *                 again), the bitmap not sent again; each is a line
 *                 "cursor PTS_NS X" on stdout.
 *   --bad-cursor-offset  (with --cursor) a hostile producer: the bitmap's
 *                 offset is 0xFFFFFFF0, which added to its bitmap_offset
 *                 (28) in 32 bits is 12: a consumer checking that sum
 *                 reads 4 GiB past the meta. */

#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <pipewire/pipewire.h>
#include <spa/buffer/meta.h>
#include <spa/param/video/format-utils.h>
#include <spa/pod/builder.h>

#define CURSOR_SIZE 32
#define CURSOR_META_SIZE(w, h) \
	(sizeof(struct spa_meta_cursor) + sizeof(struct spa_meta_bitmap) + (size_t)(w) * (h) * 4)
#define DAMAGE_REGIONS 4

struct producer {
	struct pw_main_loop *loop;
	struct pw_stream *stream;
	struct spa_source *timer;
	int width, height, stride;
	enum spa_video_format format;
	bool dmabuf, cursor, crop, lie_damage, bad_cursor_offset;
	int delay_odd_ms;
	long still_after; /* -1: never */
	long cursor_only_after; /* -1: never */
	uint64_t cursor_moves;
	double fps;
	uint64_t index;
	bool streaming;
};

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* 0xRRGGBB of frame i: colour number i % 63 + 1 of the 64 whose channels
 * are each 0, 85, 170 or 255 (R the lowest digit in base 4), black left
 * out (it is what a crop or a missing picture looks like). */
static uint32_t palette_colour(uint64_t i)
{
	uint64_t n = i % 63 + 1;
	uint32_t r = (uint32_t)(n & 3) * 85, g = (uint32_t)((n >> 2) & 3) * 85,
		 b = (uint32_t)((n >> 4) & 3) * 85;
	return r << 16 | g << 8 | b;
}

/* One pixel in the stream's byte order (BGRx: B G R x; RGBx: R G B x). */
static uint32_t pixel(const struct producer *p, uint32_t rgb)
{
	uint32_t r = rgb >> 16 & 0xff, g = rgb >> 8 & 0xff, b = rgb & 0xff;
	/* Little-endian words: the first byte is the lowest. */
	if (p->format == SPA_VIDEO_FORMAT_RGBx)
		return b << 16 | g << 8 | r;
	return r << 16 | g << 8 | b;
}

static void fill(const struct producer *p, uint8_t *data, uint32_t rgb)
{
	uint32_t colour = pixel(p, rgb), black = pixel(p, 0);
	for (int y = 0; y < p->height; y++) {
		uint32_t *row = (uint32_t *)(data + (size_t)y * (size_t)p->stride);
		for (int x = 0; x < p->width; x++) {
			bool inside = !p->crop ||
				      (x >= 16 && x < 16 + 256 && y >= 16 && y < 16 + 192);
			row[x] = inside ? colour : black;
		}
	}
}

static bool bad_cursor_offset;

static void set_cursor(struct spa_buffer *buffer, int position_x, bool with_bitmap)
{
	struct spa_meta_cursor *cursor = spa_buffer_find_meta_data(buffer, SPA_META_Cursor,
								   sizeof(*cursor));
	if (!cursor)
		return;
	cursor->id = 1;
	cursor->flags = 0;
	cursor->position.x = position_x;
	cursor->position.y = 80;
	cursor->hotspot.x = 8;
	cursor->hotspot.y = 8;
	cursor->bitmap_offset = with_bitmap ? sizeof(*cursor) : 0;
	if (!with_bitmap)
		return;
	struct spa_meta_bitmap *bitmap = SPA_PTROFF(cursor, cursor->bitmap_offset,
						    struct spa_meta_bitmap);
	bitmap->format = SPA_VIDEO_FORMAT_BGRA;
	bitmap->size.width = CURSOR_SIZE;
	bitmap->size.height = CURSOR_SIZE;
	bitmap->stride = CURSOR_SIZE * 4;
	bitmap->offset = sizeof(*bitmap);
	uint32_t *pixels = SPA_PTROFF(bitmap, bitmap->offset, uint32_t);
	for (int y = 0; y < CURSOR_SIZE; y++)
		for (int x = 0; x < CURSOR_SIZE; x++) {
			bool solid = x >= 8 && x < 24 && y >= 8 && y < 24;
			/* BGRA bytes: a little-endian 0xAARRGGBB word. */
			pixels[y * CURSOR_SIZE + x] = solid ? 0xffff8000u : 0;
		}
	if (bad_cursor_offset)
		bitmap->offset = 0xFFFFFFF0u;
}

static void set_damage(const struct producer *p, struct spa_buffer *buffer)
{
	struct spa_meta *meta = spa_buffer_find_meta(buffer, SPA_META_VideoDamage);
	if (!meta)
		return;
	struct spa_meta_region *regions = spa_meta_first(meta);
	size_t room = meta->size / sizeof(*regions);
	if (room == 0)
		return;
	regions[0].region = SPA_REGION(0, 0, p->lie_damage ? (uint32_t)p->width / 2 : (uint32_t)p->width,
				       (uint32_t)p->height);
	if (room > 1)
		regions[1].region = SPA_REGION(0, 0, 0, 0);
}

static void on_process(void *data)
{
	struct producer *p = data;
	struct pw_buffer *b = pw_stream_dequeue_buffer(p->stream);
	if (!b) {
		/* Not produced: tests/pipewire/check.py does not expect it. */
		printf("unsent %" PRId64 " no free buffer\n", now_ns());
		fflush(stdout);
		return;
	}
	struct spa_buffer *buffer = b->buffer;
	struct spa_data *d = &buffer->datas[0];
	if (!d->data) {
		printf("unsent %" PRId64 " a buffer without memory\n", now_ns());
		fflush(stdout);
		pw_stream_queue_buffer(p->stream, b);
		return;
	}
	int64_t pts = now_ns();
	if (p->cursor_only_after >= 0 && p->index >= (uint64_t)p->cursor_only_after) {
		/* Nothing new but the cursor's place: no picture, no damage. */
		int x = 110 + (int)(p->cursor_moves++ % 15) * 10;
		struct spa_meta_header *h = spa_buffer_find_meta_data(buffer, SPA_META_Header,
								      sizeof(*h));
		if (h)
			h->pts = pts;
		struct spa_meta *damage = spa_buffer_find_meta(buffer, SPA_META_VideoDamage);
		if (damage && damage->size >= sizeof(struct spa_meta_region))
			((struct spa_meta_region *)spa_meta_first(damage))->region =
				SPA_REGION(0, 0, 0, 0);
		set_cursor(buffer, x, false);
		d->chunk->size = 0;
		printf("cursor %" PRId64 " %d\n", pts, x);
		fflush(stdout);
		pw_stream_queue_buffer(p->stream, b);
		return;
	}
	fill(p, d->data, palette_colour(p->index));
	struct spa_meta_header *header = spa_buffer_find_meta_data(buffer, SPA_META_Header,
								   sizeof(*header));
	if (header) {
		header->pts = pts;
		header->flags = 0;
		header->seq = p->index;
		header->dts_offset = 0;
	}
	set_damage(p, buffer);
	struct spa_meta_region *crop = spa_buffer_find_meta_data(buffer, SPA_META_VideoCrop,
								 sizeof(*crop));
	if (crop)
		crop->region = p->crop ? SPA_REGION(16, 16, 256, 192)
				       : SPA_REGION(0, 0, (uint32_t)p->width, (uint32_t)p->height);
	if (p->cursor)
		set_cursor(buffer, 100, true);
	d->chunk->offset = 0;
	d->chunk->stride = p->stride;
	d->chunk->size = (uint32_t)(p->stride * p->height);
	d->chunk->flags = 0;
	if (p->delay_odd_ms && (p->index & 1))
		usleep((useconds_t)p->delay_odd_ms * 1000);
	/* Logged before it is queued, so that a consumer never has a frame the
	 * log does not have yet; the queue time is taken just before. */
	printf("frame %" PRIu64 " %" PRId64 " %" PRId64 "\n", p->index, pts, now_ns());
	fflush(stdout);
	p->index++;
	pw_stream_queue_buffer(p->stream, b);
}

static void on_timeout(void *data, uint64_t expirations)
{
	(void)expirations;
	struct producer *p = data;
	if (!p->streaming)
		return;
	if (p->still_after >= 0 && p->index >= (uint64_t)p->still_after)
		return;
	pw_stream_trigger_process(p->stream);
}

static void on_state_changed(void *data, enum pw_stream_state old, enum pw_stream_state state,
			     const char *error)
{
	(void)old;
	struct producer *p = data;
	fprintf(stderr, "producer: %s%s%s\n", pw_stream_state_as_string(state),
		error ? ": " : "", error ? error : "");
	p->streaming = state == PW_STREAM_STATE_STREAMING;
	if (p->streaming) {
		struct timespec first = { 0, 1 }, interval = { 0, (long)(1e9 / p->fps) };
		pw_loop_update_timer(pw_main_loop_get_loop(p->loop), p->timer, &first, &interval,
				     false);
	}
}

static void on_param_changed(void *data, uint32_t id, const struct spa_pod *param)
{
	struct producer *p = data;
	if (id != SPA_PARAM_Format || !param)
		return;
	struct spa_video_info_raw info = { 0 };
	spa_format_video_raw_parse(param, &info);
	p->stride = p->width * 4;
	fprintf(stderr, "producer: format %dx%d%s\n", p->width, p->height,
		info.flags & SPA_VIDEO_FLAG_MODIFIER ? " with a modifier" : "");
	uint8_t buffer[1024];
	struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
	const struct spa_pod *params[5];
	params[0] = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_ParamBuffers, SPA_PARAM_Buffers,
		SPA_PARAM_BUFFERS_buffers, SPA_POD_CHOICE_RANGE_Int(4, 2, 8),
		SPA_PARAM_BUFFERS_blocks, SPA_POD_Int(1),
		SPA_PARAM_BUFFERS_size, SPA_POD_Int(p->stride * p->height),
		SPA_PARAM_BUFFERS_stride, SPA_POD_Int(p->stride),
		SPA_PARAM_BUFFERS_dataType,
		SPA_POD_CHOICE_FLAGS_Int(1 << (p->dmabuf ? SPA_DATA_DmaBuf : SPA_DATA_MemFd)));
	params[1] = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta,
		SPA_PARAM_META_type, SPA_POD_Id(SPA_META_Header),
		SPA_PARAM_META_size, SPA_POD_Int(sizeof(struct spa_meta_header)));
	params[2] = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta,
		SPA_PARAM_META_type, SPA_POD_Id(SPA_META_VideoDamage),
		SPA_PARAM_META_size, SPA_POD_Int(sizeof(struct spa_meta_region) * DAMAGE_REGIONS));
	params[3] = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta,
		SPA_PARAM_META_type, SPA_POD_Id(SPA_META_VideoCrop),
		SPA_PARAM_META_size, SPA_POD_Int(sizeof(struct spa_meta_region)));
	params[4] = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta,
		SPA_PARAM_META_type, SPA_POD_Id(SPA_META_Cursor),
		SPA_PARAM_META_size, SPA_POD_Int(CURSOR_META_SIZE(CURSOR_SIZE, CURSOR_SIZE)));
	pw_stream_update_params(p->stream, params, 5);
}

/* Sealed memfds, as MemFd or (the LINEAR stand-in) as DmaBuf. */
static void on_add_buffer(void *data, struct pw_buffer *b)
{
	struct producer *p = data;
	struct spa_data *d = &b->buffer->datas[0];
	size_t size = (size_t)p->stride * (size_t)p->height;
	int fd = memfd_create("wl-record-test-producer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0 || ftruncate(fd, (off_t)size) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) < 0) {
		perror("producer: memfd");
		exit(1);
	}
	d->type = p->dmabuf ? SPA_DATA_DmaBuf : SPA_DATA_MemFd;
	d->flags = SPA_DATA_FLAG_READWRITE;
	d->fd = fd;
	d->mapoffset = 0;
	d->maxsize = (uint32_t)size;
	d->data = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (d->data == MAP_FAILED) {
		perror("producer: mmap");
		exit(1);
	}
}

static void on_remove_buffer(void *data, struct pw_buffer *b)
{
	(void)data;
	struct spa_data *d = &b->buffer->datas[0];
	munmap(d->data, d->maxsize);
	close((int)d->fd);
}

static const struct pw_stream_events stream_events = {
	PW_VERSION_STREAM_EVENTS,
	.state_changed = on_state_changed,
	.param_changed = on_param_changed,
	.add_buffer = on_add_buffer,
	.remove_buffer = on_remove_buffer,
	.process = on_process,
};

static void on_signal(void *data, int sig)
{
	(void)sig;
	struct producer *p = data;
	pw_main_loop_quit(p->loop);
}

int main(int argc, char **argv)
{
	struct producer p = { .width = 320, .height = 240, .format = SPA_VIDEO_FORMAT_BGRx,
			      .fps = 10, .still_after = -1, .cursor_only_after = -1 };
	static const struct option longopts[] = {
		{ "fps", required_argument, NULL, 'f' },
		{ "size", required_argument, NULL, 's' },
		{ "format", required_argument, NULL, 'F' },
		{ "dmabuf", no_argument, NULL, 'd' },
		{ "cursor", no_argument, NULL, 'c' },
		{ "crop", no_argument, NULL, 'C' },
		{ "lie-damage", no_argument, NULL, 'l' },
		{ "delay-odd-ms", required_argument, NULL, 'D' },
		{ "still-after", required_argument, NULL, 'S' },
		{ "cursor-only-after", required_argument, NULL, 'O' },
		{ "bad-cursor-offset", no_argument, NULL, 'B' },
		{ 0 },
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'f': p.fps = atof(optarg); break;
		case 's': sscanf(optarg, "%dx%d", &p.width, &p.height); break;
		case 'F':
			p.format = strcmp(optarg, "RGBx") == 0 ? SPA_VIDEO_FORMAT_RGBx
							       : SPA_VIDEO_FORMAT_BGRx;
			break;
		case 'd': p.dmabuf = true; break;
		case 'c': p.cursor = true; break;
		case 'C': p.crop = true; break;
		case 'l': p.lie_damage = true; break;
		case 'D': p.delay_odd_ms = atoi(optarg); break;
		case 'S': p.still_after = atol(optarg); break;
		case 'O': p.cursor_only_after = atol(optarg); break;
		case 'B': bad_cursor_offset = true; break;
		default: return 2;
		}
	}
	if (optind != argc - 1 || p.fps <= 0 || p.width <= 0 || p.height <= 0) {
		fprintf(stderr, "usage: producer NAME [options]\n");
		return 2;
	}
	pw_init(&argc, &argv);
	p.loop = pw_main_loop_new(NULL);
	struct pw_loop *loop = pw_main_loop_get_loop(p.loop);
	pw_loop_add_signal(loop, SIGINT, on_signal, &p);
	pw_loop_add_signal(loop, SIGTERM, on_signal, &p);
	p.timer = pw_loop_add_timer(loop, on_timeout, &p);
	p.stream = pw_stream_new_simple(loop, argv[optind],
		pw_properties_new(PW_KEY_MEDIA_CLASS, "Video/Source", PW_KEY_MEDIA_TYPE, "Video",
				  PW_KEY_MEDIA_CATEGORY, "Source", PW_KEY_MEDIA_ROLE, "Screen",
				  PW_KEY_NODE_NAME, argv[optind], NULL),
		&stream_events, &p);

	uint8_t buffer[1024];
	struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
	struct spa_pod_frame f;
	spa_pod_builder_push_object(&b, &f, SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat);
	spa_pod_builder_add(&b, SPA_FORMAT_mediaType, SPA_POD_Id(SPA_MEDIA_TYPE_video),
			    SPA_FORMAT_mediaSubtype, SPA_POD_Id(SPA_MEDIA_SUBTYPE_raw),
			    SPA_FORMAT_VIDEO_format, SPA_POD_Id(p.format),
			    SPA_FORMAT_VIDEO_size,
			    SPA_POD_Rectangle(&SPA_RECTANGLE((uint32_t)p.width, (uint32_t)p.height)),
			    SPA_FORMAT_VIDEO_framerate, SPA_POD_Fraction(&SPA_FRACTION(0, 1)), 0);
	if (p.dmabuf) {
		spa_pod_builder_prop(&b, SPA_FORMAT_VIDEO_modifier, SPA_POD_PROP_FLAG_MANDATORY);
		spa_pod_builder_long(&b, 0); /* DRM_FORMAT_MOD_LINEAR */
	}
	const struct spa_pod *params[1] = { spa_pod_builder_pop(&b, &f) };
	if (pw_stream_connect(p.stream, PW_DIRECTION_OUTPUT, PW_ID_ANY,
			      PW_STREAM_FLAG_DRIVER | PW_STREAM_FLAG_ALLOC_BUFFERS, params, 1) < 0) {
		fprintf(stderr, "producer: cannot connect the stream\n");
		return 1;
	}
	pw_main_loop_run(p.loop);
	pw_stream_destroy(p.stream);
	pw_main_loop_destroy(p.loop);
	pw_deinit();
	return 0;
}
