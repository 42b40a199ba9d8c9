import { parseCommandArgs, UsageError } from '../cli-args';
import { cliVersion } from '../cli-version';
import { EXIT, type Command, type CommandEntry } from '../command';
import { COMMANDS } from '../command-registry';
import { renderCommandHelp, renderGeneralHelp } from '../help-text';

export const helpCommand: Command = {
  name: 'help',
  usage: 'gateway help [command]',
  description: ['Without a command, lists every command. The same as `gateway --help` or `gateway <command> --help`.'],
  options: {},
  examples: ['gateway help', 'gateway help config:reload'],
  run: async (argv, context) => {
    const { positionals } = parseCommandArgs('help', argv, helpCommand.options, 1);
    const name = positionals[0];
    const lines = name === undefined ? generalHelp() : await commandHelp(name);
    lines.forEach((line) => context.out(line));
    return EXIT.ok;
  },
};

export const HELP_ENTRY: CommandEntry = {
  name: 'help',
  summary: 'Show the help of every command, or of one',
  load: () => Promise.resolve(helpCommand),
};

/** Every command `gateway help` knows, itself included. */
export function helpEntries(): readonly CommandEntry[] {
  return [...COMMANDS, HELP_ENTRY];
}

export function generalHelp(): string[] {
  return renderGeneralHelp(helpEntries(), cliVersion());
}

async function commandHelp(name: string): Promise<string[]> {
  const entry = helpEntries().find((candidate) => candidate.name === name);
  if (entry === undefined) throw new UsageError(`unknown command '${name}'`, 'help');
  return renderCommandHelp(entry, await entry.load());
}
