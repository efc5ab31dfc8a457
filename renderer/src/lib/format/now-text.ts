/**
 * What a run is doing now, in its own words: the latest `runwarden progress` text (`Run.statusDetail`), for a
 * run that has not ended, when its reason line does not already say it (a waiting run's reason is that text).
 */
import type { DisplayInfo } from '$shared/display-status';
import { isTerminalRunStatus, type Run } from '$shared/domain';

export function nowText(
  run: Pick<Run, 'status' | 'statusDetail'>,
  display: Pick<DisplayInfo, 'reason'>,
): string | null {
  const detail = run.statusDetail?.trim() ?? '';
  if (detail === '' || isTerminalRunStatus(run.status)) return null;
  if (display.reason.includes(detail)) return null;
  return detail;
}
