# bash completion for wl-record

_wl_record()
{
	local cur prev words cword
	_init_completion || return

	# After "--": the command line of COMMAND.
	local i
	for ((i = 1; i < cword; i++)); do
		if [[ ${words[i]} == -- ]]; then
			_command_offset $((i + 1))
			return
		fi
	done

	case $prev in
	-f | --file)
		_filedir '@(mkv|mp4|mov|webm|png)'
		return
		;;
	-o | --output)
		COMPREPLY=($(compgen -W "$(wl-record --list-outputs 2>/dev/null | cut -d' ' -f1)" -- "$cur"))
		return
		;;
	--pid-file)
		_filedir
		return
		;;
	--codec)
		COMPREPLY=($(compgen -W "$(wl-record --list-encoders 2>/dev/null | cut -f1)" -- "$cur"))
		return
		;;
	--device)
		COMPREPLY=($(compgen -G "/dev/dri/renderD*" -- "$cur"))
		return
		;;
	--background)
		COMPREPLY=($(compgen -W "black white gray" -- "$cur"))
		return
		;;
	--capture)
		COMPREPLY=($(compgen -W "screencopy ext-image-copy wlr-screencopy portal listen" -- "$cur"))
		return
		;;
	--size)
		COMPREPLY=($(compgen -W "1280x720 1920x1080 2560x1440 3840x2160" -- "$cur"))
		return
		;;
	--fps)
		COMPREPLY=($(compgen -W "24 25 30 50 60" -- "$cur"))
		return
		;;
	--stats-fd)
		COMPREPLY=($(compgen -W "3 4 5" -- "$cur"))
		return
		;;
	--audio-codec)
		COMPREPLY=($(compgen -W "opus aac flac" -- "$cur"))
		return
		;;
	--audio-bitrate)
		COMPREPLY=($(compgen -W "64k 96k 128k 160k 192k" -- "$cur"))
		return
		;;
	-g | --geometry | --socket | --timeout | --delay | --duration | --frames | --bitrate | --crf | -p | --codec-param)
		return
		;;
	esac

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W '-f --file -o --output -g --geometry --list-outputs --forget-portal --no-cursor -s --screenshot --delay --timeout --duration
			--frames --stats-fd --capture --socket --size --fps --codec --device --bitrate --crf -p
			--codec-param --cfr --audio --audio-mix --audio-codec --audio-bitrate --app-audio --mute-app -y --overwrite --list-encoders --stop --snap --toggle --pid-file
			--no-fullscreen-shell --background --compose-all --window --cursor
			-v --verbose -q --quiet -h --help -V --version --' -- "$cur"))
		return
	fi
	_filedir '@(mkv|mp4|mov|webm|png)'
}
complete -F _wl_record wl-record
