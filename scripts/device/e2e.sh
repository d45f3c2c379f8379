#!/usr/bin/env bash
# rebench itself on a GPU machine without Node (made by scripts/device/bundle): doctor, a sandbox given GPU 0 and
# one given none, then rebench calibrate optimize_kernel --variant gpu --runs 3 --write. Results under $OUT.
set -u
exec > >(tee "$OUT/e2e.log") 2>&1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
mkdir -p /tmp/b && tar -xJf .gpu/main/bundle.tar.xz -C /tmp/b && el unpacked
rm -rf dist && tar -xf .gpu/main/dist.tar && ln -sfn /tmp/b/node_modules node_modules
export PATH=/tmp/b/pkg/bin:$PATH
command -v bwrap; bwrap --version || { el "bwrap needs libs"; export LD_LIBRARY_PATH=/tmp/b/pkg/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}; bwrap --version; }
PY=$(command -v python3); echo "python3: $PY $(readlink -f $PY)"; ls /usr/bin/python3
VENV=$(dirname "$(dirname "$PY")"); [ -f "$VENV/pyvenv.cfg" ] && ln -sfn "$VENV" .venv && echo "venv $VENV: $(cat $VENV/pyvenv.cfg | head -3)"
ls -la /dev/nvidia* ; nvidia-smi -L; uname -r; cat /proc/1/comm
scripts/setup-users
export REBENCH_HOME=/tmp/rh
el doctor; timeout 60 node bin/rebench.js doctor --json > "$OUT/doctor.json"; cat "$OUT/doctor.json" | head -60; cat /proc/self/cgroup; cat /sys/fs/cgroup/cgroup.controllers /sys/fs/cgroup/cgroup.subtree_control
el probe-in-sandbox
timeout 150 node --input-type=module -e "
const { LocalBackend } = await import(process.cwd() + '/dist/src/sandbox/local/local-backend.js');
const b = new LocalBackend({ root: '/tmp/rh/sb' });
const s = await b.create({ id: 'gpuprobe', limits: { memoryMb: 16384, processes: 256 }, gpus: [0] });
const r = await s.exec(\"cat /proc/self/cgroup; ls /sys/fs/cgroup/rebench/gpuprobe/ 2>&1 | head -3; ls /dev/nvidia*; python3 -c 'import torch; print(torch.cuda.device_count(), torch.cuda.get_device_name(0), float(torch.ones(4, device=\\\"cuda\\\").sum()))'\", { timeoutMs: 120000 });
console.log(JSON.stringify(r, null, 1));
const n = await b.create({ id: 'nogpu', limits: { memoryMb: 16384, processes: 256 } });
const r2 = await n.exec(\"python3 -c 'import torch; print(torch.cuda.device_count())'\", { timeoutMs: 120000 });
console.log(JSON.stringify(r2, null, 1));
await s.destroy(); await n.destroy();
" 2>&1 | tail -60
el calibrate
timeout 300 node bin/rebench.js calibrate optimize_kernel --variant gpu --runs 3 --write --progress 20 --json > "$OUT/calibrate-ok.json"; echo "calibrate exit $?"
cat "$OUT/calibrate-ok.json"; cp environments/optimize_kernel/calibration.json "$OUT/ok-calibration.json"
el done
