import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Roles } from '../auth/auth.decorators';
import { DomainError } from '../common/domain-error';
import { ok, type SuccessEnvelope } from '../common/envelope';
import { Fails, Ok } from '../openapi/openapi-schemas';
import { AiAnalysis } from './ai-analysis.service';
import { ANALYSIS_REQUEST_SCHEMA, ANALYSIS_SCHEMA, AI_STATUS_SCHEMA } from './ai.openapi';
import type { AnalysisResult } from './analysis-result';
import { readAnalysisRequest } from './analysis-request';

/** Spec 4.5 `/api/ai` (docs/ai.md): admins only (an analysis may spend the budget). */
@ApiTags('ai')
@Roles('admin')
@Controller('api/ai')
export class AiController {
  constructor(private readonly analysis: AiAnalysis) {}

  @Get()
  @ApiOperation({ summary: 'Whether a provider is configured, and the budget spent this month' })
  @Ok(200, AI_STATUS_SCHEMA)
  async status(): Promise<SuccessEnvelope<Awaited<ReturnType<AiAnalysis['status']>>>> {
    return ok(await this.analysis.status());
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Analyse an incident or a time window: summary, likely causes with evidence, suggested runbook actions (never run)' })
  @ApiBody({ schema: ANALYSIS_REQUEST_SCHEMA })
  @Ok(200, ANALYSIS_SCHEMA)
  @Fails(400, 'VALIDATION_ERROR: details.fields names every bad field (incidentId, from, to)')
  @Fails(404, 'AI_INCIDENT_NOT_FOUND: "AI incident not found"')
  async analyse(@Body() body: unknown): Promise<SuccessEnvelope<AnalysisResult>> {
    const read = readAnalysisRequest(body);
    if (!read.ok) throw DomainError.fromFieldErrors(read.errors);
    return ok(await this.analysis.analyse(read.value));
  }
}
