#!/bin/sh
# wl-record bound to Super+R on GNOME (Mutter offers no copy protocol:
# wl-record records through the ScreenCast portal). Run once:
#
#   sh /usr/local/share/doc/wl-record/examples/gnome-shortcut.sh
#
# The first press asks, in GNOME's own dialog, which screen or window to
# record, and starts; the next press stops the recording and returns once
# the file (in ~/Videos) is complete. The choice is remembered (the
# portal's restore token in ~/.local/state/wl-record/): later presses do
# not ask again. `wl-record --forget-portal` makes it ask again.
#
# The same by hand: Settings > Keyboard > View and Customise Shortcuts >
# Custom Shortcuts > +, command `/usr/local/bin/wl-record --toggle`.
set -e
base=/org/gnome/settings-daemon/plugins/media-keys/custom-keybindings
path=$base/wl-record/
schema=org.gnome.settings-daemon.plugins.media-keys.custom-keybinding
list=$(gsettings get org.gnome.settings-daemon.plugins.media-keys custom-keybindings)
case $list in
*"'$path'"*) ;;
"@as []"|"[]") gsettings set org.gnome.settings-daemon.plugins.media-keys custom-keybindings "['$path']" ;;
*) gsettings set org.gnome.settings-daemon.plugins.media-keys custom-keybindings "${list%]}, '$path']" ;;
esac
gsettings set "$schema:$path" name 'wl-record: start or stop recording'
gsettings set "$schema:$path" command '/usr/local/bin/wl-record --toggle'
gsettings set "$schema:$path" binding '<Super>r'
echo "Super+R now starts and stops wl-record"
