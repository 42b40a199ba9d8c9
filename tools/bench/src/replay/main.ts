// The detectors' replay: node tools/bench/dist/replay/main.js [scenario ...]. Feeds the generated
// scenarios of @gateway/events/traffic-scenarios through the detectors faster than real time and
// prints, per scenario and detector, recall, false positives per simulated day and detection
// delay (in evaluations of 10 s). A measurement, not a test: exits 0 whatever the numbers are.
import { SCENARIOS } from '@gateway/events/traffic-scenarios';
import { replayScenario, type ScenarioScore } from './replay-score';

const wanted = new Set(process.argv.slice(2));
const scores: ScenarioScore[] = [];
for (const make of SCENARIOS) {
  const scenario = make();
  if (wanted.size > 0 && !wanted.has(scenario.name)) continue;
  process.stderr.write(`replay: ${scenario.name} (${scenario.description})\n`);
  scores.push(replayScenario(scenario));
}

const lines = ['| scenario | days | injected incidents: found (delay in evaluations) | false positives (per simulated day) | events | muted | replay time (x real time) |', '|---|---:|---|---|---:|---:|---|'];
let incidents = 0;
let found = 0;
let worstDelay = 0;
let falsePositives = 0;
let days = 0;
for (const score of scores) {
  const injected = score.incidents.map((i) => `${i.kind} ${i.found ? `found (${i.delayWindows})` : 'MISSED'}`).join(', ') || 'none';
  const fp = Object.entries(score.falsePositives).map(([kind, count]) => `${kind} ${count}`).join(', ');
  const fpTotal = Object.values(score.falsePositives).reduce((sum, count) => sum + (count ?? 0), 0);
  const speed = Math.round((score.days * 86_400_000) / score.elapsedMs);
  lines.push(`| ${score.scenario} | ${score.days} | ${injected} | ${fpTotal === 0 ? '0' : `${fp} (${(fpTotal / score.days).toFixed(2)}/day)`} | ${score.events} | ${score.muted} | ${(score.elapsedMs / 1000).toFixed(1)} s (${speed.toLocaleString('en')}x) |`);
  incidents += score.incidents.length;
  found += score.incidents.filter((i) => i.found).length;
  for (const incident of score.incidents) worstDelay = Math.max(worstDelay, incident.delayWindows ?? Number.POSITIVE_INFINITY);
  falsePositives += fpTotal;
  days += score.days;
}
// Per detector: recall on its injected incidents, its false positives per simulated day over every scenario, its worst delay.
const perKind = new Map<string, { injected: number; found: number; worstDelay: number; falsePositives: number }>();
const kindRow = (kind: string) => perKind.get(kind) ?? perKind.set(kind, { injected: 0, found: 0, worstDelay: 0, falsePositives: 0 }).get(kind)!;
for (const score of scores) {
  for (const incident of score.incidents) {
    const row = kindRow(incident.kind);
    row.injected += 1;
    if (incident.found) row.found += 1;
    row.worstDelay = Math.max(row.worstDelay, incident.delayWindows ?? Number.POSITIVE_INFINITY);
  }
  for (const [kind, count] of Object.entries(score.falsePositives)) kindRow(kind).falsePositives += count ?? 0;
}
lines.push('');
lines.push('| detector | recall | worst delay (evaluations) | false positives per simulated day |', '|---|---|---:|---:|');
for (const [kind, row] of [...perKind].sort()) {
  lines.push(`| ${kind} | ${row.injected === 0 ? 'no incident injected' : `${row.found}/${row.injected}`} | ${row.injected === 0 ? '-' : row.worstDelay} | ${(row.falsePositives / Math.max(1, days)).toFixed(2)} |`);
}
lines.push('');
lines.push(`recall ${found}/${incidents}; worst detection delay ${worstDelay} evaluations (goal <= 2); false positives ${falsePositives} in ${days} simulated days = ${(falsePositives / Math.max(1, days)).toFixed(2)}/day (goal <= 1/day per scenario)`);
process.stdout.write(`${lines.join('\n')}\n`);
