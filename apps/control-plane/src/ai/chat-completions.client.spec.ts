import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { OutboundAddressRule } from '@gateway/outbound-target';
import { rebindingResolver, startUpstream, type LoopbackUpstream } from '@gateway/testing';
import { ChatCompletionsClient, type ChatRequest } from './chat-completions.client';

/*
 * The provider call goes through the default outbound-target rule: a self-hosted model on loopback
 * answers, a base URL that is (or resolves to) a metadata address never gets a socket.
 */
const ask = (baseUrl: string): ChatRequest => ({ baseUrl, apiKey: 'sk-test', model: 'm', timeoutMs: 5000, maxTokens: 100, temperature: 0, system: 's', user: 'u' });
const ANSWER = JSON.stringify({ choices: [{ message: { content: '{"summary":"ok"}' } }], usage: { prompt_tokens: 3, completion_tokens: 2 } });

describe('ChatCompletionsClient and the outbound-target rule', () => {
  let provider: LoopbackUpstream;
  before(async () => {
    provider = await startUpstream({ handler: (req, res) => (req.url === '/v1/redirect/chat/completions' ? res.writeHead(302, { location: '/v1/chat/completions' }).end() : res.writeHead(200, { 'content-type': 'application/json' }).end(ANSWER)) });
  });
  after(async () => provider.close());

  test('a loopback provider answers under the default rule', async () => {
    const answer = await new ChatCompletionsClient(new OutboundAddressRule()).complete(ask(`http://127.0.0.1:${provider.port}/v1`));
    assert.deepEqual(answer, { ok: true, content: '{"summary":"ok"}', promptTokens: 3, completionTokens: 2 });
    assert.equal(provider.requests.at(-1)?.url, '/v1/chat/completions');
  });

  test('a literal metadata address is refused before any socket, with the reason', async () => {
    const answer = await new ChatCompletionsClient(new OutboundAddressRule()).complete(ask('http://169.254.169.254/v1'));
    assert.equal(answer.ok, false);
    assert.match(answer.ok ? '' : answer.reason, /^the provider cannot be reached: 169\.254\.169\.254 is IPv4 link-local/);
  });

  test('a name that resolves (or rebinds) to a metadata address is judged on the address the socket would connect to', async () => {
    const client = new ChatCompletionsClient(new OutboundAddressRule());
    client.resolve = rebindingResolver(['127.0.0.1', '169.254.169.254']);
    const before = provider.requests.length;
    const first = await client.complete(ask(`http://models.rebind.test:${provider.port}/v1`));
    assert.equal(first.ok, true);
    const second = await client.complete(ask(`http://models.rebind.test:${provider.port}/v1`));
    assert.match(second.ok ? '' : second.reason, /^the provider cannot be reached: 169\.254\.169\.254 \(models\.rebind\.test resolves to it\) is IPv4 link-local/);
    assert.equal(provider.requests.length, before + 1, 'only the first reached the provider');
  });

  test('a redirect is never followed', async () => {
    const redirect = await new ChatCompletionsClient(new OutboundAddressRule()).complete(ask(`http://127.0.0.1:${provider.port}/v1/redirect`));
    assert.deepEqual(redirect, { ok: false, reason: 'the provider answered a redirect (HTTP 302), not followed' });
  });
});
