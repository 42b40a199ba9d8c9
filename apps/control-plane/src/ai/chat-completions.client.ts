import { Injectable } from '@nestjs/common';

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

async function readBounded(response: Response): Promise<string | undefined> {
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * An OpenAI-compatible chat completion with plain fetch (the official SDK's current major needs
 * Node 22): one POST to `${baseUrl}/chat/completions` asking for a JSON object, bounded in time
 * (the whole exchange) and size, no redirects followed. Never throws: a failure is a reason.
 */
@Injectable()
export class ChatCompletionsClient {
  async complete(request: ChatRequest): Promise<ChatAnswer> {
    const url = `${request.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    const signal = AbortSignal.timeout(request.timeoutMs);
    try {
      const response = await fetch(url, {
        method: 'POST',
        redirect: 'error',
        signal,
        headers: { 'content-type': 'application/json', accept: 'application/json', ...(request.apiKey === undefined ? {} : { authorization: `Bearer ${request.apiKey}` }) },
        body: JSON.stringify({
          model: request.model,
          temperature: request.temperature,
          max_tokens: request.maxTokens,
          response_format: { type: 'json_object' },
          messages: [
            { role: 'system', content: request.system },
            { role: 'user', content: request.user },
          ],
        }),
      });
      const body = await readBounded(response);
      if (!response.ok) return { ok: false, reason: `the provider answered HTTP ${response.status}` };
      if (body === undefined) return { ok: false, reason: `the provider's answer is larger than ${MAX_ANSWER_BYTES} bytes` };
      return readCompletion(body);
    } catch (error) {
      if (signal.aborted) return { ok: false, reason: `the provider did not answer within ${request.timeoutMs} ms` };
      return { ok: false, reason: `the provider cannot be reached (${(error as Error).name})` };
    }
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
