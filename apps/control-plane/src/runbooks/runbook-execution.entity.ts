import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { EventFacts } from '../gateway-events/event-facts';
import type { ActionOutcome, RunbookActionSpec } from './runbook-action';

export const EXECUTION_STATUSES = ['pending_approval', 'running', 'succeeded', 'failed', 'rejected', 'expired', 'skipped', 'dry_run', 'rolled_back'] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

/** One action's record in an execution: what it was, what it did, and what happened afterwards. */
export interface ActionResult {
  index: number;
  type: string;
  action: RunbookActionSpec;
  /** `planned` before the run; `dry_run` when it only said what it would do. */
  status: 'planned' | 'dry_run' | ActionOutcome['status'];
  description: string;
  outcome?: ActionOutcome;
  followedUp?: { at: string; message: string };
  undone?: { at: string; message: string };
}

/**
 * One match of a runbook with one event (unique per runbook and event id, so instances that all
 * hear the event record it once). A state machine: pending_approval -> running -> succeeded |
 * failed -> rolled_back; or pending_approval -> rejected | expired; or skipped / dry_run at once.
 */
@Entity({ name: 'runbook_executions' })
export class RunbookExecutionEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'runbook_id', type: 'varchar', length: 36 })
  runbookId!: string;

  @Column({ name: 'runbook_name', type: 'varchar', length: 100 })
  runbookName!: string;

  @Column({ name: 'event_id', type: 'varchar', length: 64 })
  eventId!: string;

  @Column({ name: 'event_type', type: 'varchar', length: 100 })
  eventType!: string;

  @Column({ type: 'simple-json' })
  event!: EventFacts;

  @Column({ type: 'varchar', length: 24 })
  status!: ExecutionStatus;

  @Column({ name: 'dry_run', type: 'boolean' })
  dryRun!: boolean;

  /** Per action; for a skipped execution, one entry-less list and the reason in `reason`. */
  @Column({ type: 'simple-json' })
  results!: { reason?: string; actions: ActionResult[] };

  @Column({ name: 'decided_by', type: 'varchar', length: 320, nullable: true })
  decidedBy!: string | null;

  @Column({ name: 'decided_at', type: Date, nullable: true })
  decidedAt!: Date | null;

  /** An approval request's end. */
  @Column({ name: 'expires_at', type: Date, nullable: true })
  expiresAt!: Date | null;

  /** When rollbackAfterMinutes undoes the actions. */
  @Column({ name: 'rollback_at', type: Date, nullable: true })
  rollbackAt!: Date | null;

  /** The next instant the scheduler has work on this row (expiry, follow-up, rollback); null: none. */
  @Column({ name: 'next_due_at', type: Date, nullable: true })
  nextDueAt!: Date | null;

  @Column({ name: 'created_at' })
  createdAt!: Date;

  @Column({ name: 'updated_at' })
  updatedAt!: Date;
}
