#!/usr/bin/env python3
"""A release as a durable run, from Python (standard library only). Start it with:

    runwarden exec --title "Release" -- python3 examples/python/release.py

Every Runwarden feature is a `runwarden` command acting on the run `exec` started (it reads the run and
its claim from the environment), so a workflow in any language calls the CLI. Exit codes say what
happened: 0 ok, 75 the run is parked for a person (an effect's outcome is unknown).

RELEASE_DIR      where the "published" artefacts go (default: ./release-out)
VERSION          what is released (default: 1.0.0)
PUBLISH_SECONDS  how long publishing takes (default: 0), to try killing the runner mid-publish
"""
import os
import subprocess
import sys

OUT = os.environ.get("RELEASE_DIR", "./release-out")
VERSION = os.environ.get("VERSION", "1.0.0")
PARKED = 75


def runwarden(*args: str, capture: bool = False) -> str:
    """Runs one runwarden command; stops this workflow with its exit code when it fails."""
    result = subprocess.run(["runwarden", *args], stdout=subprocess.PIPE if capture else None, text=True)
    if result.returncode != 0:
        sys.exit(result.returncode)
    return (result.stdout or "").strip()


def build() -> None:
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "build.txt"), "w", encoding="utf-8") as handle:
        handle.write(VERSION + "\n")


def main() -> int:
    # A step around Python code: start and end, failed with the error if it raises.
    runwarden("step", "start", "build")
    try:
        build()
    except OSError as error:
        runwarden("step", "end", "--failed", str(error))
        return 1
    runwarden("step", "end")

    answer = runwarden("ask", "--title", f"Publish {VERSION}?", "--choice", "publish", "--choice", "skip", capture=True)
    if answer != "publish":
        runwarden("progress", f"not published: {answer}")
        return 0

    # The effect runs a command; it publishes at most once per key, across retries of this run.
    seconds = os.environ.get("PUBLISH_SECONDS", "0")
    target = os.path.join(OUT, "published.txt")
    runwarden(
        "effect", "--key", f"publish-{VERSION}", "--type", "publish", "--summary", f"Publish {VERSION} to {OUT}",
        "--", sys.executable, "-c",
        f"import time; time.sleep({float(seconds)}); open({target!r}, 'a').write({VERSION!r} + '\\n')",
    )
    runwarden("progress", f"published {VERSION}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
