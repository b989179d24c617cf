#!/usr/bin/env bash
# Build krew from its published Go module (sigs.k8s.io/krew) into the test cache, once per version.
#
#   bash packaging/provision-krew.sh      # prints the path of the krew binary on its last line
#
# Same cache-by-version pattern as tests/provision.sh: $KO_CACHE/krew-<version>/krew, rebuilt only when the
# ".complete" marker is missing. Kept separate from tests/provision.sh (owned by the test-environment work) so
# the two can evolve independently; .ci/run calls both.
set -euo pipefail

KO_CACHE=${KO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-offsets-testbin}
# v0.4.4 is the newest krew release the Go module proxy serves here (v0.4.5 answers 403).
KREW_VERSION=${KREW_VERSION:-0.4.4}
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod

log() { printf '[provision-krew] %s\n' "$*" >&2; }
die() { printf '[provision-krew] ERROR: %s\n' "$*" >&2; exit 1; }

dest="$KO_CACHE/krew-v$KREW_VERSION"
if [ -f "$dest/.complete" ]; then
  log "krew v$KREW_VERSION cached"
else
  command -v go >/dev/null || die "go is not on PATH; install Go 1.22+ to build krew"
  log "building krew v$KREW_VERSION from sigs.k8s.io/krew (a few minutes, once)"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  (
    cd "$work"
    go mod init example.invalid/krew-build >/dev/null 2>&1
    go get "sigs.k8s.io/krew@v$KREW_VERSION" \
      || die "go get sigs.k8s.io/krew failed; check that the Go module proxy ($(go env GOPROXY)) is reachable"
    mkdir -p "$dest"
    # krew reports its version from these variables (internal/version); without them it says "unknown".
    go build -trimpath -ldflags "-s -w \
      -X sigs.k8s.io/krew/internal/version.gitTag=v$KREW_VERSION \
      -X sigs.k8s.io/krew/internal/version.gitCommit=module-proxy" \
      -o "$dest/krew" sigs.k8s.io/krew/cmd/krew
  )
  # A throwaway KREW_ROOT: krew creates its directory tree on any command, and ~/.krew is the user's.
  KREW_ROOT="$work/root" "$dest/krew" version >/dev/null || die "the built krew does not run"
  touch "$dest/.complete"
fi
echo "$dest/krew"
