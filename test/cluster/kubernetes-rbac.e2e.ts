import path from 'node:path';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { REPO_ROOT } from '@gateway/testing';
import { deniedCalls, readRoleRules, type KubernetesCall, type RoleRule } from './kubernetes-rbac';

/*
 * The checker runbooks-kubernetes.e2e.ts applies to every call the fake Kubernetes API receives
 * must be able to go red: against the Role in deploy/ with one rule, verb or name taken away, the
 * calls the runbook actions make are denied, and the message names the missing permission.
 */
const ROLE_FILE = path.join(REPO_ROOT, 'deploy', 'base', 'control-plane-role.yaml');
const NS = 'gw';
const DEPLOY = 'gateway-data-plane';
const scale = `/apis/apps/v1/namespaces/${NS}/deployments/${DEPLOY}/scale`;
const hpa = `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers/${DEPLOY}`;
const pods = `/api/v1/namespaces/${NS}/pods?labelSelector=app.kubernetes.io%2Fcomponent%3Ddata-plane`;
const eviction = `/api/v1/namespaces/${NS}/pods/dp-a/eviction`;
/** The kinds of call SCALE_RESOURCE and RESTART_POD make (the e2e test records the real ones). */
const ACTION_CALLS: KubernetesCall[] = [
  { method: 'GET', path: scale, body: null },
  { method: 'PATCH', path: scale, body: null },
  { method: 'GET', path: hpa, body: null },
  { method: 'PATCH', path: hpa, body: null },
  { method: 'GET', path: pods, body: null },
  { method: 'POST', path: eviction, body: null },
];

describe('the Kubernetes Role checker', () => {
  const rules = readRoleRules(ROLE_FILE);

  test('the Role in deploy/ allows every call the actions make', () => {
    assert.deepEqual(deniedCalls(rules, ACTION_CALLS), []);
  });

  test('a Role missing any one of its rules denies a call the actions make', () => {
    assert.ok(rules.length >= 4);
    for (let i = 0; i < rules.length; i += 1) {
      const trimmed = rules.filter((_, j) => j !== i);
      const denied = deniedCalls(trimmed, ACTION_CALLS);
      assert.ok(denied.length > 0, `without rule ${i} (${JSON.stringify(rules[i])}) nothing is denied`);
    }
    const withoutEviction = rules.filter((r) => !r.resources.includes('pods/eviction'));
    assert.deepEqual(deniedCalls(withoutEviction, ACTION_CALLS), [`POST ${eviction} needs {"group":"","resource":"pods/eviction","verb":"create"}, which the Role does not allow`]);
  });

  test('a missing verb or another resource name is denied too', () => {
    const noPatch: RoleRule[] = rules.map((r) => (r.apiGroups.includes('apps') ? { ...r, verbs: r.verbs.filter((v) => v !== 'patch') } : r));
    assert.deepEqual(deniedCalls(noPatch, ACTION_CALLS), [`PATCH ${scale} needs {"group":"apps","resource":"deployments/scale","verb":"patch","name":"${DEPLOY}"}, which the Role does not allow`]);
    const other = { method: 'PATCH', path: `/apis/apps/v1/namespaces/${NS}/deployments/someone-else/scale`, body: null };
    assert.equal(deniedCalls(rules, [other]).length, 1, 'resourceNames pin the Deployment');
  });
});
