/**
 * The window's requests that reach other machines (docs/REMOTES.md#in-the-window), answered by the host before
 * its own dispatcher: the run list over every machine, and a request naming a remote run, question or effect,
 * sent to that machine's own handlers, whose answer comes back with its ids named `NAME:ID`.
 */
import type { Channel } from '../../../shared/channel-names';
import { parseRequest, type Response } from '../../../shared/contract';
import { isRunwardenError, type Result } from '../../../shared/errors';
import type { RunPage } from '../../../shared/views';
import { nameRemoteIds, remoteRoute } from './machine-ids';
import { listAcrossMachines, type ListInput } from './machine-list';
import type { RemoteHub } from './remote-hub';

type Answer = Result<unknown>;

function refused(error: unknown): Answer {
  if (isRunwardenError(error)) return { ok: false, error: { code: error.code, message: error.message } };
  throw error;
}

/**
 * The answer when the request concerns another machine; null when it is this machine's alone (the dispatcher
 * answers it). A list asks every machine only when some are attached and the window did not ask for this one.
 */
export async function answerAcrossMachines<C extends Channel>(
  remotes: RemoteHub,
  local: (input: ListInput) => Result<RunPage>,
  channel: C,
  input: unknown,
): Promise<Result<Response<C>> | null> {
  try {
    if (channel === 'runs:list')
      return (await listRequest(remotes, local, input)) as Result<Response<C>> | null;
    const route = remoteRoute(channel, input);
    if (route === null) return null;
    if (!remotes.machines().some((m) => m.name === route.machine)) {
      return {
        ok: false,
        error: { code: 'NOT_FOUND', message: `No remote machine named "${route.machine}" is attached here.` },
      };
    }
    const result = await remotes.call(route.machine, route.channel, route.input);
    return (result.ok ? { ok: true, value: nameRemoteIds(result.value, route.machine) } : result) as Result<
      Response<C>
    >;
  } catch (error) {
    return refused(error) as Result<Response<C>>;
  }
}

async function listRequest(
  remotes: RemoteHub,
  local: (input: ListInput) => Result<RunPage>,
  input: unknown,
): Promise<Result<RunPage> | null> {
  const parsed = parseRequest('runs:list', input);
  if (!parsed.ok) return parsed;
  const { machine } = parsed.value;
  if (machine === 'this' || (machine === undefined && remotes.machines().length === 0)) return null;
  const page = await listAcrossMachines(
    {
      local,
      machines: () => remotes.machines(),
      remotePage: (name, query) => remotes.call(name, 'runs:list', query),
      lastKnown: (name, key) => remotes.lastKnown(name, key),
      remember: (name, key, items) => remotes.remember(name, key, items),
    },
    parsed.value,
  );
  return { ok: true, value: page };
}
