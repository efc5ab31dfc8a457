/**
 * The store's SHA-256 (main/store/sha256.ts) gives node:crypto's digest for every input: lease tokens are
 * hashed by it when claimed and checked by it on every fenced call, so a difference would lock a runner out.
 */
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../main/store/sha256';

const nodeSha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('sha256Hex', () => {
  it('matches the published test vectors', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });

  it('matches node:crypto at every length around the block edges, and for non-ASCII text', () => {
    let checked = 0;
    for (let length = 0; length <= 300; length += 1) {
      const text = randomBytes(length).toString('latin1');
      expect(sha256Hex(text), `length ${length}`).toBe(nodeSha(text));
      checked += 1;
    }
    for (const text of ['é', 'ünïcödé ✓', '日本語のテキスト', '🦀'.repeat(40), '\u0000\uffff']) {
      expect(sha256Hex(text)).toBe(nodeSha(text));
      checked += 1;
    }
    console.log(`${checked} inputs match node:crypto`);
  });

  it('matches node:crypto for lease tokens (64 hex characters)', () => {
    for (let i = 0; i < 2000; i += 1) {
      const token = randomBytes(32).toString('hex');
      expect(sha256Hex(token)).toBe(nodeSha(token));
    }
  });
});
