/**
 * The store's token hash (`hashToken`, @noble/hashes' SHA-256) gives node:crypto's digest for every input:
 * lease tokens are hashed by it when claimed and checked by it on every fenced call, so a difference would
 * lock a runner out — or let a wrong token in.
 */
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashToken } from '../../../main/store/ids';

const nodeSha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('hashToken', () => {
  it('matches the published test vectors', () => {
    expect(hashToken('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hashToken('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });

  it('matches node:crypto at every length around the block edges, and for non-ASCII text', () => {
    let checked = 0;
    for (let length = 0; length <= 300; length += 1) {
      const text = randomBytes(length).toString('latin1');
      expect(hashToken(text), `length ${length}`).toBe(nodeSha(text));
      checked += 1;
    }
    for (const text of ['é', 'ünïcödé ✓', '日本語のテキスト', '🦀'.repeat(40), '\u0000\uffff']) {
      expect(hashToken(text)).toBe(nodeSha(text));
      checked += 1;
    }
    console.log(`${checked} inputs match node:crypto`);
  });

  it('matches node:crypto for lease tokens (64 hex characters)', () => {
    for (let i = 0; i < 2000; i += 1) {
      const token = randomBytes(32).toString('hex');
      expect(hashToken(token)).toBe(nodeSha(token));
    }
  });
});
