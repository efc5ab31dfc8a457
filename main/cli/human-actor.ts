/** The person at the terminal, as recorded on the events their commands cause. */
import { hostname, userInfo } from 'node:os';
import type { Actor } from '../../shared/domain';

/** Set by `serve --stdio` for a person acting from another machine (docs/REMOTES.md#who-acted). */
let remotePerson: string | null = null;

/** Every command this process runs from now on acts for `person`, who came in through `via`. */
export function actForRemotePerson(person: string, via: string): void {
  remotePerson = `${person} via ${via}`;
}

export function humanActor(): Actor {
  if (remotePerson !== null) return { type: 'human', id: remotePerson, surface: 'cli' };
  let user = 'user';
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry (containers): keep the generic name.
  }
  return { type: 'human', id: `${user}@${hostname()}`, surface: 'cli' };
}
