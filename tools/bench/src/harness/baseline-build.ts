import { existsSync, readFileSync } from 'node:fs';
import { shebangNodeFlags } from '@gateway/testing';

/**
 * How to start another build of the gateway (a checkout before a change) beside this one: its
 * shebang's node flags and its `apps/cli/bin/gateway.js`, named by the environment variable
 * `variable`. Throws, naming the variable, when it names no such file.
 */
export function baselineCommand(variable: string): string[] {
  const bin = process.env[variable];
  if (bin === undefined || !existsSync(bin)) throw new Error(`${variable} must name apps/cli/bin/gateway.js of a build (got ${bin ?? 'nothing'})`);
  return [...shebangNodeFlags(readFileSync(bin, 'utf8')), bin];
}
