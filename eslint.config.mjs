// Lint is part of `npm test`. Module boundaries are Nx tags (see each project.json):
//   scope:shared    libs: may depend only on other shared libs (never on apps, never on NestJS)
//   scope:data-plane the forwarding engine: shared libs only; NestJS is banned outright
//   scope:control-plane the NestJS management plane: shared libs only (never the data plane)
//   scope:cli       the composition root: may use the planes and shared libs
//   scope:admin-web the browser UI: shared libs only, no NestJS or express (node:* fails its type check: no node types)
//   scope:tools / scope:e2e: shared libs (they drive the apps as processes)
//   type:testing    libs/testing: test code only (TEST_CODE below), never production code
// test/workspace/module-boundaries.e2e.ts lints fixtures with this file to prove the rules go red.
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';
import importPlugin from 'eslint-plugin-import';

// The planes' public entry points; nothing else of theirs may be imported, and only by the CLI.
const PLANE_ENTRY_POINTS = [
  '@gateway/data-plane/start',
  '@gateway/data-plane/cluster-source',
  '@gateway/data-plane/proxy-config-source',
  '@gateway/data-plane/data-plane-options',
  '@gateway/control-plane/start',
  '@gateway/control-plane/migrate',
  '@gateway/control-plane/create-admin',
  '@gateway/control-plane/secret-file',
  '@gateway/control-plane/control-plane-options',
  '@gateway/control-plane/preview-reconcile',
];
const NEST = ['@nestjs/*', '@nestjs/**', 'typeorm', 'passport', 'passport-*', '@node-saml/*'];

// Test code: the only files that may import libs/testing (@gateway/testing, tag type:testing).
// apps/*/src/testing holds fixtures that only specs import (apps/control-plane's database fixtures).
const TEST_CODE = ['**/*.spec.ts', '**/*.e2e.ts', 'test/**/*.ts', 'tools/bench/**/*.ts', 'libs/testing/**/*.ts', 'apps/*/src/testing/**/*.ts'];

/**
 * The Nx boundary rule; `modelMayUse` is what a `type:model` lib may import, and production code
 * (everything but TEST_CODE) may not import a `type:testing` lib: loopback servers, temp dirs and
 * private redis-servers have no place in a running gateway.
 */
function moduleBoundaries(modelMayUse, { production }) {
  return [
    'error',
    {
      enforceBuildableLibDependency: false,
      // The CLI is the one composition root allowed to import the planes' entry points
      // (style guide); every other project is kept off them by the rule further down.
      allow: PLANE_ENTRY_POINTS,
      banTransitiveDependencies: false,
      depConstraints: [
        { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'], bannedExternalImports: NEST },
        { sourceTag: 'scope:data-plane', onlyDependOnLibsWithTags: ['scope:shared'], bannedExternalImports: NEST },
        { sourceTag: 'scope:control-plane', onlyDependOnLibsWithTags: ['scope:shared'] },
        // The admin UI runs in the browser: shared libs (the route model) only, no server code.
        { sourceTag: 'scope:admin-web', onlyDependOnLibsWithTags: ['scope:shared'], bannedExternalImports: [...NEST, 'express'] },
        { sourceTag: 'scope:cli', onlyDependOnLibsWithTags: ['scope:shared', 'scope:data-plane', 'scope:control-plane'] },
        { sourceTag: 'scope:tools', onlyDependOnLibsWithTags: ['scope:shared'] },
        { sourceTag: 'scope:e2e', onlyDependOnLibsWithTags: ['scope:shared'] },
        { sourceTag: 'type:model', onlyDependOnLibsWithTags: modelMayUse },
        // Direct imports only (notDependOnLibsWithTags would also follow the libs' own spec imports).
        ...(production ? [{ sourceTag: '*', onlyDependOnLibsWithTags: ['/^type:(?!testing$)/'] }] : []),
      ],
    },
  ];
}

export default [
  { ignores: ['**/dist/**', '**/node_modules/**', '**/*.js', '**/*.mjs', '**/*.cjs', 'tools/bench/results/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    plugins: { '@nx': nx, import: importPlugin },
    languageOptions: { parser: tseslint.parser },
    settings: {
      'import/resolver': { node: { extensions: ['.ts', '.tsx', '.js'] } },
      'import/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'import/no-cycle': ['error', { maxDepth: 10 }],
      '@nx/enforce-module-boundaries': moduleBoundaries(['type:model'], { production: true }),
    },
  },
  {
    files: TEST_CODE,
    rules: { '@nx/enforce-module-boundaries': moduleBoundaries(['type:model'], { production: false }) },
  },
  {
    // Holds even before NestJS is installed (the Nx rule only knows packages in the lockfile).
    files: ['apps/data-plane/**/*.ts', 'libs/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: NEST, message: 'The data plane and shared libs never import NestJS, TypeORM or passport.' }] },
      ],
    },
  },
  {
    files: ['libs/**/*.ts', 'tools/**/*.ts', 'test/**/*.ts', 'apps/data-plane/**/*.ts', 'apps/control-plane/**/*.ts', 'apps/admin-web/**/*.ts', 'apps/admin-web/**/*.tsx'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ group: ['@gateway/data-plane', '@gateway/data-plane/*', '@gateway/control-plane', '@gateway/control-plane/*'], message: 'Only the CLI composes the planes; drive them as processes or through their APIs.' }] },
      ],
    },
  },
  {
    // test/cluster drives the data plane in-process through its public entries, with the test as a
    // stand-in control plane (an in-process bus and a snapshot provider), until the real control
    // plane is composed by the CLI. Only the entries; the data plane's internals stay off limits.
    files: ['test/cluster/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^@gateway/(data-plane(?!/(start|cluster-source|data-plane-options)$)|control-plane)(/.*)?$',
              message: 'Only the data plane public entries (start, cluster-source, data-plane-options) may be used here.',
            },
          ],
        },
      ],
    },
  },
  {
    // A model lib's unit specs may use the test helpers (libs/testing: loopback servers, a private
    // redis-server); the lib itself still depends on models only.
    files: ['libs/**/*.spec.ts'],
    rules: { '@nx/enforce-module-boundaries': moduleBoundaries(['type:model', 'type:testing'], { production: false }) },
  },
  {
    // Tests may use non-null assertions on values they just asserted.
    files: ['**/*.spec.ts', '**/*.e2e.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
];
