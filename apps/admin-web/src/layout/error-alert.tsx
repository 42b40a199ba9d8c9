/** A failure of something the admin just did, announced to screen readers; nothing when none. */
export function ErrorAlert({ message }: { message: string | undefined }) {
  if (message === undefined) return null;
  return (
    <p class="error" role="alert">
      {message}
    </p>
  );
}
