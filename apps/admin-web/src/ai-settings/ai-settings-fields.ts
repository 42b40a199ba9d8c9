

export const MASK = '********';

export interface AiField {
  key: string;
  label: string;
  kind: 'text' | 'number' | 'boolean' | 'multiline';
  hint?: string;
}

/** The `ai` section (docs/ai.md) but the API key, which has its own write-only control. */
export const AI_FIELDS: AiField[] = [
  { key: 'baseUrl', label: 'Provider base URL', kind: 'text', hint: 'An OpenAI-compatible API, e.g. https://api.openai.com/v1. Empty: the built-in analyzer answers.' },
  { key: 'model', label: 'Model', kind: 'text' },
  { key: 'timeoutMs', label: 'Timeout (ms)', kind: 'number', hint: '1000 to 120000.' },
  { key: 'maxTokens', label: 'Max tokens per answer', kind: 'number', hint: '100 to 32000.' },
  { key: 'monthlyBudgetUsd', label: 'Monthly budget (USD)', kind: 'number' },
  { key: 'inputUsdPerMillionTokens', label: 'Input price (USD per million tokens)', kind: 'number' },
  { key: 'outputUsdPerMillionTokens', label: 'Output price (USD per million tokens)', kind: 'number' },
  { key: 'includeClientAddresses', label: 'Include client addresses in the context', kind: 'boolean' },
];

export const ASSISTANT_FIELDS: AiField[] = [
  { key: 'temperature', label: 'Temperature', kind: 'number', hint: '0 to 2.' },
  { key: 'extraInstructions', label: 'Extra instructions', kind: 'multiline', hint: 'Appended to the system prompt; at most 4000 characters.' },
];

/** A section's values from the form: empty text is null for the base URL, numbers go as typed for the API to judge. */
export function sectionOf(fields: AiField[], data: FormData): Record<string, unknown> {
  const section: Record<string, unknown> = {};
  for (const field of fields) {
    const raw = data.get(field.key);
    if (field.kind === 'boolean') section[field.key] = raw === 'on';
    else if (field.kind === 'number') section[field.key] = String(raw ?? '').trim() === '' ? undefined : Number(raw);
    else if (field.key === 'baseUrl') section[field.key] = String(raw ?? '').trim() === '' ? null : String(raw).trim();
    else section[field.key] = String(raw ?? '');
  }
  return section;
}

/** The API key to send: left out keeps the stored one, null removes it, text replaces it. */
export function apiKeyChange(data: FormData): { apiKey?: string | null } {
  if (data.get('removeApiKey') === 'on') return { apiKey: null };
  const typed = String(data.get('apiKey') ?? '');
  return typed === '' ? {} : { apiKey: typed };
}
