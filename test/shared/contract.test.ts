import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHANNELS, CHANNEL_METHODS } from '../../shared/channel-names';
import { isChannel, parseRequest, schemas } from '../../shared/contract';

describe('the contract', () => {
  it('has a schema for every channel and a distinct method name for each', () => {
    expect(Object.keys(schemas).sort()).toEqual([...CHANNELS].sort());
    const methods = Object.values(CHANNEL_METHODS);
    expect(new Set(methods).size).toBe(methods.length);
    for (const channel of CHANNELS) expect(channel).toMatch(/^[a-z]+:[a-zA-Z]+$/);
  });

  it('recognises only its own channels, not inherited object keys', () => {
    expect(isChannel('runs:list')).toBe(true);
    expect(isChannel('toString')).toBe(false);
    expect(isChannel('__proto__')).toBe(false);
    expect(isChannel(42)).toBe(false);
  });

  it('accepts a well-formed cancel and reports each problem of a bad one', () => {
    expect(
      parseRequest('runs:cancel', { runId: 'run_01', expectedRevision: 3, reason: 'runner died' }).ok,
    ).toBe(true);
    const bad = parseRequest('runs:cancel', { runId: '../../etc', expectedRevision: -1, reason: '  ' });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.error.code).toBe('VALIDATION');
      expect(bad.error.issues?.length).toBeGreaterThanOrEqual(3);
    }
  });

  it('refuses unknown keys, so nothing unexpected reaches a handler', () => {
    const result = parseRequest('runs:cancel', {
      runId: 'run_01',
      expectedRevision: 1,
      reason: 'x',
      force: true,
    });
    expect(result.ok).toBe(false);
  });

  it('refuses prototype-polluting keys in answer payloads and settings', () => {
    const payload = JSON.parse('{"__proto__": {"polluted": true}}') as unknown;
    const answer = parseRequest('interactions:answer', {
      interactionId: 'int_1',
      interactionRevision: 0,
      idempotencyKey: 'k'.repeat(16),
      payload,
    });
    expect(answer.ok).toBe(false);
    const settings = parseRequest('settings:set', {
      patch: { notificationRules: { projects: JSON.parse('{"__proto__": {"failed": true}}') as unknown } },
    });
    expect(settings.ok).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('never throws, whatever it is given (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CHANNELS),
        fc.anything({ withNullPrototype: true }),
        (channel, input) => {
          const result = parseRequest(channel, input);
          if (!result.ok) {
            expect(result.error.code).toBe('VALIDATION');
            expect(typeof result.error.message).toBe('string');
          }
        },
      ),
      { numRuns: 2_000 },
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
