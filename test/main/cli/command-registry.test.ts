import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../../main/cli/commands';

describe('the lazy command registry', () => {
  it.each(COMMANDS.map((entry) => [entry.name, entry] as const))(
    '%s: its module has that name and summary, and help',
    async (_name, entry) => {
      const command = await entry.load();
      expect(command.name).toBe(entry.name);
      expect(command.summary).toBe(entry.summary);
      expect(command.help).toMatch(new RegExp(`runwarden ${entry.name}\\b`));
    },
  );

  it('names each command once', () => {
    const names = COMMANDS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
  });
});
