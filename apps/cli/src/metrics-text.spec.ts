import assert from 'node:assert/strict';
import { test } from 'node:test';
import { metricValue } from './metrics-text';

test('reads an unlabelled gauge and ignores comments, other metrics and name prefixes', () => {
  const text = [
    '# HELP gateway_routes Routes in the live table',
    '# TYPE gateway_routes gauge',
    'gateway_routes_total 99',
    'gateway_routes 12',
    'gateway_config_revision 7',
  ].join('\n');
  assert.equal(metricValue(text, 'gateway_routes'), 12);
  assert.equal(metricValue(text, 'gateway_config_revision'), 7);
  assert.equal(metricValue(text, 'absent'), undefined);
  assert.equal(metricValue('gateway_routes NaN', 'gateway_routes'), undefined);
});
