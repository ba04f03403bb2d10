#!/usr/bin/env python3
"""Gives generate-manual's pages git's naming, so man-db can index them.

    scripts/package/manual-names.py DIR

generate-manual names the page of `reach queue add` reach.queue.add.1 with `.Nm "reach queue
add"`, which lexgrog (man-db's whatis) cannot parse: `man -k` would not find it. Each page
becomes reach-queue-add.1, named `reach-queue-add` (the synopsis still shows `reach queue add`),
its cross-references follow, and a blank line between paragraphs becomes `.Pp`, as groff asks.
"""
import os
import re
import sys


def dashed(name):
    return name.replace(".", "-")


def convert(text):
    lines = text.split("\n")
    out = []
    section = None
    spoken = None
    for line in lines:
        if line.startswith(".Sh "):
            section = line[4:].strip('"')
        if line.startswith(".Dt "):
            parts = line.split(" ")
            line = " ".join([parts[0], dashed(parts[1])] + parts[2:])
        elif section == "NAME" and line.startswith(".Nm "):
            spoken = line[4:].strip().strip('"')
            line = ".Nm " + spoken.replace(" ", "-")
        elif section == "SYNOPSIS" and line == ".Nm" and spoken and " " in spoken:
            line = f'.Nm "{spoken}"'
            spoken = None
        elif line.startswith(".Xr "):
            parts = line.split(" ")
            line = " ".join([parts[0], dashed(parts[1])] + parts[2:])
        elif line == "":
            line = ".Pp"
        out.append(line)
    # The file's final newline stays a newline, not a .Pp.
    if out and out[-1] == ".Pp" and text.endswith("\n"):
        out[-1] = ""
    return "\n".join(out)


def main():
    directory = sys.argv[1]
    for name in sorted(os.listdir(directory)):
        if not re.fullmatch(r"[a-z0-9.-]+\.1", name):
            continue
        path = os.path.join(directory, name)
        text = convert(open(path, encoding="utf-8").read())
        os.remove(path)
        with open(os.path.join(directory, dashed(name[:-2]) + ".1"), "w", encoding="utf-8") as page:
            page.write(text)


if __name__ == "__main__":
    main()
