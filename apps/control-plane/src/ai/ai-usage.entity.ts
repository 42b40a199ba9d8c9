import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One provider call's tokens and cost: what the monthly budget counts. */
@Entity({ name: 'ai_usage' })
export class AiUsageEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  /** UTC `YYYY-MM`. */
  @Column({ type: 'varchar', length: 7 })
  month!: string;

  @Column({ type: 'varchar', length: 200 })
  model!: string;

  @Column({ name: 'prompt_tokens', type: 'integer' })
  promptTokens!: number;

  @Column({ name: 'completion_tokens', type: 'integer' })
  completionTokens!: number;

  @Column({ name: 'cost_usd', type: 'float' })
  costUsd!: number;

  @Column({ name: 'created_at' })
  createdAt!: Date;
}
