import { Redis } from 'ioredis';

export async function connectRedis(url: string): Promise<Redis> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: true });
  // fail fast at boot with one clear error instead of retrying forever in the background
  redis.on('error', () => {});
  await redis.connect();
  return redis;
}
