import { spawnSync } from 'node:child_process';
import { parseAllDocuments } from 'yaml';
import type { KubernetesObject } from './kubernetes-schema';

/** Renders a kustomization offline with `kubectl kustomize` (KUBECTL names another binary). */
export function renderKustomization(dir: string): KubernetesObject[] {
  const kubectl = process.env['KUBECTL'] ?? 'kubectl';
  const result = spawnSync(kubectl, ['kustomize', dir], { encoding: 'utf8', timeout: 30_000 });
  if (result.error !== undefined) throw new Error(`cannot run ${kubectl} (needed to render deploy/): ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${kubectl} kustomize ${dir} failed (${result.status}): ${result.stderr}`);
  return parseManifests(result.stdout);
}

export function parseManifests(text: string): KubernetesObject[] {
  return parseAllDocuments(text).map((document, index) => {
    if (document.errors.length > 0) throw new Error(`document ${index}: ${document.errors.map((e) => e.message).join('; ')}`);
    return document.toJS() as KubernetesObject;
  }).filter((object) => object !== null);
}
