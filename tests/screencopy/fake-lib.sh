# Shared by fake.sh and fake-ext.sh (after tests/integration/lib.sh).
# start_fake NAME ARG...: the fake compositor $FAKE on socket NAME, $SIZE.
start_fake() {
	local name=$1
	shift
	start "fake-$name" "$FAKE" --socket "$name" --size "$SIZE" "$@"
	wait_until 10 "the fake compositor $name" log_has "fake-$name" '^ready'
}

# expect_shm_buffers NAME [REASON]: wl-record -v (in NAME.log) said once
# why its copies went into shm: REASON (an ERE), by default why when the
# fake offered dmabufs: no render node here (no GPU), or a build without
# libgbm; with a GPU, that the fake offers no zwp_linux_dmabuf_v1.
expect_shm_buffers() {
	local name=$1 reason=${2:-}
	if [ "${WL_RECORD_GBM:-1}" = 0 ]; then
		reason='dmabuf not available: built without libgbm'
	elif [ -z "$reason" ] && [ ! -e /dev/dri ]; then
		reason='no render node \(/dev/dri absent\)'
	elif [ -z "$reason" ]; then
		reason='(no render node|the compositor offers no zwp_linux_dmabuf_v1)'
	fi
	log_has "$name" "^wl-record: screencopy: .*shm buffers: $reason$" ||
		{ cat "$TEST_DIR/$name.log"; fail "$name: -v does not say 'shm buffers: $reason'"; }
	[ "$(grep -c 'shm buffers:' "$TEST_DIR/$name.log")" = 1 ] ||
		{ cat "$TEST_DIR/$name.log"; fail "$name: the buffers' line is not said once"; }
	! log_has "$name" 'dmabuf copies:' ||
		{ cat "$TEST_DIR/$name.log"; fail "$name: a dmabuf copy was tried"; }
}
