/** The person at the terminal, as recorded on the events their commands cause. */
import { hostname, userInfo } from 'node:os';
import type { Actor } from '../../shared/domain';

export function humanActor(): Actor {
  let user = 'user';
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry (containers): keep the generic name.
  }
  return { type: 'human', id: `${user}@${hostname()}`, surface: 'cli' };
}
