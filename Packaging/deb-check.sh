#!/usr/bin/env bash
# Packaging/deb-check.sh PACKAGE VERSION (root; `make deb-check`, CI): installs the Debian package with
# apt-get, then, from a temporary folder outside the checkout and with the installed programs only:
# `elimage --version` names the version and a renderer; `man elimage` shows the page; the bash
# completion loads and completes the subcommands; a 10-frame clip made by ffmpeg goes through
# grayscale into an MP4 of 10 frames; the same clip goes through reshape, which needs the installed
# face landmark networks. Then the package is removed and purged, and every file it listed must be
# gone. An elimage package installed before the check is refused rather than replaced.
set -euo pipefail
package=$(realpath "${1:?usage: $0 PACKAGE.deb VERSION}")
version=${2:?usage: $0 PACKAGE.deb VERSION}
if [ "$(id -u)" != 0 ]; then echo "deb-check: run as root (it installs and removes a package)" >&2; exit 1; fi
if dpkg-query -W -f='${Status}' elimage 2>/dev/null | grep -q 'install ok installed'; then
    echo "deb-check: an elimage package is installed already; remove it first (apt-get remove elimage)" >&2
    exit 1
fi

work=$(mktemp -d -t elimage-deb-check.XXXXXX)
listed=$work/listed
cleanup() {
    if dpkg-query -W -f='${Status}' elimage 2>/dev/null | grep -q 'installed'; then
        dpkg --purge elimage > /dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

step() { echo "== deb-check: $*"; }

step "install $(basename "$package")"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$package" > "$work/apt.log" 2>&1 \
    || { cat "$work/apt.log"; exit 1; }
dpkg -L elimage > "$listed"

cd "$work"
# Nothing of the checkout or of a development install may help: the programs, the networks and the
# cascades come from the package and what it depends on.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
unset ELIMAGE_MODELS

step "elimage --version"
[ "$(command -v elimage)" = /usr/bin/elimage ] || { echo "elimage is $(command -v elimage), not /usr/bin/elimage" >&2; exit 1; }
elimage --version | tee version.txt
[ "$(head -n 1 version.txt)" = "elimage $version" ] || { echo "the first line is not 'elimage $version'" >&2; exit 1; }
grep -q '^renderer: ' version.txt || { echo "no renderer line" >&2; exit 1; }

step "man elimage"
MANPAGER=cat MANWIDTH=100 man elimage 2> man.err > man.txt || { cat man.err; exit 1; }
grep -q '^ELIMAGE(1)' man.txt || { echo "man elimage shows no ELIMAGE(1) page" >&2; exit 1; }
for word in run filters devices controls audio-devices --version; do
    grep -qw -- "$word" man.txt || { echo "man elimage does not mention '$word'" >&2; exit 1; }
done

step "bash completion"
completions=$(bash -c 'source /usr/share/bash-completion/completions/elimage
    COMP_WORDS=(elimage ""); COMP_CWORD=1; COMP_LINE="elimage "; COMP_POINT=${#COMP_LINE}
    _elimage; printf "%s\n" "${COMPREPLY[@]}"')
for subcommand in run filters devices controls audio-devices; do
    grep -qx "$subcommand" <<< "$completions" || { echo "the bash completion does not offer '$subcommand': $completions" >&2; exit 1; }
done

step "elimage run: 10 frames through grayscale into an MP4"
ffmpeg -v error -f lavfi -i testsrc2=size=320x240:rate=25 -frames:v 10 in.y4m
elimage run in.y4m --filter grayscale -o out.mp4
frames=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 out.mp4)
[ "$frames" = 10 ] || { echo "out.mp4 has $frames frames, not 10" >&2; exit 1; }

step "elimage run: reshape, with the installed face landmark networks"
# They must come from the package (/usr/share/elimage/models, beside /usr/bin), not from
# /usr/local/share/elimage/models, where `make models` may have put the same files: strace, when
# there is one, says which files were opened.
if command -v strace > /dev/null; then
    strace -f -e trace=openat -o opened.txt elimage run in.y4m --filter reshape -o reshaped.mp4
    grep -q '"/usr/share/elimage/models/mtcnn/pnet.onnx"' opened.txt \
        || { echo "reshape did not load /usr/share/elimage/models/mtcnn/pnet.onnx:" >&2; grep onnx opened.txt >&2; exit 1; }
else
    echo "(strace is not installed: which folder the networks came from is not checked)"
    elimage run in.y4m --filter reshape -o reshaped.mp4
fi
frames=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 reshaped.mp4)
[ "$frames" = 10 ] || { echo "reshaped.mp4 has $frames frames, not 10" >&2; exit 1; }

step "remove and purge"
apt-get remove -y -qq elimage > "$work/apt.log" 2>&1 || { cat "$work/apt.log"; exit 1; }
# apt-get purge no longer knows a package that was removed and has no configuration files left.
dpkg --purge elimage > "$work/apt.log" 2>&1 || { cat "$work/apt.log"; exit 1; }
left=0
while read -r path; do
    # dpkg -L lists the folders too; shared ones (/usr, /usr/bin) stay, the package's own must go.
    if [ -d "$path" ]; then
        case $path in /usr/share/elimage*|/usr/share/doc/elimage) echo "left behind: $path/" >&2; left=$((left + 1)) ;; esac
    elif [ -e "$path" ] || [ -L "$path" ]; then
        echo "left behind: $path" >&2; left=$((left + 1))
    fi
done < "$listed"
[ "$left" = 0 ] || exit 1
echo "deb-check: $(grep -c . "$listed") paths installed and removed; version, man page, completion, runs and networks checked"
