#define LOG_MODULE "png"
#include "png_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <zlib.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

/* The PNG is made here rather than by libpng so that its rows are
 * compressed on every core: a still is waited for (grim is what users
 * compare), and deflate is most of its time. The image is cut into bands
 * of rows; each band is filtered (SUB) and deflated on its own thread, the
 * bands but the last ending on a byte boundary (Z_SYNC_FLUSH), which makes
 * their concatenation one deflate stream (as pigz does). zlib does the
 * compression and the checksums. */

#define PNG_MAX_BANDS 4
#define PNG_MIN_BAND_ROWS 128

struct png_band {
	const struct frame *frame;
	int y1, y2;
	bool last;
	uint8_t *out; /* deflated bytes */
	size_t out_size;
	uLong adler;
	size_t raw_size;
	int status; /* 0, or a negative errno value */
};

/* One row as PNG wants it: filter type SUB, then R,G,B each minus the
 * pixel to its left (memory holds B,G,R,X). */
static void filter_row(const uint8_t *bgrx, int width, uint8_t *out)
{
	out[0] = 1; /* SUB */
	uint8_t *rgb = out + 1;
	uint8_t left_r = 0, left_g = 0, left_b = 0;
	for (int x = 0; x < width; x++) {
		uint8_t b = bgrx[4 * x], g = bgrx[4 * x + 1], r = bgrx[4 * x + 2];
		rgb[3 * x] = (uint8_t)(r - left_r);
		rgb[3 * x + 1] = (uint8_t)(g - left_g);
		rgb[3 * x + 2] = (uint8_t)(b - left_b);
		left_r = r, left_g = g, left_b = b;
	}
}

static void *deflate_band(void *data)
{
	struct png_band *band = data;
	const struct frame *frame = band->frame;
	size_t row_size = 1 + (size_t)frame->width * 3;
	band->raw_size = row_size * (size_t)(band->y2 - band->y1);
	uint8_t *row = malloc(row_size);
	z_stream z = { 0 };
	/* Level 1 and SUB: ~3x faster than libpng's defaults at 1080p for a
	 * few percent more bytes. Raw deflate: the zlib wrapper is the
	 * caller's, around all the bands. */
	if (!row || deflateInit2(&z, 1, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(row);
		band->status = -ENOMEM;
		return NULL;
	}
	/* Screens compress to a few percent: start small and grow, rather
	 * than fault in deflateBound()'s whole worst case (a one-shot still
	 * paid ~15 ms of page faults for it). */
	size_t capacity = band->raw_size / 8 + 65536;
	band->out = malloc(capacity);
	if (!band->out) {
		deflateEnd(&z);
		free(row);
		band->status = -ENOMEM;
		return NULL;
	}
	z.next_out = band->out;
	z.avail_out = (uInt)capacity;
	band->adler = adler32(0, NULL, 0);
	for (int y = band->y1; y < band->y2 && band->status == 0; y++) {
		filter_row(frame->data + (size_t)frame->stride * (size_t)y, frame->width, row);
		band->adler = adler32(band->adler, row, (uInt)row_size);
		z.next_in = row;
		z.avail_in = (uInt)row_size;
		int flush = y + 1 < band->y2 ? Z_NO_FLUSH : band->last ? Z_FINISH : Z_SYNC_FLUSH;
		for (;;) {
			int ret = deflate(&z, flush);
			if (ret == Z_STREAM_ERROR) {
				band->status = -EIO;
				break;
			}
			/* Done with this row: all taken, and for a flush all out. */
			if (z.avail_in == 0 && z.avail_out > 0 &&
			    (flush == Z_NO_FLUSH || (flush == Z_FINISH) == (ret == Z_STREAM_END)))
				break;
			if (z.avail_out > 0) { /* stuck with room left: not seen */
				band->status = -EIO;
				break;
			}
			size_t used = capacity;
			uint8_t *grown = realloc(band->out, capacity * 2);
			if (!grown) {
				band->status = -ENOMEM;
				break;
			}
			band->out = grown;
			capacity *= 2;
			z.next_out = band->out + used;
			z.avail_out = (uInt)(capacity - used);
		}
	}
	band->out_size = capacity - z.avail_out;
	deflateEnd(&z);
	free(row);
	return NULL;
}

static void put_be32(uint8_t *to, uint32_t value)
{
	to[0] = (uint8_t)(value >> 24);
	to[1] = (uint8_t)(value >> 16);
	to[2] = (uint8_t)(value >> 8);
	to[3] = (uint8_t)value;
}

/* A chunk is its length, type, data, and the CRC of type and data; `data`
 * may come in two pieces. */
static bool write_chunk(FILE *file, const char type[4], const uint8_t *data, size_t size,
			const uint8_t *more, size_t more_size)
{
	uint8_t head[8], tail[4];
	put_be32(head, (uint32_t)(size + more_size));
	memcpy(head + 4, type, 4);
	uLong crc = crc32(0, (const Bytef *)type, 4);
	if (size)
		crc = crc32(crc, data, (uInt)size);
	if (more_size)
		crc = crc32(crc, more, (uInt)more_size);
	put_be32(tail, (uint32_t)crc);
	return fwrite(head, 1, 8, file) == 8 && (!size || fwrite(data, 1, size, file) == size) &&
	       (!more_size || fwrite(more, 1, more_size, file) == more_size) &&
	       fwrite(tail, 1, 4, file) == 4;
}

static int band_count(const struct frame *frame)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int bands = frame->height / PNG_MIN_BAND_ROWS;
	if (cores < bands)
		bands = (int)cores;
	if (bands > PNG_MAX_BANDS)
		bands = PNG_MAX_BANDS;
	return bands < 1 ? 1 : bands;
}

/* Writes the whole PNG to `file`: 0, or a negative errno value (errno of
 * a failed write is left for the caller). */
static int encode_png(FILE *file, const struct frame *frame)
{
	struct png_band bands[PNG_MAX_BANDS] = { 0 };
	pthread_t threads[PNG_MAX_BANDS];
	bool started[PNG_MAX_BANDS] = { false };
	int count = band_count(frame);
	for (int i = 0; i < count; i++) {
		bands[i] = (struct png_band){
			.frame = frame,
			.y1 = frame->height * i / count,
			.y2 = frame->height * (i + 1) / count,
			.last = i == count - 1,
		};
		/* The first band runs here; a thread that cannot start too. */
		if (i > 0 && pthread_create(&threads[i], NULL, deflate_band, &bands[i]) == 0)
			started[i] = true;
	}
	for (int i = 0; i < count; i++) {
		if (!started[i])
			deflate_band(&bands[i]);
	}
	for (int i = 1; i < count; i++) {
		if (started[i])
			pthread_join(threads[i], NULL);
	}
	int ret = 0;
	for (int i = 0; i < count && ret == 0; i++)
		ret = bands[i].status;
	if (ret == 0) {
		static const uint8_t signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
		uint8_t header[13];
		put_be32(header, (uint32_t)frame->width);
		put_be32(header + 4, (uint32_t)frame->height);
		header[8] = 8; /* bits per sample */
		header[9] = 2; /* RGB */
		header[10] = header[11] = header[12] = 0; /* deflate, adaptive filters, no interlace */
		/* The zlib wrapper: CMF/FLG (deflate, 32 KB window, fastest),
		 * then the bands, then the Adler-32 of all rows. */
		static const uint8_t zlib_head[2] = { 0x78, 0x01 };
		uLong adler = bands[0].adler;
		for (int i = 1; i < count; i++)
			adler = adler32_combine(adler, bands[i].adler, (z_off_t)bands[i].raw_size);
		uint8_t zlib_tail[4];
		put_be32(zlib_tail, (uint32_t)adler);
		bool ok = fwrite(signature, 1, 8, file) == 8 &&
			  write_chunk(file, "IHDR", header, sizeof(header), NULL, 0) &&
			  write_chunk(file, "IDAT", zlib_head, 2, bands[0].out, bands[0].out_size);
		for (int i = 1; i < count && ok; i++)
			ok = write_chunk(file, "IDAT", bands[i].out, bands[i].out_size, NULL, 0);
		ok = ok && write_chunk(file, "IDAT", zlib_tail, 4, NULL, 0) &&
		     write_chunk(file, "IEND", NULL, 0, NULL, 0);
		if (!ok)
			ret = -(errno ? errno : EIO);
	}
	for (int i = 0; i < count; i++)
		free(bands[i].out);
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
	ret = encode_png(file, frame);
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
