/** Sortable ids (time prefix + monotonic random tail) and lease tokens (only their hash is stored). */
import type * as NodeCrypto from 'node:crypto';
import { createRequire } from 'node:module';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

// Loaded on first use, not with the store: a command that makes no id and checks no token (`notify` inside a
// run) then starts without loading node:crypto (docs/CLI.md#start-up).
let loaded: typeof NodeCrypto | null = null;
function crypto(): typeof NodeCrypto {
  loaded ??= createRequire(import.meta.url)('node:crypto') as typeof NodeCrypto;
  return loaded;
}

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

function encodeTime(ms: number): string {
  let value = Math.max(0, Math.floor(ms));
  let out = '';
  for (let i = 0; i < 10; i += 1) {
    out = CROCKFORD.charAt(value % 32) + out;
    value = Math.floor(value / 32);
  }
  return out;
}

let lastTime = -1;
let lastTail = 0n;
const TAIL_BITS = 80n;
const TAIL_MAX = (1n << TAIL_BITS) - 1n;

function encodeTail(tail: bigint): string {
  let value = tail;
  let out = '';
  for (let i = 0; i < 16; i += 1) {
    out = CROCKFORD.charAt(Number(value & 31n)) + out;
    value >>= 5n;
  }
  return out;
}

/** A time-prefixed id that sorts by creation time, and strictly increases within one process. */
export function sortableId(prefix: string, now: number): string {
  const time = Math.max(now, lastTime);
  if (time === lastTime && lastTail < TAIL_MAX) {
    lastTail += 1n;
  } else {
    lastTail = BigInt(`0x${crypto().randomBytes(10).toString('hex')}`) >> 1n;
  }
  lastTime = time;
  return `${prefix}_${encodeTime(time)}${encodeTail(lastTail)}`;
}

export function newRunId(now: number): string {
  return sortableId('run', now);
}

export function newInteractionId(now: number): string {
  return sortableId('int', now);
}

export function newToken(): string {
  return crypto().randomBytes(32).toString('hex');
}

/**
 * SHA-256 of the token, hex. From @noble/hashes, not node:crypto: `progress`, `step` and `effect` check their
 * run's token and need nothing else of node:crypto, whose load is a large share of such a call (docs/CLI.md#start-up).
 * Its digest is node:crypto's (test/main/store/token-hash.test.ts).
 */
export function hashToken(token: string): string {
  return bytesToHex(sha256(utf8ToBytes(token)));
}
