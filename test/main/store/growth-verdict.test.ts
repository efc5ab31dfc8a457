/**
 * The bench's growth verdict (bench/growth.ts): a read may grow 1.5× from the smallest store to the largest,
 * or, when its raw SQL for the same data grows too, 1.5× more than that; a read whose baseline is a naive
 * full count is judged on its own growth.
 */
import { expect, it } from 'vitest';
import { growthOf, growthResult } from '../../../bench/growth';
import type { Measurement } from '../../../bench/report-model';

function read(id: string, p95: number, baselineP95: number, kind: Measurement['baselineKind']): Measurement {
  return {
    id,
    label: id,
    group: 'store',
    unit: 'ms',
    n: 1,
    median: p95,
    p95,
    baselineMedian: baselineP95,
    baselineP95,
    ratio: 1,
    target: null,
    met: null,
    baselineKind: kind,
  };
}

it('judges growth alone, then against the raw SQL only where the baseline is the same data', () => {
  expect(growthResult(1.4, 1, 'same-data')).toBe('MET');
  expect(growthResult(3.9, 3.3, 'same-data')).toBe('MET vs raw SQL');
  expect(growthResult(3.9, 2.0, 'same-data')).toBe('MISSED');
  expect(growthResult(2.5, 10, 'naive')).toBe('MISSED');
  expect(growthResult(1.2, 10, 'naive')).toBe('MET');
  expect(growthResult(null, 1, 'same-data')).toBe('info');
});

it('reads each size in order and compares the largest with the smallest', () => {
  const sizes = [
    { runs: 10, ok: true, measurements: [read('a', 1, 1, 'same-data'), read('b', 1, 1, 'naive')] },
    { runs: 100, ok: true, measurements: [read('a', 9, 9, 'same-data'), read('b', 1.2, 50, 'naive')] },
    { runs: 1000, ok: true, measurements: [read('a', 4, 3, 'same-data'), read('b', 2, 100, 'naive')] },
  ];
  const [a, b] = growthOf(sizes);
  expect(a).toMatchObject({ p95: [1, 9, 4], rawP95: [1, 9, 3], growth: 4, rawGrowth: 3 });
  expect(a?.excess).toBeCloseTo(4 / 3);
  expect(a?.result).toBe('MET vs raw SQL');
  expect(b).toMatchObject({ growth: 2, rawGrowth: 100, result: 'MISSED' });
});
