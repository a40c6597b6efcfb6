#ifndef WL_RECORD_TEST_PROTOCOL_H
#define WL_RECORD_TEST_PROTOCOL_H

/* The one check for a protocol error, shared by the in-process tests
 * (struct inproc, tests/unit/inproc.h) and the hostile clients of a real
 * wl-record (struct hostile_client, tests/hostile/harness.h):
 *
 *   expect_protocol_error(conn, &wl_shm_pool_interface, pool, WL_SHM_ERROR_INVALID_STRIDE);
 *
 * makes a roundtrip the way `conn` needs (in-process, the server runs in the
 * same loop), then requires that the connection failed with EPROTO, that the
 * error names `iface` and, unless `object` is NULL, that object's id, and
 * that its code is exactly `code`. */

#include <stdint.h>
#include <wayland-client.h>

#include "test-runner.h"

struct test_roundtrip {
	struct wl_display *display;
	int result; /* 0 answered, -1 the connection failed, -2 no answer in time */
	/* Optional: what became of the server, for the failure message. */
	const char *(*describe_server)(void);
};

void test_check_protocol_error(const char *file, int line, struct test_roundtrip roundtrip,
			       const struct wl_interface *iface, void *object, uint32_t code);

struct inproc;
struct hostile_client;
struct test_roundtrip inproc_roundtrip_for_error(struct inproc *t);
struct test_roundtrip hostile_roundtrip_for_error(struct hostile_client *c);

#define expect_protocol_error(conn, iface, object, code)                                   \
	test_check_protocol_error(__FILE__, __LINE__,                                      \
				  _Generic((conn),                                         \
				  struct inproc *: inproc_roundtrip_for_error,             \
				  struct hostile_client *: hostile_roundtrip_for_error)(conn), \
				  (iface), (object), (code))

#endif
