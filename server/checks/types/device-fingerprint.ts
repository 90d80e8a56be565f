import { createHash } from 'node:crypto';
import type { CheckTypeDef } from '../check-type.js';
import { elapsedMs, notApplicable } from '../check-type.js';

/** Velocity window for device_fingerprint (docs/decisions.md). */
export const DEVICE_WINDOW_MS = 24 * 3600_000;

/** How many flows one device started in the window (sync flows that send a device only). */
export const deviceFingerprint: CheckTypeDef = {
  type: 'device_fingerprint',
  needs_upload: false,
  reason_codes: {
    device_velocity: {
      description: 'The device created more flows in the window than device_velocity_threshold',
      decide: () => 'MANUAL_REVIEW',
    },
  },
  async run(deps, input) {
    const started = performance.now();
    const threshold = input.policy.device_velocity_threshold;
    if (input.mode !== 'sync' || !input.device) {
      return notApplicable('device_fingerprint', started, {
        reason: input.mode !== 'sync' ? 'device evidence is used only in sync mode' : 'no device given',
      });
    }
    // sliding window log: one member per flow, scored by time; entries older than the window are dropped
    const visitor = createHash('sha256').update(input.device.visitor_id).digest('hex').slice(0, 32);
    const key = `vs:device:${input.tenant_id}:${visitor}`;
    const now = Date.now();
    const res = await deps.redis
      .multi()
      .zremrangebyscore(key, '-inf', now - DEVICE_WINDOW_MS)
      .zadd(key, now, input.flow_id)
      .zcard(key)
      .pexpire(key, DEVICE_WINDOW_MS)
      .exec();
    const count = Number(res?.[2]?.[1] ?? 0);
    const hit = count > threshold;
    return {
      check_type: 'device_fingerprint',
      status: 'completed',
      result: hit ? 'hit' : 'clear',
      signals: hit ? ['device_velocity'] : [],
      latency_ms: elapsedMs(started),
      dataset_versions: [],
      datasets: [],
      evidence: {
        visitor_id_hash: visitor,
        confidence: input.device.confidence ?? null,
        flows_in_window: count,
        window_seconds: DEVICE_WINDOW_MS / 1000,
        threshold,
      },
      error: null,
      alerts: [],
    };
  },
};
