/**
 * A counting semaphore: at most `limit` tasks run at once; a finishing task hands its slot
 * straight to the next waiter.
 * @example const limit = createLimiter(2); await Promise.all(urls.map((u) => limit(() => fetch(u))));
 */
export function createLimiter(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else active++;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}
