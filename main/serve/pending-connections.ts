/**
 * Connections that have not yet carried an authenticated request (docs/ARCHITECTURE.md#browser-mode):
 * each is closed after a timeout, and only so many are kept, the oldest closed first. Idle or slow sockets
 * then cannot use up the process's file descriptors, and a person's signed-in connections are never
 * among those closed.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export const PENDING_TIMEOUT_MS = 10_000;
export const MAX_PENDING = 64;

export interface PendingConnections {
  /** The socket authenticated: it is no longer limited here. */
  trust(socket: Socket): void;
  clear(): void;
}

export function limitPendingConnections(
  server: Server,
  options: { timeoutMs?: number; max?: number } = {},
): PendingConnections {
  const timeoutMs = options.timeoutMs ?? PENDING_TIMEOUT_MS;
  const max = options.max ?? MAX_PENDING;
  const pending = new Map<Socket, NodeJS.Timeout>();

  const trust = (socket: Socket): void => {
    const timer = pending.get(socket);
    if (timer === undefined) return;
    clearTimeout(timer);
    pending.delete(socket);
  };

  server.on('connection', (socket: Socket) => {
    while (pending.size >= max) {
      const [oldest] = pending.keys();
      if (oldest === undefined) break;
      trust(oldest); // off the list at once: its 'close' comes later
      oldest.destroy();
    }
    const timer = setTimeout(() => {
      trust(socket);
      socket.destroy();
    }, timeoutMs);
    timer.unref();
    pending.set(socket, timer);
    socket.once('close', () => trust(socket));
  });

  return {
    trust,
    clear() {
      for (const timer of pending.values()) clearTimeout(timer);
      pending.clear();
    },
  };
}
