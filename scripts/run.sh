#!/usr/bin/env bash
# `make run`: setup, release build, then `agent-os serve` in the foreground (Ctrl-C stops it).
# Extra arguments go to `agent-os serve`, e.g. `make run ARGS="--addr 0.0.0.0:8080 --allow-host console.lan"`.
source "$(dirname "$0")/lib.sh"

scripts/setup.sh run
scripts/build.sh release
exec target/release/agent-os serve --site-root "$SITE_ROOT" "$@"
