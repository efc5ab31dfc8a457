/**
 * Another machine's runs in the window's route and rows (docs/REMOTES.md#in-the-window): `#/run/NAME:ID` opens
 * that machine's run, `machine=` filters the list, and a row says whose run it is and when it was last known.
 */
import { describe, expect, it } from 'vitest';
import { formatHash, hashProblem, parseHash, sameRoute } from '../../../../renderer/src/lib/hash-route';
import { clockTime, machineCellText } from '../../../../renderer/src/lib/format/remote-text';

describe('routes naming a machine', () => {
  it('opens NAME:ID and keeps the machine filter through the hash', () => {
    expect(parseHash('#/run/box:run_01ab')).toEqual({
      view: 'all',
      projectPath: null,
      runId: 'box:run_01ab',
      search: '',
    });
    const route = parseHash('#/needs-you?machine=box&run=box%3Arun_01ab');
    expect(route).toMatchObject({ view: 'needs-you', machine: 'box', runId: 'box:run_01ab' });
    expect(parseHash(formatHash(route))).toEqual(route);
    expect(sameRoute(route, { ...route, machine: null })).toBe(false);
    expect(sameRoute({ ...route, machine: null }, { ...route, machine: undefined })).toBe(true);
  });

  it('says what it cannot show', () => {
    expect(hashProblem('#/all?machine=Box!')).toMatch(/not a machine's name/);
    expect(parseHash('#/all?machine=Box!').machine).toBeUndefined();
    expect(hashProblem('#/run/BOX:run_1')).toMatch(/not a run id/);
  });
});

describe('the Machine cell', () => {
  it('names this machine, another, and a last-known row', () => {
    expect(machineCellText({})).toBe('this machine');
    expect(machineCellText({ machine: 'box', lastKnownAt: null })).toBe('box');
    const at = Date.UTC(2026, 0, 1, 14, 5);
    expect(machineCellText({ machine: 'box', lastKnownAt: at })).toBe(`box · last known ${clockTime(at)}`);
  });
});
