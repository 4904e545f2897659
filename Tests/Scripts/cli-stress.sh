#!/usr/bin/env bash
# Runs `elimage run` RUNS times on a short clip over the .mp4, .h264, .y4m and .png outputs and
# fails if any run ends abnormally (a crash at exit or teardown shows up here, not in one run).
#
#   Tests/Scripts/cli-stress.sh PATH/TO/elimage [RUNS]
set -uo pipefail
bin=${1:?usage: cli-stress.sh PATH/TO/elimage [RUNS]}
runs=${2:-200}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ffmpeg -v error -f lavfi -i testsrc2=size=160x90:rate=25 -frames:v 6 -pix_fmt yuv420p "$work/in.y4m" </dev/null || exit 1
outputs=(o.mp4 o.h264 o.y4m o.png)
bad=0
for ((run = 0; run < runs; run++)); do
  out=${outputs[run % 4]}
  if ! timeout 120 "$bin" run "$work/in.y4m" --filter grayscale -y -o "$work/$out" </dev/null >"$work/stdout" 2>"$work/stderr"; then
    bad=$((bad + 1))
    echo "run $run ($out) exited with $?:" >&2
    tail -n 20 "$work/stderr" >&2
  fi
done
echo "cli-stress: $((runs - bad)) passed, $bad failed"
[ "$bad" -eq 0 ]
