#!/usr/bin/env bash
# rebench itself on a GPU machine without Node (made by scripts/device/bundle): doctor, a sandbox given GPU 0 and
# one given none, then rebench calibrate optimize_kernel --variant gpu --runs 3 --write. Results under $OUT.
DEVICE_LOG=e2e source "$(dirname "$0")/setup.sh"
ls -la /dev/nvidia*; uname -r; cat /proc/1/comm
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
