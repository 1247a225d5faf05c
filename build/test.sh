#!/usr/bin/env bash
# test.sh is the body of `make test`, run inside build/testenv.sh: the
# frontend's type-check, lint and unit tests, go vet, then every Go test
# against the real Chromium, PulseAudio, gnome-keyring and Xvfb that testenv
# started. Each step fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== frontend: type-check"
(cd frontend && npm run --silent check)

echo "== frontend: lint"
(cd frontend && npm run --silent lint)

echo "== frontend: unit tests"
(cd frontend && npm run --silent test)

echo "== go vet"
go vet ./...

echo "== go test"
# One package at a time: the root package's end-to-end tests (wails dev, the
# app's Chromium, a driving Chromium), app's and browser's each load both
# cores on their own, and timing-sensitive tests (live frames, parallel
# executors, cross-site iframe input) flake when all three share them. Tests
# inside a package still run in parallel.
go test -p 1 -count=1 -timeout 40m ${GOTESTFLAGS:-} ./...
