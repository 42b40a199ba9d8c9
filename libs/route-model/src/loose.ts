/**
 * A value as cross-field rules see it after a walk: any field may be missing, because a field
 * that failed its own check is left out (and already reported).
 */
export type Loose<T> = T extends ReadonlyArray<infer U> ? ReadonlyArray<Loose<U>> : T extends object ? { readonly [K in keyof T]?: Loose<T[K]> } : T;
