/**
 * @module
 * What a hostile agent leaves in its workspace to break the run's teardown, as one bash command an agent (or a
 * test, as the agent user) runs in a sandbox: a chain of directories longer than PATH_MAX (18 levels of
 * 240-character names: Node's rmSync fails on it with ENAMETOOLONG) ending in a directory no one may list,
 * directories without permissions (chmod 000 with contents, 0500), a FIFO, a bound unix socket, 2,000 files,
 * and a background process that holds a file open and keeps creating files until it is killed.
 */

/** Levels and name length of the chain: 18 × 241 bytes is past Linux's PATH_MAX of 4096. */
export const DEEP_LEVELS = 18;
export const DEEP_NAME_LENGTH = 240;

const BUILD = String.raw`
import os, socket, subprocess, sys
top = os.path.abspath(sys.argv[1])
os.makedirs(top)
os.chdir(top)
depth = 0
for level in range(${DEEP_LEVELS}):
    name = ("d%02d" % level).ljust(${DEEP_NAME_LENGTH}, "x")
    os.mkdir(name)
    os.chdir(name)
    depth += len(name) + 1
with open("bottom.txt", "w") as f:
    f.write("deep\n")
os.mkdir("sealed")
with open("sealed/f", "w") as f:
    f.write("x")
os.chmod("sealed", 0)
os.chdir(top)
assert len(top) + depth > 4096, "the chain is not past PATH_MAX"
os.makedirs("locked/inner")
with open("locked/inner/f", "w") as f:
    f.write("x")
os.chmod("locked", 0)
os.mkdir("readonly")
with open("readonly/f", "w") as f:
    f.write("x")
os.chmod("readonly", 0o500)
os.mkfifo("fifo")
socket.socket(socket.AF_UNIX).bind("sock")
os.mkdir("many")
for i in range(2000):
    with open("many/%d" % i, "w") as f:
        f.write("x")
os.mkdir("busy")
writer = "import os, time\nheld = open('held.txt', 'w')\ni = 0\nwhile True:\n    open('busy/%d' % i, 'w').close()\n    i += 1\n    time.sleep(0.05)\n"
child = subprocess.Popen(["python3", "-c", writer], start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print("built", child.pid)
`;

/**
 * The bash command that builds the tree at `dir` (relative to the command's directory, or absolute); prints
 * `built PID`, PID being the background writer's (as its pid namespace numbers it).
 */
export const BUILT = /^built (\d+)\n$/;

export function hostileTreeCommand(dir: string): string {
  return `python3 - ${dir} <<'HOSTILE_TREE'\n${BUILD}\nHOSTILE_TREE`;
}
