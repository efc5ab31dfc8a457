#!/usr/bin/env bash
# A release as a durable run, from bash alone. Start it with:
#   runwarden exec --title "Release $VERSION" -- examples/bash/release.sh
# It records two steps, asks whether to publish, and publishes at most once (an effect with an
# idempotency key): a retry of this run, or a second start after a crash, never publishes twice.
#
# RELEASE_DIR     where the "published" artefacts go (default: ./release-out)
# VERSION         what is released (default: 1.0.0)
# PUBLISH_SECONDS how long publishing takes (default: 0), to try killing the runner mid-publish
set -euo pipefail

out=${RELEASE_DIR:-./release-out}
version=${VERSION:-1.0.0}
mkdir -p "$out"

# Values reach the commands as arguments ("$1", "$2"), never pasted into the script text.
runwarden step build -- sh -c 'echo "building $1"; echo "$1" > "$2/build.txt"' sh "$version" "$out"
runwarden step test -- test -s "$out/build.txt"

answer=$(runwarden ask --title "Publish $version?" --prompt "Build and tests passed." --choice publish --choice skip)
if [ "$answer" != publish ]; then
  runwarden progress "not published: $answer"
  exit 0
fi

runwarden progress "publishing $version"
# The effect's command exits 0 when it published, non-zero when it surely did not, and 75 when it
# cannot tell (then a person is asked: runwarden show / runwarden resolve).
runwarden effect --key "publish-$version" --type publish --summary "Publish $version to $out" -- \
  sh -c 'sleep "$1"; echo "$2" >> "$3/published.txt"' sh "${PUBLISH_SECONDS:-0}" "$version" "$out"
runwarden progress "published $version"
