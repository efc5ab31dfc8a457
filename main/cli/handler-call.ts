/**
 * Person commands that the window also offers (resolve, bulk cancel / resume / retry) go through the same
 * dispatcher as the window's requests: the contract validates the input (sizes, ranges) and the handler
 * applies the same rules, so the CLI and the app cannot drift apart (docs/CLI.md#person-commands).
 */
import type { Channel } from '../../shared/channel-names';
import type { Response } from '../../shared/contract';
import { RunwardenError } from '../../shared/errors';
import { createDispatcher } from '../services/dispatcher';
import type { RunStore } from '../store';
import { humanActor } from './human-actor';

export function callHandler<C extends Channel>(store: RunStore, channel: C, input: unknown): Response<C> {
  const dispatch = createDispatcher({
    store,
    clock: () => store.now(),
    actor: humanActor(),
    onSettingsChanged: () => {},
  });
  const result = dispatch(channel, input);
  if (result.ok) return result.value;
  const { code, message, ...extra } = result.error;
  throw new RunwardenError(code, message, extra);
}
