# fish completion for wl-record

function __wl_record_encoders
    wl-record --list-encoders 2>/dev/null | string replace -r '\t.*' ''
end

# After "--" the words are COMMAND's own command line.
function __wl_record_after_dashdash
    contains -- -- (commandline -opc)
end

function __wl_record_command
    set -l tokens (commandline -opc)
    set -l i (contains -i -- -- $tokens)
    set -l rest
    if test $i -lt (count $tokens)
        set rest $tokens[(math $i + 1)..-1]
    end
    complete -C (string join ' ' -- (string escape -- $rest) (commandline -ct))
end

# Folders, and files wl-record writes (fish 3.6's __fish_complete_suffix
# lists every file, the matching ones first).
function __wl_record_output_files
    set -l cur (commandline -ct)
    for path in $cur*
        if test -d $path
            echo $path/
        else if string match -qir '\.(mkv|mp4|mov|webm|png)$' -- $path
            echo $path
        end
    end
end

# No file completion by default: FILE gets the extensions wl-record writes
# (and folders), as in bash and zsh; after "--", COMMAND's completions.
complete -c wl-record -f
complete -c wl-record -n 'not __wl_record_after_dashdash' -a '(__wl_record_output_files)'
complete -c wl-record -n '__wl_record_after_dashdash' -a '(__wl_record_command)'

complete -c wl-record -s f -l file -r -a '(__wl_record_output_files)' -d 'Output file (.mkv .mp4 .mov .webm .png, - for stdout)'
complete -c wl-record -s o -l output -x -a '(wl-record --list-outputs 2>/dev/null | string split -f1 " ")' -d "The desktop's monitor to record"
complete -c wl-record -s g -l geometry -x -d 'Record this region, X,Y WxH (slurp)'
complete -c wl-record -l list-outputs -d "List the desktop's monitors"
complete -c wl-record -l forget-portal -d "Forget the screen chosen in the portal's dialog"
complete -c wl-record -l no-cursor -d 'Leave the pointer out'
complete -c wl-record -l audio -f -a '(pactl list short sources 2>/dev/null | string split -f2 \t)' -d 'Record sound: what the desktop plays, or =SOURCE (again: one more track)'
complete -c wl-record -l audio-mix -d 'All the --audio sources in one track'
complete -c wl-record -l audio-codec -x -a 'opus aac flac' -d 'Audio codec'
complete -c wl-record -l audio-bitrate -x -a '64k 96k 128k 160k 192k' -d 'Audio bit rate, e.g. 96k'
complete -c wl-record -l app-audio -d 'Record only the sound of COMMAND'
complete -c wl-record -l mute-app -d 'With --app-audio: do not play it meanwhile'
complete -c wl-record -s s -l screenshot -d 'Take one PNG still and exit'
complete -c wl-record -l delay -x -d 'Screenshot: take it this long after the first frame'
complete -c wl-record -l timeout -x -d 'Screenshot: give up after this long without a frame'
complete -c wl-record -l duration -x -d 'Stop recording after this many seconds'
complete -c wl-record -l frames -x -d 'Stop after N frames'
complete -c wl-record -l stats-fd -x -a '3 4 5' -d 'When done, a JSON summary line on this fd'
complete -c wl-record -l capture -x -a 'screencopy ext-image-copy wlr-screencopy portal listen' -d 'Desktop through screencopy, or host only'
complete -c wl-record -l socket -x -d 'Listen on $XDG_RUNTIME_DIR/NAME'
complete -c wl-record -l size -x -a '1280x720 1920x1080 2560x1440 3840x2160' -d 'Output mode offered to clients'
complete -c wl-record -l fps -x -a '24 25 30 50 60' -d 'Frame rate'
complete -c wl-record -l codec -x -a '(__wl_record_encoders)' -d 'Encoder'
complete -c wl-record -l device -r -a "(__fish_complete_path /dev/dri/renderD)" -d "VA-API render node"
complete -c wl-record -l bitrate -x -d 'Target bit rate, e.g. 8M'
complete -c wl-record -l crf -x -d 'Constant quality, lower is better'
complete -c wl-record -s p -l codec-param -x -d 'Encoder option KEY=VALUE'
complete -c wl-record -l cfr -d 'Constant frame rate (repeats frames)'
complete -c wl-record -s y -l overwrite -d 'Replace FILE if it exists'
complete -c wl-record -l no-fullscreen-shell -d 'Offer xdg-shell only'
complete -c wl-record -l background -x -a 'black white gray' -d 'Colour behind windows'
complete -c wl-record -l compose-all -d 'Show every xdg-shell window'
complete -c wl-record -l window -d 'Show COMMAND in a window on this desktop'
complete -c wl-record -l cursor -d 'With --window: draw the hosted pointer into the video'
complete -c wl-record -l list-encoders -d 'List the encoders usable here'
complete -c wl-record -l stop -d 'Finish the running recording'
complete -c wl-record -l snap -d 'Save a still of the running recording'
complete -c wl-record -l toggle -d 'Stop the running recording, or record'
complete -c wl-record -l pid-file -r -F -d 'Pid file of the running recording'
complete -c wl-record -s v -l verbose -d 'Debug messages'
complete -c wl-record -s q -l quiet -d 'Errors only'
complete -c wl-record -s h -l help -d 'Show the options'
complete -c wl-record -s V -l version -d 'Show versions and usable encoders'
