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
mkdir -p "$corpus"/{y4m,raw-yuv,png,jpeg,movie}
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

du -sh "$corpus"
