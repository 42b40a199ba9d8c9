import { createHmac, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import { Webhook } from 'standardwebhooks';
import { startUpstream, type LoopbackUpstream } from '@gateway/testing';

/** One request as the receiver judged it. */
export interface ReceivedWebhook {
  at: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Secrets (by index in `secrets()`) whose X-Gateway-Signature verified. */
  gatewayVerified: boolean[];
  /** Secrets whose Standard Webhooks signature the `standardwebhooks` library accepted. */
  standardVerified: boolean[];
  answered: number;
}

export type Answer = number | 'hang';

/**
 * A loopback webhook receiver: checks both signatures of every request against the secrets the
 * test gives it (X-Gateway-Signature by decision 24, written here from the spec; the Standard
 * Webhooks one with the `standardwebhooks` library, unchanged), then answers what `answers` says
 * (in order; the last one repeats).
 */
export interface WebhookReceiver {
  readonly url: string;
  readonly received: ReceivedWebhook[];
  secrets: string[];
  answers: Answer[];
  close(): Promise<void>;
}

export function verifyGatewaySignature(header: string | undefined, body: string, secret: string, toleranceSeconds = 300): boolean {
  if (header === undefined) return false;
  const parts = header.split(',');
  const t = parts.find((p) => p.startsWith('t='))?.slice(2);
  if (t === undefined || !/^\d+$/.test(t) || Math.abs(Date.now() / 1000 - Number(t)) > toleranceSeconds) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = Buffer.from(createHmac('sha256', key).update(`${t}.${body}`).digest('hex'));
  return parts.filter((p) => p.startsWith('v1=')).some((p) => {
    const candidate = Buffer.from(p.slice(3));
    return candidate.length === expected.length && timingSafeEqual(candidate, expected);
  });
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const state = { secrets: [] as string[], answers: [200] as Answer[] };
  const upstream: LoopbackUpstream = await startUpstream({
    handler: (req, res, raw) => {
      const body = raw.toString('utf8');
      const headers = req.headers;
      const answer = state.answers[Math.min(received.length, state.answers.length - 1)] ?? 200;
      received.push({
        at: Date.now(),
        headers,
        body,
        gatewayVerified: state.secrets.map((secret) => verifyGatewaySignature(headers['x-gateway-signature'] as string | undefined, body, secret)),
        standardVerified: state.secrets.map((secret) => {
          try {
            new Webhook(secret).verify(body, { 'webhook-id': String(headers['webhook-id']), 'webhook-timestamp': String(headers['webhook-timestamp']), 'webhook-signature': String(headers['webhook-signature']) });
            return true;
          } catch {
            return false;
          }
        }),
        answered: answer === 'hang' ? 0 : answer,
      });
      if (answer === 'hang') return; // never answers: the sender's deadline ends it
      res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer === 200 ? 'ok' : `answer ${answer}`);
    },
  });
  return {
    url: `${upstream.origin}/hooks`,
    received,
    get secrets() {
      return state.secrets;
    },
    set secrets(value: string[]) {
      state.secrets = value;
    },
    get answers() {
      return state.answers;
    },
    set answers(value: Answer[]) {
      state.answers = value;
    },
    close: () => upstream.close(),
  };
}
