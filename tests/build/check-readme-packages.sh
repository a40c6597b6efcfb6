#!/bin/bash
# The README's Build section tells a new user which Debian packages to
# install; scripts/packages.sh is what the scripts (and CI) install. They
# must name the same packages, or the README drifts again (it once lacked
# libdrm-dev, without which meson fails, and libegl-dev/libgles-dev, without
# which the EGL path is silently left out).
#   check-readme-packages.sh SOURCE_ROOT
set -u
root=$1
. "$root/scripts/packages.sh"
# The first `apt-get install meson …` command in README.md, with its
# backslash-continued lines.
readme=$(awk '
	/^apt-get install meson/ { on = 1 }
	on { line = $0; sub(/\\$/, "", line); printf "%s ", line; if ($0 !~ /\\$/) exit }
' "$root/README.md")
[ -n "$readme" ] || { echo "FAIL: no 'apt-get install meson' line in README.md"; exit 1; }
readme_set=$(printf '%s\n' $readme | grep -v -e '^apt-get$' -e '^install$' | sort -u)
script_set=$(printf '%s\n' "${BUILD_PACKAGES[@]}" | sort -u)
if [ "$readme_set" != "$script_set" ]; then
	echo "FAIL: README.md's Build line and scripts/packages.sh's BUILD_PACKAGES differ:"
	diff <(echo "$readme_set") <(echo "$script_set") | sed -n 's/^</  only in README.md:/p; s/^>/  only in packages.sh:/p'
	exit 1
fi
echo "ok: README.md installs the $(echo "$script_set" | wc -l) packages of scripts/packages.sh"
