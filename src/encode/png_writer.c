#define LOG_MODULE "png"
#include "png_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <png.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

/* libpng writes the file. Level 1 and the SUB filter: a still is waited
 * for (grim is what users compare), and at 1080p they take about a third
 * of libpng's default time (~23 ms against ~78 ms, doc/performance.md) for
 * a few percent more bytes. */
#define PNG_COMPRESSION_LEVEL 1

struct png_error_state {
	jmp_buf jump;
	const char *path;
};

static void handle_png_error(png_structp png, png_const_charp message)
{
	struct png_error_state *state = png_get_error_ptr(png);
	LOG_ERR("%s: libpng: %s", state->path, message);
	longjmp(state->jump, 1);
}

static void handle_png_warning(png_structp png, png_const_charp message)
{
	struct png_error_state *state = png_get_error_ptr(png);
	LOG_DBG("%s: libpng: %s", state->path, message);
}

/* Writes the whole PNG to `file`: 0, or a negative errno value (errno of
 * a failed write is left for the caller). Memory holds B,G,R,X per pixel;
 * libpng drops the X byte and swaps to R,G,B. */
static int encode_png(FILE *file, const char *path, const struct frame *frame)
{
	struct png_error_state state = { .path = path };
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &state,
						  handle_png_error, handle_png_warning);
	png_infop info = png ? png_create_info_struct(png) : NULL;
	if (!info) {
		png_destroy_write_struct(&png, NULL);
		return -ENOMEM;
	}
	/* volatile: read after longjmp. */
	volatile int ret = 0;
	if (setjmp(state.jump)) {
		ret = -(errno ? errno : EIO);
	} else {
		png_init_io(png, file);
		png_set_compression_level(png, PNG_COMPRESSION_LEVEL);
		png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
		png_set_IHDR(png, info, (png_uint_32)frame->width, (png_uint_32)frame->height, 8,
			     PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE,
			     PNG_FILTER_TYPE_BASE);
		png_write_info(png, info);
		png_set_bgr(png);
		png_set_filler(png, 0, PNG_FILLER_AFTER);
		for (int y = 0; y < frame->height; y++)
			png_write_row(png, frame->data + (size_t)frame->stride * (size_t)y);
		png_write_end(png, NULL);
	}
	png_destroy_write_struct(&png, &info);
	return ret;
}

static int write_png(const char *path, const struct frame *frame, bool replace)
{
	int ret = 0;
	FILE *file = NULL;
	char *tmp_path = NULL;

	if (!frame || !frame->data || frame->width <= 0 || frame->height <= 0 ||
	    frame->stride < frame->width * 4) {
		LOG_ERR("%s: no valid frame to write", path);
		return -EINVAL;
	}
	/* O_EXCL with a fresh name rather than mkstemp(): the file then gets
	 * the usual 0666 & ~umask mode without touching the process umask. */
	static atomic_uint counter;
	int fd = -1;
	for (int attempt = 0; fd < 0 && attempt < 16; attempt++) {
		free(tmp_path);
		unsigned suffix = ((unsigned)getpid() * 2654435761u) ^ (atomic_fetch_add(&counter, 1) * 40503u) ^
				  (unsigned)attempt;
		if (asprintf(&tmp_path, "%s.tmp-%06x", path, suffix & 0xffffff) < 0) {
			tmp_path = NULL;
			ret = -ENOMEM;
			LOG_ERRNO_P(ENOMEM, "%s", path);
			goto out;
		}
		fd = open(tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		ret = -errno;
		LOG_ERRNO("cannot create %s", tmp_path);
		free(tmp_path);
		tmp_path = NULL; /* nothing to unlink */
		goto out;
	}
	file = fdopen(fd, "wb");
	if (!file) {
		ret = -errno;
		LOG_ERRNO("%s", tmp_path);
		close(fd);
		goto out;
	}
	errno = 0;
	ret = encode_png(file, tmp_path, frame);
	if (ret < 0) {
		LOG_ERRNO_P(-ret, "%s: writing PNG failed", tmp_path);
		goto out;
	}
	FILE *closing = file;
	file = NULL;
	if (fclose(closing) != 0) {
		ret = -errno;
		LOG_ERRNO("%s: write", tmp_path);
		goto out;
	}
	if (replace && rename(tmp_path, path) < 0) {
		ret = -errno;
		LOG_ERRNO("cannot rename %s to %s", tmp_path, path);
		goto out;
	}
	/* link() fails where the name exists: nothing is ever replaced. */
	if (!replace && link(tmp_path, path) < 0) {
		ret = -errno;
		if (errno == EEXIST)
			LOG_ERR("%s already exists: give --overwrite (-y) to replace it", path);
		else
			LOG_ERRNO("cannot create %s", path);
		goto out;
	}
	if (!replace)
		unlink(tmp_path);
out:
	if (file)
		fclose(file);
	if (ret < 0 && tmp_path)
		unlink(tmp_path);
	free(tmp_path);
	return ret;
}

int png_write_frame(const char *path, const struct frame *frame)
{
	return write_png(path, frame, true);
}

int png_create_frame(const char *path, const struct frame *frame)
{
	return write_png(path, frame, false);
}
