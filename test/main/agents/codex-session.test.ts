/**
 * Finding the terminal UI of a Codex session run by its shared daemon (docs/AGENTS.md#whose-life-is-the-session):
 * the daemon's Unix-socket peers as `ss -xpn` lists them (a real listing's shape), and the process walk past shells.
 */
import { describe, expect, it } from 'vitest';
import { isCodexDaemon, nearestAgentAncestor, socketPeers } from '../../../main/cli/agents/codex-session';

const SS = [
  'Netid State  Recv-Q Send-Q Local Address:Port Peer Address:Port Process',
  'u_str ESTAB 0      0      * 26429            * 26430 users:(("codex",pid=15149,fd=8),("codex",pid=15149,fd=6))',
  'u_str ESTAB 0      0      * 26430            * 26429 users:(("codex",pid=15149,fd=7))',
  'u_str ESTAB 0      0      /tmp/codex-daemon-0/0200 33915            * 33715 users:(("codex",pid=15149,fd=43))',
  'u_str ESTAB 0      0      /tmp/codex-daemon-0/0200 33901            * 33900 users:(("codex",pid=15149,fd=34))',
  'u_str ESTAB 0      0      * 33715            * 33915 users:(("codex",pid=18476,fd=32))',
  'u_str ESTAB 0      0      * 33900            * 33901 users:(("codex",pid=18479,fd=32))',
  'u_str ESTAB 0      0      * 40001            * 40002 users:(("other",pid=999,fd=3))',
].join('\n');

describe('a Codex session under the daemon', () => {
  it("names the daemon's clients, not itself nor unrelated processes", () => {
    expect(socketPeers(15149, SS)?.sort()).toEqual([18476, 18479]);
    expect(socketPeers(4242, SS)).toEqual([]);
  });

  it('tells a plain process from the daemon', () => {
    expect(isCodexDaemon(process.pid)).toBe(false);
    expect(nearestAgentAncestor()?.comm).not.toMatch(/^(sh|bash|dash|zsh|env)$/);
  });
});
