import { useRef } from 'preact/hooks';

/**
 * The latest defined value: while a query asks again (a new key after an action), the page keeps
 * showing what it had instead of unmounting it, so focus, notices and open forms stay put.
 */
export function useLastDefined<T>(value: T | undefined): T | undefined {
  const last = useRef<T | undefined>(value);
  if (value !== undefined) last.current = value;
  return last.current;
}
