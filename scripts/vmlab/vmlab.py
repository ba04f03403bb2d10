#!/usr/bin/env python3
"""vmlab: run a command inside a QEMU guest booting Debian's stock kernel with this machine's root.

The host kernel has no modules, no cfg80211 and no USB; mac80211_hwsim and dummy_hcd USB gadgets
only exist in a guest kernel. The guest boots Debian's linux-image (extracted, never installed)
with a tiny initramfs of our own, mounts the host root read-only over 9p and runs one command in
the repository. See README.md next to this file.

  vmlab.py prepare                 download and extract the kernel, build the initramfs (cached)
  vmlab.py run [opts] -- CMD...    boot, run CMD, exit with its status (125: the VM failed)
  vmlab.py check                   boot and try two hwsim radios and a USB gadget
"""
import argparse
import ctypes
import fcntl
import gzip
import hashlib
import lzma
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CACHE = Path(os.environ.get("REACH_VMLAB_CACHE") or REPO / ".build-vmlab").resolve()
INIT = HERE / "guest" / "init"
# Loaded by the initramfs: 9p over virtio-pci for the host root, overlay for a writable /usr/lib
# (to hold lib/modules/KVER) and configfs for USB gadgets. Dependencies come from modules.dep.
BOOT_MODULES = ["virtio_pci", "9pnet_virtio", "9p", "overlay", "configfs"]
# What prepare needs on the host, and what the suites run inside the guest (from the host root).
PACKAGES = ["qemu-system-x86", "busybox-static", "kmod", "hostapd", "wpasupplicant", "iw", "iproute2", "python3"]
GUEST_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
VM_FAILED = 125  # the VM could not boot or died: not the command's verdict


class VMError(Exception):
    """The lab could not be prepared or the guest could not be booted."""


def say(message):
    print(f"vmlab: {message}", file=sys.stderr, flush=True)


def sh(*argv, cwd=None, check=True):
    result = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, text=True)
    if check and result.returncode != 0:
        raise VMError(f"{' '.join(argv)} failed with status {result.returncode}")
    return result


def ensure_packages():
    missing = [p for p in PACKAGES
               if "install ok installed" not in sh("dpkg-query", "-W", "-f=${Status}", p, check=False).stdout]
    if missing:
        # setup.sh installs Debian packages when missing (and checks the build's own needs).
        sh(str(REPO / "scripts" / "setup.sh"), *missing)


def kernel_package():
    """linux-image-amd64's dependency, e.g. linux-image-6.1.0-56-amd64 (whose version we boot)."""
    for attempt in range(2):
        out = sh("apt-cache", "depends", "linux-image-amd64", check=False).stdout
        match = re.search(r"Depends: (linux-image-\d\S*)", out)
        if match:
            return match.group(1)
        if attempt == 0:
            sh("apt-get", "update", "-qq", check=False)
    raise VMError("apt-cache knows no linux-image-amd64 (is this Debian with its package lists?)")


def download(package, into):
    apt = ["apt-get", "download", package]
    if os.geteuid() == 0:  # root: apt's _apt sandbox user cannot write into our cache
        apt[1:1] = ["-o", "APT::Sandbox::User=root"]
    if subprocess.run(apt, cwd=into).returncode != 0:
        say("download failed; running apt-get update once")
        sh("apt-get", "update", "-qq")
        sh(*apt, cwd=into)
    debs = sorted(into.glob(f"{package}_*.deb"))
    if not debs:
        raise VMError(f"apt-get download left no {package}_*.deb in {into}")
    return debs[-1]


def module_name(path):
    name = Path(path).name
    return re.sub(r"\.ko(\.(xz|gz|zst))?$", "", name).replace("-", "_")


def module_order(moddir, wanted):
    """The wanted modules and their dependencies, dependencies first, builtins left out."""
    builtin = {module_name(line) for line in (moddir / "modules.builtin").read_text().split()}
    paths, deps = {}, {}
    for line in (moddir / "modules.dep").read_text().splitlines():
        module, _, rest = line.partition(":")
        paths[module_name(module)] = module
        deps[module_name(module)] = [module_name(d) for d in rest.split()]
    order = []

    def visit(name):
        if name in order or name in builtin:
            return
        if name not in paths:
            raise VMError(f"module {name} is neither built in nor in modules.dep")
        for dep in deps[name]:
            visit(dep)
        order.append(name)

    for name in wanted:
        visit(name)
    return [(name, moddir / paths[name]) for name in order]


def module_bytes(path):
    data = path.read_bytes()
    if path.suffix == ".xz":
        return lzma.decompress(data)
    if path.suffix == ".gz":
        return gzip.decompress(data)
    if path.suffix == ".zst":
        raise VMError(f"{path}: zstd-compressed modules are not supported")
    return data


def cpio(entries):
    """A newc archive (what the kernel unpacks as initramfs), written here so that /dev/console
    can be a device node without root's mknod."""
    out = bytearray()

    def pad():
        out.extend(b"\0" * (-len(out) % 4))

    for ino, (name, mode, data, rdev) in enumerate(entries + [("TRAILER!!!", 0, b"", (0, 0))], start=1):
        fields = [ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1], len(name) + 1, 0]
        out += ("070701" + "".join(f"{f:08x}" for f in fields)).encode() + name.encode() + b"\0"
        pad()
        out += data
        pad()
    return bytes(out)


def prepare():
    """Kernel, modules and initramfs in the cache; returns (vmlinuz, initramfs, version, moddir)."""
    ensure_packages()
    package = kernel_package()
    version = package.removeprefix("linux-image-")
    kdir = CACHE / version
    root = kdir / "root"
    if not root.is_dir():
        say(f"fetching {package} (not installed: only extracted into {kdir})")
        kdir.mkdir(parents=True, exist_ok=True)
        deb = download(package, kdir)
        staging = kdir / "root.tmp"
        shutil.rmtree(staging, ignore_errors=True)
        sh("dpkg-deb", "-x", str(deb), str(staging))
        sh("depmod", "-b", str(staging), version)
        staging.rename(root)  # complete extractions only
        deb.unlink()
    moddir = root / "lib" / "modules" / version

    init = INIT.read_bytes()
    key = hashlib.sha256(version.encode() + init + " ".join(BOOT_MODULES).encode()).hexdigest()[:16]
    initrd = kdir / f"initramfs-{key}.cpio.gz"
    if not initrd.exists():
        modules = module_order(moddir, BOOT_MODULES)
        entries = [(d, 0o40755, b"", (0, 0)) for d in ("bin", "dev", "proc", "sys", "newroot", "vmlab", "lib", "lib/vmlab")]
        entries += [("dev/console", 0o20600, b"", (5, 1)),
                    ("bin/busybox", 0o100755, Path("/bin/busybox").read_bytes(), (0, 0)),
                    ("init", 0o100755, init, (0, 0)),
                    ("lib/vmlab/order", 0o100644, "\n".join(n for n, _ in modules).encode() + b"\n", (0, 0))]
        entries += [(f"lib/vmlab/{name}.ko", 0o100644, module_bytes(path), (0, 0)) for name, path in modules]
        for old in kdir.glob("initramfs-*.cpio.gz"):
            old.unlink()
        tmp = initrd.with_suffix(".tmp")
        tmp.write_bytes(gzip.compress(cpio(entries), mtime=0))
        tmp.rename(initrd)
        say(f"built {initrd.name}: {', '.join(n for n, _ in modules)}")
    return root / "boot" / f"vmlinuz-{version}", initrd, version, moddir


def choose_accel():
    """KVM only with hardware virtualisation: on a PVM host /dev/kvm exists but a stock guest hangs."""
    forced = os.environ.get("REACH_VM_ACCEL")
    if forced:
        if forced not in ("kvm", "tcg"):
            raise VMError(f"REACH_VM_ACCEL={forced}: expected kvm or tcg")
        return forced
    try:
        flags = set(re.findall(r"^flags\s*:(.*)$", Path("/proc/cpuinfo").read_text(), re.M)[0].split())
    except (OSError, IndexError):
        flags = set()
    return "kvm" if flags & {"vmx", "svm"} and os.access("/dev/kvm", os.R_OK | os.W_OK) else "tcg"


def share(tag, path, readonly=False):
    ro = ",readonly=on" if readonly else ""
    return ["-fsdev", f"local,id={tag},path={path},security_model=none,multidevs=remap{ro}",
            "-device", f"virtio-9p-pci,fsdev={tag},mount_tag={tag}"]


def run(command, timeout=900, memory="1536M", smp=2, rw=(), env=(), systemd=False):
    """Boots, runs `command` in the repository, streams its output; returns its exit status."""
    kernel, initrd, version, moddir = prepare()
    accel = choose_accel()
    # One VM at a time: two TCG guests on a small machine make both miss their timeouts.
    lock = open(CACHE / "vm.lock", "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        say("waiting for another vmlab VM to finish")
        fcntl.flock(lock, fcntl.LOCK_EX)
    for stale in CACHE.glob("run-*"):  # left by a vmlab.py killed with SIGKILL: only we run now
        shutil.rmtree(stale, ignore_errors=True)
    jobdir = Path(tempfile.mkdtemp(prefix="run-", dir=CACHE))
    proc = None
    try:
        exports = {"PATH": GUEST_PATH, "HOME": "/root", "LANG": "C.UTF-8", "TERM": "dumb"}
        if "CI" in os.environ:
            exports["CI"] = os.environ["CI"]
        for item in env:
            key, sep, value = item.partition("=")
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
                raise VMError(f"--env {item}: not NAME=VALUE")
            exports[key] = value if sep else os.environ.get(key, "")
        job = "".join(f"export {k}={shlex.quote(v)}\n" for k, v in exports.items())
        job += f"cd {shlex.quote(str(REPO))} || exit 125\nexec {shlex.join(command)}\n"
        (jobdir / "job.sh").write_text(job)
        (jobdir / "config").write_text(
            f"KVER={shlex.quote(version)}\nMODULES={shlex.quote(str(moddir))}\nREPO={shlex.quote(str(REPO.resolve()))}\n"
            f"SYSTEMD={1 if systemd else 0}\n")
        shares = [(f"rw{i}", Path(d).resolve()) for i, d in enumerate(rw)]
        for _, path in shares:
            if not path.is_dir():
                raise VMError(f"--rw {path}: not a directory")
        (jobdir / "rw").write_text("".join(f"{tag} {path}\n" for tag, path in shares))

        qemu = ["qemu-system-x86_64", "-accel", accel, "-M", "q35", "-m", memory, "-smp", str(smp),
                "-nodefaults", "-no-user-config", "-display", "none", "-serial", "stdio", "-no-reboot",
                "-nic", "none", "-kernel", str(kernel), "-initrd", str(initrd),
                # panic=-1: a guest panic reboots, which -no-reboot turns into qemu exiting.
                "-append", "console=ttyS0 quiet loglevel=1 panic=-1 rdinit=/init"]
        if accel == "kvm":
            qemu += ["-cpu", "host"]
        qemu += share("hostroot", "/", readonly=True) + share("vmlab", jobdir)
        for tag, path in shares:
            qemu += share(tag, path)

        started = time.monotonic()
        console = Console(started)
        # Own session: Ctrl-C reaches us, not qemu, and the finally kills qemu's whole group.
        proc = subprocess.Popen(qemu, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, start_new_session=True,
                                preexec_fn=die_with_parent)
        reader = threading.Thread(target=console.pump, args=(proc.stdout,), daemon=True)
        reader.start()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            say(f"timeout after {timeout} s; killing the VM")
            return 124 if console.boot_seconds is not None else VM_FAILED
        reader.join(5)
        total = time.monotonic() - started
        status_file = jobdir / "status"
        if status_file.exists():
            status = int(status_file.read_text().strip() or VM_FAILED)
            say(f"command exited with status {status}; {total:.1f} s in all ({accel})")
            return status
        if console.boot_seconds is None:
            say(f"the VM did not boot (qemu status {proc.returncode}): {console.failure or 'no start marker on the console'}")
        else:
            say(f"the VM stopped before the command finished (qemu status {proc.returncode})")
        return VM_FAILED
    finally:
        if proc is not None and proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        shutil.rmtree(jobdir, ignore_errors=True)
        lock.close()


def die_with_parent():
    """In the child: SIGKILL qemu when vmlab.py dies, even by SIGKILL (no finally runs then)."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


class Console:
    """Copies the guest's serial console to stdout, minus vmlab's marker lines."""

    def __init__(self, started):
        self.started = started
        self.boot_seconds = None
        self.failure = None

    def pump(self, stream):
        out = sys.stdout.buffer
        for raw in iter(stream.readline, b""):
            line = raw.rstrip(b"\r\n")
            if line.startswith(b"vmlab:start"):
                self.boot_seconds = time.monotonic() - self.started
                say(f"booted in {self.boot_seconds:.1f} s; running the command")
            elif line.startswith(b"vmlab:fail"):
                self.failure = line[len(b"vmlab:fail "):].decode(errors="replace")
                say(f"guest init failed: {self.failure}")
            elif not line.startswith(b"vmlab:exit"):
                out.write(line + b"\n")
                out.flush()


# Smoke test for `check`: hwsim radios and one USB gadget, printing what the guest sees.
CHECK = """
. scripts/vmlab/guest/lib.sh
trap vm_cleanup EXIT
set -e
vm_wifi_radios 2
iw dev
host=$(vm_gadget_add check ecm 0x0525 0xa4a1)
echo "gadget 0525:a4a1 (ecm) -> $(vm_netdev_info "$host")"
vm_gadget_remove check
echo "check: ok"
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="verb", required=True)
    sub.add_parser("prepare", help="fetch the kernel and build the initramfs (cached)")
    runp = sub.add_parser("run", help="boot and run CMD in the repository; exit with its status")
    runp.add_argument("--timeout", type=float, default=900, help="seconds for boot and command (default 900)")
    runp.add_argument("--memory", default="1536M")
    runp.add_argument("--smp", type=int, default=2)
    runp.add_argument("--rw", action="append", default=[], metavar="HOSTDIR", help="share HOSTDIR read-write at the same path")
    runp.add_argument("--env", action="append", default=[], metavar="K=V", help="set K in the guest (K alone: the host's value)")
    runp.add_argument("--systemd", action="store_true",
                      help="boot systemd as PID 1 on a writable (tmpfs overlay) copy of the root; the command runs as a unit")
    runp.add_argument("command", nargs=argparse.REMAINDER)
    checkp = sub.add_parser("check", help="boot and try hwsim radios and a USB gadget")
    checkp.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args()

    # SIGINT (even when inherited as ignored), SIGTERM and SIGHUP unwind, so run()'s finally kills qemu.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    def stop(number, frame):
        say(f"signal {number}; stopping")
        sys.exit(128 + number)

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop)
    try:
        if args.verb == "prepare":
            kernel, initrd, version, _ = prepare()
            say(f"ready: {kernel} with {initrd}")
            return 0
        if args.verb == "check":
            return run(["/bin/sh", "-c", CHECK], timeout=args.timeout)
        command = args.command[1:] if args.command[:1] == ["--"] else args.command
        if not command:
            parser.error("run needs a command after --")
        return run(command, timeout=args.timeout, memory=args.memory, smp=args.smp, rw=args.rw, env=args.env, systemd=args.systemd)
    except VMError as error:
        say(f"error: {error}")
        return VM_FAILED
    except KeyboardInterrupt:
        say("interrupted; the VM was stopped")
        return 130


if __name__ == "__main__":
    sys.exit(main())
