# Shared by fake.sh and fake-ext.sh (after tests/integration/lib.sh).
# start_fake NAME ARG...: the fake compositor $FAKE on socket NAME, $SIZE.
start_fake() {
	local name=$1
	shift
	start "fake-$name" "$FAKE" --socket "$name" --size "$SIZE" "$@"
	wait_until 10 "the fake compositor $name" log_has "fake-$name" '^ready'
}
