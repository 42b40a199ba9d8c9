import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';

/** A request the control plane made to the (fake) Kubernetes API. */
export type KubernetesCall = { method: string; path: string; body: unknown };
export type RoleRule = { apiGroups: string[]; resources: string[]; resourceNames?: string[]; verbs: string[] };
/** The RBAC request a call makes: group, resource (with subresource), verb, name. */
export type RbacRequest = { group: string; resource: string; verb: string; name?: string };

export function rbacOf(call: KubernetesCall): RbacRequest {
  const url = new URL(call.path, 'http://x');
  const parts = url.pathname.split('/').filter(Boolean);
  const [group, rest] = parts[0] === 'api' ? ['', parts.slice(2)] : [parts[1] as string, parts.slice(3)];
  // rest: namespaces/<ns>/<resource>[/<name>[/<subresource>]]
  const resource = rest[2] as string;
  const name = rest[3];
  const sub = rest[4];
  const verbs: Record<string, string> = { GET: name === undefined ? 'list' : 'get', PATCH: 'patch', POST: 'create' };
  return { group, resource: sub === undefined ? resource : `${resource}/${sub}`, verb: verbs[call.method] as string, ...(name === undefined || call.method === 'POST' ? {} : { name }) };
}

/** The rules of the first Role in a manifest file. */
export function readRoleRules(file: string): RoleRule[] {
  const role = parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS() as { kind: string; rules?: RoleRule[] }).find((d) => d.kind === 'Role');
  if (role?.rules === undefined) throw new Error(`${file} has no Role with rules`);
  return role.rules;
}

/** One line per call the rules do not allow (empty: all allowed), as the API server's authorizer decides. */
export function deniedCalls(rules: readonly RoleRule[], made: readonly KubernetesCall[]): string[] {
  const denied: string[] = [];
  for (const c of made) {
    const need = rbacOf(c);
    const allowed = rules.some((r) => r.apiGroups.includes(need.group) && r.resources.includes(need.resource) && r.verbs.includes(need.verb) && (r.resourceNames === undefined || (need.name !== undefined && r.resourceNames.includes(need.name))));
    if (!allowed) denied.push(`${c.method} ${c.path} needs ${JSON.stringify(need)}, which the Role does not allow`);
  }
  return denied;
}
