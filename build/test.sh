#!/usr/bin/env bash
# test.sh is the body of `make test`, run inside build/testenv.sh: the
# frontend type-check, go vet, then every Go test against the real Chromium,
# PulseAudio, gnome-keyring and Xvfb that testenv started.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== frontend: type-check"
(cd frontend && npm run --silent check)

echo "== go vet"
go vet ./...

echo "== go test"
go test -count=1 -timeout 40m ${GOTESTFLAGS:-} ./...
