import { api } from "./http";

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
