/**
 * `runwarden://run/<id>` and `runwarden://run/<machine>:<id>` deep links (docs/ARCHITECTURE.md#electron-shell). Parsed strictly: anything that is not
 * exactly that shape is ignored, never opened, never passed on.
 */

export const DEEP_LINK_SCHEME = 'runwarden';

export interface DeepLink {
  kind: 'run';
  runId: string;
}

/**
 * Same run-id grammar as the contract's `runId` schema (shared/contract.ts), or another machine's run as
 * `NAME:ID` (docs/REMOTES.md#in-the-window): the host sends what the window asks of it to that machine.
 */
const RUN_LINK_RE = /^runwarden:\/\/run\/((?:[a-z][a-z0-9-]{0,31}:)?[A-Za-z0-9_-]{1,64})\/?$/;
const MAX_LINK_LENGTH = 160;

/** Parses a deep link; `null` for anything else (other schemes, hosts, query strings, fragments, junk). */
export function parseDeepLink(candidate: unknown): DeepLink | null {
  if (typeof candidate !== 'string' || candidate.length > MAX_LINK_LENGTH) return null;
  const match = RUN_LINK_RE.exec(candidate);
  const runId = match?.[1];
  return runId === undefined ? null : { kind: 'run', runId };
}

/**
 * The deep link among a launch's arguments (Windows and Linux pass it on the command line, to the first
 * launch or to the `second-instance` event). Only the last argument that looks like one counts: a stray
 * `runwarden://` elsewhere in argv (e.g. a flag value) is not a link we were asked to open.
 */
export function findDeepLink(argv: readonly string[]): DeepLink | null {
  for (let i = argv.length - 1; i >= 0; i--) {
    const arg = argv[i];
    if (arg?.startsWith(`${DEEP_LINK_SCHEME}:`)) return parseDeepLink(arg);
  }
  return null;
}
