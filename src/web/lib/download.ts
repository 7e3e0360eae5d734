import { beijingDate } from "#shared/beijing-time";
import { api } from "./http";

/**
 * `billing-2027-01-02.csv`: an export is named for today's Beijing day, as the server names it and
 * as every time inside it is written (decision 047). The browser's UTC day named a file exported
 * between 00:00 and 08:00 in Beijing for the day before.
 */
export function exportFilename(name: string, now = new Date()): string {
  return `${name}-${beijingDate(now)}.csv`;
}

/** Fetches a file with the session's bearer token and hands it to the browser as a download. */
export async function downloadFile(path: string, query: Record<string, string | number | undefined>, filename: string): Promise<void> {
  const blob = await api<Blob>(path, { query, responseType: "blob" });
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
