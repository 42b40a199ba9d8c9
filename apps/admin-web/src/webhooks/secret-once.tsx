import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * A webhook's signing secret in plain text, this once (create, rotation): it lives only in the
 * parent's state, never in the query cache, and is gone after Done or a reload.
 */
export function SecretOnce({ title, secret, note, onDone }: { title: string; secret: string; note: string; onDone: () => void }) {
  const [copied, setCopied] = useState<string | undefined>(undefined);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  async function copy(): Promise<void> {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('The browser refused the clipboard: select the secret and copy it.');
    }
  }
  return (
    <section class="secret" aria-labelledby="secret-title">
      <h2 id="secret-title" ref={heading} tabIndex={-1}>
        {title}
      </h2>
      <p>{note}</p>
      <code data-testid="webhook-secret">{secret}</code>
      <button type="button" onClick={() => void copy()}>
        Copy secret
      </button>
      <button type="button" class="secondary" onClick={onDone}>
        Done
      </button>
      <span role="status">{copied}</span>
    </section>
  );
}
