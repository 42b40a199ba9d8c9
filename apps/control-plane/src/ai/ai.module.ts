import { Module, type OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AiIncidentsModule } from '../ai-incidents/ai-incidents.module';
import { MonitoringModule } from '../monitoring/monitoring.module';
import { SettingsModule } from '../settings/settings.module';
import { documentSettingsSection } from '../settings/settings-openapi';
import { SettingsSectionRegistry } from '../settings/settings-sections.registry';
import { AiAnalysis } from './ai-analysis.service';
import { AiBudget } from './ai-budget.service';
import { AiSettingsController } from './ai-settings.controller';
import { AI_SETTINGS_SECTION, ASSISTANT_SETTINGS_SECTION } from './ai-settings.section';
import { AiUsageEntity } from './ai-usage.entity';
import { AiController } from './ai.controller';
import { AI_SETTINGS_SCHEMA, ASSISTANT_SETTINGS_SCHEMA } from './ai.openapi';
import { AnalysisContextBuilder } from './analysis-context.builder';
import { ChatCompletionsClient } from './chat-completions.client';
import { SettingsSectionEndpoint } from './settings-section-endpoint.service';

documentSettingsSection(AI_SETTINGS_SECTION.key, AI_SETTINGS_SCHEMA);
documentSettingsSection(ASSISTANT_SETTINGS_SECTION.key, ASSISTANT_SETTINGS_SCHEMA);

/** AI analysis and its settings (docs/ai.md): suggestions only, a built-in analyzer when no provider answers. */
@Module({
  imports: [TypeOrmModule.forFeature([AiUsageEntity]), SettingsModule, AiIncidentsModule, MonitoringModule],
  controllers: [AiController, AiSettingsController],
  providers: [AiAnalysis, AiBudget, AnalysisContextBuilder, ChatCompletionsClient, SettingsSectionEndpoint],
})
export class AiModule implements OnModuleInit {
  constructor(private readonly sections: SettingsSectionRegistry) {}

  onModuleInit(): void {
    this.sections.register(AI_SETTINGS_SECTION);
    this.sections.register(ASSISTANT_SETTINGS_SECTION);
  }
}
