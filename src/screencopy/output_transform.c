#include "output_transform.h"

#include <wayland-client-protocol.h>

void upright_size(uint32_t transform, int width, int height, int *upright_width,
		  int *upright_height)
{
	bool turned = transform & 1; /* 90 and 270, mirrored or not */
	*upright_width = turned ? height : width;
	*upright_height = turned ? width : height;
}

/* Where a point of the buffer (continuous coordinates: pixel edges) lies in
 * the upright picture. */
static void upright_point(uint32_t transform, int width, int height, int x, int y, int *u,
			  int *v)
{
	switch (transform) {
	case WL_OUTPUT_TRANSFORM_90:
		*u = height - y, *v = x;
		break;
	case WL_OUTPUT_TRANSFORM_180:
		*u = width - x, *v = height - y;
		break;
	case WL_OUTPUT_TRANSFORM_270:
		*u = y, *v = width - x;
		break;
	case WL_OUTPUT_TRANSFORM_FLIPPED:
		*u = width - x, *v = y;
		break;
	case WL_OUTPUT_TRANSFORM_FLIPPED_90:
		*u = y, *v = x;
		break;
	case WL_OUTPUT_TRANSFORM_FLIPPED_180:
		*u = x, *v = height - y;
		break;
	case WL_OUTPUT_TRANSFORM_FLIPPED_270:
		*u = height - y, *v = width - x;
		break;
	default:
		*u = x, *v = y;
		break;
	}
}

static int min_int(int a, int b)
{
	return a < b ? a : b;
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

struct frame_damage upright_box(uint32_t transform, int width, int height,
				struct frame_damage box)
{
	int u1, v1, u2, v2;
	upright_point(transform, width, height, box.x1, box.y1, &u1, &v1);
	upright_point(transform, width, height, box.x2, box.y2, &u2, &v2);
	return (struct frame_damage){ min_int(u1, u2), min_int(v1, v2), max_int(u1, u2),
				      max_int(v1, v2) };
}

void upright_pixman_transform(uint32_t transform, int width, int height,
			      pixman_transform_t *matrix)
{
	/* The inverse of upright_point, as a matrix over (u, v, 1): pixman
	 * samples the buffer at M * (u + 0.5, v + 0.5), a pixel's centre,
	 * which lands on the centre of the pixel that point maps from. */
	int a = 1, b = 0, c = 0, d = 0, e = 1, f = 0; /* x = a u + b v + c, y = d u + e v + f */
	switch (transform) {
	case WL_OUTPUT_TRANSFORM_90:
		a = 0, b = 1, c = 0, d = -1, e = 0, f = height;
		break;
	case WL_OUTPUT_TRANSFORM_180:
		a = -1, b = 0, c = width, d = 0, e = -1, f = height;
		break;
	case WL_OUTPUT_TRANSFORM_270:
		a = 0, b = -1, c = width, d = 1, e = 0, f = 0;
		break;
	case WL_OUTPUT_TRANSFORM_FLIPPED:
		a = -1, b = 0, c = width, d = 0, e = 1, f = 0;
		break;
	case WL_OUTPUT_TRANSFORM_FLIPPED_90:
		a = 0, b = 1, c = 0, d = 1, e = 0, f = 0;
		break;
	case WL_OUTPUT_TRANSFORM_FLIPPED_180:
		a = 1, b = 0, c = 0, d = 0, e = -1, f = height;
		break;
	case WL_OUTPUT_TRANSFORM_FLIPPED_270:
		a = 0, b = -1, c = width, d = -1, e = 0, f = height;
		break;
	default:
		break;
	}
	pixman_transform_init_identity(matrix);
	matrix->matrix[0][0] = pixman_int_to_fixed(a);
	matrix->matrix[0][1] = pixman_int_to_fixed(b);
	matrix->matrix[0][2] = pixman_int_to_fixed(c);
	matrix->matrix[1][0] = pixman_int_to_fixed(d);
	matrix->matrix[1][1] = pixman_int_to_fixed(e);
	matrix->matrix[1][2] = pixman_int_to_fixed(f);
}
