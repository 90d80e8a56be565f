/** The OS name of the matcher's worker threads (Linux: `top -H`, `perf`, /proc/<pid>/task/<tid>/comm), so that
 * their CPU can be told from the main thread's and from V8's helper threads' (bench/cost.ts reads it). At most 15
 * bytes (the kernel's limit). */
export const MATCHER_THREAD_NAME = 'vs-matcher';
