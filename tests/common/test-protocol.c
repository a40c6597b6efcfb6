#include "test-protocol.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void test_check_protocol_error(const char *file, int line, struct test_roundtrip roundtrip,
			       const struct wl_interface *iface, void *object, uint32_t code)
{
	char expected[160];
	uint32_t expected_id = object ? wl_proxy_get_id(object) : 0;
	if (object)
		snprintf(expected, sizeof(expected), "%s@%u error %u", iface->name, expected_id,
			 code);
	else
		snprintf(expected, sizeof(expected), "%s error %u", iface->name, code);
	const char *server = roundtrip.describe_server ? roundtrip.describe_server() : "";

	if (roundtrip.result == -2)
		test_fail(file, line, "answered", " no answer in time; expected %s", expected);
	if (roundtrip.result == 0)
		test_fail(file, line, "rejected", " the request was accepted; expected %s",
			  expected);
	int err = wl_display_get_error(roundtrip.display);
	if (err != EPROTO)
		test_fail(file, line, "err == EPROTO",
			  " connection error %d (%s), not a protocol error; expected %s %s", err,
			  strerror(err), expected, server);

	const struct wl_interface *got_iface = NULL;
	uint32_t got_id = 0;
	uint32_t got_code = wl_display_get_protocol_error(roundtrip.display, &got_iface, &got_id);
	const char *got_name = got_iface ? got_iface->name : "(none)";
	printf("got protocol error %s@%u code %u\n", got_name, got_id, got_code);
	if (!got_iface || strcmp(got_name, iface->name) != 0 || (object && got_id != expected_id) ||
	    got_code != code)
		test_fail(file, line, "same error", " protocol error %s@%u code %u; expected %s",
			  got_name, got_id, got_code, expected);
}
