# What the --window tests on sway share (sourced after TEST_LIB and
# SWAY_LIB): where wl-record's window is on sway's output, and where the
# recording is inside it.

# The system's python where there is one: a version manager's shim in PATH
# can take seconds to start, and a test's colour steps do not wait.
PYTHON=python3
[ -x /usr/bin/python3 ] && PYTHON=/usr/bin/python3

# start_window_sway [LINE...]: sway headless as the user's desktop, an
# 800x600 output with a grey background (not to be mistaken for the
# window's black bars), sway's own title bars, and LINEs of configuration
# after that.
start_window_sway() {
	{
		echo "output HEADLESS-1 mode 800x600"
		echo "output * bg #606060 solid_color"
		echo "default_border normal 2"
		echo "xwayland disable"
		printf '%s\n' "$@"
	} >"$TEST_DIR/sway.conf"
	start_sway "$TEST_DIR/sway.conf"
}

# window_info [FIELD...]: "X Y W H" of the content of the window with app_id
# wl-record on the output (logical coordinates), then the FIELDs of sway's
# node for it (put "name" last: it has spaces). Nothing while there is none.
window_info() {
	sway_msg -t get_tree -r | "$PYTHON" -c '
import json, sys
def walk(node):
    if node.get("app_id") == "wl-record":
        yield node
    for child in node.get("nodes", []) + node.get("floating_nodes", []):
        yield from walk(child)
for node in walk(json.load(sys.stdin)):
    r, w = node["rect"], node["window_rect"]
    print(r["x"] + w["x"], r["y"] + w["y"], w["width"], w["height"], *[node[f] for f in sys.argv[1:]])
    break' "$@"
}
window_shown() {
	[ -n "$(window_info)" ]
}

# resize_content W H: makes the window floating with its content W x H
# logical (what sway adds for its border and title bar is measured, then
# taken into account).
resize_content() {
	local x y w h rest
	sway_msg "[app_id=wl-record] floating enable, resize set width $1 px height $2 px" >/dev/null ||
		fail "swaymsg could not resize the window"
	sleep 0.3
	read -r x y w h rest < <(window_info)
	sway_msg "[app_id=wl-record] resize set width $((2 * $1 - w)) px height $((2 * $2 - h)) px" \
		>/dev/null
}

# measure_window PW PH: sets WX WY WW WH (the window's content) and FX FY FW
# FH (the PW x PH recording's place in it, as window_fit.c puts it).
measure_window() {
	read -r WX WY WW WH < <(window_info)
	read -r FX FY FW FH < <("$PYTHON" -c "
ww, wh, pw, ph = $WW, $WH, $1, $2
if ww * ph <= wh * pw:
    w, h = ww, (ww * ph + pw // 2) // pw
else:
    w, h = (wh * pw + ph // 2) // ph, wh
print((ww - w) // 2, (wh - h) // 2, w, h)")
	log "window content $WX,$WY ${WW}x$WH, picture at $FX,$FY ${FW}x$FH"
}

# to_output X Y: the output point over recording point X,Y (its centre),
# after measure_window (PW, PH: the recording's size).
to_output() {
	"$PYTHON" -c "print(int($WX + $FX + ($1 + 0.5) * $FW / $PW), int($WY + $FY + ($2 + 0.5) * $FH / $PH))"
}

# recording_holds DESCRIPTION COMMAND [ARG...]: waits until a still of the
# running recording (wl-record --snap through its pid file in the user's
# XDG_RUNTIME_DIR: the picture it holds now, which the file gets next or,
# at the latest, when it stops) passes COMMAND STILL.PNG [ARG...]; the
# check's output in $TEST_DIR/still-check.log. What the app logs says what
# it drew, not what was recorded: a commit is taken at the next frame.
# As the user of sway where there is one (as_user), else as the test.
recording_holds() {
	local what=$1 deadline=$((SECONDS + 10))
	shift
	until still_passes "$@"; do
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "no still shows $what after 10 s: $(cat "$TEST_DIR/still-check.log" \
				"$TEST_DIR/snap.log" 2>/dev/null | tail -n 5)"
		sleep 0.05
	done
}
still_passes() {
	local still
	: >"$TEST_DIR/still-check.log"
	still=$("${as_user[@]}" "$WL_RECORD" --snap 2>>"$TEST_DIR/snap.log") || return 1
	"$1" "$still" "${@:2}" >"$TEST_DIR/still-check.log" 2>&1
}
# rows_shown IMAGE W H ROW=VALUE...: input-check.py rows, for recording_holds.
rows_shown() {
	"$PYTHON" "$INPUT_CHECK" rows "$@"
}
