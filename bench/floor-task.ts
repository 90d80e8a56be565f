// bench:floor's "screen": the Piscina hop of the design card with no matching in it (bench/floor-server.ts).
export default function floorTask(task: { name: string }): { name: string; matches: unknown[] } {
  return { name: task.name, matches: [] };
}
