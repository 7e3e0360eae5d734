import { api } from "../../../lib/http";
import type { ChargesRange } from "./list-charges";

export const CHARGES_CSV_PATH = "/api/v1/console/charges.csv";

/** Fetches the CSV with the session's bearer token and hands it to the browser as a download. */
export async function downloadChargesCsv(range: ChargesRange, filename: string): Promise<void> {
  const blob = await api<Blob>(CHARGES_CSV_PATH, { query: { ...range }, responseType: "blob" });
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
