import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/*
 * Architecture rule: the engine (everything under src/ except adapters/, the entry files start.ts and
 * proxy-config-source.ts
 * and tests) imports only node built-ins, @gateway/* libs and its own files — never a library
 * directly, and never an adapter. Libraries enter through src/adapters/.
 */
const SRC = path.resolve(__dirname, '..', 'src');
const EDGE = new Set(['start.ts', 'proxy-config-source.ts']);

const LIB_ENTRY_POINTS = new Set(['@gateway/events/data-plane']);

const IMPORT_PATTERNS = [
  /\bimport\s+(?:type\s+)?(?:[\w*{}\s,$]+\s+from\s+)?['"]([^'"]+)['"]/g,
  /\bexport\s+(?:type\s+)?[\w*{}\s,$]+\s+from\s+['"]([^'"]+)['"]/g,
  /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  /\brequire\(\s*['"]([^'"]+)['"]\s*\)/g,
];

function importsOf(source: string): string[] {
  const specifiers: string[] = [];
  for (const pattern of IMPORT_PATTERNS) for (const match of source.matchAll(pattern)) specifiers.push(match[1] as string);
  return specifiers;
}

/** Why an import is not allowed in an engine file, or undefined when it is. */
function violation(fileRelative: string, specifier: string): string | undefined {
  if (specifier.startsWith('node:')) return undefined;
  if (/^@gateway\/[a-z-]+$/.test(specifier)) return undefined;
  // A lib's entry points other than its index are allowed one by one: `@gateway/events/redis-bus`
  // is ioredis, a library; `data-plane` is the events lib's lean part (libs/events/src/data-plane.ts).
  if (LIB_ENTRY_POINTS.has(specifier)) return undefined;
  if (specifier.startsWith('.')) {
    const target = path.normalize(path.join(path.dirname(fileRelative), specifier));
    if (target.startsWith(`adapters${path.sep}`) || target === 'adapters') return `reaches into an adapter (${specifier})`;
    if (target.startsWith('..')) return `leaves the data plane's src (${specifier})`;
    // Policies plug into the engine's generic contract (service keys, counters, state keys);
    // the engine naming a policy would make every new policy an engine edit.
    if (inEngineFolder(fileRelative) && (target === 'policies' || target.startsWith(`policies${path.sep}`))) return `imports a policy folder (${specifier})`;
    return undefined;
  }
  return `imports the package '${specifier}' (libraries enter through src/adapters/)`;
}

/**
 * Where the policy-folder rule applies: the engine and the ops endpoints. start.ts (the composition
 * root), the cluster member (it publishes the breaker folder's events) and tests may name policies.
 */
function inEngineFolder(fileRelative: string): boolean {
  return fileRelative.startsWith(`engine${path.sep}`) || fileRelative.startsWith(`ops${path.sep}`);
}

function engineFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    const relative = path.relative(SRC, full);
    if (statSync(full).isDirectory()) {
      // adapters/ is where libraries enter; testing/ holds unit-test fixtures, which wire adapters as start.ts does.
      if (relative !== 'adapters' && relative !== 'testing') engineFiles(full, out);
    } else if (name.endsWith('.ts') && !name.endsWith('.spec.ts') && !EDGE.has(relative)) {
      out.push(relative);
    }
  }
  return out;
}

function violationsIn(fileRelative: string, source: string): string[] {
  return importsOf(source)
    .map((specifier) => violation(fileRelative, specifier))
    .filter((v): v is string => v !== undefined)
    .map((v) => `${fileRelative}: ${v}`);
}

test('the engine imports only node built-ins, @gateway libs and its own files', () => {
  const files = engineFiles(SRC);
  assert.ok(files.length > 20, `expected the engine's files, found ${files.length}`);
  assert.ok(files.includes(path.join('engine', 'request-dispatcher.ts')));
  const violations = files.flatMap((file) => violationsIn(file, readFileSync(path.join(SRC, file), 'utf8')));
  assert.deepEqual(violations, []);
});

test('the rule goes red on a library import, an adapter import and a NestJS import', () => {
  const bad = [
    "import pino from 'pino';",
    "import { Counter } from 'prom-client';",
    "import { createPinoLogger } from '../adapters/pino-logger.adapter';",
    "import { Injectable } from '@nestjs/common';",
    "const yaml = require('yaml');",
    "export { x } from 'ioredis';",
    "import { RedisBus } from '@gateway/events/redis-bus';",
  ].join('\n');
  const found = violationsIn(path.join('engine', 'example.ts'), bad);
  assert.equal(found.length, 7, found.join('\n'));
  assert.deepEqual(
    violationsIn(path.join('engine', 'example.ts'), "import http from 'node:http';\nimport type { Route } from '@gateway/route-model';\nimport { TopKeys } from '@gateway/events/data-plane';\nimport { x } from './y';"),
    [],
  );
});

test('the rule goes red when an engine file imports a policy folder, in any import form', () => {
  const bad = [
    "import type { ResponseCache } from '../policies/cache/response-cache';",
    "import { POLICY_FACTORIES } from '../policies/policy-registry';",
    "export { RATE_LIMIT_STORE } from '../policies/rate-limit/rate-limit-store';",
    "type T = import('../policies/telemetry/telemetry-registry').TelemetryRegistry;",
    "import x from '../policies';",
  ].join('\n');
  const found = violationsIn(path.join('engine', 'example.ts'), bad);
  assert.equal(found.length, 5, found.join('\n'));
  assert.equal(violationsIn(path.join('ops', 'example.ts'), bad).length, 5);
  assert.ok(found.every((v) => v.includes('imports a policy folder')), found.join('\n'));
  // A policy may use the engine's contract and its own folder; start.ts wires policies (it is not engine).
  assert.deepEqual(violationsIn(path.join('policies', 'cache', 'cache.policy.ts'), "import { serviceKey } from '../../engine/service-registry';\nimport { x } from './response-cache';"), []);
});

test('the engine names no policy: its files (and the ops endpoints) import no policy folder today', () => {
  const files = engineFiles(SRC).filter(inEngineFolder);
  assert.ok(files.length > 20, `expected the engine folder's files, found ${files.length}`);
  const violations = files.flatMap((file) => violationsIn(file, readFileSync(path.join(SRC, file), 'utf8'))).filter((v) => v.includes('policy folder'));
  assert.deepEqual(violations, []);
});
