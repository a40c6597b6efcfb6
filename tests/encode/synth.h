#ifndef WL_RECORD_TEST_SYNTH_H
#define WL_RECORD_TEST_SYNTH_H

/* Deterministic synthetic frames for the encoder tests, and small helpers. */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "frame.h"
#include "media.h"
#include "recorder.h"
#include "test-runner.h"

#define NS_PER_MS INT64_C(1000000)

/* The RGB of pixel (x, y) of frame `index` of a width x height sequence:
 * smooth gradients plus a 48x48 box moving with the index. */
void synth_pixel(int index, int width, int height, int x, int y, uint8_t rgb[3]);

/* A BGRX frame (stride may be larger than width*4) filled from synth_pixel. */
struct frame *synth_frame(int index, int width, int height, int stride, int64_t pts_ns);
void synth_frame_free(struct frame *frame);

/* The expected RGB image of the top-left crop_width x crop_height pixels. */
void synth_expected(int index, int width, int height, int crop_width, int crop_height,
		    struct rgb_image *out);

/* A fresh temporary directory, removed with its files at exit unless a
 * check failed or the case was skipped (then kept for inspection, and its
 * path printed). */
const char *synth_tmpdir(void);
void synth_keep_tmpdir(void);
/* synth_tmpdir()/name, freed at exit. */
const char *synth_path(const char *name);

struct recorder_config synth_config(const char *path);

/* Submits synthetic frame `index` at pts_ns, waiting while the queue is
 * full (checks that the recorder has not failed). */
void synth_submit(struct recorder *recorder, int index, int width, int height, int64_t pts_ns);

/* Submits `count` frames at pts_ns[i] (content index i) and finishes at
 * end_ns; the recorder must accept every frame (waits when the queue is full).
 * `stats` (may be NULL): the recorder's figures once it has finished. */
int synth_record(const struct recorder_config *config, int width, int height, int count,
		 const int64_t *pts_ns, int64_t end_ns, struct recorder_stats *stats);

/* Checks the decoded video against the synthetic frames, returns the lowest PSNR. */
double synth_min_psnr(const struct decoded_video *video, int width, int height);

#endif
