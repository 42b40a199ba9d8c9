import type { CliOption } from './cli-args';
import type { Command, CommandEntry } from './command';

const HELP_OPTION: readonly [string, string] = ['-h, --help', 'Show this help'];

/** `gateway --help`: every command with its one-line summary. */
export function renderGeneralHelp(entries: readonly CommandEntry[], version: string): string[] {
  const rows = entries.map((entry): [string, string] => [entry.name === 'help' ? 'help [command]' : entry.name, entry.summary]);
  return [
    `gateway ${version}: an API gateway with hot-reloadable routes`,
    '',
    'Usage: gateway <command> [options]',
    '',
    'Commands:',
    ...table(rows),
    '',
    'Options:',
    ...table([[...HELP_OPTION], ['-v, --version', 'Print the version']]),
    '',
    "Run 'gateway <command> --help' (or 'gateway help <command>') for a command's options and examples.",
    'Exit codes: 0 success, 1 failure, 2 usage error.',
  ];
}

/** `gateway <command> --help`: usage, description, options, examples. */
export function renderCommandHelp(entry: CommandEntry, command: Command): string[] {
  const options = Object.entries(command.options).map(([name, option]): [string, string] => [optionLabel(name, option), option.description]);
  return [
    `Usage: ${command.usage}`,
    '',
    entry.summary,
    ...(command.description.length > 0 ? ['', ...command.description] : []),
    '',
    'Options:',
    ...table([...options, [...HELP_OPTION]]),
    ...(command.examples.length > 0 ? ['', 'Examples:', ...command.examples.map((example) => `  ${example}`)] : []),
  ];
}

function optionLabel(name: string, option: CliOption): string {
  return option.type === 'string' ? `--${name} ${option.valueName ?? 'VALUE'}` : `--${name}`;
}

function table(rows: ReadonlyArray<readonly [string, string]>): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}
