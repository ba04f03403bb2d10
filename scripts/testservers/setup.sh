#!/usr/bin/env bash
# Installs the upload tests' servers from PyPI into a venv under .build (only what is missing):
# tuspyserver (a tus 1.0 server, a FastAPI router that tus_app.py serves with uvicorn) and
# uploadserver (http.server with a multipart/form-data receiver at /upload). apache2 with
# mod_dav comes from Debian through scripts/setup.sh. Also openapi-spec-validator, jsonschema and
# PyYAML, with which scripts/check-openapi.py checks the daemon against openapi/reach-daemon.yaml,
# and schemathesis, with which scripts/check-schemathesis.py fuzzes the daemon against it.
# The versions are pinned so a new release cannot change what the tests exercise.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="$root/.build/testservers-venv"
packages=(tuspyserver==4.4.3 uvicorn==0.54.0 uploadserver==6.0.5 openapi-spec-validator==0.9.0 jsonschema==4.26.0 PyYAML==6.0.3 schemathesis==4.32.5)

if "$venv/bin/python" -c 'import tuspyserver, uvicorn, uploadserver, openapi_spec_validator, jsonschema, yaml, schemathesis' 2>/dev/null; then
    exit 0
fi
# Debian's interpreter (python3-venv), not whatever a version manager puts first on PATH.
python=/usr/bin/python3
[[ -x $python ]] || python="$(command -v python3)"
echo "testservers: installing ${packages[*]} into $venv" >&2
mkdir -p "$root/.build"
[[ -x $venv/bin/python ]] || "$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${packages[@]}"
"$venv/bin/python" -c 'import tuspyserver, uvicorn, uploadserver, openapi_spec_validator, jsonschema, yaml, schemathesis'
