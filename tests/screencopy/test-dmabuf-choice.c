/* dmabuf or shm for the desktop's copies (src/screencopy/dmabuf_choice.h):
 * the rule, each refusal with its one-line reason, and the render node
 * search. The GBM allocation itself needs a GPU (none on CI): only its
 * refusals are checked here (dmabuf-pool-open-refuses). */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "dmabuf_choice.h"
#include "dmabuf_pool.h"
#include "test-runner.h"

/* Everything allows dmabufs. */
static struct dmabuf_choice_facts all_yes(void)
{
	return (struct dmabuf_choice_facts){
		.built_with_gbm = true,
		.asked = true,
		.format_offered = true,
		.node = "/dev/dri/renderD128",
		.linux_dmabuf = true,
	};
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
	facts.codec = "h264_vaapi";
	test_assert(dmabuf_choose(&facts, why, sizeof(why)), "%s", why);
	facts.codec = "hevc_vaapi";
	test_assert(dmabuf_choose(&facts, why, sizeof(why)), "%s", why);
}

/* Each fact alone sends the copies to shm, with its reason. */
TEST(each_refusal_says_why)
{
	struct dmabuf_choice_facts facts = all_yes();
	facts.built_with_gbm = false;
	expect_shm(&facts, "dmabuf not available: built without libgbm");

	facts = all_yes();
	facts.asked = false;
	expect_shm(&facts, "dmabufs not asked for");

	facts = all_yes();
	facts.still = true;
	expect_shm(&facts, "a still wants pixels");

	facts = all_yes();
	facts.codec = "libx264";
	expect_shm(&facts, "--codec libx264 reads pixels (no VA-API map)");

	facts = all_yes();
	facts.format_offered = false;
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
	struct dmabuf_choice_facts facts = { .built_with_gbm = false, .asked = true, .still = true };
	expect_shm(&facts, "dmabuf not available: built without libgbm");
	facts.built_with_gbm = true;
	expect_shm(&facts, "a still wants pixels");
	facts.still = false;
	facts.codec = "libvpx-vp9";
	expect_shm(&facts, "--codec libvpx-vp9 reads pixels (no VA-API map)");
	facts.codec = NULL;
	expect_shm(&facts, "the compositor offers no dmabuf XRGB8888/ARGB8888 copy");
	facts.format_offered = true;
	facts.node_why = "/dev/dri absent";
	expect_shm(&facts, "no render node (/dev/dri absent)");
}

TEST(codecs_and_formats)
{
	test_assert(dmabuf_codec_maps(NULL));
	test_assert(dmabuf_codec_maps("h264_vaapi") && dmabuf_codec_maps("vp9_vaapi"));
	test_assert(!dmabuf_codec_maps("libx264") && !dmabuf_codec_maps("_vaapi") &&
		    !dmabuf_codec_maps("h264_vaapi2") && !dmabuf_codec_maps(""));
	test_assert(dmabuf_format_rank(DMABUF_FORMAT_XRGB8888) == 2);
	test_assert(dmabuf_format_rank(DMABUF_FORMAT_ARGB8888) == 1);
	test_assert(dmabuf_format_rank(0x34324258) == 0); /* XBGR8888: not mapped */
	test_assert(dmabuf_format_rank(1) == 0);          /* a wl_shm code is no fourcc */
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
	struct dmabuf_offer offer = { .format = DMABUF_FORMAT_XRGB8888, .width = 64, .height = 64,
				      .rank = 2 };
	why[0] = 0;
	test_assert(!dmabuf_pool_buffer_for(&pool, &offer, why, sizeof(why)));
	test_assert(why[0], "no reason given for no buffer");
	test_assert(!dmabuf_pool_full(&pool));
	dmabuf_pool_finish(&pool);
}
