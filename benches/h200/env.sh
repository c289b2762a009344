# Sourced by the H200 scripts: unpacks the binaries once, sets the common environment.
if [[ ! -d .gpu/bin ]]; then tar xJf .gpu/bin.tar.xz -C .gpu; fi
source .gpu/env.sh
export GPUARRAYS_KERNEL_CACHE=/tmp/gakc PYTHONUNBUFFERED=1
mkdir -p "$OUT"
# step NAME SECONDS CMD...: runs CMD with a time limit, its output in $OUT/NAME.log,
# and prints "NAME: rc=N (Ts)" plus the log's last lines.
# Steps that would start after DEADLINE seconds (default 540: the call's limit is 600) are
# skipped, and a step's limit is cut to what is left, so the logs are always packed.
step() {
  local name=$1 limit=$2; shift 2
  local t0=$SECONDS left=$(( ${DEADLINE:-540} - SECONDS ))
  if (( left < 5 )); then echo "== $name: skipped (deadline)"; return; fi
  (( limit > left )) && limit=$left
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
  local rc=$?
  echo "== $name: rc=$rc ($((SECONDS - t0)) s)"
  grep -v XDG_RUNTIME_DIR "$OUT/$name.log" | tail -n "${TAIL:-4}"
}
