#!/usr/bin/env bash
# Regenerates the fuzzers' seed corpus (Tests/Fuzz/Corpus/<parser>/) with ffmpeg: a few tiny valid
# files per parser and a few damaged ones. The files are committed; run this only to change them.
#
#   Tests/Fuzz/make-seed-corpus.sh
#
# raw-yuv inputs start with the 7-byte parameter block that ELImageFuzzing.RawYUVFuzzInput reads:
# format index (PixelFormat.allCases), width and height (16-bit little-endian), frame rate
# numerator and denominator (one byte each); the frames follow.
set -euo pipefail
cd "$(dirname "$0")"
corpus=Corpus
rm -rf "$corpus"
mkdir -p "$corpus"/{y4m,raw-yuv,png,jpeg,movie,movie-audio,mjpeg,cli-arguments,detectors}
ff() { ffmpeg -hide_banner -loglevel error -y "$@"; }
source_clip="testsrc2=size=16x16:rate=25"

# Y4M: 16x16, two frames, in each chroma layout the reader supports.
ff -f lavfi -i "$source_clip" -frames:v 2 -pix_fmt yuv420p "$corpus/y4m/420jpeg.y4m"
ff -f lavfi -i "$source_clip" -frames:v 2 -pix_fmt yuv422p "$corpus/y4m/422.y4m"
ff -f lavfi -i "$source_clip" -frames:v 2 -pix_fmt yuv444p "$corpus/y4m/444.y4m"
ff -f lavfi -i "$source_clip" -frames:v 2 -pix_fmt gray -strict -1 "$corpus/y4m/mono.y4m"
ff -f lavfi -i "testsrc2=size=16x16:rate=30000/1001" -vf scale=15:9:out_range=full -frames:v 2 -pix_fmt yuv420p -color_range pc "$corpus/y4m/odd-size-full-range.y4m"
# Damaged: cut inside the second frame, a 10-bit stream (unsupported), a garbled FRAME line.
head -c 500 "$corpus/y4m/420jpeg.y4m" > "$corpus/y4m/bad-cut-short.y4m"
ff -f lavfi -i "$source_clip" -frames:v 1 -pix_fmt yuv420p10le -strict -1 "$corpus/y4m/bad-10bit.y4m"
sed '0,/FRAME/s//FRAMX/' "$corpus/y4m/420jpeg.y4m" > "$corpus/y4m/bad-frame-marker.y4m"

# Raw YUV: the parameter block, then the frames.
raw() {  # name format-index width height rate-num rate-den pix_fmt frames
  local name=$1 index=$2 width=$3 height=$4 num=$5 den=$6 pix_fmt=$7 frames=$8
  printf "\\x$(printf %02x "$index")\\x$(printf %02x $((width & 255)))\\x$(printf %02x $((width >> 8)))\\x$(printf %02x $((height & 255)))\\x$(printf %02x $((height >> 8)))\\x$(printf %02x "$num")\\x$(printf %02x "$den")" > "$corpus/raw-yuv/$name"
  ff -f lavfi -i "$source_clip" -vf "scale=$width:$height" -frames:v "$frames" -pix_fmt "$pix_fmt" -f rawvideo - >> "$corpus/raw-yuv/$name"
}
raw i420-16x16.yuv 0 16 16 25 1 yuv420p 2
raw nv12-16x16.yuv 2 16 16 30 1 nv12 2
raw yuyv-15x9.yuv 4 15 9 25 1 yuyv422 2
raw rgba-8x8.raw 11 8 8 25 1 rgba 2
# Damaged: a cut frame, a zero frame rate, a size over the reader's limit.
head -c 400 "$corpus/raw-yuv/i420-16x16.yuv" > "$corpus/raw-yuv/bad-cut-short.yuv"
printf '\x00\x10\x00\x10\x00\x00\x01' > "$corpus/raw-yuv/bad-zero-rate.yuv"
printf '\x00\xff\xff\x10\x00\x19\x01\x00\x00\x00\x00' > "$corpus/raw-yuv/bad-too-wide.yuv"

# PNG: 8-bit RGB, 16-bit RGBA, palette, gray, gray+alpha.
png() { ff -f lavfi -i "$source_clip" -frames:v 1 -pix_fmt "$2" "$corpus/png/$1"; }
png rgb24.png rgb24
png rgba64.png rgba64be
png palette.png pal8
png gray.png gray
png gray16.png gray16be
png gray-alpha.png ya8
# Damaged: cut short, a wrong CRC in the header chunk.
head -c 200 "$corpus/png/rgb24.png" > "$corpus/png/bad-cut-short.png"
{ head -c 29 "$corpus/png/rgb24.png"; printf '\x00\x00\x00\x00'; tail -c +34 "$corpus/png/rgb24.png"; } > "$corpus/png/bad-header-crc.png"

# JPEG: 4:2:0, 4:2:2, 4:4:4, gray.
jpg() { ff -f lavfi -i "$source_clip" -frames:v 1 -pix_fmt "$2" -q:v 3 "$corpus/jpeg/$1"; }
jpg yuv420.jpg yuvj420p
jpg yuv422.jpg yuvj422p
jpg yuv444.jpg yuvj444p
jpg gray.jpg gray
# Damaged: cut inside the entropy-coded data, no start marker.
head -c 400 "$corpus/jpeg/yuv420.jpg" > "$corpus/jpeg/bad-cut-short.jpg"
tail -c +3 "$corpus/jpeg/yuv420.jpg" > "$corpus/jpeg/bad-no-soi.jpg"

# Movies: H.264 in MP4, Matroska and a raw stream; 32x32, three frames.
movie_source="testsrc2=size=32x32:rate=25"
x264=(-c:v libx264 -preset ultrafast -profile:v high -pix_fmt yuv420p -x264-params log-level=none)
ff -f lavfi -i "$movie_source" -frames:v 3 "${x264[@]}" "$corpus/movie/h264.mp4"
ff -f lavfi -i "$movie_source" -frames:v 3 "${x264[@]}" -movflags +faststart+frag_keyframe+empty_moov "$corpus/movie/h264-fragmented.mp4"
ff -f lavfi -i "$movie_source" -frames:v 3 "${x264[@]}" "$corpus/movie/h264.mkv"
ff -f lavfi -i "$movie_source" -frames:v 3 "${x264[@]}" -f h264 "$corpus/movie/h264.h264"
ff -f lavfi -i "$movie_source" -frames:v 3 -c:v mjpeg -pix_fmt yuvj422p "$corpus/movie/mjpeg.avi"
# Damaged: an MP4 cut before its index, a raw stream cut inside the second picture.
head -c 1200 "$corpus/movie/h264.mp4" > "$corpus/movie/bad-cut-short.mp4"
head -c 900 "$corpus/movie/h264.h264" > "$corpus/movie/bad-cut-short.h264"

# A movie's sound (movie-audio): 0.1 s of a tone in the codecs and containers a recording meets:
# AAC in MP4 (copied), MP3 in Matroska and PCM in WAV and MOV (transcoded to AAC), with a picture
# beside the sound in one of them.
tone="sine=frequency=440:sample_rate=8000:duration=0.1"
ff -f lavfi -i "$tone" -c:a aac -b:a 16k "$corpus/movie-audio/aac.mp4"
ff -f lavfi -i "$tone" -c:a libmp3lame -b:a 8k "$corpus/movie-audio/mp3.mkv"
ff -f lavfi -i "$tone" -c:a pcm_s16le "$corpus/movie-audio/pcm.wav"
ff -f lavfi -i "$tone" -ac 2 -c:a pcm_s16le "$corpus/movie-audio/pcm-stereo.mov"
ff -f lavfi -i "$movie_source" -f lavfi -i "$tone" -t 0.1 "${x264[@]}" -c:a aac -b:a 16k "$corpus/movie-audio/h264-aac.mp4"
# Damaged: an MP4 cut before its index; a WAV whose data is cut short.
head -c 600 "$corpus/movie-audio/aac.mp4" > "$corpus/movie-audio/bad-cut-short.mp4"
head -c 100 "$corpus/movie-audio/pcm.wav" > "$corpus/movie-audio/bad-cut-short.wav"

# MJPEG frames (mjpeg): the negotiated size (width-1, height-1, 16-bit little-endian), then a
# JPEG as a camera sends it: the JPEG corpus's 16x16 pictures; damaged: one negotiated at another
# size (refused), one cut short, an empty one.
for name in yuv420 yuv422 yuv444 gray; do
  { printf '\x0f\x00\x0f\x00'; cat "$corpus/jpeg/$name.jpg"; } > "$corpus/mjpeg/$name.mjpeg"
done
{ printf '\x7f\x02\xcf\x01'; cat "$corpus/jpeg/yuv422.jpg"; } > "$corpus/mjpeg/bad-negotiated-640x464.mjpeg"
{ printf '\x0f\x00\x0f\x00'; cat "$corpus/jpeg/bad-cut-short.jpg"; } > "$corpus/mjpeg/bad-cut-short.mjpeg"
printf '\x0f\x00\x0f\x00' > "$corpus/mjpeg/bad-empty.mjpeg"

# The command line's text (cli-arguments): a byte that picks the parser (ELImageFuzzing's
# CommandLineArgumentKind: 0 duration, 1 segment, 2/10/18 size with sides of at least 1/2/8,
# 3 frame rate, 4 filter, 5 enum value, 6 stream address, 7 file name pattern), then the text.
cli() { printf "\\x$(printf %02x "$2")%s" "$3" > "$corpus/cli-arguments/$1"; }
cli duration-minutes 0 10m
cli duration-milliseconds 0 500ms
cli duration-fraction 0 1.5h
cli bad-duration-too-long 0 99999999999999999999h
cli segment-size 1 50MB
cli segment-binary 1 1GiB
cli segment-duration 1 30s
cli bad-segment-ambiguous 1 10M
cli size 2 1280x720
cli size-device 10 640X480
cli size-detect 18 640x360
cli bad-size-double-x 2 1280xx720
cli bad-size-too-wide 2 99999x720
cli rate 3 25
cli rate-ntsc 3 30000/1001
cli bad-rate-zero 3 0/1
cli filter 4 grayscale
cli filter-parameters 4 "scale:width=640,height=360"
cli filter-only-parameter 4 saturation=0.5
cli bad-filter-no-value 4 "scale:width"
cli enum-matrix 5 BT709
cli enum-format 5 nv12
cli enum-preset 5 ultrafast
cli stream-rtmp 6 "rtmp://user:secret@example.com:1935/live/KEY?token=1"
cli stream-srt 6 "srt://127.0.0.1:9000?passphrase=p&streamid=s"
cli stream-hls 6 "hls/index.m3u8"
cli bad-stream-file 6 "out.mp4"
cli pattern-numbered 7 "frame%05d.png"
cli pattern-percent 7 "100%%-%3d.jpg"
cli bad-pattern-string 7 "frame%s.png"

# Pictures for the detectors (detectors): two size bytes (side = 16 + byte % 113), then 8-bit luma:
# the repository's QR code and Grace Hopper's face at 120x120, and a flat grey picture.
media=../../Examples/Media
detector() {
  { printf "\\x$(printf %02x $(($2 - 16)))\\x$(printf %02x $(($3 - 16)))"
    ff -i "$media/$4" -vf "scale=$2:$3" -f rawvideo -pix_fmt gray -; } > "$corpus/detectors/$1.luma"
}
detector qrcode 120 120 qrcode.png
detector face 120 120 grace_hopper.jpg
{ printf '\x30\x30'; head -c 4096 /dev/zero | tr '\0' '\200'; } > "$corpus/detectors/flat.luma"

du -sh "$corpus"
