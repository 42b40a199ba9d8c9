import { useEffect, useRef } from 'preact/hooks';

/** Moves focus to a page's heading when it appears, so screen readers announce the new page. */
export function useFocusHeading() {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
  }, []);
  return heading;
}
