/**
 * @module
 * The one-shot jail's contract (python/rebench_env/sandbox_jail.py), passed by every backend: agent code that
 * a grader runs on hidden inputs (`$REBENCH_AS_AGENT --jail`, or every call of a sandbox made with
 * `jailAgentCalls`) reaches only what the grader gives it, writes nothing that outlives the call, and cannot
 * see, signal or talk to the agent's other processes, which stay frozen while it runs. Each backend's test
 * file calls `jailContract`.
 */
import { mkdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CONTRACT_LIMITS } from "./contract.case.js";
import { SANDBOX_PATHS } from "./layout.js";
import type { Sandbox, SandboxBackend } from "./sandbox.js";

export interface JailContractOptions {
  /** Skip every test with this reason (the backend cannot run here). */
  skip?: string;
  /** Whether the grader is another user than the agent (default true; not so in the local backend without root). */
  separateUsers?: boolean;
}

/** Python, as the agent: listeners on the loopback (TCP and abstract), a FIFO and a socket in the workspace. */
const AGENT_LISTENERS = `
import os, socket, threading, time
got = []
def serve(s):
    while True:
        c, _ = s.accept(); got.append(c.recv(100)); open('/tmp/agent-got', 'a').write('connection\\n')
tcp = socket.socket(); tcp.bind(('127.0.0.1', 7781)); tcp.listen()
abstract = socket.socket(socket.AF_UNIX); abstract.bind('\\0rebench-contract'); abstract.listen()
if os.path.exists('drop.sock'): os.unlink('drop.sock')
filed = socket.socket(socket.AF_UNIX); filed.bind('drop.sock'); filed.listen()
for s in (tcp, abstract, filed): threading.Thread(target=serve, args=(s,), daemon=True).start()
if not os.path.exists('drop.fifo'): os.mkfifo('drop.fifo')
fifo = os.open('drop.fifo', os.O_RDONLY | os.O_NONBLOCK)
open('/tmp/agent-ready', 'w').write('ready')
while True:
    time.sleep(0.2)
    try:
        data = os.read(fifo, 100)
        if data: open('/tmp/agent-got', 'a').write('fifo\\n')
    except BlockingIOError:
        pass
`;

/** Python, in the jail: every way out it tries, and what it sees. */
const JAILED_PROBE = `
import os, socket, json
out = {}
def refused(family, address):
    s = socket.socket(family)
    s.settimeout(2)
    try:
        s.connect(address); s.sendall(b'leak'); return False
    except OSError:
        return True
out['tcp'] = refused(socket.AF_INET, ('127.0.0.1', 7781))
out['abstract'] = refused(socket.AF_UNIX, '\\0rebench-contract')
out['filed'] = refused(socket.AF_UNIX, 'drop.sock')
try:
    fd = os.open('drop.fifo', os.O_WRONLY | os.O_NONBLOCK); os.write(fd, b'leak'); os.close(fd)
except OSError:
    pass
def writes(path):
    try:
        open(path, 'w').write('leak'); return True
    except OSError:
        return False
out['workspace'] = writes('leak.txt')
out['tmp'] = writes('/tmp/leak.txt')
out['home'] = writes(os.path.expanduser('~/leak.txt'))
out['shm'] = writes('/dev/shm/leak.txt')
out['pids'] = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())
out['user'] = os.getuid()
out['hostname'] = socket.gethostname()
print(json.dumps(out))
`;

/**
 * Python, as the agent: `places.py SCENARIO` listens on a unix socket and a FIFO (`jc-SCENARIO.sock`,
 * `.fifo`) in each place of the scenario and appends what they receive to `/tmp/jc-SCENARIO.got`:
 * `everywhere`, every directory the agent user can write to (a walk of `/` as the agent, without /proc
 * and /sys); `unlistable`, a workspace directory it then makes mode 0100; `deep`, the bottom of 18
 * directories of 240-character names in the workspace (past PATH_MAX: made, and reached, a level at a
 * time). It writes the places it made (path components from `/`) to `jc-SCENARIO.json` in the workspace.
 */
const AGENT_PLACES = `
import json, os, socket, sys, threading, time
scenario = sys.argv[1]
name = 'jc-' + scenario
ws = os.getcwd()
here = [p for p in ws.split('/') if p]
places = []
if scenario == 'everywhere':
    for d, subdirs, _ in os.walk('/', onerror=lambda e: None):
        if d == '/':
            subdirs[:] = [s for s in subdirs if s not in ('proc', 'sys')]
        subdirs[:] = [s for s in subdirs if not os.path.islink(os.path.join(d, s))]
        if os.access(d, os.W_OK | os.X_OK):
            places.append([p for p in d.split('/') if p])
elif scenario == 'unlistable':
    places.append(here + ['locked'])
else:
    places.append(here + ['deep'] + ['%02d' % i + 'y' * 238 for i in range(18)])
made, failed, servers, fifos = [], [], [], []
for parts in places:
    try:
        os.chdir('/')
        for p in parts:
            if scenario != 'everywhere' and not os.path.isdir(p):
                os.mkdir(p)
            os.chdir(p)
        for n in (name + '.sock', name + '.fifo'):
            if os.path.lexists(n):
                os.unlink(n)
        s = socket.socket(socket.AF_UNIX); s.bind(name + '.sock'); os.chmod(name + '.sock', 0o777); s.listen(64)
        os.mkfifo(name + '.fifo', 0o666)
        r = os.open(name + '.fifo', os.O_RDONLY | os.O_NONBLOCK); os.open(name + '.fifo', os.O_WRONLY | os.O_NONBLOCK)
    except OSError as e:
        failed.append(['/' + '/'.join(parts)[:200], e.strerror]); continue
    servers.append(s); fifos.append(r); made.append(parts)
os.chdir(ws)
if scenario == 'unlistable':
    os.chmod('locked', 0o100)
lock = threading.Lock()
def record(line):
    with lock, open('/tmp/' + name + '.got', 'ab') as f: f.write(line)
def serve(s):
    while True:
        c, _ = s.accept(); c.settimeout(2)
        try: record(b'socket: ' + c.recv(100) + b'\\n')
        except OSError: record(b'socket: connected\\n')
for s in servers: threading.Thread(target=serve, args=(s,), daemon=True).start()
with open(name + '.json.tmp', 'w') as f: json.dump({'pid': os.getpid(), 'made': made, 'failed': failed}, f)
os.rename(name + '.json.tmp', name + '.json')
while True:
    for r in fifos:
        try:
            data = os.read(r, 100)
            if data: record(b'fifo: ' + data + b'\\n')
        except BlockingIOError:
            pass
    time.sleep(0.05)
`;

/**
 * Python, in the jail: each place of `jc-SCENARIO.json` entered a level at a time, its socket and FIFO tried
 * with `leak` (the agent runs it too, unjailed, with `control`: every place is reached then).
 */
const JAILED_PLACES_PROBE = `
import json, os, socket, stat, sys
name, payload = sys.argv[1], sys.argv[2].encode()
made = json.load(open(name + '.json'))['made']
reached, tried = [], 0
for parts in made:
    tried += 1
    try:
        os.chdir('/')
        for p in parts: os.chdir(p)
    except OSError:
        continue
    s = socket.socket(socket.AF_UNIX); s.settimeout(2)
    try:
        s.connect(name + '.sock'); s.sendall(payload); reached.append('/' + '/'.join(parts)[:200] + ' (socket)')
    except OSError:
        pass
    try:
        fd = os.open(name + '.fifo', os.O_WRONLY | os.O_NONBLOCK)
        if stat.S_ISFIFO(os.fstat(fd).st_mode):
            os.write(fd, payload); reached.append('/' + '/'.join(parts)[:200] + ' (fifo)')
        os.close(fd)
    except OSError:
        pass
print(json.dumps({'tried': tried, 'reached': reached}))
`;

/**
 * Python, as the agent: `pages.py prepare` makes `pc-own.bin` (a sparse 64 MiB file of its own) and picks 16
 * pages (up to 16) of files of the system's (/usr, /opt/rebench) it can read and does not own, each evicted and not cached after (a probe with
 * `preadv2(RWF_NOWAIT)` fails); `pages.py probe` says how many of the chosen pages are cached now: its own
 * through `mincore`, the others through `RWF_NOWAIT` (each is probed once: a probe starts reading a page it
 * does not find); `pages.py touch` reads them all itself (the control: the probes see what is cached).
 */
const AGENT_PAGES = `
import ctypes, json, os, sys, time
PAGE = 4096
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
def cached(path, page):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
        os.preadv(fd, [bytearray(1)], page * PAGE, os.RWF_NOWAIT)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
def evict(path):
    fd = os.open(path, os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)
def resident_own(pages):
    fd = os.open('pc-own.bin', os.O_RDONLY); size = os.fstat(fd).st_size
    addr = libc.mmap(None, size, 1, 1, fd, 0); os.close(fd)
    vec = (ctypes.c_ubyte * (size // PAGE))()
    assert libc.mincore(ctypes.c_void_p(addr), ctypes.c_size_t(size), vec) == 0, ctypes.get_errno()
    return sum(vec[p] & 1 for p in pages)
if sys.argv[1] == 'prepare':
    with open('pc-own.bin', 'wb') as f: f.truncate(64 << 20)
    os.sync()  # dirty pages (files copied in just now) cannot be evicted
    evict('pc-own.bin')
    own = [64 * k for k in range(1, 17)]
    others, me = [], os.getuid()
    for top in ('/usr/share', '/usr/lib', '/opt/rebench', sys.prefix):  # /usr of a container (overlayfs) takes no RWF_NOWAIT
        for d, subdirs, files in os.walk(top):
            subdirs.sort(); files.sort()
            for n in files:
                path = os.path.join(d, n)
                try:
                    st = os.lstat(path)
                    if not (st.st_mode & 0o170000 == 0o100000 and st.st_uid != me and st.st_size > PAGE and not st.st_mode & 0o111):
                        continue
                    evict(path)
                    if not cached(path, 1):
                        others.append([path, 1])
                except OSError:
                    continue
                if len(others) == 16: break
            if len(others) == 16: break
        if len(others) == 16: break
    time.sleep(0.5)
    for path, _ in others: evict(path)
    json.dump({'own': own, 'others': others}, open('pc-pages.json', 'w'))
    print(json.dumps({'others': len(others), 'own': resident_own(own)}))
else:
    chosen = json.load(open('pc-pages.json'))
    if sys.argv[1] == 'touch':
        # Each system page probed as soon as it is read: another sandbox's eviction walks the same /usr.
        for p in chosen['own']: os.pread(os.open('pc-own.bin', os.O_RDONLY), 1, p * PAGE)
        others = 0
        for path, p in chosen['others']:
            os.pread(os.open(path, os.O_RDONLY), 1, p * PAGE)
            others += cached(path, p)
        print(json.dumps({'own': resident_own(chosen['own']), 'others': others}))
    else:
        print(json.dumps({'own': resident_own(chosen['own']), 'others': sum(cached(path, p) for path, p in chosen['others'])}))
`;

/** Python, in the jail: reads every page `pages.py prepare` chose (what code with hidden inputs would encode them by). */
const JAILED_PAGES = `
import json, os
chosen = json.load(open('pc-pages.json'))
fd = os.open('pc-own.bin', os.O_RDONLY)
for p in chosen['own']: os.pread(fd, 1, p * 4096)
for path, p in chosen['others']:
    f = os.open(path, os.O_RDONLY); os.pread(f, 1, p * 4096); os.close(f)
print('read')
`;

/**
 * Run `fn` while no other copy of it runs on this machine (a directory as the lock, taken by mkdir). The page
 * cache is the machine's: the local and the container backend's copies of the page-cache test, run at once by
 * two test workers, read and evict the same system files, and one saw the other's page cached (1 of 16, in 1 of 3
 * runs at once; 0 of 3 alone).
 */
async function alone<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const lock = path.join(os.tmpdir(), `rebench-test-lock-${name}`);
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      // A lock left by a killed test run is older than any run of the test.
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 600_000) rmSync(lock, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export function jailContract(name: string, backend: () => SandboxBackend, options: JailContractOptions = {}): void {
  const suite = options.skip ? describe.skip : describe;
  suite(`Jail contract: ${name}${options.skip ? ` (skipped: ${options.skip})` : ""}`, () => {
    let sandbox: Sandbox;
    const unique = `j${process.pid}${Date.now().toString(36)}`;
    const grader = (command: string, timeoutMs = 60_000) => sandbox.exec(command, { user: "grader", timeoutMs });

    beforeAll(async () => {
      sandbox = await backend().create({ id: unique, limits: CONTRACT_LIMITS });
      await sandbox.writeFile(`${sandbox.paths.workspace}/listeners.py`, AGENT_LISTENERS);
      await sandbox.writeFile(`${sandbox.paths.workspace}/probe.py`, JAILED_PROBE);
      await sandbox.writeFile(`${sandbox.paths.workspace}/places.py`, AGENT_PLACES);
      await sandbox.writeFile(`${sandbox.paths.workspace}/probe_places.py`, JAILED_PLACES_PROBE);
      await sandbox.exec("nohup python3 listeners.py > /tmp/listeners.log 2>&1 &");
      const ready = await sandbox.exec("for i in $(seq 100); do test -s /tmp/agent-ready && exit 0; sleep 0.1; done; cat /tmp/listeners.log; exit 1");
      expect(ready.exitCode, ready.stdout).toBe(0);
    }, 120_000);
    afterAll(async () => {
      await sandbox?.destroy();
    });

    test("a jailed call cannot reach the agent's listeners (loopback, abstract or filed sockets, FIFOs) nor write anything that outlives it", async () => {
      const run = await grader("$REBENCH_AS_AGENT --jail -- python3 probe.py");
      expect(run.stderr).toBe("");
      expect(run.exitCode).toBe(0);
      const seen = JSON.parse(run.stdout) as Record<string, unknown>;
      expect(seen).toMatchObject({ tcp: true, abstract: true, filed: true, workspace: false, tmp: true, home: true, shm: true, hostname: "rebench-jail" });
      // Its own process namespace: only the jail's few processes.
      expect((seen.pids as number[]).length).toBeLessThanOrEqual(4);
      // As the agent user (the uid its files get).
      expect(seen.user).toBe(Number((await sandbox.exec("id -u")).stdout.trim()));
      await new Promise((resolve) => setTimeout(resolve, 600)); // the listener polls its FIFO every 0.2 s
      const after = await sandbox.exec(
        "cat /tmp/agent-got 2>/dev/null; ls /tmp/leak.txt ~/leak.txt /dev/shm/leak.txt leak.txt 2>&1 | grep -v 'No such' || true",
      );
      expect(after.stdout).toBe("");
    });

    /** Starts `places.py SCENARIO` as the agent; the places it listens in. */
    async function listenIn(scenario: string): Promise<{ made: string[][]; failed: string[][] }> {
      const start = await sandbox.exec(
        `rm -f jc-${scenario}.json; (nohup python3 places.py ${scenario} > /tmp/jc-${scenario}.log 2>&1 &); ` +
          `for i in $(seq 600); do test -s jc-${scenario}.json && exit 0; sleep 0.1; done; cat /tmp/jc-${scenario}.log; exit 1`,
        { timeoutMs: 120_000 },
      );
      expect(start.exitCode, start.stdout).toBe(0);
      return JSON.parse(new TextDecoder().decode(await sandbox.readFile(`${sandbox.paths.workspace}/jc-${scenario}.json`)));
    }

    /** Stops the scenario's listener and deletes what it made, so that later jailed calls find a plain workspace. */
    async function stopListening(scenario: string): Promise<void> {
      const clean = [
        "import json, os, signal",
        `m = json.load(open('jc-${scenario}.json'))`,
        "os.kill(m['pid'], signal.SIGKILL)",
        "for parts in m['made']:",
        "    os.chdir('/')",
        "    for p in parts: os.chdir(p)",
        `    for n in ('jc-${scenario}.sock', 'jc-${scenario}.fifo'): os.unlink(n)`,
      ].join("\n");
      const run = await sandbox.exec(`chmod 755 locked 2>/dev/null; python3 -c "${clean}" && rm -rf deep locked jc-${scenario}.json /tmp/jc-${scenario}.*`);
      expect(run.stderr).toBe("");
    }

    test.each([
      ["everywhere", "in every directory the agent user can write to"],
      ["unlistable", "in a workspace directory it made unlistable (mode 0100)"],
      ["deep", "at the bottom of a workspace chain longer than PATH_MAX"],
    ])(
      "a jailed call reaches no socket or FIFO the agent listens on %s (%s): it runs with them masked or is refused, saying what to delete",
      async (scenario) => {
        const places = await listenIn(scenario);
        try {
          const made = places.made.map((parts) => `/${parts.join("/")}`);
          if (scenario === "everywhere") {
            expect(made, JSON.stringify(places.failed)).toEqual(expect.arrayContaining([SANDBOX_PATHS.home, sandbox.paths.workspace, "/tmp", "/dev/shm"]));
          } else expect(made).toHaveLength(1);
          const run = await grader(`$REBENCH_AS_AGENT --jail -- python3 probe_places.py jc-${scenario} leak`);
          if (run.exitCode === 125) {
            expect(run.stderr).toMatch(/a jailed call (cannot mask|masks every socket and FIFO).* before the next scoring call/);
          } else {
            expect(run.stderr).toBe("");
            expect(run.exitCode).toBe(0);
            expect(JSON.parse(run.stdout)).toEqual({ tried: made.length, reached: [] });
          }
          if (scenario === "deep") expect(run.exitCode).toBe(125); // bubblewrap cannot take the path: nothing may run
          // The agent reaches every place itself, after the jailed call: once the listener has recorded those, it
          // has taken everything queued before them, so what it got from the jail is all there.
          const control = await sandbox.exec(`python3 probe_places.py jc-${scenario} control`);
          expect(JSON.parse(control.stdout).reached).toHaveLength(2 * made.length);
          const got = await sandbox.exec(
            `for i in $(seq 600); do test "$(grep -c control /tmp/jc-${scenario}.got)" -ge ${2 * made.length} && break; sleep 0.05; done; cat /tmp/jc-${scenario}.got`,
            { timeoutMs: 60_000 },
          );
          expect(got.stdout.split("\n").filter((line) => line && !/^(socket|fifo): control$/.test(line))).toEqual([]);
          expect(got.stdout.match(/control/g)).toHaveLength(2 * made.length);
        } finally {
          await stopListening(scenario);
        }
      },
    );

    test("the agent's other processes are frozen while a jailed call runs, and run again after it", async () => {
      await sandbox.exec("nohup sh -c 'while true; do date +%s.%N >> /tmp/ticks; sleep 0.05; done' > /dev/null 2>&1 &");
      await sandbox.exec("for i in $(seq 100); do test -s /tmp/ticks && break; sleep 0.05; done");
      const jailed = await grader("$REBENCH_AS_AGENT --jail -- sleep 1.5");
      expect(jailed.exitCode).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const gaps = await sandbox.exec("pkill -f 'date +%s' ; awk 'NR > 1 && $1 - p > 1 { n++ } { p = $1 } END { print n + 0, NR }' /tmp/ticks");
      const [longGaps, ticks] = gaps.stdout.trim().split(" ").map(Number);
      expect(longGaps).toBe(1);
      expect(ticks).toBeGreaterThan(3); // it ticked before and after
    });

    test("a process whose main thread has exited (its leader a zombie) is frozen with the others: its other threads stop too", async () => {
      // A red-team attacker's observer (2026-12-06): the freezer read the leader's state only, saw Z, and left the
      // process running; it read the jailed call's files through /proc/PID/root and the page cache live.
      const ticker = [
        "import ctypes, os, platform, threading, time",
        "def tick():",
        "    while True:",
        "        open('/tmp/zticks', 'a').write('%.3f\\n' % time.time()); time.sleep(0.05)",
        "open('/tmp/zpid', 'w').write(str(os.getpid()))",
        "threading.Thread(target=tick).start()",
        "time.sleep(0.2)",
        "ctypes.CDLL(None).syscall(93 if platform.machine() == 'aarch64' else 60, 0)  # SYS_exit: this thread only",
      ].join("\n");
      await sandbox.writeFile(`${sandbox.paths.workspace}/zombie_leader.py`, ticker);
      await sandbox.exec("rm -f /tmp/zticks /tmp/zpid; nohup python3 zombie_leader.py > /dev/null 2>&1 &");
      const leader = await sandbox.exec(
        "for i in $(seq 100); do test -s /tmp/zticks && break; sleep 0.05; done; sleep 0.5; " + "sed 's/.*) //' /proc/$(cat /tmp/zpid)/stat | cut -c1",
      );
      expect(leader.stdout.trim()).toBe("Z"); // the leader has exited; its ticking thread runs on
      const jailed = await grader("$REBENCH_AS_AGENT --jail -- sleep 1.5");
      expect(jailed.exitCode).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const gaps = await sandbox.exec("kill $(cat /tmp/zpid); awk 'NR > 1 && $1 - p > 1 { n++ } { p = $1 } END { print n + 0, NR }' /tmp/zticks");
      const [longGaps, ticks] = gaps.stdout.trim().split(" ").map(Number);
      expect(longGaps).toBe(1); // stopped for the call (it ticked straight through before the freezer read threads)
      expect(ticks).toBeGreaterThan(3);
      await sandbox.exec("rm -f zombie_leader.py /tmp/zticks /tmp/zpid");
    });

    test(
      "pages a jailed call reads leave no trace in the page cache the agent can see, in its own files or the system's",
      () =>
        alone("page-cache", async () => {
          await sandbox.writeFile(`${sandbox.paths.workspace}/pages.py`, AGENT_PAGES);
          await sandbox.writeFile(`${sandbox.paths.workspace}/jailed_pages.py`, JAILED_PAGES);
          const prepared = await sandbox.exec("python3 pages.py prepare", { timeoutMs: 120_000 });
          expect(prepared.stderr).toBe("");
          const found = JSON.parse(prepared.stdout) as { others: number; own: number };
          expect(found.own).toBe(0);
          expect(found.others).toBeGreaterThanOrEqual(8); // pages of the system's files, each found uncached
          const jailed = await grader("$REBENCH_AS_AGENT --jail -- python3 jailed_pages.py");
          expect(jailed.stderr).toBe("");
          expect(jailed.stdout).toBe("read\n");
          // Before the broker evicted what a jail shares with the agent, all came back cached (a bit a page).
          expect(JSON.parse((await sandbox.exec("python3 pages.py probe")).stdout)).toEqual({ own: 0, others: 0 });
          // The control: what the agent reads itself, the same probes see.
          expect(JSON.parse((await sandbox.exec("python3 pages.py touch")).stdout)).toEqual({ own: 16, others: found.others });
          await sandbox.exec("rm -f pc-own.bin pc-pages.json pages.py jailed_pages.py");
        }),
      360_000,
    );

    test("processes a jailed call leaves behind die with it", async () => {
      const jailed = await grader("$REBENCH_AS_AGENT --jail -- sh -c 'nohup sleep 1007 > /dev/null 2>&1 & setsid sleep 1008 > /dev/null 2>&1 & echo started'");
      expect(jailed.stdout).toBe("started\n");
      const left = await sandbox.exec("cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' ' | grep -o 'sleep 100[78]' || true");
      expect(left.stdout).toBe("");
    });

    test("a jailed call gets exactly what the grader binds: an input, an output directory, a service on a forwarded port", async () => {
      const service = [
        "import os, socket",
        "s = socket.socket(socket.AF_UNIX); s.bind('/tmp/g/svc.sock'); os.chmod('/tmp/g/svc.sock', 0o666); s.listen()",
        "open('/tmp/g/svc.ready', 'w').write('1')",
        "c, _ = s.accept(); c.sendall(b'pong:' + c.recv(100))",
      ].join("\n");
      const prepare = [
        // A grader's output directory: a name the agent cannot list (0711 parent), writable by the agent user.
        "mkdir -p /tmp/g/out-5f2a && chmod 711 /tmp/g && chmod 1777 /tmp/g/out-5f2a",
        "echo hidden-input > /tmp/g/in.txt && chmod 644 /tmp/g/in.txt",
        `(python3 -c "${service}" > /tmp/g/svc.log 2>&1 &)`,
        "for i in $(seq 100); do test -s /tmp/g/svc.ready && break; sleep 0.05; done",
      ].join(" && ");
      expect((await grader(prepare)).exitCode).toBe(0);
      const code = [
        "import socket",
        "data = open('/run/in/in.txt').read().strip()",
        "c = socket.create_connection(('127.0.0.1', 9000), timeout=10); c.sendall(data.encode())",
        "open('/run/out/result.txt', 'w').write(c.recv(100).decode())",
      ].join("; ");
      const jailed = await grader(
        `$REBENCH_AS_AGENT --jail --bind /tmp/g/in.txt:/run/in/in.txt --bind-rw /tmp/g/out-5f2a:/run/out --bind /tmp/g/svc.sock:/run/svc.sock --forward 9000=/run/svc.sock -- python3 -c "${code}"`,
      );
      expect(jailed.stderr).toBe("");
      expect(jailed.exitCode).toBe(0);
      expect((await grader("cat /tmp/g/out-5f2a/result.txt")).stdout).toBe("pong:hidden-input");
      // The agent cannot find the grader's directories.
      if (options.separateUsers !== false) expect((await sandbox.exec("ls /tmp/g")).exitCode).not.toBe(0);
    });

    test("binds and forwards are refused for a call that is not jailed", async () => {
      const run = await grader("$REBENCH_AS_AGENT --bind /tmp:/x -- true");
      expect(run.exitCode).toBe(125);
      expect(run.stderr).toMatch(/need a jailed call/);
    });

    test("pauseAgent() stops the agent's processes until it is released", async () => {
      await sandbox.exec("rm -f /tmp/ticks2; nohup sh -c 'while true; do date +%s.%N >> /tmp/ticks2; sleep 0.05; done' > /dev/null 2>&1 &");
      await sandbox.exec("for i in $(seq 100); do test -s /tmp/ticks2 && break; sleep 0.05; done");
      const pause = await sandbox.pauseAgent();
      const frozen = await grader("sleep 1.5; echo graded");
      expect(frozen.stdout).toBe("graded\n"); // the grader runs while the agent is stopped
      await pause.release();
      await pause.release();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const gaps = await sandbox.exec("pkill -f 'ticks2' ; awk 'NR > 1 && $1 - p > 1 { n++ } { p = $1 } END { print n + 0 }' /tmp/ticks2");
      expect(gaps.stdout.trim()).toBe("1");
    });

    test("a sandbox made with jailAgentCalls jails every as-agent call", async () => {
      const jailing = await backend().create({ id: `${unique}a`, limits: CONTRACT_LIMITS, jailAgentCalls: true });
      try {
        const run = await jailing.exec("$REBENCH_AS_AGENT -- sh -c 'hostname; touch ~/workspace/x 2>/dev/null || echo read-only'", {
          user: "grader",
          timeoutMs: 60_000,
        });
        expect(run.stdout).toBe("rebench-jail\nread-only\n");
      } finally {
        await jailing.destroy();
      }
    });
  });
}
