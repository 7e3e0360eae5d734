/** "1 unit", "3 units": a count and its noun, for the CLI's sentences. */
export function counted(count: number | bigint, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 || count === 1n ? noun : plural}`;
}
