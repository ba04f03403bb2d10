#!/usr/bin/env python3
"""The Debian package (issue #22): built, linted, current, and installed on a clean Debian 12.

1. `scripts/package-deb.sh` builds reach_VERSION_ARCH.deb (release, static Swift runtime).
2. `lintian` reports no error (every tag is printed).
3. Contents: the two binaries (stripped: no .symtab) in /usr/bin, the units, the GIO module,
   /etc/reach/reach.conf as a conffile, bash/zsh/fish completions, a man page for every
   command of the packaged binary's own tree (`reach --experimental-dump-help`, recursively).
   Current: the completions the packaged `reach` generates now equal the packaged ones, and the
   man pages regenerated from it (same date) equal the packaged ones.
4. A clean Debian 12: `debootstrap --variant=minbase bookworm` into a directory of the test's
   own; `apt-get install ./reach_*.deb` there installs only the package's declared
   dependencies and what they depend on; `reach --version` and `reach get --help` (through
   reach-daemon) work, `reach status --json` prints a
   path (in a private network namespace: lo only, unreachable, exit 2), `reach daemon` starts
   (private network, PID and mount namespaces), answers `reach queue list` and writes its state
   in /var/lib/reach; remove keeps only the conffile, purge leaves no file behind that was not
   there before the install (piuparts' rule, apt's own caches and logs aside).

Needs root (chroot, namespaces) and Debian's mirror for debootstrap and apt (setup, as the test
script's own apt-get). Without root it prints why and exits 0 (skipped), except under CI=true.
Exits 1 on any failure. `--deb FILE` checks a built package instead of building one;
`--cache-root` keeps the debootstrap'd root as .build-debootstrap/bookworm-minbase.tar for faster
reruns (each run still starts from a fresh copy).
"""
import argparse, gzip, json, os, re, shutil, subprocess, sys, tarfile, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIRROR = os.environ.get("REACH_DEBIAN_MIRROR", "http://deb.debian.org/debian")
CACHE = os.path.join(ROOT, ".build-debootstrap")
failures = []


def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message, flush=True)
    if not condition:
        failures.append(message)
    return condition


def run(command, **options):
    options.setdefault("capture_output", True)
    options.setdefault("text", True)
    return subprocess.run(command, **options)


def build_package():
    result = run([os.path.join(ROOT, "scripts", "package-deb.sh")], stderr=None, cwd=ROOT)
    if result.returncode != 0:
        sys.exit("check-package: package-deb.sh failed")
    return os.path.join(ROOT, result.stdout.strip().splitlines()[-1])


def lint(deb):
    result = run(["lintian", "--no-tag-display-limit", "--display-info", "--show-overrides", deb])
    tags = [line for line in result.stdout.splitlines() if re.match(r"^[EWIPXO]: ", line)]
    for line in tags:
        print("     lintian: " + line)
    errors = [line for line in tags if line.startswith("E: ")]
    overridden = [line for line in tags if line.startswith("O: ")]
    warnings = [line for line in tags if line.startswith("W: ")]
    # lintian exits 2 for warnings (its --fail-on default is error,warning); errors are what fail here.
    check(not errors and result.returncode in (0, 1, 2) and "E: " not in result.stderr,
          f"lintian: {len(errors)} errors, {len(warnings)} warnings, {len(overridden)} overridden (with reasons), "
          f"{len(tags) - len(errors) - len(warnings) - len(overridden)} info")


def command_paths(tree, prefix=()):
    """Every command of a dumped help tree, as name tuples: ('reach',), ('reach', 'queue', 'add')…"""
    path = prefix + (tree["commandName"],)
    yield path
    for sub in tree.get("subcommands", []):
        if sub["commandName"] == "help":
            continue
        yield from command_paths(sub, path)


def check_contents(deb, extracted):
    run(["dpkg-deb", "-x", deb, extracted], check=True)
    control = run(["dpkg-deb", "-f", deb]).stdout
    conffiles = run(["dpkg-deb", "--ctrl-tarfile", deb], text=False).stdout
    with tarfile.open(fileobj=__import__("io").BytesIO(conffiles)) as tar:
        names = {os.path.normpath(member.name) for member in tar.getmembers()}
        listed = tar.extractfile("./conffiles").read().decode() if "conffiles" in names else ""
    check("/etc/reach/reach.conf" in listed.split(), "/etc/reach/reach.conf is a conffile")
    depends = re.search(r"^Depends: (.*)$", control, re.MULTILINE)
    check(depends is not None and "libnl-3-200" in depends.group(1) and "libsqlite3-0" in depends.group(1),
          f"Depends from dpkg-shlibdeps: {depends.group(1) if depends else None}")
    multiarch = run(["dpkg-architecture", "-qDEB_HOST_MULTIARCH"]).stdout.strip()
    expected = ["usr/bin/reach", "usr/bin/reach-daemon", "lib/systemd/system/reach.service",
                "lib/systemd/system/reach-wait-online@.service", "usr/lib/systemd/user/reach.service",
                f"usr/lib/{multiarch}/gio/modules/libgioreach.so", "etc/reach/reach.conf",
                "usr/share/bash-completion/completions/reach", "usr/share/zsh/vendor-completions/_reach",
                "usr/share/fish/vendor_completions.d/reach.fish", "usr/share/doc/reach/copyright"]
    missing = [path for path in expected if not os.path.isfile(os.path.join(extracted, path))]
    check(not missing, f"{len(expected)} expected files present" + (f"; missing {missing}" if missing else ""))
    sizes = {}
    for name in ["reach", "reach-daemon"]:
        path = os.path.join(extracted, "usr/bin", name)
        sections = run(["readelf", "-S", "-W", path]).stdout
        check(".symtab" not in sections, f"{name} is stripped ({os.path.getsize(path) / 2**20:.1f} MiB)")
        sizes[name] = os.path.getsize(path)
    unit = open(os.path.join(extracted, "lib/systemd/system/reach.service")).read()
    check("ExecStart=/usr/bin/reach daemon" in unit and "/usr/local" not in unit, "the packaged units run /usr/bin/reach")
    return sizes


def check_generated(extracted):
    reach = os.path.join(extracted, "usr/bin/reach")
    dump = run([reach, "--experimental-dump-help"])
    tree = json.loads(dump.stdout)["command"]
    paths = list(command_paths(tree))
    man = os.path.join(extracted, "usr/share/man/man1")
    pages = set(os.listdir(man)) if os.path.isdir(man) else set()
    missing = ["-".join(path) for path in paths if "-".join(path) + ".1.gz" not in pages]
    check(not missing and len(paths) > 20, f"a man page for each of the {len(paths)} commands" + (f"; missing {missing}" if missing else ""))
    # Everything again, from the packaged binary, with the packaged date: byte for byte the same.
    first = gzip.open(os.path.join(man, "reach.1.gz"), "rt").read()
    date = re.search(r"^\.Dd (.*)$", first, re.MULTILINE)
    iso = time.strftime("%Y-%m-%d", time.strptime(date.group(1), "%B %d, %Y")) if date else "2000-01-01"
    with tempfile.TemporaryDirectory() as again:
        run([os.path.join(ROOT, "scripts", "package", "generate-docs.sh"), reach, iso, again], check=True, stderr=None)
        generated = sorted(os.listdir(os.path.join(again, "man1")))
        differing = [name for name in generated
                     if gzip.open(os.path.join(man, name + ".gz"), "rt").read() != open(os.path.join(again, "man1", name)).read()]
        check(not differing and generated, f"the {len(generated)} generated man pages are current" + (f"; differ: {differing}" if differing else ""))
        for name, path in [("reach.bash", "usr/share/bash-completion/completions/reach"), ("_reach", "usr/share/zsh/vendor-completions/_reach"),
                           ("reach.fish", "usr/share/fish/vendor_completions.d/reach.fish")]:
            now = open(os.path.join(again, "completions", name)).read()
            packaged = open(os.path.join(extracted, path)).read()
            check(now == packaged and "budget" in packaged and "max-cellular" in packaged, f"{name} completion is current and complete")
    roff = run(["sh", "-c", f"zcat {man}/reach-run.1.gz {man}/reach-queue-add.1.gz | groff -mandoc -Tutf8 -ww 2>&1 >/dev/null"])
    check(roff.returncode == 0 and roff.stdout.strip() == "", f"groff renders reach-run(1) and reach-queue-add(1) without warnings{': ' + roff.stdout[:200] if roff.stdout.strip() else ''}")


def snapshot(root):
    skip = ("proc", "sys", "dev", "run", "tmp", "var/cache/apt", "var/lib/apt", "var/lib/dpkg", "var/log", "var/cache/debconf",
            "var/cache/ldconfig")
    files = set()
    for directory, subdirectories, names in os.walk(root):
        relative = os.path.relpath(directory, root)
        subdirectories[:] = [d for d in subdirectories if os.path.normpath(os.path.join(relative, d)) not in skip]
        for name in names + subdirectories:
            files.add(os.path.normpath(os.path.join(relative, name)))
    return files


def debootstrap(cache):
    """A fresh minbase bookworm; with `cache`, made once and kept as a tarball for later runs."""
    tarball = os.path.join(CACHE, "bookworm-minbase.tar")
    target = os.path.join(CACHE, "root")
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(CACHE, exist_ok=True)
    if cache and os.path.isfile(tarball):
        os.makedirs(target)
        run(["tar", "-xpf", tarball, "-C", target], check=True)
        return target
    started = time.monotonic()
    result = run(["debootstrap", "--variant=minbase", "bookworm", target, MIRROR])
    if result.returncode != 0:
        print(result.stdout[-2000:], result.stderr[-2000:])
        sys.exit("check-package: debootstrap failed")
    print(f"     debootstrap --variant=minbase bookworm: {time.monotonic() - started:.0f} s", flush=True)
    if cache:
        run(["tar", "-cpf", tarball, "-C", target, "."], check=True)
    return target


def in_root(root, script, network=True):
    """`sh -c SCRIPT` chrooted into ROOT with its own mount and PID namespaces (a fresh /proc),
    and without network unless `network` (apt needs the mirror)."""
    unshare = ["unshare", "--mount", "--pid", "--fork", f"--mount-proc={root}/proc"] + ([] if network else ["--net"])
    return run(unshare + ["chroot", root, "/usr/bin/env", "-i", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root",
                          "DEBIAN_FRONTEND=noninteractive", "LANG=C.UTF-8", "/bin/sh", "-c", script])


def check_clean_install(deb, cache):
    root = debootstrap(cache)
    try:
        run(["cp", "/etc/resolv.conf", f"{root}/etc/resolv.conf"])
        before = snapshot(root)
        installed_before = set(in_root(root, "dpkg-query -W -f '${Package}\\n'").stdout.split())
        shutil.copy(deb, f"{root}/tmp/reach.deb")
        update = in_root(root, "apt-get update -qq")
        install = in_root(root, "apt-get install -y --no-install-recommends /tmp/reach.deb")
        if not check(update.returncode == 0 and install.returncode == 0, "apt-get install ./reach.deb in a debootstrap'd bookworm"):
            print(install.stdout[-3000:], install.stderr[-3000:])
            return
        new = set(in_root(root, "dpkg-query -W -f '${Package}\\n'").stdout.split()) - installed_before - {"reach"}
        depends = in_root(root, "dpkg-query -W -f '${Depends}' reach").stdout
        direct = {item.strip().split(" ")[0].split(":")[0] for part in depends.split(",") for item in part.split("|")}
        closure = set(in_root(root, "apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks "
                                    "--no-replaces --no-enhances --installed " + " ".join(sorted(direct))).stdout.split())
        stray = sorted(package for package in new if package not in closure)
        check(not stray, f"the install pulled {len(new)} packages, all the declared dependencies' ({', '.join(sorted(new))})"
              + (f"; not declared: {stray}" if stray else ""))
        version = in_root(root, "reach --version")
        check(version.returncode == 0 and re.match(r"^\d+\.\d+\.\d+ \(libnl ", version.stdout), f"reach --version: {version.stdout.strip()}")
        # `reach get` is carried out by reach-daemon, exec'd from /usr/bin beside reach.
        get = in_root(root, "reach get --help")
        check(get.returncode == 0 and "USAGE: reach get" in get.stdout, f"reach get --help through reach-daemon: exit {get.returncode}")
        status = in_root(root, "reach status --json", network=False)
        try:
            path = json.loads(status.stdout)
        except ValueError:
            path = None
        check(status.returncode == 2 and path is not None and path.get("status") == "unreachable",
              f"reach status --json in a namespace with no uplink: exit {status.returncode}, status {path and path.get('status')}")
        daemon = in_root(root, "reach daemon --dispatcher-dir none & pid=$!; "
                               "for i in $(seq 100); do [ -S /run/reach/reach.sock ] && break; sleep 0.1; done; "
                               "reach queue list; status=$?; kill -TERM $pid; wait $pid; echo daemon-exit $?; "
                               "ls /var/lib/reach; exit $status", network=False)
        check(daemon.returncode == 0 and "daemon-exit 0" in daemon.stdout and "queue.sqlite" in daemon.stdout,
              f"reach daemon ran, answered reach queue list and stopped (exit {daemon.returncode}): {' '.join(daemon.stdout.split())[-200:]}" + ("" if daemon.returncode == 0 else daemon.stderr[-300:]))
        dependency_files = set()
        for package in new:
            for line in in_root(root, f"dpkg -L {package}").stdout.splitlines():
                if line.startswith("/"):
                    path = os.path.normpath(line.lstrip("/"))
                    # Merged /usr: a package's /lib/… is the root's usr/lib/….
                    dependency_files.update({path, "usr/" + path} if path.split("/")[0] in ("lib", "bin", "sbin") else {path})
        remove = in_root(root, "apt-get remove -y reach")
        left = sorted(path for path in snapshot(root) - before if path not in dependency_files)
        # What remove may leave of reach: the conffile (and its directory) and the daemon's state.
        kept = [path for path in left if path == "etc/reach" or path.startswith("etc/reach/")
                or path == "var/lib/reach" or path.startswith("var/lib/reach/")]
        check(remove.returncode == 0 and kept == left and "etc/reach/reach.conf" in left,
              f"remove keeps only the conffile and the daemon's state: {left}")
        # piuparts' rule: purge, then the dependencies the install pulled in; the root is as before.
        purge = in_root(root, "apt-get purge -y reach && apt-get autoremove --purge -y")
        left = sorted(snapshot(root) - before)
        check(purge.returncode == 0 and not left, f"purge (and autoremove of the dependencies) leaves nothing behind{': ' + str(left[:40]) if left else ''}")
        print(f"     files in the root before the install: {len(before)}; the same after purge", flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deb")
    parser.add_argument("--cache-root", action="store_true")
    arguments = parser.parse_args()
    required = os.environ.get("CI") == "true"
    if os.geteuid() != 0:
        print("check-package: not root (chroot and namespaces need it)", file=sys.stderr)
        sys.exit(1 if required else 0)
    seconds = {}

    def timed(name, action):
        # Where the step's time goes, printed at the end: the CI runner's speed varies twofold.
        started = time.monotonic()
        value = action()
        seconds[name] = time.monotonic() - started
        return value

    timed("setup", lambda: subprocess.run([os.path.join(ROOT, "scripts", "setup.sh"), "lintian", "debootstrap", "groff-base", "binutils"], check=True))
    deb = arguments.deb or timed("build", build_package)
    print(f"     package: {deb} ({os.path.getsize(deb) / 2**20:.1f} MiB)", flush=True)
    timed("lintian", lambda: lint(deb))
    with tempfile.TemporaryDirectory() as extracted:
        sizes = timed("contents", lambda: check_contents(deb, extracted))
        timed("generated", lambda: check_generated(extracted))
    timed("clean install", lambda: check_clean_install(deb, arguments.cache_root))
    print("package: seconds " + ", ".join(f"{name} {value:.0f}" for name, value in seconds.items()))
    print("package: sizes " + ", ".join(f"{name} {size / 2**20:.1f} MiB" for name, size in sizes.items()))
    print(f"package: {len(failures)} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
