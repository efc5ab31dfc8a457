/** axe-core in the real page: the serious and critical violations of what is on screen, in words. */
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from '@playwright/test';

export interface AxeFinding {
  rule: string;
  impact: string;
  help: string;
  targets: string[];
}

/** Runs axe-core (WCAG 2.x A/AA and best practices) and returns only serious and critical findings. */
export async function seriousViolations(page: Page): Promise<AxeFinding[]> {
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
    .analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      rule: v.id,
      impact: v.impact ?? '',
      help: v.help,
      targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')),
    }));
}
