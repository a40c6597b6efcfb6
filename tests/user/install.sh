#!/bin/bash
# `meson install --destdir` puts every file where its users look under the
# prefix: the binary (which runs), the man page (which renders, and covers
# every option --help lists), the three completions (which know every
# option), README, doc/design.md, doc/performance.md and the example config
# (naming the installed binary).
# The encoders are a module the installed binary finds from its own folder
# (even staged under DESTDIR); one of another build is refused in one line.
#   install.sh  (env: MESON, BUILD_ROOT, PREFIX, BINDIR, LIBDIR, MANDIR, DATADIR, HAVE_SCDOC)
set -u
fail() { echo "install: FAIL: $*" >&2; exit 1; }
for var in MESON BUILD_ROOT PREFIX BINDIR LIBDIR MANDIR DATADIR HAVE_SCDOC; do
	[ -n "${!var:-}" ] || fail "$var is not set"
done
DESTDIR=$(mktemp -d "${TMPDIR:-/tmp}/wlr-install.XXXXXX") || exit 1
trap 'rm -rf "$DESTDIR"' EXIT

abs() { case $1 in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$PREFIX" "$1" ;; esac; }
ROOT=$DESTDIR$PREFIX
BIN=$DESTDIR$(abs "$BINDIR")/wl-record
MAN=$DESTDIR$(abs "$MANDIR")/man1/wl-record.1
SHARE=$DESTDIR$(abs "$DATADIR")

$MESON install -C "$BUILD_ROOT" --destdir "$DESTDIR" --no-rebuild --quiet >"$DESTDIR.log" 2>&1 ||
	{ cat "$DESTDIR.log"; rm -f "$DESTDIR.log"; fail "meson install failed"; }
rm -f "$DESTDIR.log"
echo "installed under $ROOT:"
(cd "$DESTDIR" && find . -type f | sort)

# Nothing outside the prefix.
outside=$(cd "$DESTDIR" && find . -type f | grep -v "^\.$PREFIX/")
[ -z "$outside" ] || fail "installed outside $PREFIX: $outside"

[ -x "$BIN" ] || fail "no executable $BIN"
"$BIN" --version | grep -q "^wl-record [0-9]" || fail "the installed binary does not run"
# --version: the libraries found at run time and the encoders that work here
# (libx264 works everywhere; stderr stays clean).
version=$("$BIN" --version 2>"$DESTDIR/version.err")
grep -q -E "^FFmpeg .*libavcodec [0-9]+\.[0-9]+\.[0-9]+" <<<"$version" || fail "--version: $version"
grep -q -E "^libva ([0-9]+\.[0-9]+\.[0-9]+ |: not loaded)" <<<"$version" || fail "--version: $version"
grep -q "^libx264" <<<"$version" || fail "--version lists no libx264: $version"
[ ! -s "$DESTDIR/version.err" ] || fail "--version wrote to stderr: $(cat "$DESTDIR/version.err")"
rm -f "$DESTDIR/version.err"

# The encoders: a module beside the libraries, loaded by recordings only
# (linked in, FFmpeg's libraries cost every still, --stop and --snap about
# 80 ms of start-up: src/encode/recorder_api.h).
MODULE=$DESTDIR$(abs "$LIBDIR")/wl-record/wl-record-encoder.so
[ -f "$MODULE" ] || fail "no encoder module at $MODULE"
if ldd "$BIN" | grep -q libavcodec; then
	fail "the binary links libavcodec: $(ldd "$BIN" | grep libavcodec)"
fi
# --help: one screen (of a 60-line terminal, with the prompt), grouped, one
# option per line.
help=$("$BIN" --help)
[ "$(wc -l <<<"$help")" -le 58 ] || fail "--help is $(wc -l <<<"$help") lines long"
for group in Output: Connection Encoding: "A running recording"; do
	grep -q "^$group" <<<"$help" || fail "--help has no group '$group'"
done

for file in "$SHARE/bash-completion/completions/wl-record" \
	"$SHARE/zsh/site-functions/_wl-record" \
	"$SHARE/fish/vendor_completions.d/wl-record.fish" \
	"$SHARE/doc/wl-record/README.md" "$SHARE/doc/wl-record/doc/design.md" \
	"$SHARE/doc/wl-record/doc/performance.md" "$SHARE/doc/wl-record/examples/weston.ini" \
	"$SHARE/doc/wl-record/examples/sway.config" "$SHARE/doc/wl-record/examples/hyprland.conf" \
	"$SHARE/doc/wl-record/examples/niri.kdl"; do
	[ -s "$file" ] || fail "missing $file"
done
grep -q "^command=$(abs "$BINDIR")/wl-record " "$SHARE/doc/wl-record/examples/weston.ini" ||
	fail "the installed example does not name $(abs "$BINDIR")/wl-record"
for example in sway.config hyprland.conf niri.kdl; do
	grep -q "$(abs "$BINDIR")/wl-record\"* \"*--toggle" "$SHARE/doc/wl-record/examples/$example" ||
		fail "the installed $example does not bind $(abs "$BINDIR")/wl-record --toggle"
done

# Every long option --help shows is known to the completions and the man page.
OPTIONS=$("$BIN" --help | grep -o -E -- '--[a-z][a-z-]+' | sort -u)
[ "$(echo "$OPTIONS" | wc -l)" -ge 20 ] || fail "--help lists only: $OPTIONS"
for option in $OPTIONS; do
	name=${option#--}
	grep -q -- "$option\\b" "$SHARE/bash-completion/completions/wl-record" ||
		fail "the bash completion lacks $option"
	grep -q -E -- "$option(\\[|\\})" "$SHARE/zsh/site-functions/_wl-record" ||
		fail "the zsh completion lacks $option"
	grep -q -- "-l $name " "$SHARE/fish/vendor_completions.d/wl-record.fish" ||
		fail "the fish completion lacks $option"
done

# The bash completion really completes (when bash-completion is installed).
if [ -f /usr/share/bash-completion/bash_completion ]; then
	got=$(bash -c '
		. /usr/share/bash-completion/bash_completion
		. "$1"
		COMP_WORDS=(wl-record --scr); COMP_CWORD=1; COMP_LINE="wl-record --scr"; COMP_POINT=${#COMP_LINE}
		_wl_record wl-record --scr wl-record
		printf "%s\n" "${COMPREPLY[@]}"' bash "$SHARE/bash-completion/completions/wl-record")
	[ "$got" = "--screenshot" ] || fail "bash completes --scr to '$got'"
	echo "bash completion: --scr -> $got"
fi

# zsh and fish (when installed): the files parse, and fish completes.
if command -v zsh >/dev/null; then
	zsh -n "$SHARE/zsh/site-functions/_wl-record" || fail "zsh cannot parse _wl-record"
fi
if command -v fish >/dev/null; then
	got=$(PATH=$(dirname "$BIN"):$PATH fish --no-config -c \
		'source $argv[1]; complete -C "wl-record --tog"' "$SHARE/fish/vendor_completions.d/wl-record.fish" |
		cut -f1)
	[ "$got" = "--toggle" ] || fail "fish completes --tog to '$got'"
	echo "fish completion: --tog -> $got"
fi

# FILE: bash and fish offer folders and the files wl-record writes, not
# every file; --codec offers what --list-encoders lists (VP9 included).
files=$(mktemp -d)
touch "$files/clip.mkv" "$files/notes.txt" "$files/shot.png"
mkdir "$files/folder"
encoders=$(PATH=$(dirname "$BIN"):$PATH wl-record --list-encoders 2>/dev/null | cut -f1 | sort | tr '\n' ' ')
if [ -f /usr/share/bash-completion/bash_completion ]; then
	got=$(cd "$files" && bash -c '
		. /usr/share/bash-completion/bash_completion
		. "$1"
		COMP_WORDS=(wl-record ""); COMP_CWORD=1; COMP_LINE="wl-record "; COMP_POINT=${#COMP_LINE}
		_wl_record wl-record "" wl-record
		printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' bash "$SHARE/bash-completion/completions/wl-record")
	[ "$got" = "clip.mkv folder shot.png " ] || fail "bash completes FILE to '$got'"
	got=$(PATH=$(dirname "$BIN"):$PATH bash -c '
		. /usr/share/bash-completion/bash_completion
		. "$1"
		COMP_WORDS=(wl-record --codec ""); COMP_CWORD=2; COMP_LINE="wl-record --codec "; COMP_POINT=${#COMP_LINE}
		_wl_record wl-record "" --codec
		printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' bash "$SHARE/bash-completion/completions/wl-record")
	[ "$got" = "$encoders" ] || fail "bash completes --codec to '$got', not '$encoders'"
fi
if command -v fish >/dev/null; then
	got=$(cd "$files" && fish --no-config -c 'source $argv[1]; complete -C "wl-record "' \
		"$SHARE/fish/vendor_completions.d/wl-record.fish" | cut -f1 | sort | tr '\n' ' ')
	[ "$got" = "clip.mkv folder/ shot.png " ] || fail "fish completes FILE to '$got'"
	echo "fish completion: FILE -> $got"
	got=$(PATH=$(dirname "$BIN"):$PATH fish --no-config -c 'source $argv[1]; complete -C "wl-record --codec "' \
		"$SHARE/fish/vendor_completions.d/wl-record.fish" | cut -f1 | sort | tr '\n' ' ')
	[ "$got" = "$encoders" ] || fail "fish completes --codec to '$got', not '$encoders'"
fi
case " $encoders" in
*" libvpx-vp9 "*) ;;
*) ffmpeg -hide_banner -encoders 2>/dev/null | grep -q libvpx-vp9 &&
	fail "--list-encoders omits libvpx-vp9, which this FFmpeg has: $encoders" ;;
esac
rm -rf "$files"

if [ "$HAVE_SCDOC" = true ]; then
	[ -s "$MAN" ] || fail "no man page at $MAN"
	if command -v man >/dev/null; then
		text=$(MANWIDTH=200 man -l "$MAN" 2>/dev/null) || fail "man cannot render $MAN"
	else
		text=$(cat "$MAN")
	fi
	for option in $OPTIONS; do
		grep -q -- "$option" <<<"$text" || fail "the man page does not document $option"
	done
	for section in SYNOPSIS CONNECTING OPTIONS SIGNALS "EXIT STATUS" FILES ENVIRONMENT; do
		grep -q "^$section" <<<"$text" || fail "the man page has no $section section"
	done
	grep -q "$(abs "$DATADIR")/doc/wl-record/examples/weston.ini" <<<"$text" ||
		fail "the man page does not point at the installed example"
else
	echo "scdoc not found at configure time: the man page is not checked"
fi

# Last, as it spoils the install: a module of another build (here another
# library in its place) is refused before anything starts: one line,
# status 1, no file; stills and --help do not need it.
zlib=$(ldd "$BIN" | awk '/libz\.so/ { print $3; exit }')
[ -f "$zlib" ] || fail "the binary does not link zlib: $(ldd "$BIN")"
cp "$zlib" "$MODULE"
XDG_RUNTIME_DIR=$DESTDIR "$BIN" --duration 1 "$DESTDIR/spoilt.mkv" -- true \
	>"$DESTDIR/spoilt.out" 2>"$DESTDIR/spoilt.err" </dev/null
status=$?
[ "$status" -eq 1 ] && [ "$(wc -l <"$DESTDIR/spoilt.err")" -eq 1 ] &&
	grep -q "cannot load the encoders: .*not the encoder module of wl-record" "$DESTDIR/spoilt.err" ||
	fail "a foreign encoder module: exit $status, stderr: $(cat "$DESTDIR/spoilt.err")"
[ ! -e "$DESTDIR/spoilt.mkv" ] || fail "a foreign encoder module left a file"
"$BIN" --help >/dev/null || fail "--help needs the encoder module"
echo "install: PASS"
