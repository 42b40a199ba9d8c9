import http from 'node:http';
import https from 'node:https';
import { Injectable } from '@nestjs/common';
import { outboundConnectOptions, OutboundAddressRule, type Resolver } from '@gateway/outbound-target';

export interface ChatRequest {
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  timeoutMs: number;
  maxTokens: number;
  temperature: number;
  system: string;
  user: string;
}

export type ChatAnswer = { ok: true; content: string; promptTokens: number; completionTokens: number } | { ok: false; reason: string };

/** A provider's answer is read up to this size; a bigger one is refused, never buffered. */
const MAX_ANSWER_BYTES = 1_000_000;

/**
 * An OpenAI-compatible chat completion with node:http (the official SDK's current major needs
 * Node 22): one POST to `${baseUrl}/chat/completions` asking for a JSON object, bounded in time
 * (the whole exchange) and size, no redirects followed. The socket connects only where the
 * default outbound-target rule allows (the one route tests and health checks use): self-hosted
 * models on loopback or a private network stay reachable, metadata and link-local addresses do
 * not, whatever name the base URL uses or rebinds to. Never throws: a failure is a reason.
 */
@Injectable()
export class ChatCompletionsClient {
  /** Tests: a resolver in place of dns.lookup (a name that resolves to a refused address). */
  resolve: Resolver | undefined;

  constructor(private readonly rule: OutboundAddressRule) {}

  complete(request: ChatRequest): Promise<ChatAnswer> {
    let url: URL;
    let connect: ReturnType<typeof outboundConnectOptions>;
    try {
      url = new URL(`${request.baseUrl.replace(/\/+$/, '')}/chat/completions`);
      connect = outboundConnectOptions(this.rule, url, this.resolve);
    } catch (error) {
      return Promise.resolve({ ok: false, reason: `the provider cannot be reached: ${(error as Error).message}` });
    }
    const body = JSON.stringify({
      model: request.model,
      temperature: request.temperature,
      max_tokens: request.maxTokens,
      response_format: { type: 'json_object' },
      messages: [
        { role: 'system', content: request.system },
        { role: 'user', content: request.user },
      ],
    });
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise((resolve) => {
      let settled = false;
      const finish = (answer: ChatAnswer): void => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        req.destroy();
        resolve(answer);
      };
      const req = transport.request(url, {
        method: 'POST',
        agent: false,
        lookup: connect.lookup,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'content-length': Buffer.byteLength(body),
          ...(request.apiKey === undefined ? {} : { authorization: `Bearer ${request.apiKey}` }),
        },
      });
      const deadline = setTimeout(() => finish({ ok: false, reason: `the provider did not answer within ${request.timeoutMs} ms` }), request.timeoutMs);
      req.on('error', (error: NodeJS.ErrnoException) => finish({ ok: false, reason: error.code === 'OUTBOUND_TARGET_REFUSED' ? `the provider cannot be reached: ${error.message}` : `the provider cannot be reached (${error.code ?? error.name})` }));
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        if (status < 200 || status >= 300) {
          finish({ ok: false, reason: status >= 300 && status < 400 ? `the provider answered a redirect (HTTP ${status}), not followed` : `the provider answered HTTP ${status}` });
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) finish({ ok: false, reason: `the provider's answer is larger than ${MAX_ANSWER_BYTES} bytes` });
          else chunks.push(chunk);
        });
        res.on('end', () => finish(readCompletion(Buffer.concat(chunks).toString('utf8'))));
        res.on('error', () => finish({ ok: false, reason: 'the provider connection broke mid-answer' }));
      });
      req.end(body);
    });
  }
}

function readCompletion(body: string): ChatAnswer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { ok: false, reason: 'the provider answered something other than JSON' };
  }
  const root = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as { choices?: Array<{ message?: { content?: unknown } }>; usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } };
  const content = Array.isArray(root.choices) ? root.choices[0]?.message?.content : undefined;
  if (typeof content !== 'string') return { ok: false, reason: 'the provider answer has no choices[0].message.content' };
  const tokens = (value: unknown): number => (Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : 0);
  return { ok: true, content, promptTokens: tokens(root.usage?.prompt_tokens), completionTokens: tokens(root.usage?.completion_tokens) };
}
