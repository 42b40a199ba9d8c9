/** The error of an action, announced to screen readers; nothing while there is none. */
export function ErrorAlert({ message }: { message: string | undefined }) {
  if (message === undefined) return null;
  return (
    <p class="error" role="alert">
      {message}
    </p>
  );
}
