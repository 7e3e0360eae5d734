const BEIJING_OFFSET_MS = 8 * 3600_000;

/** A moment as Beijing time with its offset written, the way operators read times: `2027-01-01 23:59:59 +08:00`. */
export function beijingDateTime(at: Date): string {
  const local = new Date(at.getTime() + BEIJING_OFFSET_MS).toISOString();
  return `${local.slice(0, 10)} ${local.slice(11, 19)} +08:00`;
}
