import type { RunbookExecution } from './ops-types';

/** Each action of an execution with its result: what it was to do, the outcome, the follow-up and undo. */
export function ExecutionActions({ execution }: { execution: RunbookExecution }) {
  const actions = execution.actions ?? [];
  if (actions.length === 0) return <span>—</span>;
  return (
    <ol class="action-results">
      {actions.map((action, index) => (
        <li key={index}>
          <span>{action.description ?? action.type}</span>
          {action.outcome !== undefined && (
            <span class={`outcome outcome-${action.outcome.status ?? 'unknown'}`}>
              {' '}
              — {action.outcome.status}
              {action.outcome.code !== undefined ? ` (${action.outcome.code})` : ''}
              {action.outcome.message !== undefined ? `: ${action.outcome.message}` : ''}
            </span>
          )}
          {action.followedUp !== undefined && <span> Followed up: {action.followedUp.message}</span>}
          {action.undone !== undefined && <span> Undone: {action.undone.message}</span>}
        </li>
      ))}
    </ol>
  );
}

export const EXECUTION_STATUS_TEXT: Record<NonNullable<RunbookExecution['status']>, string> = {
  pending_approval: 'Waiting for approval',
  running: 'Running',
  succeeded: 'Succeeded',
  failed: 'Failed',
  rejected: 'Rejected',
  expired: 'Expired',
  skipped: 'Skipped',
  dry_run: 'Dry run',
  rolled_back: 'Rolled back',
};
