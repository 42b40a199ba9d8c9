import { IsBoolean, IsInt, IsNumber, IsOptional, IsString, Length, Matches, Max, MaxLength, Min } from 'class-validator';
import type { SettingsSection } from '../settings/settings-section';

/** `ai` in /api/settings (and GET/PUT /api/settings/ai): the OpenAI-compatible provider. */
export class AiSettings {
  /** null: no provider, the built-in analyzer answers. Chat completions are POSTed to `${baseUrl}/chat/completions`. */
  @IsOptional()
  @IsString({ message: 'baseUrl must be a string' })
  @MaxLength(2048, { message: 'baseUrl must be at most 2048 characters' })
  @Matches(/^https?:\/\/[^\s/@]+(\/[^\s]*)?$/, { message: 'baseUrl must be an http(s) URL without credentials, such as https://api.openai.com/v1' })
  baseUrl!: string | null;

  @IsString({ message: 'model must be a string' })
  @Length(1, 200, { message: 'model must be 1 to 200 characters' })
  model!: string;

  /** Write-only: sealed at rest, shown masked. */
  @IsOptional()
  @IsString({ message: 'apiKey must be a string' })
  @MaxLength(1000, { message: 'apiKey must be at most 1000 characters' })
  apiKey!: string | null;

  @IsInt({ message: 'timeoutMs must be an integer' })
  @Min(1000, { message: 'timeoutMs must be between 1000 and 120000' })
  @Max(120_000, { message: 'timeoutMs must be between 1000 and 120000' })
  timeoutMs!: number;

  @IsInt({ message: 'maxTokens must be an integer' })
  @Min(100, { message: 'maxTokens must be between 100 and 32000' })
  @Max(32_000, { message: 'maxTokens must be between 100 and 32000' })
  maxTokens!: number;

  @IsNumber({}, { message: 'monthlyBudgetUsd must be a number' })
  @Min(0, { message: 'monthlyBudgetUsd must be between 0 and 100000' })
  @Max(100_000, { message: 'monthlyBudgetUsd must be between 0 and 100000' })
  monthlyBudgetUsd!: number;

  @IsNumber({}, { message: 'inputUsdPerMillionTokens must be a number' })
  @Min(0, { message: 'inputUsdPerMillionTokens must be between 0 and 1000' })
  @Max(1000, { message: 'inputUsdPerMillionTokens must be between 0 and 1000' })
  inputUsdPerMillionTokens!: number;

  @IsNumber({}, { message: 'outputUsdPerMillionTokens must be a number' })
  @Min(0, { message: 'outputUsdPerMillionTokens must be between 0 and 1000' })
  @Max(1000, { message: 'outputUsdPerMillionTokens must be between 0 and 1000' })
  outputUsdPerMillionTokens!: number;

  /** Client addresses stay out of the context unless this is true. */
  @IsBoolean({ message: 'includeClientAddresses must be a boolean' })
  includeClientAddresses!: boolean;
}

/** `assistant` in /api/settings (and GET/PUT /api/settings/assistant): how the configured model is asked. */
export class AssistantSettings {
  @IsNumber({}, { message: 'temperature must be a number' })
  @Min(0, { message: 'temperature must be between 0 and 2' })
  @Max(2, { message: 'temperature must be between 0 and 2' })
  temperature!: number;

  @IsString({ message: 'extraInstructions must be a string' })
  @MaxLength(4000, { message: 'extraInstructions must be at most 4000 characters' })
  extraInstructions!: string;
}

export const AI_SECTION_KEY = 'ai';
export const ASSISTANT_SECTION_KEY = 'assistant';

export const AI_SETTINGS_SECTION: SettingsSection<AiSettings> = {
  key: AI_SECTION_KEY,
  schema: AiSettings,
  defaults: () => ({ baseUrl: null, model: 'gpt-4o-mini', apiKey: null, timeoutMs: 20_000, maxTokens: 1500, monthlyBudgetUsd: 20, inputUsdPerMillionTokens: 0.15, outputUsdPerMillionTokens: 0.6, includeClientAddresses: false }),
  secretFields: ['apiKey'],
};

export const ASSISTANT_SETTINGS_SECTION: SettingsSection<AssistantSettings> = {
  key: ASSISTANT_SECTION_KEY,
  schema: AssistantSettings,
  defaults: () => ({ temperature: 0.2, extraInstructions: '' }),
};
