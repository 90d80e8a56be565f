import { Redis } from 'ioredis';

export async function connectRedis(url: string): Promise<Redis> {
  // no offline queue and a command timeout: while Redis is unreachable a command fails at once (503 with
  // Retry-After for the request) instead of waiting in a queue for a reconnection
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    commandTimeout: 1500,
    connectTimeout: 2000,
  });
  // fail fast at boot with one clear error instead of retrying forever in the background
  redis.on('error', () => {});
  await redis.connect();
  return redis;
}
