import type { Upstream, UpstreamInput } from '../api/api-types';

export type Algorithm = 'round-robin' | 'least-connections' | 'consistent-hash';
export type HashOn = 'header' | 'cookie' | 'client-address';

/** What the editor shows of an upstream: its targets and how traffic is spread over them. */
export interface UpstreamDraft {
  name: string;
  targets: Array<{ url: string; weight: string }>;
  algorithm: Algorithm;
  hashOn: HashOn;
  hashKey: string;
}

export const NEW_UPSTREAM: UpstreamDraft = { name: '', targets: [{ url: '', weight: '100' }], algorithm: 'round-robin', hashOn: 'client-address', hashKey: '' };

export function draftOf(upstream: Upstream): UpstreamDraft {
  const balancing = upstream.balancing;
  return {
    name: upstream.name,
    targets: upstream.targets.map((t) => ({ url: t.url, weight: String(t.weight) })),
    algorithm: (balancing?.algorithm ?? 'round-robin') as Algorithm,
    hashOn: (balancing?.hashOn ?? 'client-address') as HashOn,
    hashKey: balancing?.hashKey ?? '',
  };
}

/**
 * The fields the editor owns, as the API reads them. A weight left as typed ("abc") is sent as
 * typed so the API's message for `targets[i].weight` lands on that field. `null` removes hashOn and
 * hashKey from a stored upstream (merge patch) when the algorithm no longer uses them.
 */
export function bodyOf(draft: UpstreamDraft): Pick<UpstreamInput, 'targets' | 'balancing'> {
  const consistent = draft.algorithm === 'consistent-hash';
  const keyed = consistent && draft.hashOn !== 'client-address';
  return {
    targets: draft.targets.map((t) => ({ url: t.url.trim(), weight: /^\d+$/.test(t.weight.trim()) ? Number(t.weight.trim()) : (t.weight as unknown as number) })),
    balancing: {
      algorithm: draft.algorithm,
      hashOn: (consistent ? draft.hashOn : null) as HashOn,
      hashKey: (keyed ? draft.hashKey.trim() : null) as string,
    },
  };
}
