#ifndef WL_RECORD_LETTERBOX_H
#define WL_RECORD_LETTERBOX_H

#include <stdbool.h>

/* Where a picture of another size goes in the stream: scaled to fit with its
 * aspect kept, centred, black bars around it (letterbox or pillarbox). A fit
 * within 2 px of the stream on both sides fills the stream instead: a bar
 * that thin is noise, not framing. Sizes and offsets are even, as 4:2:0
 * (I420, NV12) needs. */
struct letterbox {
	int x, y, width, height;
	bool fills; /* the picture covers the whole stream: no bars */
};

static inline struct letterbox letterbox_fit(int source_width, int source_height,
					     int stream_width, int stream_height)
{
	struct letterbox box = {0, 0, stream_width, stream_height, true};
	if (source_width <= 0 || source_height <= 0)
		return box;
	long long wide = (long long)source_width * stream_height;
	long long tall = (long long)source_height * stream_width;
	int width = stream_width, height = stream_height;
	if (wide > tall) /* wider than the stream: full width */
		height = (int)((tall * 2 / source_width + 1) / 2);
	else
		width = (int)((wide * 2 / source_height + 1) / 2);
	if (stream_width - width <= 2 && stream_height - height <= 2)
		return box;
	box.width = width & ~1;
	box.height = height & ~1;
	if (box.width < 2)
		box.width = 2;
	if (box.height < 2)
		box.height = 2;
	box.x = ((stream_width - box.width) / 2) & ~1;
	box.y = ((stream_height - box.height) / 2) & ~1;
	box.fills = false;
	return box;
}

#endif
