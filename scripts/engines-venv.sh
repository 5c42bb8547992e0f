#!/bin/bash
# Creates (or refreshes) target/engines-venv: a Python virtualenv with the workflow engines
# that tests/engines.rs drives, at the versions pinned in tests/engines/requirements.txt.
# Idempotent: a stamp of the requirements file skips the work when nothing changed.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${BAI_SLURM_ENGINES_VENV:-target/engines-venv}
req=tests/engines/requirements.txt
stamp="$venv/.requirements.sha256"
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
    exit 0
fi
python=${PYTHON:-python3}
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
echo "$want" > "$stamp"
echo "engines venv: $venv ($("$venv/bin/python" --version); $(grep -cv '^#' "$req") packages)"
