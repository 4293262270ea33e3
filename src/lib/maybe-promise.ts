/**
 * A value now or later. The access layer's shared-state interfaces (quota ledger, rate limiter,
 * key lookup) answer synchronously in process and asynchronously over a network store; callers
 * stay synchronous on the first (no microtask per request) and await only the second.
 */
export type MaybePromise<T> = T | Promise<T>;

/**
 * Applies `next` to the value: at once when it is there, after it resolves when it is a promise.
 * @example then(ledger.usedThisMonth(s, now), (used) => limit - used)
 */
export function then<T, R>(value: MaybePromise<T>, next: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
