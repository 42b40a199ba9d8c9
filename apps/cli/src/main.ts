import { UsageError, wantsHelp } from './cli-args';
import { cliVersion } from './cli-version';
import { CommandFailure, EXIT, type CommandContext, type CommandEntry } from './command';
import { findCommand } from './command-registry';
import { generalHelp, HELP_ENTRY } from './commands/help.command';
import { renderCommandHelp } from './help-text';

/**
 * `gateway <command> [options]`. Loads only the command it runs (see command-registry.ts) and
 * maps failures to the exit codes: 0 ok, 1 failure, 2 usage error.
 */
async function main(argv: readonly string[], context: CommandContext): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    generalHelp().forEach((line) => context.err(line));
    return EXIT.usage;
  }
  if (first === '--help' || first === '-h') {
    generalHelp().forEach((line) => context.out(line));
    return EXIT.ok;
  }
  if (first === '--version' || first === '-v') {
    context.out(cliVersion());
    return EXIT.ok;
  }
  if (first.startsWith('-')) return usageError(context, new UsageError(`unknown option '${first}'`));

  const entry: CommandEntry | undefined = first === HELP_ENTRY.name ? HELP_ENTRY : findCommand(first);
  if (entry === undefined) return usageError(context, new UsageError(`unknown command '${first}'`));
  const command = await entry.load();
  if (wantsHelp(rest)) {
    renderCommandHelp(entry, command).forEach((line) => context.out(line));
    return EXIT.ok;
  }
  try {
    return await command.run(rest, context);
  } catch (error) {
    if (error instanceof UsageError) return usageError(context, error);
    // Expected failures (a file that cannot be written, a .env that cannot be read) need no stack.
    if (error instanceof CommandFailure || typeof (error as NodeJS.ErrnoException).code === 'string') {
      context.err(`gateway ${entry.name}: ${(error as Error).message}`);
      return EXIT.failure;
    }
    throw error;
  }
}

function usageError(context: CommandContext, error: UsageError): number {
  const prefix = error.command === undefined ? 'gateway' : `gateway ${error.command}`;
  context.err(`${prefix}: ${error.message}`);
  context.err(error.command === undefined ? "Run 'gateway --help' to list the commands." : `Run 'gateway ${error.command} --help' for usage.`);
  return EXIT.usage;
}

// `gateway --help | head -1` closes the pipe early: the rest of the output is simply not wanted.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
  });
}

const context: CommandContext = {
  cwd: process.cwd(),
  env: process.env,
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

main(process.argv.slice(2), context).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    context.err(`gateway: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exitCode = EXIT.failure;
  },
);
