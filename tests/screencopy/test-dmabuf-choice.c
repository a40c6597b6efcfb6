/* dmabuf or shm for the desktop's copies (src/screencopy/dmabuf_choice.h):
 * the rule, the negotiation with what the encoder takes
 * (src/common/buffer_negotiation.h, src/encode/encoder_sink_caps.h), each
 * refusal with its one-line reason, and the render node search. The GBM
 * allocation itself needs a GPU (none on CI): only its refusals are checked
 * here (dmabuf-pool-open-refuses). */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <drm_fourcc.h>

#include "buffer_negotiation.h"
#include "dmabuf_choice.h"
#include "dmabuf_pool.h"
#include "encoder_sink_caps.h"
#include "test-runner.h"

/* What the encoder takes: --codec, or (NULL) VA-API where it works. */
static struct wl_record_sink_caps encoder_caps[WL_RECORD_MAX_SINKS];

static struct dmabuf_choice_facts facts_for(bool still, const char *codec)
{
	encoder_sink_caps(still, codec, &encoder_caps[0]);
	return (struct dmabuf_choice_facts){
		.built_with_gbm = true,
		.sinks = encoder_caps,
		.n_sinks = 1,
		.format_offered = DRM_FORMAT_XRGB8888,
		.node = "/dev/dri/renderD128",
		.linux_dmabuf = true,
	};
}

/* Everything allows dmabufs. */
static struct dmabuf_choice_facts all_yes(void)
{
	return facts_for(false, NULL);
}

static void expect_shm(const struct dmabuf_choice_facts *facts, const char *reason)
{
	char why[256] = "";
	test_assert(!dmabuf_choose(facts, why, sizeof(why)), "dmabuf chosen, expected '%s'", reason);
	test_assert(strcmp(why, reason) == 0, "'%s', expected '%s'", why, reason);
}

TEST(dmabuf_when_everything_allows)
{
	struct dmabuf_choice_facts facts = all_yes();
	char why[256] = "";
	test_assert(dmabuf_choose(&facts, why, sizeof(why)), "%s", why);
	facts = facts_for(false, "h264_vaapi");
	test_assert(dmabuf_choose(&facts, why, sizeof(why)), "%s", why);
	facts = facts_for(false, "hevc_vaapi");
	test_assert(dmabuf_choose(&facts, why, sizeof(why)), "%s", why);
	facts.format_offered = DRM_FORMAT_ARGB8888;
	test_assert(dmabuf_choose(&facts, why, sizeof(why)), "%s", why);
}

/* Each fact alone sends the copies to shm, with its reason. */
TEST(each_refusal_says_why)
{
	struct dmabuf_choice_facts facts = all_yes();
	facts.built_with_gbm = false;
	expect_shm(&facts, "dmabuf not available: built without libgbm");

	facts = all_yes();
	facts.n_sinks = 0;
	expect_shm(&facts, "dmabufs not asked for");

	facts = facts_for(true, NULL);
	expect_shm(&facts, "a still wants pixels");

	facts = facts_for(false, "libx264");
	expect_shm(&facts, "--codec libx264 reads pixels (no VA-API map)");

	facts = all_yes();
	facts.format_offered = 0;
	expect_shm(&facts, "the compositor offers no dmabuf XRGB8888/ARGB8888 copy");

	facts = all_yes();
	facts.cropped = true;
	expect_shm(&facts, "-g is cut out of the copy by the CPU");

	facts = all_yes();
	facts.turned = true;
	expect_shm(&facts, "the output is turned: the CPU turns its copies upright");

	facts = all_yes();
	facts.node = NULL;
	facts.node_why = "/dev/dri absent";
	expect_shm(&facts, "no render node (/dev/dri absent)");

	facts = all_yes();
	facts.linux_dmabuf = false;
	expect_shm(&facts, "the compositor offers no zwp_linux_dmabuf_v1 (v2+)");
}

/* What cannot change comes first: a build without libgbm says so whatever
 * the compositor offers; a still says so on a machine without a GPU. */
TEST(refusals_in_order)
{
	struct dmabuf_choice_facts facts = facts_for(true, NULL);
	facts.built_with_gbm = false;
	facts.format_offered = 0;
	facts.node = NULL;
	facts.linux_dmabuf = false;
	expect_shm(&facts, "dmabuf not available: built without libgbm");
	facts.built_with_gbm = true;
	expect_shm(&facts, "a still wants pixels");
	encoder_sink_caps(false, "libvpx-vp9", &encoder_caps[0]);
	expect_shm(&facts, "--codec libvpx-vp9 reads pixels (no VA-API map)");
	encoder_sink_caps(false, NULL, &encoder_caps[0]);
	expect_shm(&facts, "the compositor offers no dmabuf XRGB8888/ARGB8888 copy");
	facts.format_offered = DRM_FORMAT_XRGB8888;
	facts.node_why = "/dev/dri absent";
	expect_shm(&facts, "no render node (/dev/dri absent)");
}

static bool maps_dmabufs(const char *codec)
{
	encoder_sink_caps(false, codec, &encoder_caps[0]);
	return encoder_caps[0].n_dmabuf_formats > 0;
}

static int rank(uint32_t format)
{
	encoder_sink_caps(false, NULL, &encoder_caps[0]);
	return wl_record_dmabuf_format_rank(encoder_caps, 1, format);
}

TEST(codecs_and_formats)
{
	test_assert(maps_dmabufs(NULL));
	test_assert(maps_dmabufs("h264_vaapi") && maps_dmabufs("vp9_vaapi"));
	test_assert(!maps_dmabufs("libx264") && !maps_dmabufs("_vaapi") &&
		    !maps_dmabufs("h264_vaapi2") && !maps_dmabufs(""));
	test_assert(rank(DRM_FORMAT_XRGB8888) > rank(DRM_FORMAT_ARGB8888));
	test_assert(rank(DRM_FORMAT_ARGB8888) > 0);
	test_assert(rank(DRM_FORMAT_XBGR8888) == 0); /* not mapped */
	test_assert(rank(1) == 0);                   /* a wl_shm code is no fourcc */
	test_assert(wl_record_dmabuf_modifier_taken(encoder_caps, 1, DRM_FORMAT_XRGB8888,
						    DRM_FORMAT_MOD_LINEAR));
	test_assert(!wl_record_dmabuf_modifier_taken(encoder_caps, 0, DRM_FORMAT_XRGB8888,
						     DRM_FORMAT_MOD_LINEAR));
}

/* Every sink must take the format: the first one's order decides. */
TEST(every_sink_takes_the_format)
{
	struct wl_record_sink_caps sinks[2] = {
		{ .n_dmabuf_formats = 2,
		  .dmabuf_formats = { { DRM_FORMAT_XRGB8888, DRM_FORMAT_MOD_INVALID },
				      { DRM_FORMAT_ARGB8888, DRM_FORMAT_MOD_INVALID } } },
		{ .n_dmabuf_formats = 1,
		  .dmabuf_formats = { { DRM_FORMAT_ARGB8888, DRM_FORMAT_MOD_LINEAR } } },
	};
	uint32_t offered[] = { DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888 };
	struct wl_record_dmabuf_offer offer = { "the producer", 2, offered };
	uint32_t format = 0;
	char why[160] = "";
	test_assert(wl_record_buffers_negotiate(&offer, sinks, 2, &format, why, sizeof(why)), "%s",
		    why);
	test_assert(format == DRM_FORMAT_ARGB8888);
	test_assert(!wl_record_dmabuf_modifier_taken(sinks, 2, DRM_FORMAT_ARGB8888, 1));
	offer.n_formats = 1;
	test_assert(!wl_record_buffers_negotiate(&offer, sinks, 2, &format, why, sizeof(why)));
	test_assert(strcmp(why, "the producer offers no dmabuf XRGB8888/ARGB8888 copy") == 0, "%s",
		    why);
}

TEST(render_node_search)
{
	char path[128], why[160] = "";
	test_assert(!dmabuf_find_render_node("/nonexistent/renderD128", false, 0, path, sizeof(path),
					     why, sizeof(why)));
	test_assert(strncmp(why, "--device /nonexistent/renderD128: ", 34) == 0, "%s", why);
	struct stat st;
	bool found = dmabuf_find_render_node(NULL, false, 0, path, sizeof(path), why, sizeof(why));
	if (stat("/dev/dri", &st) < 0) {
		test_assert(!found);
		test_assert(strcmp(why, "/dev/dri absent") == 0, "%s", why);
	} else if (found) {
		test_assert(strncmp(path, "/dev/dri/renderD", 16) == 0, "%s", path);
	}
}

/* Without a render node nothing is allocated, and the pool says why. */
TEST(dmabuf_pool_open_refuses)
{
	struct screencopy_dmabuf_pool pool = { 0 };
	dmabuf_pool_init(&pool);
	char why[256] = "";
	test_assert(!dmabuf_pool_open(&pool, "/nonexistent/renderD128", why, sizeof(why)));
	if (dmabuf_pool_available())
		test_assert(strstr(why, "cannot open /nonexistent/renderD128"), "%s", why);
	else
		test_assert(strcmp(why, "dmabuf not available: built without libgbm") == 0, "%s", why);
	struct dmabuf_offer offer = { .format = DRM_FORMAT_XRGB8888, .width = 64, .height = 64,
				      .rank = 2 };
	why[0] = 0;
	test_assert(!dmabuf_pool_buffer_for(&pool, &offer, why, sizeof(why)));
	test_assert(why[0], "no reason given for no buffer");
	test_assert(!dmabuf_pool_full(&pool));
	dmabuf_pool_finish(&pool);
}
