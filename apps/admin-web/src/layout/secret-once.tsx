import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * A secret in plain text, this once (a new API key, a webhook's signing secret at creation or
 * rotation): it lives only in the parent's state, never in the query cache, and is gone after Done
 * or a reload. `noun` names it on the copy button and in the clipboard's refusal.
 */
export function SecretOnce({ title, secret, note, noun, testId, onDone }: { title: string; secret: string; note: string; noun: 'key' | 'secret'; testId: string; onDone: () => void }) {
  const [copied, setCopied] = useState<string | undefined>(undefined);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  async function copy(): Promise<void> {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied(`The browser refused the clipboard: select the ${noun} and copy it.`);
    }
  }
  return (
    <section class="secret" aria-labelledby="secret-title">
      <h2 id="secret-title" ref={heading} tabIndex={-1}>
        {title}
      </h2>
      <p>{note}</p>
      <code data-testid={testId}>{secret}</code>
      <button type="button" onClick={() => void copy()}>
        Copy {noun}
      </button>
      <button type="button" class="secondary" onClick={onDone}>
        Done
      </button>
      <span role="status">{copied}</span>
    </section>
  );
}
