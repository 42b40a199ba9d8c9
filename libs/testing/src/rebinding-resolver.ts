import type { LookupAddress, LookupAllOptions } from 'node:dns';

/**
 * A resolver in dns.lookup's `all: true` shape that plays a rebinding DNS server: query n gets
 * `answers[n]` (the last one from then on), whatever the name. For tests of outbound checks that
 * must judge the address each socket connects to, not the first answer.
 */
export function rebindingResolver(answers: readonly string[]): (hostname: string, options: LookupAllOptions, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void {
  let queries = 0;
  return (_hostname, _options, callback) => {
    const address = answers[Math.min(queries, answers.length - 1)] as string;
    queries += 1;
    callback(null, [{ address, family: address.includes(':') ? 6 : 4 }]);
  };
}
