#!/usr/bin/env python3
"""Writes the Debian copyright file (DEP-5) for reach's package to stdout.

    scripts/package/copyright.py SCRATCH

Every component linked into the binaries is listed with its version and licence: the Swift
packages this build resolved (SCRATCH/workspace-state.json, their LICENSE files, and their
NOTICE files quoted, which name BoringSSL inside swift-crypto and swift-nio-ssl), the Swift
runtime, Foundation and Dispatch (statically linked from the toolchain) and ICU (inside
Foundation). Apache-2.0 refers to /usr/share/common-licenses; other licences are quoted in
full. Fails when a component's licence cannot be told, so a new dependency cannot slip in
unlisted.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys

# Resolved for plugins only (documentation), never linked.
PLUGIN_ONLY = {"swift-docc-plugin", "swift-docc-symbolkit"}
TOOLCHAIN_LICENSE = "usr/share/swift/LICENSE.txt"


def fail(message):
    sys.exit(f"copyright: {message}")


def paragraph(text):
    """Text as a DEP-5 field continuation: each line indented, empty lines as ' .'."""
    lines = [line.rstrip() for line in text.strip("\n").splitlines()]
    return "\n".join(" " + line if line else " ." for line in lines)


def licence_of(text):
    if "Apache License" in text and "Version 2.0" in text:
        return "Apache-2.0 with Swift exception" if "Runtime Library Exception" in text else "Apache-2.0"
    if "Permission is hereby granted, free of charge" in text:
        return "MIT"
    return None


def copyright_line(name, texts):
    for text in texts:
        match = re.search(r"^\s*Copyright\s+(?:\(c\)\s*|©\s*)?([0-9].*)$", text, re.MULTILINE | re.IGNORECASE)
        if match:
            return match.group(1).strip()
    return f"the {name} authors"


def packages(scratch):
    state = json.load(open(os.path.join(scratch, "workspace-state.json")))
    for dependency in state["object"]["dependencies"]:
        name = dependency["subpath"]
        if name in PLUGIN_ONLY:
            continue
        checkout = dependency["state"].get("checkoutState", {})
        version = checkout.get("version") or checkout.get("revision", "")[:12]
        directory = os.path.join(scratch, "checkouts", name)
        licences = sorted(glob.glob(os.path.join(directory, "LICENSE*")))
        if not licences:
            fail(f"{name} has no LICENSE file in {directory}")
        licence_text = open(licences[0], encoding="utf-8").read()
        notices = sorted(glob.glob(os.path.join(directory, "NOTICE*")))
        notice_text = open(notices[0], encoding="utf-8").read() if notices else ""
        licence = licence_of(licence_text)
        if licence is None:
            fail(f"cannot tell {name}'s licence from {licences[0]}")
        yield name, version, licence, copyright_line(name, [licence_text, notice_text]), licence_text, notice_text


def toolchain_licence():
    swift = shutil.which("swift")
    if swift is None:
        fail("no swift on PATH")
    prefix = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(swift))))
    path = os.path.join(prefix, TOOLCHAIN_LICENSE)
    if not os.path.exists(path):
        fail(f"no toolchain licence at {path}")
    version = subprocess.run([swift, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    return version.strip(), open(path, encoding="utf-8").read()


def icu_licence():
    for path in sorted(glob.glob("/usr/share/doc/libicu[0-9]*/copyright")):
        text = open(path, encoding="utf-8").read()
        match = re.search(r"^License: MIT\n((?: .*\n)+)", text, re.MULTILINE)
        if match:
            return match.group(1).rstrip("\n")
    fail("no ICU licence text (/usr/share/doc/libicuNN/copyright; install libicu-dev)")


def main():
    if len(sys.argv) != 2:
        fail("usage: copyright.py SCRATCH")
    scratch = sys.argv[1]
    components = list(packages(scratch))
    swift_version, swift_text = toolchain_licence()
    if licence_of(swift_text) != "Apache-2.0 with Swift exception":
        fail("the toolchain's licence is not Apache-2.0 with the Runtime Library Exception")
    exception = swift_text[swift_text.index("## Runtime Library Exception"):] if "## Runtime Library Exception" in swift_text else ""

    out = ["Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/",
           "Upstream-Name: reach",
           "Comment: The binaries link the Swift runtime and every package below statically.",
           "",
           "Files: *",
           "Copyright: 2025-2026 The Reachability developers",
           "License: reach",
           "",
           "Files: usr/bin/*",
           f"Copyright: 2014-2026 Apple Inc. and the Swift project authors",
           "License: Apache-2.0 with Swift exception",
           f"Comment: The Swift runtime, Foundation and Dispatch ({swift_version}), statically linked.",
           "",
           "Files: usr/bin/*",
           "Copyright: 1991-2024 Unicode, Inc.",
           "License: ICU",
           "Comment: ICU's data and code, inside the toolchain's Foundation (FoundationInternationalization).",
           ""]
    for name, version, licence, holder, _, notice in components:
        out += ["Files: usr/bin/*", f"Copyright: {holder}", f"License: {licence}",
                f"Comment: {name} {version}, statically linked."]
        if notice.strip():
            out.append(" Its NOTICE file:\n" + paragraph(notice))
        out.append("")
    out += ["License: reach",
            paragraph("No licence has been chosen for reach itself yet: all rights are reserved by its\n"
                      "developers until one is. The components below keep their own licences."),
            "",
            "License: Apache-2.0",
            paragraph("On Debian systems, the full text of the Apache License, Version 2.0 is in\n"
                      "/usr/share/common-licenses/Apache-2.0."),
            "",
            "License: Apache-2.0 with Swift exception",
            paragraph("On Debian systems, the full text of the Apache License, Version 2.0 is in\n"
                      "/usr/share/common-licenses/Apache-2.0. The Swift project adds this exception:\n\n"
                      + exception),
            "",
            "License: ICU",
            icu_licence(),
            ""]
    mit = [text for _, _, licence, _, text, _ in components if licence == "MIT"]
    if mit:
        out += ["License: MIT", paragraph(mit[0]), ""]
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main()
