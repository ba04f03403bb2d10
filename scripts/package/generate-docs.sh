#!/usr/bin/env bash
# Generates reach's man pages and shell completions from a built `reach` (which answers from
# reach-daemon's whole command tree), so they describe exactly that binary's commands.
#
#   scripts/package/generate-docs.sh REACH DATE OUTDIR
#
# OUTDIR/man1/*.1 (one page per command, swift-argument-parser's generate-manual, named as git
# names its pages: reach-queue-add.1; see manual-names.py), OUTDIR/completions/{reach.bash,_reach,
# reach.fish} (--generate-completion-script; bash-completion sources its files, so the bash
# script's #! line goes). DATE is YYYY-MM-DD (the manuals' date). Used by package-deb.sh and by
# check-package.py, which regenerates them to prove the packaged ones current.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
reach="${1:?usage: generate-docs.sh REACH DATE OUTDIR}"
date="${2:?usage: generate-docs.sh REACH DATE OUTDIR}"
out="${3:?usage: generate-docs.sh REACH DATE OUTDIR}"

tool="$("$root/scripts/build-manual-tool.sh")"
mkdir -p "$out/man1" "$out/completions"
"$tool" "$reach" --multi-page --date "$date" --output-directory "$out/man1" >&2
python3 "$root/scripts/package/manual-names.py" "$out/man1"
"$reach" --generate-completion-script bash | sed '1{/^#!/d}' >"$out/completions/reach.bash"
"$reach" --generate-completion-script zsh >"$out/completions/_reach"
"$reach" --generate-completion-script fish >"$out/completions/reach.fish"
