import { Injectable, Logger } from '@nestjs/common';
import { AiIncidents } from '../ai-incidents/ai-incidents.service';
import { DomainError } from '../common/domain-error';
import { LiveSettings } from '../settings/live-settings.service';
import { AiBudget } from './ai-budget.service';
import { AI_SECTION_KEY, AI_SETTINGS_SECTION, ASSISTANT_SECTION_KEY, ASSISTANT_SETTINGS_SECTION, type AiSettings, type AssistantSettings } from './ai-settings.section';
import type { AnalysisContext } from './analysis-context';
import { AnalysisContextBuilder } from './analysis-context.builder';
import { readFindings, type AnalysisFindings, type AnalysisResult } from './analysis-result';
import { analyzeBuiltIn } from './built-in-analyzer';
import { ChatCompletionsClient } from './chat-completions.client';
import { redact } from './context-redaction';

const MAX_WINDOW_MS = 7 * 24 * 3_600_000;

const SYSTEM_PROMPT = `You analyse incidents of an API gateway. Answer ONE JSON object:
{"summary": string, "causes": [{"cause": string, "confidence": number 0..1, "evidence": [{"kind": "event"|"metric"|"config-change", "ref": string, "detail"?: string}]}],
 "suggestedActions": [{"type": "CIRCUIT_BREAKER", "operation": "OPEN", "duration": seconds, "routeId"?: string}]}
Cite evidence by the ids in the context. Suggest only; you never act.`;

/**
 * POST /api/ai: the provider when one is configured and within its budget, else (or when it
 * fails, times out or answers something unusable) the built-in analyzer, in the same structure
 * and saying which one answered. Only suggestions: nothing here runs an action.
 */
@Injectable()
export class AiAnalysis {
  private readonly logger = new Logger('AI');

  constructor(
    private readonly contexts: AnalysisContextBuilder,
    private readonly incidents: AiIncidents,
    private readonly client: ChatCompletionsClient,
    private readonly budget: AiBudget,
    private readonly live: LiveSettings,
  ) {}

  settings(): { ai: AiSettings; assistant: AssistantSettings; apiKey: string | undefined } {
    const ai = { ...AI_SETTINGS_SECTION.defaults(), ...(this.live.section(AI_SECTION_KEY) as Partial<AiSettings> | undefined) };
    const assistant = { ...ASSISTANT_SETTINGS_SECTION.defaults(), ...(this.live.section(ASSISTANT_SECTION_KEY) as Partial<AssistantSettings> | undefined) };
    return { ai, assistant, apiKey: this.live.secret(AI_SECTION_KEY, 'apiKey') };
  }

  async status(): Promise<{ provider: { configured: boolean; model: string | null }; budget: { monthlyUsd: number; spentUsd: number } }> {
    const { ai } = this.settings();
    return { provider: { configured: ai.baseUrl !== null, model: ai.baseUrl === null ? null : ai.model }, budget: { monthlyUsd: ai.monthlyBudgetUsd, spentUsd: await this.budget.spentThisMonth() } };
  }

  async analyse(request: { incidentId?: string; from?: string; to?: string }): Promise<AnalysisResult> {
    const context = request.incidentId !== undefined ? await this.contexts.forIncident(request.incidentId) : await this.contexts.forWindow(...windowOf(request));
    const answer = await this.ask(context);
    const result: AnalysisResult = { ...answer, incidentId: request.incidentId ?? null, window: context.window };
    if (request.incidentId !== undefined) {
      await this.incidents.addEntry(request.incidentId, { at: new Date().toISOString(), kind: 'analysis', by: result.answeredBy === 'provider' ? `ai:${result.model ?? ''}` : 'built-in analyzer', text: result.summary.slice(0, 2000) });
    }
    return result;
  }

  private async ask(context: AnalysisContext): Promise<Omit<AnalysisResult, 'incidentId' | 'window'>> {
    const { ai, assistant, apiKey } = this.settings();
    const builtIn = (fallbackReason: string | null) => ({ ...analyzeBuiltIn(context), answeredBy: 'built-in' as const, fallbackReason, model: null, costUsd: 0 });
    if (ai.baseUrl === null) return builtIn(null);
    if ((await this.budget.spentThisMonth()) >= ai.monthlyBudgetUsd) return builtIn('the monthly AI budget is spent');
    const system = assistant.extraInstructions.trim() === '' ? SYSTEM_PROMPT : `${SYSTEM_PROMPT}\n${assistant.extraInstructions}`;
    const answer = await this.client.complete({
      baseUrl: ai.baseUrl,
      apiKey,
      model: ai.model,
      timeoutMs: ai.timeoutMs,
      maxTokens: ai.maxTokens,
      temperature: assistant.temperature,
      system,
      user: JSON.stringify(redact(context, ai.includeClientAddresses)),
    });
    if (!answer.ok) {
      this.logger.warn(`AI provider failed, the built-in analyzer answers: ${answer.reason}`);
      return builtIn(answer.reason);
    }
    const costUsd = (answer.promptTokens * ai.inputUsdPerMillionTokens + answer.completionTokens * ai.outputUsdPerMillionTokens) / 1_000_000;
    await this.budget.record(ai.model, answer.promptTokens, answer.completionTokens, costUsd);
    const findings = parseFindings(answer.content);
    if (!findings.ok) {
      this.logger.warn(`AI provider answer refused, the built-in analyzer answers: ${findings.reason}`);
      return { ...builtIn(`the provider's answer is not usable: ${findings.reason}`), costUsd };
    }
    return { ...findings.findings, answeredBy: 'provider', fallbackReason: null, model: ai.model, costUsd };
  }
}

function parseFindings(content: string): { ok: true; findings: AnalysisFindings } | { ok: false; reason: string } {
  try {
    return readFindings(JSON.parse(content));
  } catch {
    return { ok: false, reason: 'the content is not JSON' };
  }
}

/** The window asked for: ISO instants, `from` before `to`, at most a week; the last hour by default. */
function windowOf(request: { from?: string; to?: string }): [Date, Date] {
  const to = request.to === undefined ? new Date() : new Date(request.to);
  const from = request.from === undefined ? new Date(to.getTime() - 3_600_000) : new Date(request.from);
  const fields: Array<{ field: string; message: string; code: string }> = [];
  if (Number.isNaN(from.getTime())) fields.push({ field: 'from', message: 'from must be an ISO 8601 timestamp', code: 'VALIDATION_ERROR' });
  if (Number.isNaN(to.getTime())) fields.push({ field: 'to', message: 'to must be an ISO 8601 timestamp', code: 'VALIDATION_ERROR' });
  if (fields.length === 0 && (from >= to || to.getTime() - from.getTime() > MAX_WINDOW_MS)) fields.push({ field: 'from', message: 'from must be before to, at most 7 days apart', code: 'VALIDATION_ERROR' });
  if (fields.length > 0) throw DomainError.fromFieldErrors(fields);
  return [from, to];
}
