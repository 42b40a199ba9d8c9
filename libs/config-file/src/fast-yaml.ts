import type * as JsYaml from 'js-yaml';
import { coreBool, coreFloat, coreInt, isCoreBool, isCoreFloat, isCoreInt, isCoreNull } from './core-scalars';
import { readPlainYaml } from './plain-yaml';

/**
 * A fast read of plain proxy.yml text (issue 19). The `yaml` package builds a full document
 * (every node with its position) before the values: at 10,000 routes that took ~10x longer than
 * js-yaml and pushed the process's resident memory up by ~170 MB that V8 never handed back. The
 * document is only needed for errors (their lines) and for alias limits, so this read is tried
 * first and the caller falls back to the `yaml` document whenever it returns undefined.
 *
 * The values must be exactly what `yaml` gives (YAML 1.2 core schema), so js-yaml runs with the
 * core schema rebuilt here from the `yaml` package's rules: js-yaml's own core schema also reads
 * `0b101`, `+0x1F` and `1_000.5` as numbers, which `yaml` keeps as strings.
 */

/**
 * js-yaml with the core schema, loaded at the first file the plain reader gives up on: a plain
 * proxy.yml (the common case) starts without its 25 modules (~35 ms of start-up CPU, issue 19).
 */
let coreLoader: ((text: string) => unknown) | undefined;
function loadCore(text: string): unknown {
  if (coreLoader === undefined) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a synchronous lazy load; the caller is synchronous
    const { FAILSAFE_SCHEMA, load, Type } = require('js-yaml') as typeof JsYaml;
    const NULL = new Type('tag:yaml.org,2002:null', { kind: 'scalar', resolve: isCoreNull, construct: () => null });
    const BOOL = new Type('tag:yaml.org,2002:bool', { kind: 'scalar', resolve: isCoreBool, construct: coreBool });
    const INT = new Type('tag:yaml.org,2002:int', { kind: 'scalar', resolve: isCoreInt, construct: coreInt });
    const FLOAT = new Type('tag:yaml.org,2002:float', { kind: 'scalar', resolve: isCoreFloat, construct: coreFloat });
    const schema = FAILSAFE_SCHEMA.extend({ implicit: [NULL, BOOL, INT, FLOAT] });
    coreLoader = (source) => load(source, { schema });
  }
  return coreLoader(text);
}

/**
 * An anchor or alias indicator where a node may start. Aliases need the `yaml` document's alias
 * limit (maxAliasCount) against expansion bombs; a false hit (a quoted "*") only costs the slower read.
 */
const ANCHOR_OR_ALIAS = /(?:^|[\s[{,:?-])[&*][^\s,[\]{}]/m;

/** The file's value, or undefined when the `yaml` document must be built instead (aliases, any error, duplicate keys). */
export function fastYamlValue(text: string): { value: unknown } | undefined {
  if (ANCHOR_OR_ALIAS.test(text)) return undefined;
  // The common case (block mappings and sequences, one-line flow collections) without js-yaml.
  const plain = readPlainYaml(text);
  if (plain !== undefined) return plain;
  try {
    // js-yaml refuses duplicate keys (as `uniqueKeys` does) and unknown tags: both fall back.
    return { value: loadCore(text) };
  } catch {
    return undefined;
  }
}
