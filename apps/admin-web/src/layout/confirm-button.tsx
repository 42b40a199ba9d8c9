import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * A destructive or deciding button that asks once more: the first press shows "Confirm …" (focused)
 * and Cancel; only the second press acts. Neither press is offered while the row is `busy`, nor
 * when the row does not allow the action (`disabled`).
 */
export function ConfirmButton({
  label,
  confirmLabel,
  accessibleName,
  busy,
  disabled = false,
  danger = true,
  onConfirm,
}: {
  label: string;
  confirmLabel: string;
  accessibleName?: string;
  busy: boolean;
  disabled?: boolean;
  danger?: boolean;
  onConfirm: () => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirming) confirm.current?.focus();
  }, [confirming]);
  if (!confirming) {
    return (
      <button type="button" class={danger ? 'danger' : ''} disabled={disabled || busy} onClick={() => setConfirming(true)} aria-label={accessibleName}>
        {label}
      </button>
    );
  }
  return (
    <span class="actions">
      <button
        key="confirm"
        type="button"
        class={danger ? 'danger' : ''}
        ref={confirm}
        disabled={busy}
        onClick={() => {
          setConfirming(false);
          onConfirm();
        }}
      >
        {confirmLabel}
      </button>
      <button key="cancel" type="button" class="secondary" onClick={() => setConfirming(false)}>
        Cancel
      </button>
    </span>
  );
}
