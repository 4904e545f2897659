# ELImage — the two commands of the quick start, and a few more.
#
#   make demo    the main job: camera or bundled clip -> beauty -> MP4 + snapshot (installs packages first)
#   make test    build everything and run the test suite (installs missing system packages first)
#   make bench   per-frame latency benchmark (release build)

SWIFT ?= swift
OUT ?= out

# Debian/Ubuntu packages the build, the tests and the demo need.
#   build:  pkg-config and the -dev packages of EGL, GLES, GBM, libpng, libturbojpeg, libv4l2,
#           FFmpeg's libraries and x264
#   run:    Mesa's EGL and drivers (llvmpipe when there is no GPU)
#   tests:  glslang-tools (shader validation), ffmpeg (reference conversions and decoding),
#           x264 (the command-line encoder the benchmark compares with)
PACKAGES := pkg-config libegl-dev libgles-dev libgbm-dev libpng-dev libturbojpeg0-dev libv4l-dev \
            libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libx264-dev \
            libegl1 libegl-mesa0 libgl1-mesa-dri libgbm1 \
            glslang-tools ffmpeg x264

# apt-get needs root: use sudo when not root.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps build demo test bench clean

all: build

## Installs the packages above that are missing (nothing happens when all are there).
deps:
	@missing=""; \
	for package in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}\n' $$package 2>/dev/null | grep -q '^install ok installed' || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing missing system packages:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

build: deps
	$(SWIFT) build

## The main job: the first camera (or the bundled clip) --> Beauty --> MP4, plus a snapshot PNG.
demo: deps
	@mkdir -p $(OUT)
	$(SWIFT) run record -o $(OUT)/demo.mp4 --snapshot $(OUT)/demo-snapshot.png

## Builds every product (library, examples, benchmark) and runs the tests.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

bench: deps
	$(SWIFT) run -c release elimage-bench

clean:
	rm -rf .build $(OUT)
