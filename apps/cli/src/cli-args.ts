import { parseArgs } from 'node:util';

/** A wrong invocation: the message names the option or argument; the process exits 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The command whose `--help` the hint points to; undefined for the top level. */
    readonly command?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** One command-line option: what parseArgs needs plus what `--help` prints. */
export interface CliOption {
  readonly type: 'string' | 'boolean';
  /** Placeholder shown in help for a string option (`FILE`, `N`). */
  readonly valueName?: string;
  readonly description: string;
}

export type CliOptions = Readonly<Record<string, CliOption>>;

/** Parsed values: a string option is a string, a boolean option is true; absent options are undefined. */
export type ParsedOptions<T extends CliOptions> = {
  [K in keyof T]?: T[K]['type'] extends 'string' ? string : boolean;
};

export interface ParsedArgs<T extends CliOptions> {
  values: ParsedOptions<T>;
  positionals: string[];
}

/** `-h` / `--help` anywhere before a `--` asks for help, whatever else the line holds. */
export function wantsHelp(argv: readonly string[]): boolean {
  for (const arg of argv) {
    if (arg === '--') return false;
    if (arg === '--help' || arg === '-h') return true;
  }
  return false;
}

/**
 * node:util parseArgs in strict mode, with its errors rewritten into short messages that name
 * the option (parseArgs' own wording mentions `<value>` placeholders and positional rules).
 */
export function parseCommandArgs<T extends CliOptions>(
  command: string,
  argv: readonly string[],
  options: T,
  maxPositionals = 0,
): ParsedArgs<T> {
  const config: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const [name, option] of Object.entries(options)) config[name] = { type: option.type };
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...argv], options: config, strict: true, allowPositionals: maxPositionals > 0 });
  } catch (error) {
    throw new UsageError(describeParseError(error), command);
  }
  if (parsed.positionals.length > maxPositionals) {
    throw new UsageError(`unexpected argument '${parsed.positionals[maxPositionals]}'`, command);
  }
  return { values: parsed.values as ParsedOptions<T>, positionals: parsed.positionals };
}

function describeParseError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const message = error instanceof Error ? error.message : String(error);
  // parseArgs names the option as '--name', '-x' or '-x, --name <value>'; keep the long form.
  const quoted = /'([^']*)'/.exec(message)?.[1] ?? '';
  const option = /--[\w-]+/.exec(quoted)?.[0] ?? quoted;
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option '${option}'`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument '${quoted}'`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (message.includes('does not take an argument')) return `option '${option}' does not take a value`;
      if (message.includes('ambiguous')) return `option '${option}' needs a value (write ${option}=VALUE for a value that starts with '-')`;
      return `option '${option}' needs a value`;
    default:
      return message;
  }
}

/** `--port`: an integer 0..65535 (0 picks a free port). */
export function parsePort(raw: string | undefined, command: string): number | undefined {
  if (raw === undefined) return undefined;
  const port = /^\d{1,5}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`invalid value for --port: '${raw}' (expected an integer from 0 to 65535)`, command);
  }
  return port;
}

/** A string option that must not be empty (`--config ''` is a mistake, not the default). */
export function nonEmpty(raw: string | undefined, option: string, command: string): string | undefined {
  if (raw === undefined) return undefined;
  if (raw.trim() === '') throw new UsageError(`option '--${option}' needs a non-empty value`, command);
  return raw;
}
