import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { request, type GatewayProcess } from '@gateway/testing';

/** Logged by the dispatcher when a request failed inside the gateway (a 500): a bug, whatever the input. */
export const INTERNAL_FAILURE_LOG = 'request failed inside the gateway';

function lastOutput(gateway: GatewayProcess): string {
  return gateway.output.slice(-30).join('\n');
}

/**
 * Fails unless the gateway process is still running and answers 200 on `path` over a fresh
 * connection; the message carries the gateway's last output lines (a crash's stack trace).
 */
export async function assertGatewayServes(gateway: GatewayProcess, path: string): Promise<void> {
  let status: number | string;
  let answer = '';
  try {
    const res = await request(`${gateway.url}${path}`, { timeoutMs: 5000 });
    status = res.status;
    answer = `${JSON.stringify(res.headers)} ${res.text.slice(0, 500)}`;
  } catch (error) {
    status = String(error);
    // A refused probe usually means the process just died: give its exit a moment to be seen.
    if (gateway.child.exitCode === null && gateway.child.signalCode === null) await Promise.race([once(gateway.child, 'exit'), sleep(1000)]);
  }
  const { exitCode, signalCode } = gateway.child;
  if (exitCode !== null || signalCode !== null) {
    throw new Error(`the gateway process ended (exit code ${exitCode}, signal ${signalCode}); its last output:\n${lastOutput(gateway)}`);
  }
  if (status !== 200) throw new Error(`the gateway is running but GET ${path} gave ${status} ${answer}; its last output:\n${lastOutput(gateway)}`);
  const failure = gateway.output.find((line) => line.includes(INTERNAL_FAILURE_LOG));
  if (failure !== undefined) throw new Error(`a request failed inside the gateway: ${failure}`);
}

/** A crashed gateway is started again so the next case (or a shrink step) runs against a live one. */
export async function runningGateway(gateway: GatewayProcess): Promise<GatewayProcess> {
  if (gateway.child.exitCode === null && gateway.child.signalCode === null) return gateway;
  return gateway.restart();
}
