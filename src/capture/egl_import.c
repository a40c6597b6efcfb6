#define LOG_MODULE "egl"
#include "egl_import.h"

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>
#include <drm_fourcc.h>
#include <pixman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

struct egl_importer {
	EGLDisplay display;
	EGLContext context;
	PFNEGLQUERYDMABUFMODIFIERSEXTPROC query_modifiers;
	PFNEGLCREATEIMAGEKHRPROC create_image;
	PFNEGLDESTROYIMAGEKHRPROC destroy_image;
	PFNGLEGLIMAGETARGETTEXTURE2DOESPROC image_target_texture;
	GLuint texture, framebuffer;
	uint8_t *rgba; /* glReadPixels target, grown as needed */
	size_t rgba_size;
};

static bool has_extension(const char *list, const char *name)
{
	size_t length = strlen(name);
	for (const char *p = list; p && (p = strstr(p, name)); p += length)
		if ((p == list || p[-1] == ' ') && (p[length] == ' ' || p[length] == '\0'))
			return true;
	return false;
}

/* The EGL device whose render node is `render_node`, so that imports happen
 * on the GPU the buffers came from. */
static EGLDisplay display_for_node(const char *render_node)
{
	const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
	PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display =
		(void *)eglGetProcAddress("eglGetPlatformDisplayEXT");
	if (!get_platform_display)
		return EGL_NO_DISPLAY;
	if (render_node && has_extension(client, "EGL_EXT_device_enumeration") &&
	    has_extension(client, "EGL_EXT_platform_device")) {
		PFNEGLQUERYDEVICESEXTPROC query_devices = (void *)eglGetProcAddress("eglQueryDevicesEXT");
		PFNEGLQUERYDEVICESTRINGEXTPROC query_device_string =
			(void *)eglGetProcAddress("eglQueryDeviceStringEXT");
		EGLDeviceEXT devices[16];
		EGLint count = 0;
		if (query_devices && query_device_string && query_devices(16, devices, &count)) {
			for (EGLint i = 0; i < count; i++) {
				const char *node = query_device_string(devices[i],
								       EGL_DRM_RENDER_NODE_FILE_EXT);
				if (node && strcmp(node, render_node) == 0)
					return get_platform_display(EGL_PLATFORM_DEVICE_EXT,
								    devices[i], NULL);
			}
		}
	}
	if (has_extension(client, "EGL_MESA_platform_surfaceless"))
		return get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
	return EGL_NO_DISPLAY;
}

struct egl_importer *egl_importer_create(const char *render_node, char *why, size_t why_size)
{
	struct egl_importer *importer = calloc(1, sizeof(*importer));
	if (!importer) {
		snprintf(why, why_size, "out of memory");
		return NULL;
	}
	importer->display = display_for_node(render_node);
	if (importer->display == EGL_NO_DISPLAY) {
		snprintf(why, why_size, "no EGL device or surfaceless display");
		goto fail;
	}
	EGLint major, minor;
	if (!eglInitialize(importer->display, &major, &minor)) {
		snprintf(why, why_size, "eglInitialize failed (0x%x)", eglGetError());
		importer->display = EGL_NO_DISPLAY;
		goto fail;
	}
	const char *extensions = eglQueryString(importer->display, EGL_EXTENSIONS);
	static const char *const needed[] = {
		"EGL_EXT_image_dma_buf_import", "EGL_EXT_image_dma_buf_import_modifiers",
		"EGL_KHR_surfaceless_context", "EGL_KHR_no_config_context",
	};
	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
		if (!has_extension(extensions, needed[i])) {
			snprintf(why, why_size, "EGL %d.%d has no %s", major, minor, needed[i]);
			goto fail;
		}
	}
	importer->query_modifiers = (void *)eglGetProcAddress("eglQueryDmaBufModifiersEXT");
	importer->create_image = (void *)eglGetProcAddress("eglCreateImageKHR");
	importer->destroy_image = (void *)eglGetProcAddress("eglDestroyImageKHR");
	importer->image_target_texture = (void *)eglGetProcAddress("glEGLImageTargetTexture2DOES");
	if (!importer->query_modifiers || !importer->create_image || !importer->destroy_image ||
	    !importer->image_target_texture) {
		snprintf(why, why_size, "EGL lacks an entry point of its extensions");
		goto fail;
	}
	if (!eglBindAPI(EGL_OPENGL_ES_API)) {
		snprintf(why, why_size, "no OpenGL ES in EGL");
		goto fail;
	}
	static const EGLint context_attributes[] = { EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE };
	importer->context = eglCreateContext(importer->display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT,
					     context_attributes);
	if (importer->context == EGL_NO_CONTEXT ||
	    !eglMakeCurrent(importer->display, EGL_NO_SURFACE, EGL_NO_SURFACE, importer->context)) {
		snprintf(why, why_size, "cannot make a surfaceless GLES context (0x%x)", eglGetError());
		goto fail;
	}
	if (!has_extension((const char *)glGetString(GL_EXTENSIONS), "GL_OES_EGL_image")) {
		snprintf(why, why_size, "GLES has no GL_OES_EGL_image");
		goto fail;
	}
	glGenTextures(1, &importer->texture);
	glGenFramebuffers(1, &importer->framebuffer);
	LOG_INFO("EGL dmabuf import on %s (EGL %d.%d, %s)", render_node ? render_node : "surfaceless",
		 major, minor, (const char *)glGetString(GL_RENDERER));
	return importer;

fail:
	egl_importer_destroy(importer);
	return NULL;
}

void egl_importer_destroy(struct egl_importer *importer)
{
	if (!importer)
		return;
	if (importer->display != EGL_NO_DISPLAY) {
		if (importer->context != EGL_NO_CONTEXT) {
			eglMakeCurrent(importer->display, EGL_NO_SURFACE, EGL_NO_SURFACE,
				       importer->context);
			if (importer->framebuffer)
				glDeleteFramebuffers(1, &importer->framebuffer);
			if (importer->texture)
				glDeleteTextures(1, &importer->texture);
			eglMakeCurrent(importer->display, EGL_NO_SURFACE, EGL_NO_SURFACE,
				       EGL_NO_CONTEXT);
			eglDestroyContext(importer->display, importer->context);
		}
		eglTerminate(importer->display);
	}
	free(importer->rgba);
	free(importer);
}

int egl_importer_query_modifiers(struct egl_importer *importer, uint32_t format,
				 uint64_t *modifiers, int max)
{
	EGLint count = 0;
	if (!importer->query_modifiers(importer->display, (EGLint)format, 0, NULL, NULL, &count) ||
	    count <= 0)
		return 0;
	EGLuint64KHR *all = calloc((size_t)count, sizeof(*all));
	EGLBoolean *external_only = calloc((size_t)count, sizeof(*external_only));
	int n = 0;
	if (all && external_only &&
	    importer->query_modifiers(importer->display, (EGLint)format, count, all, external_only,
				      &count)) {
		/* External-only images cannot be a framebuffer: no readback. */
		for (EGLint i = 0; i < count && n < max; i++)
			if (!external_only[i])
				modifiers[n++] = all[i];
	}
	free(all);
	free(external_only);
	return n;
}

static EGLImageKHR import(struct egl_importer *importer, const struct dmabuf_attributes *a)
{
	static const EGLint plane_keys[4][5] = {
		{ EGL_DMA_BUF_PLANE0_FD_EXT, EGL_DMA_BUF_PLANE0_OFFSET_EXT,
		  EGL_DMA_BUF_PLANE0_PITCH_EXT, EGL_DMA_BUF_PLANE0_MODIFIER_LO_EXT,
		  EGL_DMA_BUF_PLANE0_MODIFIER_HI_EXT },
		{ EGL_DMA_BUF_PLANE1_FD_EXT, EGL_DMA_BUF_PLANE1_OFFSET_EXT,
		  EGL_DMA_BUF_PLANE1_PITCH_EXT, EGL_DMA_BUF_PLANE1_MODIFIER_LO_EXT,
		  EGL_DMA_BUF_PLANE1_MODIFIER_HI_EXT },
		{ EGL_DMA_BUF_PLANE2_FD_EXT, EGL_DMA_BUF_PLANE2_OFFSET_EXT,
		  EGL_DMA_BUF_PLANE2_PITCH_EXT, EGL_DMA_BUF_PLANE2_MODIFIER_LO_EXT,
		  EGL_DMA_BUF_PLANE2_MODIFIER_HI_EXT },
		{ EGL_DMA_BUF_PLANE3_FD_EXT, EGL_DMA_BUF_PLANE3_OFFSET_EXT,
		  EGL_DMA_BUF_PLANE3_PITCH_EXT, EGL_DMA_BUF_PLANE3_MODIFIER_LO_EXT,
		  EGL_DMA_BUF_PLANE3_MODIFIER_HI_EXT },
	};
	EGLint attributes[7 + 4 * 10 + 1];
	int n = 0;
	attributes[n++] = EGL_WIDTH;
	attributes[n++] = a->width;
	attributes[n++] = EGL_HEIGHT;
	attributes[n++] = a->height;
	attributes[n++] = EGL_LINUX_DRM_FOURCC_EXT;
	attributes[n++] = (EGLint)a->format;
	for (int i = 0; i < a->n_planes; i++) {
		attributes[n++] = plane_keys[i][0];
		attributes[n++] = a->fd[i];
		attributes[n++] = plane_keys[i][1];
		attributes[n++] = (EGLint)a->offset[i];
		attributes[n++] = plane_keys[i][2];
		attributes[n++] = (EGLint)a->stride[i];
		attributes[n++] = plane_keys[i][3];
		attributes[n++] = (EGLint)(a->modifier & 0xffffffff);
		attributes[n++] = plane_keys[i][4];
		attributes[n++] = (EGLint)(a->modifier >> 32);
	}
	attributes[n] = EGL_NONE;
	return importer->create_image(importer->display, EGL_NO_CONTEXT, EGL_LINUX_DMA_BUF_EXT, NULL,
				      attributes);
}

bool egl_importer_check(struct egl_importer *importer, const struct dmabuf_attributes *attributes,
			char *why, size_t why_size)
{
	EGLImageKHR image = import(importer, attributes);
	if (image == EGL_NO_IMAGE_KHR) {
		snprintf(why, why_size, "EGL refused the dmabuf (0x%x)", eglGetError());
		return false;
	}
	importer->destroy_image(importer->display, image);
	return true;
}

bool egl_importer_read(struct egl_importer *importer, const struct dmabuf_attributes *a,
		       uint8_t *dst, int dst_stride, char *why, size_t why_size)
{
	bool ok = false;
	if (!eglMakeCurrent(importer->display, EGL_NO_SURFACE, EGL_NO_SURFACE, importer->context)) {
		snprintf(why, why_size, "eglMakeCurrent failed (0x%x)", eglGetError());
		return false;
	}
	size_t size = (size_t)a->width * (size_t)a->height * 4;
	if (size > importer->rgba_size) {
		uint8_t *rgba = realloc(importer->rgba, size);
		if (!rgba) {
			snprintf(why, why_size, "out of memory");
			return false;
		}
		importer->rgba = rgba;
		importer->rgba_size = size;
	}
	/* The driver waits for the buffer's implicit fences itself: GL work on
	 * an imported image is ordered after the writers. */
	EGLImageKHR image = import(importer, a);
	if (image == EGL_NO_IMAGE_KHR) {
		snprintf(why, why_size, "EGL refused the dmabuf (0x%x)", eglGetError());
		return false;
	}
	glBindTexture(GL_TEXTURE_2D, importer->texture);
	importer->image_target_texture(GL_TEXTURE_2D, image);
	glBindFramebuffer(GL_FRAMEBUFFER, importer->framebuffer);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D,
			       importer->texture, 0);
	GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
	if (status != GL_FRAMEBUFFER_COMPLETE) {
		snprintf(why, why_size, "the imported image is not a complete framebuffer (0x%x)",
			 status);
		goto out;
	}
	glPixelStorei(GL_PACK_ALIGNMENT, 4);
	/* Row 0 of the framebuffer is row 0 of the buffer's memory. */
	glReadPixels(0, 0, a->width, a->height, GL_RGBA, GL_UNSIGNED_BYTE, importer->rgba);
	GLenum error = glGetError();
	if (error != GL_NO_ERROR) {
		snprintf(why, why_size, "glReadPixels failed (0x%x)", error);
		goto out;
	}
	/* RGBA bytes -> BGRX: pixman swizzles. */
	pixman_image_t *source = pixman_image_create_bits(PIXMAN_a8b8g8r8, a->width, a->height,
							  (uint32_t *)importer->rgba, a->width * 4);
	pixman_image_t *target = pixman_image_create_bits(PIXMAN_x8r8g8b8, a->width, a->height,
							  (uint32_t *)dst, dst_stride);
	if (source && target) {
		pixman_image_composite32(PIXMAN_OP_SRC, source, NULL, target, 0, 0, 0, 0, 0, 0,
					 a->width, a->height);
		ok = true;
	} else {
		snprintf(why, why_size, "out of memory");
	}
	if (source)
		pixman_image_unref(source);
	if (target)
		pixman_image_unref(target);
out:
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, 0, 0);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	importer->destroy_image(importer->display, image);
	return ok;
}
