import type { CliOptions } from './cli-args';

/** What a command may touch of the outside world; main.ts builds it from `process` once. */
export interface CommandContext {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** One line to stdout. */
  out(line: string): void;
  /** One line to stderr. */
  err(line: string): void;
}

/** One `gateway <name>` subcommand: its help and its behaviour. `run` resolves with the exit code. */
export interface Command {
  readonly name: string;
  readonly usage: string;
  /** Lines printed under the usage line by `--help`. */
  readonly description: readonly string[];
  readonly options: CliOptions;
  readonly examples: readonly string[];
  run(argv: readonly string[], context: CommandContext): Promise<number>;
}

/** How main.ts knows a command without loading it: `start` must install its signal handlers first. */
export interface CommandEntry {
  readonly name: string;
  readonly summary: string;
  load(): Promise<Command>;
}

/** An expected failure (exit 1) whose message says everything: printed without a stack trace. */
export class CommandFailure extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CommandFailure';
  }
}

/** Exit codes of every command (README "Exit codes"). */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;
