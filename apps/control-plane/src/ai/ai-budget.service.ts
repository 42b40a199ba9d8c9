import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { AiUsageEntity } from './ai-usage.entity';

export const monthOf = (date: Date): string => date.toISOString().slice(0, 7);

/** Spend against the monthly budget: every provider call is recorded with its tokens and cost. */
@Injectable()
export class AiBudget {
  constructor(@InjectRepository(AiUsageEntity) private readonly usage: Repository<AiUsageEntity>) {}

  async spentThisMonth(now = new Date()): Promise<number> {
    const rows = await this.usage.find({ where: { month: monthOf(now) }, select: { costUsd: true } });
    return rows.reduce((sum, row) => sum + Number(row.costUsd), 0);
  }

  async record(model: string, promptTokens: number, completionTokens: number, costUsd: number, now = new Date()): Promise<void> {
    await this.usage.insert({ id: randomUUID(), month: monthOf(now), model, promptTokens, completionTokens, costUsd, createdAt: now });
  }
}
