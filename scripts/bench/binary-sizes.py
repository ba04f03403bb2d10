#!/usr/bin/env python3
"""Where a shipped binary's bytes come from, by dependency (issue 36's table).

Relinks `reach` and `reach-daemon` exactly as the release build in .build-release linked them
(the link command from SwiftPM's manifest, .build-release/release.yaml) with a link map
(`-Xlinker -Map`; lld, as Package.swift links them), into a scratch directory, and adds up the size of every input section the
linker kept, by the module or library it came from: the Swift runtime, FoundationEssentials,
NIO, BoringSSL, async-http-client, SQLite's layer, ArgumentParser, service-lifecycle, … and our
own targets. What no input section accounts for (ELF headers, relocations, the unwind index,
alignment) is its own row. The stripped size is the file
`strip --strip-unneeded` leaves, as scripts/package-deb.sh ships it.

    scripts/package-deb.sh            # (or any release build into .build-release)
    scripts/bench/binary-sizes.py     # prints the table, writes scripts/bench/results/binary-sizes-*.json

The peer column is an anchor of the same job, read from the installed Debian package when it is
there (ModemManager, connmand), else "-"."""
import collections, datetime, json, os, re, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import git_state, write_results  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRATCH = os.path.join(ROOT, ".build-release")

# Module (SwiftPM target or runtime archive) -> the dependency it belongs to, in table order.
BUCKETS = [
    ("Swift runtime (stdlib, Concurrency, Dispatch, Synchronization)",
     r"^(libswiftCore|libswift_Concurrency|libswift_StringProcessing|libswift_RegexParser|libswiftSynchronization|libdispatch|libBlocksRuntime|libswiftDispatch|libswiftGlibc|libswift_Volatile|libswift_Builtin_float|libswift_math|libswift_Differentiation|libswiftRemoteMirror|libswiftrt|swiftrt)"),
    ("FoundationEssentials (+ _FoundationCShims, _FoundationCollections)", r"^(libFoundationEssentials|lib_FoundationCShims|lib_FoundationCollections|FoundationEssentials)"),
    ("ICU (lib_FoundationICU, libFoundationInternationalization)", r"^(lib_FoundationICU|libFoundationInternationalization|libFoundation$|libFoundationNetworking)"),
    ("BoringSSL (swift-nio-ssl's copy)", r"^CNIOBoringSSL"),
    ("swift-nio-ssl", r"^NIOSSL$|^CNIOSSL|^NIOTLS$"),
    ("async-http-client (+ NIOHTTP2, HPACK, NIOHTTPCompression, NIOSOCKS, zlib glue)",
     r"^(AsyncHTTPClient|NIOHTTP2|NIOHPACK|NIOHTTPCompression|NIOSOCKS|CAsyncHTTPClient|NIOHTTPTypes|NIOHTTPTypesHTTP1|HTTPTypes|NIOTransportServices)$"),
    ("SwiftNIO (Core, Posix, HTTP1, …)", r"^(NIO|NIOCore|NIOPosix|NIOHTTP1|NIOEmbedded|NIOConcurrencyHelpers|NIOFoundationCompat|_NIODataStructures|_NIOBase64|CNIO.*|NIOExtras|NIOWebSocket)$"),
    ("swift-atomics, swift-collections, swift-algorithms", r"^(Atomics|_AtomicsShims|DequeModule|OrderedCollections|InternalCollectionsUtilities|HeapModule|Collections|BitCollections|HashTreeCollections|Algorithms|RealModule|_NumericsShims|BasicContainers|ContainersPreview|_RopeModule|TrailingElementsModule)$"),
    ("swift-async-algorithms", r"^AsyncAlgorithms$"),
    ("SQLite layer (ReachabilitySQLite; libsqlite3 is the system's)", r"^(ReachabilitySQLite|CSQLite)$"),
    ("swift-argument-parser", r"^(ArgumentParser|ArgumentParserToolInfo)$"),
    ("service-lifecycle (+ UnixSignals, ServiceContext, Tracing)", r"^(ServiceLifecycle|UnixSignals|ConcurrencyHelpers|ServiceContextModule|Tracing|Instrumentation|_TracingBenchmarkTools)$"),
    ("swift-prometheus + swift-metrics", r"^(Prometheus|CoreMetrics|Metrics|MetricsTestKit)$"),
    ("swift-log", r"^Logging$"),
    ("swift-system", r"^(SystemPackage|CSystem)$"),
    ("our own code (Reach*, Reachability*, C shims)", r"^(Reach|reach|CNetlink|CGNULibc|CCrypto|GioReach)"),
    ("C runtime start files, libgcc", r"^(Scrt1|crt|libgcc|libc_nonshared|libstdc\+\+|libatomic)"),
]


def link_command(product):
    manifest = open(os.path.join(SCRATCH, "release.yaml")).read()
    match = re.search(r'"C\.%s-[a-z0-9_]+-unknown-linux-gnu-release\.exe":\n(?:    .*\n)*?    args: (\[.*\])\n' % re.escape(product), manifest)
    if not match:
        sys.exit(f"binary-sizes: no link command for {product} in .build-release/release.yaml (run scripts/package-deb.sh)")
    return json.loads(match[1])


def module_of(path):
    """The SwiftPM target (X.build/...) or the archive's name (libX.a(member)) a path names."""
    build = re.search(r"/([^/]+)\.build/", path)
    if build:
        return build[1]
    archive = re.search(r"/([^/(]+)\.a\(", path)
    if archive:
        return archive[1]
    return os.path.basename(path).split(".")[0]


def bucket_of(module):
    for name, pattern in BUCKETS:
        if re.search(pattern, module):
            return name
    return f"other: {module}"


def sections_by_module(map_file):
    """Bytes of the input sections the linker kept, by module, from lld's map (`VMA LMA Size
    Align Out In Symbol`: an input section's line names `file:(section)`). Sections that take no
    room in the file (.bss, .tbss) and debugging sections are left out."""
    sizes = collections.Counter()
    line_pattern = re.compile(r"^\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+\s+(/.+?):\((\S+)\)$")
    with open(map_file, errors="replace") as handle:
        for line in handle:
            match = line_pattern.match(line.rstrip("\n"))
            if not match:
                continue
            section = match[3]
            if section.startswith((".bss", ".tbss", ".debug", ".comment", ".note.GNU-stack")) or section == "COMMON":
                continue
            sizes[module_of(match[2])] += int(match[1], 16)
    return sizes


def stripped_size(binary, scratch):
    copy = os.path.join(scratch, os.path.basename(binary) + ".stripped")
    shutil.copy(binary, copy)
    subprocess.run(["strip", "--strip-unneeded", "--remove-section=.comment", "--remove-section=.note", copy], check=True)
    return os.path.getsize(copy)


def measure(product, scratch):
    arguments = link_command(product)
    output = os.path.join(scratch, product)
    arguments[arguments.index("-o") + 1] = output
    map_file = os.path.join(scratch, product + ".map")
    subprocess.run(arguments + ["-Xlinker", f"-Map={map_file}"], check=True, capture_output=True)
    by_module = sections_by_module(map_file)
    by_bucket = collections.Counter()
    for module, size in by_module.items():
        by_bucket[bucket_of(module)] += size
    total = stripped_size(output, scratch)
    by_bucket["ELF headers, relocations, .eh_frame_hdr, alignment (linker-made)"] = max(0, total - sum(by_bucket.values()))
    return {"stripped": total, "buckets": dict(by_bucket), "modules": dict(by_module)}


def peers():
    found = {}
    for name, path in (("ModemManager", "/usr/sbin/ModemManager"), ("connmand", "/usr/sbin/connmand"),
                       ("curl + libcurl", "/usr/bin/curl"), ("ip (iproute2)", "/usr/bin/ip")):
        if os.path.exists(path):
            found[name] = os.path.getsize(path)
    return found


def main():
    if not os.path.exists(os.path.join(SCRATCH, "release.yaml")):
        sys.exit("binary-sizes: no release build in .build-release (run scripts/package-deb.sh first)")
    started = datetime.datetime.now(datetime.timezone.utc)
    scratch = tempfile.mkdtemp(prefix="reach-binary-sizes-")
    try:
        results = {product: measure(product, scratch) for product in ("reach", "reach-daemon")}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    names = [name for name, _ in BUCKETS] + sorted({b for r in results.values() for b in r["buckets"]} - {n for n, _ in BUCKETS})
    mib = lambda value: f"{value / (1 << 20):6.2f}"
    print(f"{'what the bytes are (input sections kept by the linker)':<80} {'reach MiB':>10} {'reach-daemon MiB':>17}")
    for name in names:
        values = [results[p]["buckets"].get(name, 0) for p in ("reach", "reach-daemon")]
        if any(values):
            print(f"{name:<80} {mib(values[0]):>10} {mib(values[1]):>17}")
    print(f"{'stripped file, as shipped':<80} {mib(results['reach']['stripped']):>10} {mib(results['reach-daemon']['stripped']):>17}")
    anchors = peers()
    if anchors:
        print("peers on this machine: " + ", ".join(f"{name} {mib(size).strip()} MiB" for name, size in anchors.items()))
    results["peers"] = anchors
    results.update(git_state())
    out = write_results(results, os.path.join(ROOT, "scripts/bench/results"), "binary-sizes", started)
    print(f"binary-sizes: figures in {os.path.relpath(out, ROOT)}")


if __name__ == "__main__":
    main()
