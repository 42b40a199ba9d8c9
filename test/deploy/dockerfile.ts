/**
 * A reader for the subset of Dockerfile syntax our Dockerfile uses: stages (`FROM image AS name`)
 * and their instructions, with line continuations and comments removed. It does not interpret
 * anything; image-layout.ts does, and refuses what it cannot reproduce.
 */

export interface DockerInstruction {
  /** Upper-case keyword: COPY, RUN, ENV... */
  readonly keyword: string;
  /** Everything after the keyword, continuations joined with a space. */
  readonly args: string;
  /** 1-based line of the keyword, for error messages. */
  readonly line: number;
}

export interface DockerStage {
  readonly name: string;
  readonly image: string;
  readonly instructions: readonly DockerInstruction[];
}

/** Splits a Dockerfile into stages. Instructions before the first FROM (ARG) are not supported. */
export function parseDockerfile(text: string): DockerStage[] {
  const stages: Array<{ name: string; image: string; instructions: DockerInstruction[] }> = [];
  for (const instruction of logicalLines(text)) {
    if (instruction.keyword === 'FROM') {
      const match = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.args);
      if (match === null) throw new Error(`Dockerfile line ${instruction.line}: cannot read FROM ${instruction.args}`);
      stages.push({ image: match[1] as string, name: match[2] ?? String(stages.length), instructions: [] });
      continue;
    }
    const stage = stages[stages.length - 1];
    if (stage === undefined) throw new Error(`Dockerfile line ${instruction.line}: ${instruction.keyword} before the first FROM`);
    stage.instructions.push(instruction);
  }
  return stages;
}

function logicalLines(text: string): DockerInstruction[] {
  const out: DockerInstruction[] = [];
  let pending: { text: string; line: number } | undefined;
  text.split('\n').forEach((raw, index) => {
    const trimmed = raw.trim();
    // Comments and blank lines may sit inside a continued instruction too.
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const continued = trimmed.endsWith('\\');
    const part = continued ? trimmed.slice(0, -1).trim() : trimmed;
    pending = pending === undefined ? { text: part, line: index + 1 } : { text: `${pending.text} ${part}`, line: pending.line };
    if (continued) return;
    const match = /^(\S+)\s*(.*)$/.exec(pending.text) as RegExpExecArray;
    out.push({ keyword: (match[1] as string).toUpperCase(), args: (match[2] as string).trim(), line: pending.line });
    pending = undefined;
  });
  if (pending !== undefined) throw new Error(`Dockerfile line ${pending.line}: the last instruction ends with a continuation`);
  return out;
}

/** `KEY=value KEY2=value2` (ENV); quotes around a value are removed. */
export function parseEnvAssignments(args: string, line: number): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  const pattern = /([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S*)/gy;
  let rest = args.trim();
  while (rest !== '') {
    pattern.lastIndex = 0;
    const match = pattern.exec(rest);
    if (match === null) throw new Error(`Dockerfile line ${line}: cannot read ENV ${args} (use KEY=value)`);
    const value = match[2] as string;
    pairs.push([match[1] as string, value.startsWith('"') ? value.slice(1, -1) : value]);
    rest = rest.slice(match[0].length).trim();
  }
  return pairs;
}

/** The JSON array of an exec-form ENTRYPOINT or CMD; the shell form is refused (signals would go to sh). */
export function parseExecForm(instruction: DockerInstruction): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(instruction.args);
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === 'string')) {
    throw new Error(`Dockerfile line ${instruction.line}: ${instruction.keyword} must use the exec form (a JSON array of strings)`);
  }
  return parsed;
}
